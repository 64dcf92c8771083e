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
import { forEachPair, Pairer } from "./pairs.js";
import type { CheckContext, CheckResult, OnlineChecker } from "./types.js";
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

export interface StorageWrite {
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
    const w = storageWriteOf(e);
    if (w) out.push(w);
  }
  return out;
}

/** The storage's note of a write it accepted (ok) or rejected (fail); undefined for any other event. */
export function storageWriteOf(e: HistoryEvent): StorageWrite | undefined {
  if (e.process !== "storage" || e.f !== "storage-write" || (e.type !== "ok" && e.type !== "fail")) return undefined;
  const v = (e.value ?? {}) as Record<string, unknown>;
  return {
    index: e.index,
    timeUs: e.timeUs,
    lock: e.lock ?? "lock",
    accepted: e.type === "ok",
    client: typeof v.client === "string" ? v.client : "?",
    ...(typeof v.grantId === "string" ? { grantId: v.grantId } : {}),
    ...(typeof v.token === "number" ? { token: v.token } : {}),
  };
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
  const byToken = writes.some((w) => w.token !== undefined);
  const order = byToken ? new Map<string, number>() : grantOrder(history, meter);
  const judge = new StaleWriteJudge(byToken);
  for (const w of writes) {
    meter.tick();
    judgedOne();
    judge.judge(w, byToken ? w.token : w.grantId !== undefined ? order.get(w.grantId) : undefined);
  }
  return judge.result();
}

/**
 * The rule applied to the storage writes in the resource's order, one at a time: each
 * write's rank (its token, or its grant's acquire-ok position) against the newest
 * accepted on its resource. Shared by the batch checker and OnlineFencing below,
 * which holds only this: the newest per resource and the first stale writes.
 */
export class StaleWriteJudge {
  private readonly stale: StaleWrite[] = [];
  private staleTotal = 0;
  private readonly counts = { writes: 0, rejected: 0, unjudged: 0, staleRejected: 0 };
  /** Per resource: the newest accepted token (or grant, by acquire-ok position). */
  private readonly newest = new Map<string, { rank: number; token?: number; grantId?: string }>();

  constructor(readonly byToken: boolean) {}

  /** One write, with its rank (undefined: it carries no token, or its grant is unknown). */
  judge(w: StorageWrite, rank: number | undefined): void {
    this.counts.writes++;
    if (!w.accepted) this.counts.rejected++;
    if (rank === undefined) {
      this.counts.unjudged++;
      return;
    }
    const top = this.newest.get(w.lock);
    const isStale =
      top !== undefined &&
      (rank < top.rank || (this.byToken && rank === top.rank && w.grantId !== undefined && top.grantId !== undefined && w.grantId !== top.grantId));
    if (isStale) {
      if (w.accepted) this.addStale(w, top);
      else this.counts.staleRejected++;
    }
    if (w.accepted && (top === undefined || rank > top.rank))
      this.newest.set(w.lock, { rank, ...(w.token !== undefined ? { token: w.token } : {}), ...(w.grantId !== undefined ? { grantId: w.grantId } : {}) });
  }

