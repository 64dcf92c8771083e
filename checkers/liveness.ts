/**
 * liveness: once the system is calm again, locks are granted.
 *
 * 1. Waits. After the last fault heals and one TTL has passed (ctx.sessionTimeoutMs if
 *    given, else ctx.ttlMs, else the largest TTL the acquires asked for), a client that
 *    waits for a lock must see it granted to someone within ctx.livenessBoundMs
 *    (default 2 x TTL). Progress, not fairness: a wait is a violation only if it
 *    contains a stretch longer than the bound with no acquire-ok on that lock at all.
 *    A wait is a run of one client's acquire attempts on one lock up to its acquire-ok
 *    (or until it stops trying).
 *    Only faults (nemesis events in the history) count: standing network conditions
 *    (a scenario's `network.links`: slow or lossy links for the whole run) leave no
 *    event, so they never move the calm point and liveness is judged under them.
 * 2. Crashed holders. A lock held by a client that crashed (nemesis crash/kill of a
 *    client process) must be granted to another client within its TTL (plus a retry's
 *    slack) if someone is waiting, unless some other fault is active meanwhile.
 */
import { NEMESIS, pairOperations, type HistoryEvent, type Operation } from "../sim/history.js";
import type { CheckContext, CheckResult } from "./types.js";
import { metered, type WorkMeter } from "./budget.js";

export const LIVENESS = "liveness";

/**
 * Waiters poll: after a lease runs out they notice at their next retry. Retry delays are
 * a few percent of the TTL for common clients (node-redlock 100–300 ms at TTLs of
 * seconds), so a quarter of the TTL is a generous allowance, not a loophole.
 */
export const RETRY_SLACK_FRACTION = 0.25;

export const CRASH_KINDS = new Set(["crash", "kill"]);
/** Faults that act at one instant (they are never "healed"; the calm point simply follows them). */
export const INSTANT_KINDS = new Set(["clock-jump", "clock-drift"]);
export const WITNESS_MAX = 20;

export interface SlowWait {
  lock: string;
  client: string;
  waitFromUs: number;
  /** Where judging began: the wait's start or the calm point, whichever is later. */
  judgedFromUs: number;
  untilUs: number;
  outcome: "granted" | "gave-up" | "still-waiting";
  /** Longest stretch in the judged part with no grant on this lock, ms. */
  gapMs: number;
  boundMs: number;
}

export interface CrashedHolder {
  lock: string;
  client: string;
  grantId?: string;
  crashUs: number;
  deadlineUs: number;
  waiters: string[];
}

interface Fault {
  kind: string;
  phase?: string;
  targets: string[];
  timeUs: number;
}

function faultsOf(history: readonly HistoryEvent[], meter: WorkMeter): Fault[] {
  const out: Fault[] = [];
  for (const e of history) {
    meter.tick();
    if (e.process !== NEMESIS) continue;
    const v = (e.value ?? {}) as { phase?: unknown; targets?: unknown };
    // A role-targeted step that found no holder of the role did nothing.
    if (v.phase === "skipped") continue;
    out.push({
      kind: e.f,
      ...(typeof v.phase === "string" ? { phase: v.phase } : {}),
      targets: Array.isArray(v.targets) ? v.targets.filter((t): t is string => typeof t === "string") : [],
      timeUs: e.timeUs,
    });
  }
  return out;
}

/** The grant an acquire-ok names (an op, or just its invoke and completion). */
export function grantIdOf(op: Pick<Operation, "complete">): string | undefined {
  const g = (op.complete?.value as { grantId?: unknown } | undefined)?.grantId;
  return typeof g === "string" ? g : undefined;
}

/** The TTL an acquire asked for: its completion's, else its invoke's. */
export function ttlMsOf(op: Pick<Operation, "invoke" | "complete">): number | undefined {
  const v = (op.complete?.value ?? op.invoke.value) as { ttlMs?: unknown } | undefined;
  const t = v?.ttlMs ?? (op.invoke.value as { ttlMs?: unknown } | undefined)?.ttlMs;
  return typeof t === "number" ? t : undefined;
}

/** Steps: one per event read, per attempt grouped, per grant scanned for a gap, per op compared for a crashed holder. */
export function liveness(history: readonly HistoryEvent[], ctx: CheckContext): CheckResult {
  let phase = "reading the history";
  return metered(
    LIVENESS,
    ctx,
    () => `${phase} (${history.length} events)`,
    (meter) => livenessMetered(history, ctx, meter, (p) => (phase = p)),
  );
}

export interface Calm {
  /** From when waits are judged: the last fault plus one TTL (the history's start without faults). */
  calmFromUs: number;
  /** Spans in which some fault (other than a client crash) was active. */
  activeSpans: [number, number][];
  /** Whether a fault was still active when the history ended. */
  unhealed: boolean;
  crashes: { client: string; timeUs: number }[];
}

