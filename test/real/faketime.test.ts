// Client clock faults under libfaketime (real/faketime.ts): a jump is visible in the child's
// own Date.now() (and not in its monotonic clock), clocks.<client> offsets and rates are
// seen by the child, and the clock-back fixture is unsafe against the real redlock 4.2.0
// while its steady control is safe. Every run leaves no process behind.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { loadScenario } from "../../scenarios/index.js";
import { planReal } from "../../real/index.js";
import { ClientClockFile, faketimeLine, wallStepMs } from "../../real/faketime.js";
import { inputErrorOf } from "../helpers/input-error.js";
import { runRealChecked } from "../helpers/real-run.js";
import { hangBoundMs } from "../helpers/hang-bound.js";

const suiteStart = Date.now();
const scratch = mkdtempSync(join(tmpdir(), "lockstep-real-faketime-test-"));
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
  console.log(`real mode (client clocks): file wall time ${((Date.now() - suiteStart) / 1000).toFixed(1)} s`);
});
const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}.json`, import.meta.url));

describe("libfaketime timestamp file", () => {
  it("writes libfaketime's relative form: seconds with a sign, and a rate only for drift", () => {
    expect(faketimeLine({ offsetMs: -1500, driftPpm: 0 })).toBe("-1.500\n");
    expect(faketimeLine({ offsetMs: 250, driftPpm: 50_000 })).toBe("+0.250 x1.050000\n");
  });

  it("a rewrite moves a running Node process's Date.now(), not its hrtime", () => {
    const f = new ClientClockFile(scratch, { offsetMs: 0, driftPpm: 0 });
    // One child: read both clocks, ask for the rewrite (stdout line), wait for it, read again.
    const script = `
      const fs = require("fs");
      const read = () => ({ hrNs: process.hrtime.bigint().toString(), wallMs: Date.now() });
      const a = read();
      fs.writeFileSync(${JSON.stringify(f.path)}, "-2.000\\n");
      const b = read();
      process.stdout.write(JSON.stringify({ a, b }));`;
    const out = JSON.parse(
      execFileSync(process.execPath, ["-e", script], { env: { ...process.env, ...f.env() }, encoding: "utf8", timeout: hangBoundMs(10_000) }),
    ) as {
      a: { hrNs: string; wallMs: number };
      b: { hrNs: string; wallMs: number };
    };
    const step = wallStepMs({ hrNs: BigInt(out.a.hrNs), wallMs: out.a.wallMs }, { hrNs: BigInt(out.b.hrNs), wallMs: out.b.wallMs });
    expect(Math.abs(step - -2000)).toBeLessThanOrEqual(5);
  });
});

describe("real mode: client clock faults (libfaketime)", () => {
  it(
    "redlock-client-clock-back: the child's Date.now() steps back 1 s at the gate; unsafe with redlock 4.2.0; every process gone",
    async () => {
      const t0 = Date.now();
      const scenario = loadScenario(fixture("redlock-client-clock-back"));
      const plan = planReal(scenario, 1);
      expect(plan.fakeClocks).toEqual({ c1: { offsetMs: 0, driftPpm: 0 } });
      const { run, record } = await runRealChecked(plan, { seed: scenario.seed, parentDir: scratch });
      const jump = record.real.faults.find((f) => f.kind === "clock-jump")!;
      expect(Math.abs(jump.wall!.stepMs - -1000)).toBeLessThanOrEqual(5);
      expect(jump.wall!.afterMs).toBeLessThan(jump.wall!.beforeMs);
      expect(record.real.checks.find((c) => c.name === "client clock jumps seen by the child")!.ok).toBe(true);
      // The jump was in force before c1 went on past its read (a gate).
      const readOk = run.history.find((e) => e.process === "c1" && e.f === "read" && e.type === "ok")!;
      expect(jump.startUs).toBeGreaterThanOrEqual(readOk.timeUs);
      expect(jump.releasedUs!).toBeGreaterThanOrEqual(jump.stoppedUs!);
      expect(run.history.some((e) => e.process === "c1" && e.f === "write" && e.type === "ok")).toBe(true);
      expect(record.verdicts.outcome).toBe("unsafe");
      console.log(`real mode test: redlock-client-clock-back: wall ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    },
    hangBoundMs(240_000),
  );

  it(
    "redlock-client-clock-steady, with c2's clock offset −5 s and 5% fast: the child sees both; c1 skips its write; safe",
    async () => {
      const base = loadScenario(fixture("redlock-client-clock-steady"));
      const scenario = { ...base, clocks: { c2: { offsetMs: -5000, driftPpm: 50_000 } } };
      const plan = planReal(scenario, 1);
      const { run, record } = await runRealChecked(plan, { seed: scenario.seed, parentDir: scratch });
      expect(record.real.checks.find((c) => c.name === "client clock offsets seen by the child")!.detail).toMatch(/^c2: offset -\d+ ms .*rate \d+ ppm/);
      expect(run.history.some((e) => e.process === "c1" && e.f === "write-skipped")).toBe(true);
      expect(record.verdicts.outcome).toBe("safe");
    },
    hangBoundMs(240_000),
  );

  it("refuses a server's clock offset, naming the field", () => {
    const s = loadScenario(fixture("redlock-client-clock-steady"));
    expect(inputErrorOf(() => planReal({ ...s, clocks: { "redis-1": { offsetMs: 10, driftPpm: 0 } } }, 1)).message).toMatch(
      /clocks\.redis-1: real mode cannot run this: clock offsets and drift of a server/,
    );
  });
});
