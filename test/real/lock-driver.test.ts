// A lock driver of another language in real mode (docs/lock-protocol.md): redis-py's Lock
// (examples/python-redis-py/driver.py) on a real redis-server under the seeds' GC pause — the
// pause stops the client's process and its driver's whole group, so the holder writes after
// its lease ran out and the run is unsafe, as the simulator's; and what a driver that fails
// does to a run: one line naming the driver and what it did, every process gone, no temp
// dir, even when lockstep itself is SIGKILLed with the driver stopped in a pause.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { loadScenario, loadScenarioFile } from "../../scenarios/index.js";
import { withLockDriver } from "../../scenarios/with-lock-driver.js";
import { planReal } from "../../real/index.js";
import { runRealOnce } from "../../real/run.js";
import { RealRunError } from "../../real/errors.js";
import { OWNER_FILE, sweepDeadRuns, type OwnerRecord } from "../../real/servers/index.js";
import { groupMembers } from "../../real/servers/server-process.js";
import { isGone, startDriver, until } from "../helpers/processes.js";
import { runRealChecked } from "../helpers/real-run.js";
import { hangBoundMs } from "../helpers/hang-bound.js";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "../..");
const scratch = mkdtempSync(join(tmpdir(), "lockstep-lock-driver-test-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const PY_DRIVER = "python3 examples/python-redis-py/driver.py";
const misbehaving = (mode: string) => `python3 test/fixtures/drivers/misbehaving.py ${mode}`;

/** Two clients, one op each, a 200 ms lease: long enough to meet a misbehaving driver, short to end. */
function shortScenario(): string {
  const file = join(scratch, "two-clients.json");
  writeFileSync(
    file,
    JSON.stringify({
      name: "two-clients",
      story: "c1 and c2 take the lock once each",
      design: "redis-setnx",
      expect: "safe",
      seed: 1,
      durationMs: 600,
      clients: [
        { id: "c1", startMs: 0, opsMax: 1 },
        { id: "c2", startMs: 10, opsMax: 1 },
      ],
      workload: { locks: ["order:123"], ttlMs: 200, waitMs: 300, workMs: 5, thinkMs: 0, thinkJitterMs: 0 },
      faults: [],
    }),
  );
  return file;
}

function stateOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
  } catch {
    return undefined;
  }
}

describe("real mode: redis-py's Lock through the line protocol", () => {
  it(
    "naive-gc-pause (×0.2): the pause stops c1 and its driver; c1 writes after c2 took the lock (unsafe, as in the simulator); the drivers are gone",
    async () => {
      const scenario = withLockDriver(loadScenario("naive-gc-pause"), PY_DRIVER, root);
      const { run, record } = await runRealChecked(planReal(scenario, 0.2), { seed: scenario.seed, parentDir: scratch });
      expect(record.verdicts.outcome).toBe("unsafe");
      const c1 = record.real.clients.find((c) => c.id === "c1")!;
      expect(c1.packages).toMatchObject({ "redis-py": expect.stringMatching(/^\d/), python: expect.stringMatching(/^3\./) });
      expect(c1.notes?.join(" ")).toMatch(/lock driver `python3 examples\/python-redis-py\/driver.py` \(pid \d+\), protocol 1: redis-py Lock/);
      // c1's driver was stopped with it: its pause was confirmed whole, and its write came after c2's.
      expect(record.real.faults[0]).toMatchObject({ kind: "pause", target: "c1", stoppedUs: expect.any(Number) });
      const writes = run.history.filter((e) => e.f === "write" && e.type === "ok").map((e) => e.process);
      expect(writes).toEqual(["c2", "c1"]);
      // pidsEver holds each driver's group id (its leader's pid): runRealChecked found them gone.
      expect(run.pidsEver.length).toBeGreaterThan(6);
    },
    hangBoundMs(240_000),
  );
});

