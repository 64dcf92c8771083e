// redis-failover in real mode: a real redis-server primary, a real replica replicating
// through the driver's proxy, three real redis-sentinels, ioredis's Sentinel client.
//
// Why redis-failover-lost-lock is unsafe on every run: both fault triggers sit where they
// cannot race. The replication cut is a gate on c1's acquire invoke: the proxy holds the
// primary → replica stream before c1's SET leaves; the crash is a gate on c1's acquire ok
// (+1 ms): the primary is killed with c1's SET still held in the proxy, which drops it with
// the dead connection. What remains is timing: c2 is granted 1.7–1.9 s after the kill on this
// machine (Sentinel waits for the promoted replica's INFO, ~0.8 s; the simulator's sentinel
// now models that wait: 1.9 s), so the scenario's 3 s critical section leaves c2 ~1.1 s of
// margin (with the 1.5 s it had, c1 finished first: safe 10/10 on real Sentinel, see
// docs/real-mode.md). The test asserts those margins from the history, so a failure says
// which one a loaded machine ate.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { loadScenario } from "../../scenarios/index.js";
import type { HistoryEvent } from "../../sim/history.js";
import { planReal, type RealRunRecord } from "../../real/index.js";
import { inputErrorOf } from "../helpers/input-error.js";
import { descendants, isGone, startDriver, until } from "../helpers/processes.js";
import { runRealChecked } from "../helpers/real-run.js";
import { hangBoundMs } from "../helpers/hang-bound.js";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "../..");
const suiteStart = Date.now();
const timings: string[] = [];
const scratch = mkdtempSync(join(tmpdir(), "lockstep-real-failover-test-"));

afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
  console.log(`real mode (redis-failover): ${timings.join(", ")}; file wall time ${((Date.now() - suiteStart) / 1000).toFixed(1)} s`);
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

async function realRun(name: string, timeScale: number): Promise<{ record: RealRunRecord; history: HistoryEvent[] }> {
  const scenario = loadScenario(name);
  const plan = planReal(scenario, timeScale);
  const { run, record } = await runRealChecked(plan, { seed: scenario.seed, parentDir: scratch });
  return { record, history: run.history };
}

const find = (h: readonly HistoryEvent[], process: string, f: string, type: string): HistoryEvent | undefined =>
  h.find((e) => e.process === process && e.f === f && e.type === type);

