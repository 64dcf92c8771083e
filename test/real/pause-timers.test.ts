// A pause of a client triggered by its own event: the code after the event runs on to its
// next wait before the stop (as a simulated process finishes the triggering event), so a
// timer it armed runs through the pause and fires as the process wakes — real Node's
// behaviour, and the simulator's. naive-extend-after-pause depends on it: c1's 400 ms work
// timer, armed at its ok read, has run out when its 750 ms pause ends, so it extends at
// once, before the 1000 ms TTL; held before its work began it would extend at ~1150 ms and
// fail against c2. The simulator and every real run must agree: safe, c1's extend ok.
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { afterAll, describe, expect, it } from "vitest";
import { loadScenarioFile } from "../../scenarios/index.js";
import { runScenario } from "../../harness/runner.js";
import { runCheckers } from "../../checkers/run-all.js";
import { checkContextFor } from "../../harness/check-context.js";
import type { HistoryEvent } from "../../sim/history.js";
import { planReal } from "../../real/index.js";
import { runRealChecked } from "../helpers/real-run.js";
import { hangBoundMs } from "../helpers/hang-bound.js";

const here = dirname(fileURLToPath(import.meta.url));
const scenario = loadScenarioFile(join(here, "fixtures/naive-extend-after-pause.json"));
const scratch = mkdtempSync(join(tmpdir(), "lockstep-pause-timers-test-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** c1's extend outcome, and when it was invoked relative to the pause's end (µs). */
function c1Extend(history: readonly HistoryEvent[]): { type: string; afterPauseEndUs: number } {
  const end = history.find((e) => e.process === "nemesis" && (e.value as { phase?: string })?.phase === "end")!;
  const inv = history.find((e) => e.process === "c1" && e.f === "extend" && e.type === "invoke")!;
  const done = history.find((e) => e.process === "c1" && e.f === "extend" && e.type !== "invoke")!;
  return { type: done.type, afterPauseEndUs: inv.timeUs - end.timeUs };
}

describe("real mode: a client's timers run through its own pause, as in the simulator", () => {
  it(
    "naive-extend-after-pause: the simulator and 3 real runs agree — safe, c1 extends as it wakes, and the extend succeeds",
    async () => {
      const sim = runScenario(scenario, scenario.seed);
      const simVerdict = runCheckers(sim.history, checkContextFor(scenario));
      expect(simVerdict.outcome).toBe("safe");
      const simExtend = c1Extend(sim.history);
      expect(simExtend.type).toBe("ok");
      expect(simExtend.afterPauseEndUs).toBeLessThan(1_000);

      const plan = planReal(scenario, 1);
      for (let i = 1; i <= 3; i++) {
        const { run, record } = await runRealChecked(plan, { seed: scenario.seed, parentDir: scratch }, `run ${i}`);
        expect(record.verdicts.outcome, `run ${i}`).toBe(simVerdict.outcome);
        const real = c1Extend(run.history);
        expect(real.type, `run ${i}: c1's extend`).toBe("ok");
        // The work timer ran out during the pause: the extend follows the wake-up, not 400 ms of work later.
        expect(real.afterPauseEndUs, `run ${i}`).toBeLessThan(200_000);
      }
    },
    hangBoundMs(300_000),
  );
});