describe("real mode: a lock driver that fails", () => {
  it(
    "crashes, prints what is not the protocol, hangs, or counts its validity on another clock: the run stops with one line naming the driver and what it did; nothing is left",
    async () => {
      const file = shortScenario();
      const stopped = async (mode: string): Promise<{ message: string; dirs: string[] }> => {
        const parent = join(scratch, mode);
        mkdirSync(parent);
        const plan = planReal(withLockDriver(loadScenarioFile(file), misbehaving(mode), root), 1);
        const err = await runRealOnce(plan, { run: 1, runs: 1, seed: 1, parentDir: parent }).then(
          () => new Error("the run ended normally"),
          (e: unknown) => e as Error,
        );
        expect(err, `${mode}: ${err.message}`).toBeInstanceOf(RealRunError);
        return { message: err.message, dirs: readdirSync(parent) };
      };
      const [crash, garbage, hang, mono] = await Promise.all([stopped("crash"), stopped("garbage"), stopped("hang"), stopped("mono")]);
      for (const r of [crash, garbage, hang, mono]) {
        expect(r.message).not.toMatch(/\n/);
        expect(r.dirs).toEqual([]); // the run's temp dir removed
      }
      expect(crash.message).toMatch(
        /^client c1 failed: its lock driver `python3 test\/fixtures\/drivers\/misbehaving.py crash` exited with code 3; its last stderr line: "driver: giving up on purpose"$/,
      );
      expect(garbage.message).toMatch(
        /^client c1 failed: its lock driver `.*misbehaving.py garbage` printed a line that is not the protocol's \(line 3 of its stdout: "acquired it, I think"\): expected one JSON object per line$/,
      );
      // A validity counted from a clock that is not CLOCK_MONOTONIC (here the wall clock) would misplace the belief.
      expect(mono.message).toMatch(
        /^client c1 failed: its lock driver `.*misbehaving.py mono` answered acquire with monoMs [\d.]+, outside the request's round trip/,
      );
      expect(hang.message).toMatch(
        /^client c1's lock driver `.*misbehaving.py hang` did not answer a clock request at the run's end within \d+ ms .*: it hangs/,
      );
      await until("no misbehaving driver left", () => !/misbehaving\.py/.test(psOutput()), 10_000);
    },
    hangBoundMs(300_000),
  );

  it(
    "lockstep SIGKILLed while c1 and its driver are stopped in a pause: the driver's watcher kills its group",
    async () => {
      const tmp = join(scratch, "sigkill");
      mkdirSync(tmp);
      const script = join(scratch, "driver-killed.mts");
      writeFileSync(
        script,
        [
          `import { main } from ${JSON.stringify(join(root, "cli/main.ts"))};`,
          `process.exitCode = await main(["real", "naive-gc-pause", "--lock-cmd", ${JSON.stringify(PY_DRIVER)}, "--out", ${JSON.stringify(join(scratch, "killed-out"))}]);`,
          "",
        ].join("\n"),
      );
      const { child, exited } = await startDriver(script, root, tmp, 60_000);
      const [runDir] = readdirSync(tmp);
      const ownerPids = () => (JSON.parse(readFileSync(join(tmp, runDir!, OWNER_FILE), "utf8")) as OwnerRecord).pids;
      const python = () => ownerPids().filter((p) => existsSync(`/proc/${p}`) && readFileSync(`/proc/${p}/cmdline`, "utf8").includes("driver.py"));
      // naive-gc-pause at ×1: c1 is stopped for 15 s from its read; wait for its driver to be shown stopped.
      await until("c1's driver stopped in its pause", () => python().some((p) => stateOf(p) === "T"), 60_000);
      const drivers = python();
      child.kill("SIGKILL");
      await exited;
      // Each driver's whole group (sh and python3), stopped as it was, is killed by its watcher.
      await until("every driver's group gone", () => drivers.every((g) => groupMembers(g).length === 0), 10_000);
      await until("every process of the run gone", () => ownerPids().every(isGone), 10_000);
      expect(sweepDeadRuns(tmp).removedDirs).toHaveLength(1);
    },
    hangBoundMs(300_000),
  );
});

function psOutput(): string {
  return readdirSync("/proc")
    .filter((e) => /^\d+$/.test(e))
    .map((e) => {
      try {
        return readFileSync(`/proc/${e}/cmdline`, "utf8");
      } catch {
        return "";
      }
    })
    .join("\n");
}
