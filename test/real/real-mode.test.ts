// Real mode end to end: shipped scenarios against real redis-servers with real ioredis (and
// the real redlock package), judged by the simulator's checkers; and — as for the servers —
// nothing left running afterwards, including after a SIGINT mid-run.
//
// Why naive-gc-pause is unsafe on every run, not just most: the pause is triggered where it
// cannot race. c1's read request reaches the in-driver storage; the driver applies it,
// SIGSTOPs c1, waits until /proc shows c1 stopped, and only then sends the reply (the run
// checks "pauses stopped their targets" and "held replies left after the stop" assert it
// per run). What remains is timing the scenario itself sets, with wide margins at ×0.2:
// c1 starts 200 ms before c2 (so c1 holds first), and c2 has ~1 s between the key's expiry
// (2 s) and c1's wake-up (3 s) to take the lock and write. Each test asserts those margins
// from the history, so a failure says which one a loaded machine ate.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { loadTolerantMs } from "../../real/servers/deadlines.js";
import { afterAll, describe, expect, it } from "vitest";
import { main } from "../../cli/main.js";
import { EXIT } from "../../harness/exit-codes.js";
import { loadScenario } from "../../scenarios/index.js";
import type { HistoryEvent } from "../../sim/history.js";
import { planReal, type RealRunRecord } from "../../real/index.js";
import { lapseTime } from "../../real/history.js";
import { scaleScenario } from "../../real/time-scale.js";
import { inputErrorOf } from "../helpers/input-error.js";
import { captureStdio } from "../helpers/capture-stdio.js";
import { descendants, isGone, startDriver, until } from "../helpers/processes.js";
import { runRealChecked } from "../helpers/real-run.js";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "../..");
const suiteStart = Date.now();
const timings: string[] = [];
const scratch = mkdtempSync(join(tmpdir(), "lockstep-real-mode-test-"));

afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
  console.log(`real mode: ${timings.join(", ")}; suite wall time ${((Date.now() - suiteStart) / 1000).toFixed(1)} s`);
});

async function timed<T>(label: string, fn: () => Promise<T>): Promise<T> {
  const t0 = Date.now();
  try {
    return await fn();
  } finally {
    const ms = Date.now() - t0;
    timings.push(`${label} ${(ms / 1000).toFixed(1)} s`);
    console.log(`real mode test: ${label}: wall ${(ms / 1000).toFixed(1)} s`);
  }
}

/** Run a scenario for real `runs` times through the library API; every pid of every run is checked gone after it. */
async function realRuns(name: string, runs: number, timeScale: number): Promise<Array<{ record: RealRunRecord; history: HistoryEvent[] }>> {
  const scenario = loadScenario(name);
  const plan = planReal(scenario, timeScale);
  const out: Array<{ record: RealRunRecord; history: HistoryEvent[] }> = [];
  for (let i = 1; i <= runs; i++) {
    const { run, record } = await runRealChecked(plan, { run: i, runs, seed: scenario.seed + i - 1, parentDir: scratch }, `run ${i}`);
    out.push({ record, history: run.history });
  }
  return out;
}

const first = (h: readonly HistoryEvent[], p: (e: HistoryEvent) => boolean): HistoryEvent | undefined => h.find(p);