/** Faults other than client crashes heal; when each kind was active, and the calm point after the last. */
function calmOf(history: readonly HistoryEvent[], clients: Set<string>, ttlMs: number, meter: WorkMeter): Calm {
  const faults = faultsOf(history, meter);
  const isClientCrash = (f: Fault): boolean => CRASH_KINDS.has(f.kind) && f.targets.length > 0 && f.targets.every((t) => clients.has(t));
  const active = new Map<string, number>();
  const activeSpans: [number, number][] = [];
  let activeSince: number | undefined;
  let lastFaultUs: number | undefined;
  const crashes: { client: string; timeUs: number }[] = [];
  for (const f of faults) {
    if (isClientCrash(f)) {
      if (f.phase !== "end") for (const t of f.targets) crashes.push({ client: t, timeUs: f.timeUs });
      continue;
    }
    if (INSTANT_KINDS.has(f.kind)) {
      // A clock step or rate change happens at an instant and has no end to wait for.
      lastFaultUs = f.timeUs;
      continue;
    }
    const before = [...active.values()].some((n) => n > 0);
    if (f.kind === "heal") active.clear();
    else if (f.kind === "restart") for (const k of CRASH_KINDS) active.set(k, Math.max(0, (active.get(k) ?? 0) - 1));
    else if (f.phase === "end") active.set(f.kind, Math.max(0, (active.get(f.kind) ?? 0) - 1));
    else active.set(f.kind, (active.get(f.kind) ?? 0) + 1);
    const after = [...active.values()].some((n) => n > 0);
    if (!before && after) activeSince = f.timeUs;
    if (before && !after && activeSince !== undefined) activeSpans.push([activeSince, f.timeUs]);
    lastFaultUs = f.timeUs;
  }
  const unhealed = [...active.values()].some((n) => n > 0);
  if (unhealed && activeSince !== undefined) activeSpans.push([activeSince, Infinity]);
  const calmFromUs = (lastFaultUs ?? history[0]?.timeUs ?? 0) + (lastFaultUs !== undefined ? ttlMs * 1000 : 0);
  return { calmFromUs, activeSpans, unhealed, crashes };
}

/** Grant times per lock, in time order. */
function grantsByLockOf(acquires: readonly Operation[]): Map<string, number[]> {
  const grantsByLock = new Map<string, number[]>();
  for (const op of acquires) {
    if (op.outcome !== "ok") continue;
    const lock = op.lock ?? "lock";
    const list = grantsByLock.get(lock) ?? [];
    list.push(op.endUs);
    grantsByLock.set(lock, list);
  }
  for (const list of grantsByLock.values()) list.sort((a, b) => a - b);
  return grantsByLock;
}

export interface WaitVerdicts {
  /** The first slow waits (all of them in batch; the first WITNESS_MAX online), and how many there were. */
  slow: SlowWait[];
  slowTotal?: number;
  judged: number;
  unjudged: number;
  /** Judged waits that ended without the lock, nobody granted it meanwhile. */
  unserved: Array<{ client: string; lock: string; waitedMs: number }>;
  unservedTotal?: number;
}

export interface CrashedHolders {
  stuck: CrashedHolder[];
  stuckTotal?: number;
  judged: number;
}