  private addStale(w: StorageWrite, top: { token?: number; grantId?: string }): void {
    this.staleTotal++;
    if (this.stale.length >= WITNESS_MAX) return;
    this.stale.push({
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
  }

  result(): CheckResult {
    const { writes, ...counts } = this.counts;
    return fencingResult(this.byToken, writes, counts, this.stale, this.staleTotal);
  }
}

/** The verdict from what was judged: n/a with nothing to judge, the stale writes accepted, or a pass. */
function fencingResult(
  byToken: boolean,
  writeCount: number,
  counts: { rejected: number; unjudged: number; staleRejected: number },
  stale: readonly StaleWrite[],
  staleTotal: number,
): CheckResult {
  const { rejected, unjudged, staleRejected } = counts;
  const rule = byToken ? "by fencing token" : "by grant order (no fencing tokens in the history)";
  const stats = {
    storageWrites: writeCount,
    accepted: writeCount - rejected,
    rejected,
    staleAccepted: staleTotal,
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
  if (staleTotal > 0) {
    const s = stale[0];
    return {
      checker: FENCING,
      valid: false,
      summary:
        `${staleTotal} stale write(s) accepted, judged ${rule}; first: ${s.client} (${s.grantId ?? "?"}` +
        `${s.token !== undefined ? `, token ${s.token}` : ""}) at ${s.timeUs} µs after ` +
        `${s.newerToken !== undefined ? `token ${s.newerToken}` : `grant ${s.newerGrantId ?? "?"}`} was accepted on "${s.lock}"`,
      witness: { rule: byToken ? "token" : "grant-order", staleWrites: stale.slice(0, WITNESS_MAX), total: staleTotal },
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

/** Grants whose acquire-ok position the online checker keeps per client (a write comes under one of its latest). */
const GRANTS_KEPT_PER_CLIENT = 64;

/**
 * Fencing over a stream. Both rules run side by side until a write carries a token (the
 * verdict is then the token rule's, and the grant order is dropped); the grant-order
 * rule keeps each client's last GRANTS_KEPT_PER_CLIENT grants. A write under an older
 * grant it no longer knows is counted, and a pass with such writes is "unknown".
 */
export class OnlineFencing implements OnlineChecker {
  private readonly byToken = new StaleWriteJudge(true);
  private readonly byGrant = new StaleWriteJudge(false);
  private sawToken = false;
  private readonly order = new Map<string, { at: number; invokedAt: number }>();
  private readonly grantsOf = new Map<string, string[]>();
  private readonly evicted = new Set<string>();
  private forgotten = 0;
  private readonly pairer = new Pairer((invoke, complete) => this.onPair(invoke, complete));

  push(e: HistoryEvent): void {
    // Once a write carries a token the verdict is the token rule's: the grant order is not kept.
    if (!this.sawToken) this.pairer.push(e);
    const w = storageWriteOf(e);
    if (!w) return;
    if (w.token !== undefined && !this.sawToken) this.forgetGrantOrder();
    this.byToken.judge(w, w.token);
    if (this.sawToken) return;
    const rank = w.grantId !== undefined ? this.order.get(w.grantId)?.at : undefined;
    if (w.grantId !== undefined && rank === undefined && this.evicted.has(w.client)) this.forgotten++;
    this.byGrant.judge(w, rank);
  }

  private forgetGrantOrder(): void {
    this.sawToken = true;
    this.order.clear();
    this.grantsOf.clear();
    this.evicted.clear();
    this.pairer.finish();
  }

  private onPair(invoke: HistoryEvent, complete: HistoryEvent): void {
    if (invoke.f !== "acquire" || complete.type !== "ok") return;
    const g = (complete.value as { grantId?: unknown } | undefined)?.grantId;
    if (typeof g !== "string") return;
    const known = this.order.get(g);
    if (known && known.invokedAt > invoke.index) return;
    this.order.set(g, { at: complete.index, invokedAt: invoke.index });
    const list = this.grantsOf.get(invoke.process) ?? [];
    this.grantsOf.set(invoke.process, list);
    if (!known) list.push(g);
    if (list.length > GRANTS_KEPT_PER_CLIENT) {
      this.order.delete(list.shift()!);
      this.evicted.add(invoke.process);
    }
  }

  result(): CheckResult {
    if (this.sawToken) return this.byToken.result();
    const r = this.byGrant.result();
    if (r.valid !== true || this.forgotten === 0) return r;
    return {
      ...r,
      valid: "unknown",
      summary: `${r.summary}; but ${this.forgotten} write(s) came under a grant older than the ${GRANTS_KEPT_PER_CLIENT} online checking keeps per client: check the history in batch (lockstep check)`,
    };
  }
}
