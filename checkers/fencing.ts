/**
 * fencing: at each protected resource, a write accepted with a token lower than one
 * already accepted there is a violation (the storage let a stale holder through).
 * Reads the storage's own annotations (f "storage-write", ok = accepted, fail =
 * rejected as stale), so it judges what the resource did, not what clients believed.
 *
 * Without tokens (a design with no fencing) staleness is judged by grant order: a write
 * accepted under grant G is stale when a grant whose acquire-ok came after G's had
 * already had a write accepted. The summary says which rule was used.
 */
import type { HistoryEvent } from "../sim/history.js";
import { forEachPair } from "./pairs.js";
import type { CheckContext, CheckResult } from "./types.js";
import { metered, type WorkMeter } from "./budget.js";

export const FENCING = "fencing";

export interface StaleWrite {
  lock: string;
  /** History index of the storage-write annotation. */
  index: number;
  timeUs: number;
  client: string;
  grantId?: string;
  token?: number;
  /** What made it stale: the greater token (or later grant) already accepted. */
  newerToken?: number;
  newerGrantId?: string;
  accepted: boolean;
}

interface StorageWrite {
  index: number;
  timeUs: number;
  lock: string;
  accepted: boolean;
  client: string;
  grantId?: string;
  token?: number;
}

const WITNESS_MAX = 20;

function readStorageWrites(history: readonly HistoryEvent[], meter: WorkMeter): StorageWrite[] {
  const out: StorageWrite[] = [];
  for (const e of history) {
    meter.tick();
    if (e.process !== "storage" || e.f !== "storage-write" || (e.type !== "ok" && e.type !== "fail")) continue;
    const v = (e.value ?? {}) as Record<string, unknown>;
    out.push({
      index: e.index,
      timeUs: e.timeUs,
      lock: e.lock ?? "lock",
      accepted: e.type === "ok",
      client: typeof v.client === "string" ? v.client : "?",
      ...(typeof v.grantId === "string" ? { grantId: v.grantId } : {}),
      ...(typeof v.token === "number" ? { token: v.token } : {}),
    });
  }
  return out;
}

/**
 * When each grant's acquire-ok happened (history order), for the no-token rule. A grant
 * named by two acquire-oks (an imported history) takes the one whose acquire was
 * invoked last, as when the ops were read in invoke order.
 */
function grantOrder(history: readonly HistoryEvent[], meter: WorkMeter): Map<string, number> {
  const order = new Map<string, number>();
  const invokedAtOf = new Map<string, number>();
  meter.tick(history.length);
  forEachPair(history, (invoke, complete, invokedAt) => {
    if (invoke.f !== "acquire" || complete.type !== "ok") return;
    const g = (complete.value as { grantId?: unknown } | undefined)?.grantId;
    if (typeof g !== "string") return;
    if ((invokedAtOf.get(g) ?? -1) > invokedAt) return;
    order.set(g, complete.index);
    invokedAtOf.set(g, invokedAt);
  });
  return order;
}

/** One step per event read and per storage write judged. */
export function fencing(history: readonly HistoryEvent[], ctx: CheckContext): CheckResult {
  let judged = 0;
  return metered(
    FENCING,
    ctx,
    () => `judging storage writes (${judged} judged) in ${history.length} events`,
    (meter) => fencingMetered(history, meter, () => judged++),
  );
}

function fencingMetered(history: readonly HistoryEvent[], meter: WorkMeter, judgedOne: () => void): CheckResult {
  const writes = readStorageWrites(history, meter);
  const withToken = writes.filter((w) => w.token !== undefined).length;
  const byToken = withToken > 0;
  const order = byToken ? new Map<string, number>() : grantOrder(history, meter);
  const stale: StaleWrite[] = [];
  let staleRejected = 0;
  let rejected = 0;
  let unjudged = 0;
  // Per resource: the newest accepted token (or grant, by acquire-ok position).
  const newest = new Map<string, { rank: number; token?: number; grantId?: string }>();
  for (const w of writes) {
    meter.tick();
    judgedOne();
    if (!w.accepted) rejected++;
    let rank: number | undefined;
    if (byToken) rank = w.token;
    else if (w.grantId !== undefined) rank = order.get(w.grantId);
    if (rank === undefined) {
      unjudged++;
      continue;
    }
    const top = newest.get(w.lock);
    const isStale =
      top !== undefined &&
      (rank < top.rank || (byToken && rank === top.rank && w.grantId !== undefined && top.grantId !== undefined && w.grantId !== top.grantId));
    if (isStale) {
      if (w.accepted)
        stale.push({
          lock: w.lock,
          index: w.index,
          timeUs: w.timeUs,
          client: w.client,
          ...(w.grantId !== undefined ? { grantId: w.grantId } : {}),
          ...(w.token !== undefined ? { token: w.token } : {}),
          ...(top.token !== undefined ? { newerToken: top.token } : {}),
          ...(top.grantId !== undefined ? { newerGrantId: top.grantId } : {}),
          accepted: true,
        });
      else staleRejected++;
    }
    if (w.accepted && (top === undefined || rank > top.rank))
      newest.set(w.lock, { rank, ...(w.token !== undefined ? { token: w.token } : {}), ...(w.grantId !== undefined ? { grantId: w.grantId } : {}) });
  }
  return fencingResult(byToken, writes.length, { rejected, unjudged, staleRejected }, stale);
}

/** The verdict from what was judged: n/a with nothing to judge, the stale writes accepted, or a pass. */
function fencingResult(
  byToken: boolean,
  writeCount: number,
  counts: { rejected: number; unjudged: number; staleRejected: number },
  stale: readonly StaleWrite[],
): CheckResult {
  const { rejected, unjudged, staleRejected } = counts;
  const rule = byToken ? "by fencing token" : "by grant order (no fencing tokens in the history)";
  const stats = {
    storageWrites: writeCount,
    accepted: writeCount - rejected,
    rejected,
    staleAccepted: stale.length,
    staleRejected,
    unjudged,
  };
  if (writeCount === 0)
    return { checker: FENCING, valid: true, summary: "no storage writes in the history: nothing to judge", skipped: "no storage writes", stats };
  if (unjudged === writeCount)
    return {
      checker: FENCING,
      valid: true,
      summary: `none of ${writeCount} storage writes carries a fencing token or a grant id: nothing to judge`,
      skipped: "no write carries a token or a grant",
      stats,
    };
  if (stale.length > 0) {
    const s = stale[0];
    return {
      checker: FENCING,
      valid: false,
      summary:
        `${stale.length} stale write(s) accepted, judged ${rule}; first: ${s.client} (${s.grantId ?? "?"}` +
        `${s.token !== undefined ? `, token ${s.token}` : ""}) at ${s.timeUs} µs after ` +
        `${s.newerToken !== undefined ? `token ${s.newerToken}` : `grant ${s.newerGrantId ?? "?"}`} was accepted on "${s.lock}"`,
      witness: { rule: byToken ? "token" : "grant-order", staleWrites: stale.slice(0, WITNESS_MAX), total: stale.length },
      stats,
    };
  }
  return {
    checker: FENCING,
    valid: true,
    summary: `no stale write accepted (${writeCount} storage writes, ${staleRejected} rejected), judged ${rule}`,
    stats,
  };
}