/** 1. Waits: consecutive acquire attempts of one client on one lock, up to its grant. */
function judgeWaits(acquires: readonly Operation[], calm: Calm, endUs: number, boundMs: number, meter: WorkMeter): WaitVerdicts {
  const grantsByLock = grantsByLockOf(acquires);
  const out: WaitVerdicts = { slow: [], judged: 0, unjudged: 0, unserved: [] };
  const boundUs = boundMs * 1000;
  const attempts = new Map<string, Operation[]>();
  for (const op of acquires) {
    meter.tick();
    const key = `${op.lock ?? "lock"}\u0000${op.process}`;
    const list = attempts.get(key) ?? [];
    list.push(op);
    attempts.set(key, list);
  }
  const judgeWait = (run: Operation[]): void => {
    const first = run[0];
    const last = run[run.length - 1];
    const lock = first.lock ?? "lock";
    const crashAt = calm.crashes.find((c) => {
      meter.tick();
      return c.client === first.process && c.timeUs >= first.startUs;
    })?.timeUs;
    let untilUs: number;
    let outcome: SlowWait["outcome"];
    if (last.outcome === "ok") [untilUs, outcome] = [last.endUs, "granted"];
    else if (last.complete) [untilUs, outcome] = [last.complete.timeUs, "gave-up"];
    else [untilUs, outcome] = [endUs, "still-waiting"];
    if (crashAt !== undefined && crashAt < untilUs) [untilUs, outcome] = [crashAt, "gave-up"];
    // A wait that never ended in a grant, with no grant to anyone since it began,
    // is judged from its invoke: a late calm point must not hide a lock nobody got.
    const neverServed = outcome !== "granted" && !(grantsByLock.get(lock) ?? []).some((g) => g > first.startUs);
    const fromUs = neverServed ? first.startUs : Math.max(first.startUs, calm.calmFromUs);
    if (untilUs <= fromUs) return;
    if (calm.unhealed) {
      out.unjudged++;
      return;
    }
    out.judged++;
    if (neverServed) out.unserved.push({ client: first.process, lock, waitedMs: (untilUs - first.startUs) / 1000 });
    if (untilUs - fromUs <= boundUs) return;
    const gapUs = longestGapUs(grantsByLock.get(lock) ?? [], fromUs, untilUs, meter);
    if (gapUs > boundUs)
      out.slow.push({ lock, client: first.process, waitFromUs: first.startUs, judgedFromUs: fromUs, untilUs, outcome, gapMs: gapUs / 1000, boundMs });
  };
  for (const list of attempts.values()) {
    let run: Operation[] = [];
    for (const op of list) {
      run.push(op);
      if (op.outcome === "ok") {
        judgeWait(run);
        run = [];
      }
    }
    if (run.length > 0) judgeWait(run);
  }
  return out;
}

/** The longest stretch of [fromUs, untilUs] with no grant in `grants` (sorted). */
function longestGapUs(grants: readonly number[], fromUs: number, untilUs: number, meter: WorkMeter): number {
  let gapUs = 0;
  let prev = fromUs;
  for (const g of grants) {
    meter.tick();
    if (g <= fromUs) continue;
    if (g > untilUs) break;
    gapUs = Math.max(gapUs, g - prev);
    prev = g;
  }
  return Math.max(gapUs, untilUs - prev);
}

/** 2. Crashed holders: a lock held by a crashed client is re-granted in time if someone waits. */
function judgeCrashedHolders(
  ops: readonly Operation[],
  acquires: readonly Operation[],
  calm: Calm,
  ctx: CheckContext,
  ttlMs: number,
  endUs: number,
  meter: WorkMeter,
) {
  const stuck: CrashedHolder[] = [];
  let judged = 0;
  // Every op compared below is a step: crashes × acquires × ops can be large.
  const step = (): true => (meter.tick(), true);
  for (const crash of calm.crashes) {
    for (const acq of acquires) {
      meter.tick();
      if (acq.process !== crash.client || acq.outcome !== "ok" || acq.endUs > crash.timeUs) continue;
      const grantId = grantIdOf(acq);
      const lock = acq.lock ?? "lock";
      const released = ops.some(
        (op) =>
          step() &&
          op.process === crash.client &&
          op.f === "release" &&
          op.startUs >= acq.endUs &&
          op.startUs <= crash.timeUs &&
          (grantId === undefined || (op.invoke.value as { grantId?: unknown } | undefined)?.grantId === grantId),
      );
      // A later acquire-ok by the same client means the earlier grant had ended.
      const superseded = acquires.some(
        (o) => step() && o.process === crash.client && o.outcome === "ok" && o.endUs > acq.endUs && o.endUs <= crash.timeUs && (o.lock ?? "lock") === lock,
      );
      if (released || superseded) continue;
      const grantTtlMs = ctx.sessionTimeoutMs ?? ttlMsOf(acq) ?? ttlMs;
      const drift = 1 + (ctx.clockDriftPpmMax ?? 0) / 1e6;
      const deadlineUs = crash.timeUs + grantTtlMs * 1000 * (drift + RETRY_SLACK_FRACTION);
      if (calm.activeSpans.some(([s, e]) => step() && s < deadlineUs && e > crash.timeUs)) continue;
      if (deadlineUs > endUs) continue; // the history ended first: nothing to judge
      const waiters = [
        ...new Set(
          acquires
            .filter((o) => step() && o.process !== crash.client && (o.lock ?? "lock") === lock && o.startUs <= deadlineUs && o.endUs >= crash.timeUs)
            .map((o) => o.process),
        ),
      ];
      if (waiters.length === 0) continue;
      judged++;
      const regranted = acquires.some(
        (o) => step() && o.process !== crash.client && o.outcome === "ok" && (o.lock ?? "lock") === lock && o.endUs > crash.timeUs && o.endUs <= deadlineUs,
      );
      if (!regranted) stuck.push({ lock, client: crash.client, ...(grantId ? { grantId } : {}), crashUs: crash.timeUs, deadlineUs, waiters });
    }
  }
  return { stuck, judged };
}

