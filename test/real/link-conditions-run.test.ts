// redlock-slow-acquire for real: five redis-servers, the real redlock package, redis-5's
// replies to c1 delayed 990 ms by c1's proxy for the first 2.5 s. What must hold on every run:
// while the delay lasts, each of c1's attempts waits ~990 ms for redis-5, longer than the
// lock's validity (1000 ms less node-redlock's 12 ms drift), so c1 is granted nothing until
// the delay is over; c2, whose links are plain, takes the lock meanwhile. Safe. The margins:
// c1's grant can only come after 2.5 s; c2's first grant comes after c1's first attempt
// frees the keys (~1 s), 1.5 s before that. Then split-vote-redlock-jitter, whose standing
// network.links (1, 10, 40 ms) must be in force from t0.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadScenario } from "../../scenarios/index.js";
import type { HistoryEvent } from "../../sim/history.js";
import { planReal } from "../../real/index.js";
import { runRealChecked } from "../helpers/real-run.js";

const scratch = mkdtempSync(join(tmpdir(), "lockstep-link-conditions-run-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("real mode: delay steps and standing link conditions on the proxies (×1)", () => {
  it("redlock-slow-acquire: c1 is granted nothing while redis-5's replies crawl; c2 takes the lock meanwhile; safe, every run check holding", async () => {
    const scenario = loadScenario("redlock-slow-acquire");
    const plan = planReal(scenario);
    const { run, record } = await runRealChecked(plan, { seed: scenario.seed, parentDir: scratch });
    expect(record.verdicts.outcome).toBe("safe");

    const delay = record.real.faults.find((f) => f.kind === "delay")!;
    expect(delay.startUs, "in force from t0").toBe(0);
    expect(delay.stoppedUs!, "put in force before t0").toBeLessThanOrEqual(0);
    expect(delay.resumedUs!).toBeGreaterThanOrEqual(2_500_000);
    const h: readonly HistoryEvent[] = run.history;
    const oks = (p: string) => h.filter((e) => e.process === p && e.f === "acquire" && e.type === "ok");
    expect(h.filter((e) => e.process === "nemesis" && e.f === "delay").map((e) => (e.value as { phase: string }).phase)).toEqual(["start", "end"]);
    const c2first = oks("c2")[0];
    expect(c2first, "c2 is granted during the delay").toBeDefined();
    expect(c2first!.timeUs).toBeLessThan(2_500_000);
    for (const ok of oks("c1")) expect(ok.timeUs, "c1's grants come after the delay ended").toBeGreaterThanOrEqual(delay.resumedUs!);
  });

  it("split-vote-redlock-jitter: the standing 40 ms link to redis-3 is in force (every grant waited out the 50 ms timeout); safe", async () => {
    const scenario = loadScenario("split-vote-redlock-jitter");
    const plan = planReal(scenario);
    const { run, record } = await runRealChecked(plan, { seed: scenario.seed, parentDir: scratch });
    expect(record.verdicts.outcome).toBe("safe");
    const grants = run.history.filter((e) => e.f === "acquire" && e.type === "ok");
    expect(grants.length, "the lock changed hands").toBeGreaterThan(5);
    // redis-3's reply takes 80 ms, past the 50 ms timeout, so no attempt ends sooner: validity ≤ 1000 − 50 − 12 (drift) ms, +1 for Date.now()'s rounding.
    for (const g of grants) expect((g.value as { validityMs: number }).validityMs).toBeLessThanOrEqual(939);
  });
});