describe("real mode: redis-failover on a real primary, replica and three sentinels", () => {
  it(
    "redis-failover-lost-lock (×1): unsafe, c2 granted by the promoted replica while c1 holds",
    async () => {
      await timed("redis-failover-lost-lock ×1", async () => {
        const { record, history } = await realRun("redis-failover-lost-lock", 1);
        expect(record.verdicts.outcome).toBe("unsafe");
        const failed = record.verdicts.results
          .filter((c) => c.valid === false)
          .map((c) => c.checker)
          .sort();
        expect(failed).toEqual(["linearizability", "lost-updates", "mutual-exclusion"]);
        expect(record.real.servers.map((s) => `${s.id} ${s.software}`)).toEqual([
          "redis-primary redis-server",
          "redis-replica-1 redis-server",
          "sentinel-1 redis-sentinel",
          "sentinel-2 redis-sentinel",
          "sentinel-3 redis-sentinel",
        ]);
        const [cut, crash] = record.real.faults;
        expect(cut!.trigger).toBe("gate");
        expect(crash!.kind).toBe("crash");
        const c1Ok = find(history, "c1", "acquire", "ok")!;
        const c2Ok = find(history, "c2", "acquire", "ok")!;
        const c1Write = find(history, "c1", "write", "invoke")!;
        // The cut was in force before c1's SET left (its gate), and the crash came after c1's grant, inside the cut.
        expect(cut!.stoppedUs!).toBeLessThan(c1Ok.timeUs);
        expect(crash!.startUs).toBeGreaterThan(c1Ok.timeUs);
        expect(crash!.startUs).toBeLessThan(cut!.resumedUs!);
        // Sentinel's promotion: no sooner than down-after (500 ms) after the kill, and c2 in before c1 wrote.
        expect(c2Ok.timeUs - crash!.startUs).toBeGreaterThan(500_000);
        expect(c2Ok.timeUs).toBeLessThan(c1Write.timeUs);
        // The promoted replica never had c1's key: c1's release found nothing to delete there (or could not tell).
        const rel = find(history, "c1", "release", "ok");
        expect((rel?.value as { released?: boolean } | undefined)?.released).not.toBe(true);
      });
    },
    hangBoundMs(240_000),
  );

  it(
    "redis-failover-baseline: safe, every checker passing, the lock handed between clients",
    async () => {
      await timed("redis-failover-baseline", async () => {
        const { record, history } = await realRun("redis-failover-baseline", 1);
        expect(record.verdicts.outcome).toBe("safe");
        for (const c of record.verdicts.results) expect(c.valid, `${c.checker}: ${c.summary}`).toBe(true);
        const grants = history.filter((e) => e.f === "acquire" && e.type === "ok");
        expect(new Set(grants.map((g) => g.process)).size).toBe(3);
        expect(grants.length).toBeGreaterThan(10);
      });
    },
    hangBoundMs(240_000),
  );

  it(
    "a SIGKILLed driver leaves no redis-server, redis-sentinel or client behind (the watchdogs)",
    async () => {
      await timed("driver SIGKILL mid-failover", async () => {
        const driver = join(scratch, "driver.mts");
        writeFileSync(
          driver,
          [
            `import { main } from ${JSON.stringify(join(root, "cli/main.ts"))};`,
            `process.exitCode = await main(["real", "redis-failover-lost-lock", "--out", ${JSON.stringify(join(scratch, "killed-out"))}]);`,
            "",
          ].join("\n"),
        );
        const tmp = join(scratch, "kill-tmp");
        mkdirSync(tmp);
        const { child, exited } = await startDriver(driver, root, tmp, 30_000);
        // Mid-run: the primary is dead by now, the sentinels are failing over.
        await new Promise((r) => setTimeout(r, 300));
        const tree = descendants(child.pid!);
        // 2 redis-servers + 3 sentinels + 2 clients, each under its watchdog shell.
        expect(tree.length).toBeGreaterThanOrEqual(12);
        child.kill("SIGKILL");
        await exited;
        await until("every descendant gone", () => tree.every(isGone), 5_000);
        // A SIGKILLed driver cannot remove its temp dir; the servers in it are gone.
        for (const d of readdirSync(tmp)) rmSync(join(tmp, d), { recursive: true, force: true });
      });
    },
    hangBoundMs(240_000),
  );
});

describe("real mode: what redis-failover refuses before it starts", () => {
  it("client↔server cuts, persistence, and plans the replication cut as a gate", () => {
    const s = loadScenario("redis-failover-lost-lock");
    const plan = planReal(s, 1);
    expect(plan.faults[0]!.trigger).toMatchObject({ kind: "gate", process: "c1", f: "acquire", type: "invoke" });
    expect(plan.faults[0]!.links).toEqual([["redis-primary", "redis-replica-1"]]);
    expect(plan.proxied).toBe(false);
    const clientCut = { ...s, faults: [{ ...s.faults[0]!, links: [["c1", "redis-primary"]] as Array<[string, string]> }] };
    expect(inputErrorOf(() => planReal(clientCut, 1)).message).toMatch(/faults\[0\].*Sentinel hands out/);
    const aof = { ...s, designOptions: { ...(s.designOptions as object), persistence: "everysec" } };
    expect(inputErrorOf(() => planReal(aof, 1)).message).toMatch(/designOptions.persistence.*last fsync/);
    const wait = { ...s, designOptions: { ...(s.designOptions as object), waitReplicas: 1 } };
    expect(inputErrorOf(() => planReal(wait, 1)).message).toMatch(/designOptions.waitReplicas: .*no WAIT yet/);
    const sentinelCrash = { ...s, faults: [{ ...s.faults[1]!, target: "sentinel" }] };
    expect(inputErrorOf(() => planReal(sentinelCrash, 1)).message).toMatch(/faults\[0\]\.target: .*one sentinel as sentinel-1, sentinel-2, sentinel-3/);
  });
});