describe("real mode: redis-setnx on a real redis-server with ioredis", () => {
  it("naive-baseline (×0.1): safe on every run, with every checker passing", async () => {
    const runs = await timed("naive-baseline ×2 at 0.1", () => realRuns("naive-baseline", 2, 0.1));
    for (const [i, { record }] of runs.entries()) {
      expect(record.verdicts.outcome, `run ${i + 1}`).toBe("safe");
      for (const c of record.verdicts.results) expect(c.valid, `run ${i + 1}: ${c.checker}: ${c.summary}`).toBe(true);
      expect(record.real.replayable).toBe(false);
      expect(record.real.clients.every((c) => c.packages.ioredis === "6.0.0")).toBe(true);
      expect(record.real.servers[0]!.version).toMatch(/^\d+\.\d+\.\d+$/);
      // Real contention, not a trivial history: many grants, handed over between clients.
      const grants = record.verdicts.results.find((c) => c.checker === "mutual-exclusion")!.summary;
      expect(Number(/^(\d+) holds/.exec(grants)?.[1] ?? 0), grants).toBeGreaterThan(50);
    }
  });

  it("naive-gc-pause-lapsed-idle (×0.1): a pause at c1's read-ok gate; the driver places c1's lapse, so it is safe", async () => {
    const [{ record, history }] = await timed("naive-gc-pause-lapsed-idle at 0.1", () => realRuns("naive-gc-pause-lapsed-idle", 1, 0.1));
    expect(record!.verdicts.outcome).toBe("safe");
    expect(record!.real.faults[0]!.trigger).toBe("gate");
    const lapse = first(history, (e) => e.f === "lapse" && e.process === "c1")!;
    const c2ok = first(history, (e) => e.process === "c2" && e.f === "acquire" && e.type === "ok")!;
    const extendFail = first(history, (e) => e.process === "c1" && e.f === "extend" && e.type === "fail");
    expect(lapse, "c1's lapse placed during its pause").toBeDefined();
    expect(lapse.timeUs).toBeLessThan(c2ok.timeUs);
    expect(extendFail, "c1's extend refused after it woke").toBeDefined();
    expect(history.some((e) => e.process === "c1" && e.f === "write")).toBe(false);
  });
});

describe("real mode: an attack file, with the workload's watchdog renewals", () => {
  it("long-hold-renewal on redis-setnx: the child renews (extends recorded), the cut makes a renewal fail, c1 never writes, c2 gets the lock; safe", async () => {
    const file = join(scratch, "long-hold-renewal.json");
    writeFileSync(file, JSON.stringify({ attack: "long-hold-renewal", design: "redis-setnx", name: "long-hold-renewal-real", seed: 1, expect: "safe" }));
    const [{ record, history }] = await timed("long-hold-renewal at 1.0", () => realRuns(file, 1, 1));
    expect(record!.verdicts.outcome === "safe" || record!.verdicts.outcome === "not-challenged", record!.verdicts.outcome).toBe(true);
    const c1 = history.filter((e) => e.process === "c1");
    expect(
      c1.some((e) => e.f === "extend" && e.type === "invoke"),
      "c1's watchdog renewed",
    ).toBe(true);
    // Whatever the machine's load: a renewal in the cut (or before it) fails, and c1 stops there.
    const ended = c1.find((e) => e.f === "extend" && e.type !== "invoke" && e.type !== "ok");
    expect(ended, "a renewal that did not succeed").toBeDefined();
    expect(c1.some((e) => e.f === "write")).toBe(false);
    // c2 gets the lock once c1's key is gone (its renewals stopped); what c2 then does depends on its own renewals.
    expect(history.some((e) => e.process === "c2" && e.f === "acquire" && e.type === "ok")).toBe(true);
  });
});

