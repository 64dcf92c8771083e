// The client workload against real servers: harness/workload.ts's clientLoop, step for step and
// with the same history events, in async form. acquire → check holds() → read → work →
// [extend] → write → release → think, until the run's end or opsMax. The protected resource
// is the driver's in-driver storage (real/storage.ts), reached over the control connection.
//
// Lapses are not noted here: a stopped process cannot note anything. The client reports
// each grant's expiry (reportGrant) and the driver places the `lapse` annotation where the
// client's clock passed it (real/history.ts), as the simulator does even during a pause.
import seedrandom from "seedrandom";
import type { ClientSpec, WorkloadSpec } from "../../scenarios/schema.js";
import { drawWorkMs } from "../../sim/work-time.js";
import type { DriverLink } from "./link.js";
import { sleepMs, type RealGrant, type RealLockClient } from "../../designs/real-client.js";

export interface LoopEnv {
  link: DriverLink;
  locks: RealLockClient;
  clientId: string;
  spec: WorkloadSpec;
  client: ClientSpec;
  endUs: number;
  seed: string;
}

/** Backstop on iterations; the run's end time and opsMax are the real bounds. */
const ITERATIONS_MAX = 1_000_000;

export async function clientLoop(env: LoopEnv): Promise<number> {
  const { link, locks, spec, client } = env;
  const rng = seedrandom(env.seed);
  // A stream of its own, as in the simulator, so the other draws fall as without it.
  const workRng = seedrandom(`${env.seed}/work-time`);
  const startUs = client.startMs * 1000;
  if (startUs > link.nowUs()) await sleepMs((startUs - link.nowUs()) / 1000);
  await link.startInOrder();
  let n = 0;
  while (link.nowUs() < env.endUs && (client.opsMax === undefined || n < client.opsMax) && n < ITERATIONS_MAX) {
    n++;
    const lock = spec.locks.length === 1 ? spec.locks[0]! : spec.locks[Math.floor(rng() * spec.locks.length)]!;
    await link.record("invoke", "acquire", lock, { ttlMs: spec.ttlMs, waitMs: spec.waitMs });
    const r = await locks.acquire(lock, { ttlMs: spec.ttlMs, waitMs: spec.waitMs });
    if (r.outcome === "ok") {
      const grantId = `${env.clientId}#${n}`;
      const g = r.grant;
      g.id = grantId;
      link.reportGrant(grantId, g.expiresAtUs);
      await link.record("ok", "acquire", lock, {
        grantId,
        ...(g.token !== undefined ? { token: g.token } : {}),
        validityMs: round3(g.validityMs),
        ttlMs: g.ttlMs,
      });
      if (spec.validityCheck === "none" || (await locks.holds(g))) await criticalSection(env, g, grantId, workRng);
      await link.record("invoke", "release", lock, { grantId });
      const rel = await locks.release(g);
      if (rel.outcome === "ok") await link.record("ok", "release", lock, { released: rel.released });
      else await link.record("info", "release", lock, { reason: rel.reason });
    } else if (r.outcome === "fail") {
      await link.record("fail", "acquire", lock, { reason: r.reason });
    } else {
      await link.record("info", "acquire", lock, { reason: r.reason });
    }
    const thinkMs = spec.thinkMs + (spec.thinkJitterMs > 0 ? rng() * spec.thinkJitterMs : 0);
    if (thinkMs > 0) await sleepMs(thinkMs);
  }
  return n;
}

async function criticalSection(env: LoopEnv, g: RealGrant, grantId: string, workRng: () => number): Promise<void> {
  const { link, locks, spec } = env;
  const lock = g.lock;
  const tok = g.token !== undefined ? { token: g.token } : {};
  // The owner check sends the grant's random value to the storage (kept out of the history).
  const owner = spec.ownerCheck ? { owner: g.secret } : {};
  await link.record("invoke", "read", lock, { grantId, ...tok });
  const rd = await link.storage({ type: "resource-read", lock, grantId, ...tok, ...owner }, spec.resourceTimeoutMs);
  if (!rd.ok) {
    await link.record("info", "read", lock, { reason: "timeout" });
    return;
  }
  const counter = rd.reply.counter as number;
  await link.record("ok", "read", lock, { counter });
  const workMs = drawWorkMs(env.client.workMs ?? spec.workMs, workRng);
  if (!(await workRenewing(env, g, grantId, workMs))) return;
  if (spec.extendTtlMs > 0 && !(await extendRecorded(env, g, grantId, spec.extendTtlMs))) return;
  // As harness/workload.ts: the check moved to just before the write (a faked clock decides it).
  if (spec.validityCheck === "before-read-and-write" && !(await locks.holds(g))) {
    await link.record("info", "write-skipped", lock, { grantId, reason: "the library no longer holds the lock" });
    return;
  }
  await link.record("invoke", "write", lock, { grantId, ...tok, counter: counter + 1 });
  const wr = await link.storage({ type: "resource-write", lock, grantId, ...tok, ...owner, counter: counter + 1 }, spec.resourceTimeoutMs);
  if (!wr.ok) await link.record("info", "write", lock, { reason: "timeout" });
  else if (wr.reply.type === "resource-write-ok") await link.record("ok", "write", lock, {});
  else await link.record("fail", "write", lock, { reason: wr.reply.reason });
}

/** As harness/workload.ts's workRenewing: the work in slices, a renewal after each full one; false once one fails. */
async function workRenewing(env: LoopEnv, g: RealGrant, grantId: string, workMs: number): Promise<boolean> {
  const { spec } = env;
  let leftMs = workMs;
  while (spec.renewEveryMs > 0 && leftMs > spec.renewEveryMs) {
    await sleepMs(spec.renewEveryMs);
    leftMs -= spec.renewEveryMs;
    if (!(await extendRecorded(env, g, grantId, spec.ttlMs))) return false;
  }
  if (leftMs > 0) await sleepMs(leftMs);
  return true;
}

/** As harness/workload.ts's extendRecorded, and the new expiry reported to the driver; false when it did not succeed. */
async function extendRecorded(env: LoopEnv, g: RealGrant, grantId: string, ttlMs: number): Promise<boolean> {
  const { link, locks } = env;
  await link.record("invoke", "extend", g.lock, { grantId, ttlMs });
  const ex = await locks.extend(g, ttlMs);
  if (ex.outcome !== "ok") {
    await link.record(ex.outcome === "fail" ? "fail" : "info", "extend", g.lock, { reason: ex.reason });
    return false;
  }
  link.reportGrant(grantId, g.expiresAtUs);
  await link.record("ok", "extend", g.lock, { validityMs: round3(ex.validityMs) });
  return true;
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}
