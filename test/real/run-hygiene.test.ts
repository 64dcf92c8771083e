// What a real run leaves behind and what it survives: a SIGKILLed driver's temp dir and
// processes are removed by the next run (and by `lockstep real --clean`), a live run's never;
// a port taken by another process between lockstep's choice and the server's bind moves the
// server to a fresh port, and the ready check counts only our own process listening on it;
// a TypeScript / ES module adapter is compiled as the simulator compiles it.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { loadScenario } from "../../scenarios/index.js";
import { planReal } from "../../real/index.js";
import { freePort, OWNER_FILE, pidListensOn, processesIn, RUN_DIR_PREFIX, ServerGroup, startRedis, type OwnerRecord } from "../../real/servers/index.js";
import { procStartTime } from "../../real/servers/registry.js";
import { isGone, startCli, startDriver, until } from "../helpers/processes.js";
import { runRealChecked } from "../helpers/real-run.js";
import { hangBoundMs } from "../helpers/hang-bound.js";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "../..");
const cliChild = resolve(here, "../helpers/cli-child.ts");
const scratch = mkdtempSync(join(tmpdir(), "lockstep-hygiene-test-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const runDirsIn = (parent: string) => readdirSync(parent).filter((e) => /^lockstep-real-[A-Za-z0-9]{6}$/.test(e));

/** The lockstep CLI from sources with its own TMPDIR; its exit code and output. */
function cli(args: string[], tmp: string): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, ["--import", "tsx", cliChild, ...args], { cwd: root, encoding: "utf8", env: { ...process.env, TMPDIR: tmp } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A TCP server on 127.0.0.1:port answering every line with +PONG, as a foreign redis would. */
function foreignPonger(port: number): Promise<Server> {
  return new Promise((ok, fail) => {
    const srv = createServer((s) => s.on("data", () => s.write("+PONG\r\n")));
    srv.once("error", fail);
    srv.listen({ host: "127.0.0.1", port }, () => ok(srv));
  });
}

describe("real mode: a dead run's leftovers", () => {
  it(
    "a real run SIGKILLed mid-way leaves its dir (owner.json naming it); the next run removes the dir and every process of it",
    async () => {
      const tmp = join(scratch, "killed");
      mkdirSync(tmp);
      const driver = join(scratch, "driver.mts");
      writeFileSync(
        driver,
        [
          `import { main } from ${JSON.stringify(join(root, "cli/main.ts"))};`,
          `process.exitCode = await main(["real", "naive-baseline", "--out", ${JSON.stringify(join(scratch, "killed-out"))}]);`,
          "",
        ].join("\n"),
      );
      const { child, exited } = await startDriver(driver, root, tmp, 30_000);
      const [deadName] = runDirsIn(tmp);
      expect(deadName).toBeDefined();
      const deadDir = join(tmp, deadName!);
      const owner = JSON.parse(readFileSync(join(deadDir, OWNER_FILE), "utf8")) as OwnerRecord;
      expect(owner.ownerPid).toBe(child.pid);
      // Running: its redis-server, its three clients and their watchdogs all work in its dir.
      expect(processesIn(deadDir).length).toBeGreaterThanOrEqual(4);
      expect(owner.pids.length).toBeGreaterThanOrEqual(8);
      child.kill("SIGKILL");
      await exited;
      expect(existsSync(deadDir)).toBe(true); // what a SIGKILLed driver leaves: it cannot remove its own dir

      const scenario = loadScenario("naive-baseline");
      const { run } = await runRealChecked(planReal(scenario, 0.2), { seed: scenario.seed, parentDir: tmp });
      expect(existsSync(deadDir)).toBe(false);
      expect(processesIn(deadDir)).toEqual([]);
      for (const pid of owner.pids) expect(isGone(pid), `pid ${pid} of the dead run`).toBe(true);
      expect(runDirsIn(tmp)).toEqual([]); // the dead run's dir is gone, and the new run removed its own
      expect(run.dir.startsWith(tmp)).toBe(true);
    },
    hangBoundMs(300_000),
  );

  it(
    "`lockstep real --clean` removes a dead owner's dir and kills its processes, and leaves a live owner's dir alone",
    async () => {
      const tmp = join(scratch, "clean");
      mkdirSync(tmp);
      const dead = spawnSync("true");
      const deadPid = dead.pid!;
      const deadDir = join(tmp, `${RUN_DIR_PREFIX}dead00`);
      const liveDir = join(tmp, `${RUN_DIR_PREFIX}live00`);
      // A test's scratch dir with a similar name, old and ownerless: not a run's, never swept.
      const scratchLike = join(tmp, `${RUN_DIR_PREFIX}mode-test-abcdef`);
      mkdirSync(scratchLike);
      const hourAgo = new Date(Date.now() - 3_600_000);
      utimesSync(scratchLike, hourAgo, hourAgo);
      mkdirSync(join(deadDir, "redis-1"), { recursive: true });
      mkdirSync(liveDir);
      writeFileSync(join(deadDir, OWNER_FILE), JSON.stringify({ ownerPid: deadPid, ownerStart: "1", createdAt: "", pids: [] }));
      writeFileSync(join(liveDir, OWNER_FILE), JSON.stringify({ ownerPid: process.pid, ownerStart: procStartTime(process.pid), createdAt: "", pids: [] }));
      // A stray left by the dead run: a process working in its dir.
      const stray = spawn("sleep", ["600"], { cwd: join(deadDir, "redis-1"), detached: true, stdio: "ignore" });
      stray.unref();
      await until("the stray runs in the dead dir", () => processesIn(deadDir).includes(stray.pid!), 5_000);

      const r = cli(["real", "--clean"], tmp);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/removed 1 dead run dir\(s\).*killed 1 process/);
      await until("the stray is gone", () => isGone(stray.pid!), 5_000);
      expect(existsSync(deadDir)).toBe(false);
      expect(existsSync(liveDir)).toBe(true);
      expect(existsSync(scratchLike)).toBe(true);
    },
    hangBoundMs(240_000),
  );
});

describe("real mode: a batch stopped part-way", () => {
  it(
    "SIGINT in run 2 of 3: exit 130, summary.json for the finished run naming run 2 and the signal, the load recorded",
    async () => {
      const tmp = join(scratch, "batch");
      mkdirSync(tmp);
      const out = join(scratch, "batch-out");
      const { child, printed, exited } = startCli(cliChild, ["real", "naive-baseline", "--runs", "3", "--time-scale", "0.1", "--out", out], root, tmp);
      await until("run 2/3 started", () => /run 2\/3 started/.test(printed.stderr), 60_000);
      child.kill("SIGINT");
      expect(await exited, printed.stderr).toBe(130);
      expect(printed.stderr).toMatch(/run 2\/3 stopped by SIGINT; summary\.json for the 1 finished run\(s\)/);
      expect(printed.stderr).not.toMatch(/exited during the run/);
      const summary = JSON.parse(readFileSync(join(out, "summary.json"), "utf8")) as {
        runs: number;
        runsPlanned: number;
        stoppedBy: unknown;
        load: { cores: number; oneMinute: { min: number; max: number } };
        perRun: unknown[];
      };
      expect(summary).toMatchObject({ runs: 1, runsPlanned: 3, stoppedBy: { run: 2, reason: "stopped by SIGINT" } });
      expect(summary.perRun).toHaveLength(1);
      expect(summary.load.cores).toBeGreaterThan(0);
      expect(summary.load.oneMinute.max).toBeGreaterThanOrEqual(summary.load.oneMinute.min);
      expect(printed.stdout).toMatch(/STOPPED at run 2\/3: stopped by SIGINT/);
      expect(runDirsIn(tmp)).toEqual([]);
    },
    hangBoundMs(300_000),
  );
});

describe("real mode: ports", () => {
  it(
    "a port another process took after lockstep chose it: redis-server moves to a fresh port, and only our own pid listening counts as ready",
    async () => {
      const taken = await freePort();
      const foreign = await foreignPonger(taken);
      const group = new ServerGroup({ parentDir: scratch });
      try {
        const redis = await startRedis(group, { port: taken, aof: false });
        expect(redis.port).not.toBe(taken);
        expect(pidListensOn(redis.process.pid!, redis.port)).toBe(true);
        // The foreign process answers PING on the taken port, but it is not ours.
        expect(pidListensOn(redis.process.pid!, taken)).toBe(false);
        expect(pidListensOn(process.pid, taken)).toBe(true);
        expect(readFileSync(redis.process.spec.logFile, "utf8")).toMatch(/could not bind its port; trying a fresh one/);
      } finally {
        await group.stop();
        foreign.close();
      }
    },
    hangBoundMs(240_000),
  );
});

describe("real mode: --lock and TypeScript adapters, as in the simulator", () => {
  it(
    "a TypeScript ES module adapter runs (compiled by esbuild); a broken one and a scenario the adapter cannot run are refused in one line, as `run` refuses them",
    () => {
      const tmp = join(scratch, "lock");
      mkdirSync(tmp);
      const adapter = join(scratch, "my-lock.ts");
      writeFileSync(
        adapter,
        `import Redis from "ioredis";
interface Handle { lock: string; secret: string }
const DEL = 'if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end';
export function create({ addresses }: { addresses: string[] }) {
  const [host, port] = addresses[0]!.split(":");
  const r = new Redis({ host, port: Number(port) });
  r.on("error", () => {});
  return {
    async acquire(lock: string, { ttlMs, waitMs }: { ttlMs: number; waitMs: number }): Promise<{ handle: Handle; validityMs: number } | null> {
      const secret = Math.random().toString(16).slice(2);
      const end = Date.now() + waitMs;
      for (let i = 0; i < 10000 && Date.now() < end; i++) {
        const started = Date.now();
        if ((await r.set("mine:" + lock, secret, "PX", ttlMs, "NX")) === "OK") return { handle: { lock, secret }, validityMs: started + ttlMs - Date.now() };
        await new Promise((ok) => setTimeout(ok, 10));
      }
      return null;
    },
    async release(h: Handle): Promise<boolean> { return (await r.eval(DEL, 1, "mine:" + h.lock, h.secret)) === 1; },
  };
}
`,
      );
      const ok = cli(["real", "naive-baseline", "--lock", adapter, "--time-scale", "0.2", "--out", join(scratch, "ts-out")], tmp);
      expect(ok.code, ok.stderr).toBe(0);
      expect(ok.stdout).toMatch(/compiled to CommonJS by esbuild/);
      expect(ok.stdout).toMatch(/outcome: safe/);

      const bad = join(scratch, "bad.ts");
      writeFileSync(bad, "export const x: = 1;\n");
      for (const args of [["naive-baseline", "--lock", bad], ["etcd-lease-leader-crash-acquire@redlock-v4"]]) {
        const real = cli(["real", ...args], tmp);
        const sim = cli(["run", ...args], tmp);
        expect(real.code).toBe(2);
        expect(real.stderr).toBe(sim.stderr);
        expect(real.stderr.trim().split("\n")).toHaveLength(1);
        expect(real.stderr).not.toMatch(/\n\s+at /);
      }
      expect(runDirsIn(tmp)).toEqual([]);
    },
    hangBoundMs(300_000),
  );
});