describe("real mode: the CLI", () => {
  const io = captureStdio();

  it("naive-gc-pause --runs 2 --time-scale 0.2: unsafe on every run, marked not replayable, versions printed, nothing left running", async () => {
    const dir = join(scratch, "gc-pause");
    const code = await timed("naive-gc-pause ×2 at 0.2 (CLI)", () => main(["real", "naive-gc-pause", "--runs", "2", "--time-scale", "0.2", "--out", dir]));
    expect(code, io.err).toBe(EXIT.safetyViolation);
    expect(io.out).toMatch(/2 real runs — real run: not replayable/);
    expect(io.out).toMatch(/outcomes: unsafe 2\/2 \(100%\)/);
    expect(io.out).toMatch(/redis-server \d+\.\d+\.\d+; node v\d+.*ioredis 6\.0\.0/);
    const summary = JSON.parse(readFileSync(join(dir, "summary.json"), "utf8"));
    expect(summary.outcomes).toEqual({ unsafe: 2 });
    expect(summary.invalidRuns).toBe(0);
    for (const run of ["run-1", "run-2"]) {
      const r = JSON.parse(readFileSync(join(dir, run, "results.json"), "utf8")) as RealRunRecord;
      const history = readFileSync(join(dir, run, "history.jsonl"), "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as HistoryEvent);
      expect(r.verdicts.outcome, run).toBe("unsafe");
      expect(r.real.timeScale.factor).toBe(0.2);
      expect(r.scenario.workload.ttlMs).toBe(2000);
      expect(r.replay).toMatch(/^real run: not replayable/);
      const html = readFileSync(join(dir, run, "report.html"), "utf8");
      expect(html).toContain("real run: not replayable");
      expect(html).not.toContain("true time, as only a simulator knows it");
      // The stop landed after c1's read left and before its reply was handled: the read's ok comes after the pause.
      const f = r.real.faults[0]!;
      expect(f.trigger).toBe("storage-request");
      expect(f.releasedUs!).toBeGreaterThanOrEqual(f.stoppedUs!);
      const readOk = first(history, (e) => e.process === "c1" && e.f === "read" && e.type === "ok")!;
      expect(readOk.timeUs).toBeGreaterThanOrEqual(f.resumedUs!);
      // The scenario's own margins, as this run met them.
      const c1ok = first(history, (e) => e.process === "c1" && e.f === "acquire" && e.type === "ok")!;
      const c2inv = first(history, (e) => e.process === "c2" && e.f === "acquire" && e.type === "invoke")!;
      const c2write = first(history, (e) => e.process === "c2" && e.f === "write" && e.type === "ok")!;
      expect(c1ok.timeUs, `${run}: c1 must hold before c2 starts trying`).toBeLessThan(c2inv.timeUs);
      expect(c2write.timeUs, `${run}: c2 must write before c1 wakes`).toBeLessThan(f.resumedUs!);
      console.log(
        `real mode test: ${run}: c1 held ${((c2inv.timeUs - c1ok.timeUs) / 1000).toFixed(0)} ms before c2 tried; c2 wrote ${((f.resumedUs! - c2write.timeUs) / 1000).toFixed(0)} ms before c1 woke`,
      );
      for (const p of [...r.real.servers.map((s) => s.pid!), ...r.real.clients.map((c) => c.pid!)]) expect(isGone(p), `${run}: pid ${p}`).toBe(true);
    }
  });

  it("refuses what real mode cannot run with one line naming the step, and bad flags, exit 2, starting nothing", async () => {
    const dir = join(scratch, "never");
    const cases: Array<[string[], RegExp]> = [
      [["real", "redlock-acquire-pause"], /faults\[0\]\.on: real mode cannot run this: pause of c1 on c1's acquire invoke/],
      [["real", "redis-release-late-del"], /designOptions\.release: real mode cannot run this: the real client releases by Lua compare-and-delete only/],
      [["real", "redlock-clock-drift-fast"], /clocks\.redis-1: real mode cannot run this: .*libfaketime deadlocks it/],
      [["real", "naive-basline"], /unknown scenario "naive-basline"; did you mean naive-baseline\?/],
      [["real", "naive-baseline", "--time-scale", "0"], /--time-scale: expected a number from 0\.01 to 10/],
      [["real", "naive-baseline", "--time-scale", "0.001"], /--time-scale: expected a number/],
      [["real", "naive-baseline", "--runs", "0"], /--runs: expected a positive integer/],
    ];
    for (const [argv, msg] of cases) {
      io.err = "";
      expect(await main([...argv, "--out", dir]), argv.join(" ")).toBe(EXIT.badInput);
      expect(io.err, argv.join(" ")).toMatch(msg);
      expect(io.err.trim().split("\n"), argv.join(" ")).toHaveLength(1);
      expect(io.err).not.toMatch(/\n\s+at /);
    }
    expect(existsSync(dir)).toBe(false);
  });
});

describe("real mode: redlock with the real redlock package (4.2.0) on five redis-servers", () => {
  it("redlock-gc-pause: unsafe; the quorum and validity check did their job, the pause fell after them", async () => {
    const [{ record, history }] = await timed("redlock-gc-pause at 1.0", () => realRuns("redlock-gc-pause", 1, 1));
    expect(record!.verdicts.outcome).toBe("unsafe");
    expect(record!.real.servers).toHaveLength(5);
    expect(record!.real.clients[0]!.packages.redlock).toBe("4.2.0");
    const c2ok = first(history, (e) => e.process === "c2" && e.f === "acquire" && e.type === "ok")!;
    expect((c2ok.value as { validityMs: number }).validityMs).toBeGreaterThan(900); // a fresh quorum grant
    expect(record!.real.notApplied.some((n) => n.startsWith("network.latencyUsBase"))).toBe(true);
  });
});

describe("real mode: SIGINT of the driver mid-run", () => {
  it("stops every redis-server and client process and exits 130", async () => {
    await timed("SIGINT mid-run", async () => {
      const driver = join(scratch, "driver.mts");
      const out = join(scratch, "sigint-out");
      writeFileSync(
        driver,
        [
          `import { main } from ${JSON.stringify(join(root, "cli/main.ts"))};`,
          `process.exitCode = await main(["real", "naive-gc-pause", "--time-scale", "0.2", "--out", ${JSON.stringify(out)}]);`,
          "",
        ].join("\n"),
      );
      // Its own TMPDIR, so the run's temp dir can be looked for without seeing other runs'.
      const tmp = join(scratch, "sigint-tmp");
      mkdirSync(tmp);
      const { child, exited, stderr: stderrOf } = await startDriver(driver, root, tmp, 20_000);
      // Mid-run: c1 is stopped in its pause by now (it stops ~5 ms after the start).
      await new Promise((r) => setTimeout(r, 300));
      const tree = descendants(child.pid!);
      expect(tree.length, "watchdogs, redis-server and two clients").toBeGreaterThanOrEqual(6);
      child.kill("SIGINT");
      const code = await Promise.race([exited, new Promise<string>((r) => setTimeout(() => r("timeout"), loadTolerantMs(10_000)))]);
      expect(code, stderrOf()).toBe(130);
      // Said as a stop, not as a crash with log tails.
      expect(stderrOf()).toMatch(/run 1\/1 stopped by SIGINT/);
      expect(stderrOf()).not.toMatch(/exited during the run|last log lines/);
      await until("every descendant gone", () => tree.every(isGone), 3_000);
      expect(existsSync(join(out, "results.json"))).toBe(false);
      expect(readdirSync(tmp).filter((d) => d.startsWith("lockstep-real-"))).toEqual([]);
    });
  });
});

describe("real mode: pieces without processes", () => {
  it("a lapse falls at the expiry in force; an extension counts only if it came before that expiry", () => {
    expect(lapseTime([{ atUs: 0, expiresAtUs: 100 }])).toBe(100);
    expect(
      lapseTime([
        { atUs: 0, expiresAtUs: 100 },
        { atUs: 50, expiresAtUs: 300 },
      ]),
    ).toBe(300);
    expect(
      lapseTime([
        { atUs: 0, expiresAtUs: 100 },
        { atUs: 150, expiresAtUs: 300 },
      ]),
    ).toBe(100);
    expect(lapseTime([])).toBeUndefined();
  });

  it("--time-scale scales the story's times, not the design's mechanics, and refuses a TTL below 20 ms", () => {
    const s = loadScenario("naive-gc-pause");
    const t = scaleScenario(s, 0.2);
    expect(t.workload.ttlMs).toBe(2000);
    expect(t.faults[0]!.durationMs).toBe(3000);
    expect(t.clients[1]!.startMs).toBe(200);
    expect(t.durationMs).toBe(4000);
    expect(t.workload.resourceTimeoutMs).toBe(s.workload.resourceTimeoutMs);
    expect(t.designOptions).toEqual(s.designOptions);
    expect(inputErrorOf(() => planReal(loadScenario("redlock-gc-pause"), 0.01)).message).toMatch(/ttlMs 1000 ms into 10 ms/);
  });
});
