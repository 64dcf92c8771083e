// Design `library` for real: the same adapter modules the simulator sandboxes, loaded with
// the client process's own require against real redis-servers. At ×0.2, redis-semaphore's
// Mutex with nothing going wrong is safe; at ×1, redlock v4 under the 1.5 s GC pause is
// unsafe, as in the simulator — the pause is a SIGSTOP placed after c1's read reached the
// storage (real-mode.test.ts says why that cannot race), the keys' 1 s TTL runs out on the
// servers meanwhile and c2, retrying every 200 ± 100 ms, takes the lock before c1 wakes. A user's adapter outside the package, named
// relative to its scenario file, finds the package's ioredis. The plan refuses a missing
// adapter file, naming the field. redis-lock, which accepts only a node-redis 4 client, gets
// one (installed as redis-v4) for its adapter's require("redis").
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadScenario, loadScenarioFile } from "../../scenarios/index.js";
import { planReal, type RealRunRecord } from "../../real/index.js";
import { inputErrorOf } from "../helpers/input-error.js";
import { runRealChecked } from "../helpers/real-run.js";

const scratch = mkdtempSync(join(tmpdir(), "lockstep-library-test-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

async function realOnce(scenario: ReturnType<typeof loadScenario>, timeScale = 0.2): Promise<RealRunRecord> {
  const plan = planReal(scenario, timeScale);
  const { record } = await runRealChecked(plan, { seed: scenario.seed, parentDir: scratch });
  return record;
}

const packagesOf = (r: RealRunRecord): Record<string, string> => Object.assign({}, ...r.real.clients.map((c) => c.packages));

/** A scenario file in the scratch dir: `base` with designOptions replaced. */
function scenarioWith(base: string, designOptions: Record<string, unknown>, file: string): string {
  const raw = JSON.parse(readFileSync(loadScenario(base).file, "utf8")) as Record<string, unknown>;
  const path = join(scratch, file);
  writeFileSync(path, JSON.stringify({ ...raw, designOptions }));
  return path;
}

describe("real mode: design library against real redis-servers", () => {
  it("library-redis-semaphore-baseline: the real redis-semaphore Mutex on real ioredis is safe, every run check holding", async () => {
    const record = await realOnce(loadScenario("library-redis-semaphore-baseline"));
    expect(record.verdicts.outcome).toBe("safe");
    expect(packagesOf(record)).toMatchObject({ "redis-semaphore": "5.8.0", ioredis: expect.any(String) });
  });

  // ×1: redlock's 200 ± 100 ms retry delay is not scaled, so at ×0.2 c2 often retries only after c1 woke (safe 3/10 real, 6/10 sim).
  it("library-redlock-v4-gc-pause (×1): the real redlock 4.2.0 under a SIGSTOP outliving its TTL is unsafe", async () => {
    const record = await realOnce(loadScenario("library-redlock-v4-gc-pause"), 1);
    expect(record.verdicts.outcome).toBe("unsafe");
    expect(packagesOf(record)).toMatchObject({ redlock: "4.2.0" });
  });

  it("a user's adapter outside the package, named relative to its scenario file, runs on the package's ioredis", async () => {
    writeFileSync(
      join(scratch, "my-adapter.cjs"),
      `"use strict";
const Redis = require("ioredis");
const { randomBytes } = require("node:crypto");
const DEL = 'if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end';
module.exports = {
  create({ addresses }) {
    const [host, port] = addresses[0].split(":");
    const r = new Redis({ host, port: Number(port) });
    r.on("error", () => {});
    return {
      async acquire(lock, { ttlMs, waitMs }) {
        const secret = randomBytes(8).toString("hex");
        const end = Date.now() + waitMs;
        for (let i = 0; i < 10000 && Date.now() < end; i++) {
          const started = Date.now();
          if ((await r.set("mine:" + lock, secret, "PX", ttlMs, "NX")) === "OK") return { handle: { lock, secret }, secret, validityMs: started + ttlMs - Date.now() };
          await new Promise((ok) => setTimeout(ok, 10));
        }
        return null;
      },
      async release(h) { return (await r.eval(DEL, 1, "mine:" + h.lock, h.secret)) === 1; },
    };
  },
};
`,
    );
    const file = scenarioWith("library-redis-semaphore-baseline", { adapter: "./my-adapter.cjs" }, "mine.json");
    const record = await realOnce(loadScenarioFile(file));
    expect(record.verdicts.outcome).toBe("safe");
    expect(Object.keys(packagesOf(record))).toContain("ioredis");
  });

  it("the plan refuses an adapter file that does not exist, naming designOptions.adapter", () => {
    const file = scenarioWith("library-redis-semaphore-baseline", { adapter: "./missing-adapter.cjs" }, "missing.json");
    const e = inputErrorOf(() => planReal(loadScenarioFile(file), 0.2));
    expect(e.field).toBe("designOptions.adapter");
    expect(e.expected).toContain("missing-adapter.cjs");
  });

  it("library-redis-lock-gc-pause: redis-lock's adapter gets node-redis 4 (redis-v4) for require(\"redis\"), the project's redis 6 stays; unsafe as in the simulator", async () => {
    const plan = planReal(loadScenario("library-redis-lock-gc-pause"), 0.2);
    expect(plan.notApplied.some((n) => /require\("redis"\) gets redis@4\.\d+\.\d+ \(installed as redis-v4\).*own redis is 6\./.test(n))).toBe(true);
    const record = await realOnce(loadScenario("library-redis-lock-gc-pause"));
    expect(record.verdicts.outcome).toBe("unsafe");
    expect(packagesOf(record)).toMatchObject({ "redis-lock": "1.0.0", "redis-v4": expect.stringMatching(/^4\.\d+\.\d+ \(redis\)$/) });
  });
});