function livenessMetered(history: readonly HistoryEvent[], ctx: CheckContext, meter: WorkMeter, phase: (p: string) => void): CheckResult {
  meter.tick(history.length);
  const { ops } = pairOperations(history);
  const clients = new Set(ops.map((op) => op.process));
  const acquires = ops.filter((op) => op.f === "acquire");
  const endUs = history.length > 0 ? history[history.length - 1].timeUs : 0;
  const ttlMs =
    ctx.sessionTimeoutMs ??
    ctx.ttlMs ??
    acquires.reduce<number | undefined>((m, op) => {
      const t = ttlMsOf(op);
      return t === undefined ? m : Math.max(m ?? 0, t);
    }, undefined);
  const boundMs = ctx.livenessBoundMs ?? (ttlMs !== undefined ? 2 * ttlMs : undefined);
  if (ttlMs === undefined || boundMs === undefined)
    return {
      checker: LIVENESS,
      valid: "unknown",
      summary: "no TTL known (pass --ttl-ms or a liveness bound): cannot tell a slow grant from a lease running out",
    };
  const calm = calmOf(history, clients, ttlMs, meter);
  phase("judging waits");
  const waits = judgeWaits(acquires, calm, endUs, boundMs, meter);
  phase("judging crashed holders");
  const crashed = judgeCrashedHolders(ops, acquires, calm, ctx, ttlMs, endUs, meter);
  return livenessResult(waits, crashed, calm, boundMs, ttlMs);
}

export function livenessResult(
  waits: WaitVerdicts,
  crashed: CrashedHolders,
  calm: Pick<Calm, "calmFromUs" | "unhealed">,
  boundMs: number,
  ttlMs: number,
): CheckResult {
  const { slow } = waits;
  const { stuck } = crashed;
  const slowTotal = waits.slowTotal ?? slow.length;
  const stuckTotal = crashed.stuckTotal ?? stuck.length;
  const unservedTotal = waits.unservedTotal ?? waits.unserved.length;
  const stats = {
    waitsJudged: waits.judged,
    waitsUnjudged: waits.unjudged,
    waitsNeverGranted: unservedTotal,
    slowWaits: slowTotal,
    crashedHoldersJudged: crashed.judged,
    crashedHoldersStuck: stuckTotal,
    boundMs,
    ttlMs,
  };
  if (slowTotal > 0 || stuckTotal > 0) {
    const parts: string[] = [];
    if (slowTotal > 0) {
      const w = slow[0];
      parts.push(`${slowTotal} wait(s) exceeded the ${boundMs} ms bound (first: ${w.client} on "${w.lock}" went ${w.gapMs} ms with no grant)`);
    }
    if (stuckTotal > 0) {
      const s = stuck[0];
      parts.push(`${stuckTotal} lock(s) of crashed holders not re-granted in time (first: "${s.lock}" held by ${s.client}, crashed at ${s.crashUs} µs)`);
    }
    return {
      checker: LIVENESS,
      valid: false,
      summary: parts.join("; "),
      witness: { slowWaits: slow.slice(0, WITNESS_MAX), crashedHolders: stuck.slice(0, WITNESS_MAX), calmFromUs: calm.calmFromUs, boundMs },
      stats,
    };
  }
  if (calm.unhealed && waits.unjudged > 0)
    return {
      checker: LIVENESS,
      valid: "unknown",
      summary: `faults still active when the history ends: ${waits.unjudged} wait(s) could not be judged`,
      stats,
    };
  if (waits.judged === 0 && crashed.judged === 0)
    return { checker: LIVENESS, valid: true, summary: "no waits to judge after the calm point", skipped: "no waits to judge", stats };
  return {
    checker: LIVENESS,
    valid: true,
    summary: passedSummary(waits.judged, crashed.judged, calm.calmFromUs, boundMs, waits.unserved, unservedTotal),
    stats,
  };
}

/** What a pass means, in words that match the facts: how many waits, and any that were never granted. */
function passedSummary(
  waits: number,
  crashes: number,
  calmFromUs: number,
  boundMs: number,
  unserved: ReadonlyArray<{ client: string; waitedMs: number }>,
  unservedTotal: number,
): string {
  const first = unserved[0];
  return (
    `no wait went longer than the ${boundMs} ms bound without a grant (${waits} wait(s) judged, after the calm point at ${calmFromUs} µs)` +
    (crashes > 0 ? `; ${crashes} crashed holder(s) replaced in time` : "") +
    (first
      ? `; ${first.client} waited ${(first.waitedMs / 1000).toFixed(1)} s and was never granted${unservedTotal > 1 ? ` (${unservedTotal} such waits)` : ""}`
      : "")
  );
}
