/**
 * Liveness, part 2: a lock held by a client that crashed (nemesis crash/kill of a client
 * process) is granted to another client within the grant's TTL × (1 + drift) plus a
 * retry's slack, if someone waits, unless a fault is active at the crash or begins before
 * the deadline, or the history ends first. Judged as the history streams: the crashed
 * holders whose deadline has not passed are held.
 */
import type { HistoryEvent, Operation } from "../sim/history.js";
import type { CheckContext } from "./types.js";
import type { CrashedHolder, CrashedHoldersVerdict } from "./liveness-verdict.js";

const RETRY_SLACK_FRACTION = 0.25;
const WITNESS_MAX = 20;

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

interface Pending {
  holder: CrashedHolder;
  regranted: boolean;
  faultAtCrash: boolean;
  faultLater: boolean;
}

export class CrashedHolders {
  private readonly pending: Pending[] = [];
  private readonly out: Required<CrashedHoldersVerdict> = { stuck: [], stuckTotal: 0, judged: 0 };
  /**
   * Per client, per lock: its latest grant until a release of it is sent (nothing reads
   * it after). By client, so a release or a crash looks at that client's grants alone,
   * and the map holds live grants only, not every client and lock there has been.
   */
  private readonly grants = new Map<string, Map<string, { lock: string; grantId?: string; ttlMs?: number }>>();
  /**
   * Per lock, the acquires answered at the latest instant one was, by client. A crash
   * counts as waiting a client whose last answer came at or after it, and the history
   * comes in time order, so only answers of the crash's own instant can count.
   */
  private readonly lastAnswered = new Map<string, { atUs: number; byClient: Map<string, { index: number; endUs: number }> }>();
  /** Acquires in flight per lock: client -> its invoke's index. */
  private readonly acquiring = new Map<string, Map<string, number>>();
  /** Per lock, clients with an acquire that never got a definite answer, by the first one's index. */
  private readonly neverAnswered = new Map<string, Map<string, number>>();
  private readonly open = new Map<string, HistoryEvent>();

  constructor(
    private readonly ctx: CheckContext,
    private readonly ttlMs: number,
  ) {}

  /** Every event: acquires in flight and their answers, releases sent, new waiters of pending holders. */
  push(e: HistoryEvent, _faultActive: boolean): void {
    if (e.type === "invoke" && e.f === "acquire") this.attempt(e);
    else if (e.type === "invoke" && e.f === "release") this.releaseSent(e);
    const invoke = this.open.get(e.process);
    if (e.type === "invoke") {
      if (invoke?.f === "acquire") this.unanswered(invoke);
      if (e.f === "acquire") this.open.set(e.process, e);
      else this.open.delete(e.process);
    } else if (invoke && invoke.f === e.f && e.f === "acquire") {
      this.open.delete(e.process);
      this.answered(invoke, e);
    }
  }

  finish(lastUs: number): void {
    for (const invoke of this.open.values()) if (invoke.f === "acquire") this.unanswered(invoke);
    this.open.clear();
    for (const p of this.pending.splice(0)) if (p.holder.deadlineUs <= lastUs) this.judge(p);
  }

  verdict(): CrashedHoldersVerdict {
    return this.out;
  }

  private attempt(e: HistoryEvent): void {
    const lock = e.lock ?? "lock";
    const inFlight = this.acquiring.get(lock) ?? new Map<string, number>();
    this.acquiring.set(lock, inFlight);
    inFlight.set(e.process, e.index);
    for (const { holder } of this.pending)
      if (holder.lock === lock && holder.client !== e.process && e.timeUs <= holder.deadlineUs && !holder.waiters.includes(e.process))
        holder.waiters.push(e.process);
  }

  private answered(invoke: HistoryEvent, complete: HistoryEvent): void {
    const lock = invoke.lock ?? "lock";
    this.acquiring.get(lock)?.delete(invoke.process);
    if (complete.type === "info") this.markNever(lock, invoke);
    let answered = this.lastAnswered.get(lock);
    if (answered === undefined) this.lastAnswered.set(lock, (answered = { atUs: complete.timeUs, byClient: new Map() }));
    else if (complete.timeUs > answered.atUs) {
      answered.atUs = complete.timeUs;
      answered.byClient.clear();
    }
    answered.byClient.set(invoke.process, { index: invoke.index, endUs: complete.timeUs });
  }

  private unanswered(invoke: HistoryEvent): void {
    this.acquiring.get(invoke.lock ?? "lock")?.delete(invoke.process);
    this.markNever(invoke.lock ?? "lock", invoke);
  }

  private markNever(lock: string, invoke: HistoryEvent): void {
    const byClient = this.neverAnswered.get(lock) ?? new Map<string, number>();
    this.neverAnswered.set(lock, byClient);
    if (!byClient.has(invoke.process)) byClient.set(invoke.process, invoke.index);
  }

  /** A grant of `lock` to `client`: it may re-grant a crashed holder's lock, and is the grant a crash would strand. */
  granted(lock: string, client: string, atUs: number, grantId: string | undefined, ttlMs: number | undefined): void {
    for (const p of this.pending)
      if (p.holder.lock === lock && p.holder.client !== client && atUs > p.holder.crashUs && atUs <= p.holder.deadlineUs) p.regranted = true;
    let mine = this.grants.get(client);
    if (mine === undefined) this.grants.set(client, (mine = new Map()));
    mine.set(lock, { lock, ...(grantId !== undefined ? { grantId } : {}), ...(ttlMs !== undefined ? { ttlMs } : {}) });
  }

  private releaseSent(e: HistoryEvent): void {
    const mine = this.grants.get(e.process);
    if (mine === undefined) return;
    const g = (e.value as { grantId?: unknown } | undefined)?.grantId;
    for (const [lock, held] of mine) if (held.grantId === undefined || held.grantId === g) mine.delete(lock);
    if (mine.size === 0) this.grants.delete(e.process);
  }

  faultChanged(atUs: number, before: boolean, after: boolean): void {
    if (!before && after) for (const p of this.pending) if (atUs < p.holder.deadlineUs) p.faultLater = true;
    // A span that ended at the crash's own time did not overlap it.
    if (before && !after) for (const p of this.pending) if (atUs <= p.holder.crashUs) p.faultAtCrash = false;
  }

  clientCrashed(client: string, atUs: number, faultActive: boolean): void {
    const mine = this.grants.get(client);
    if (mine === undefined) return;
    this.grants.delete(client);
    for (const held of mine.values()) {
      const grantTtlMs = this.ctx.sessionTimeoutMs ?? held.ttlMs ?? this.ttlMs;
      const drift = 1 + (this.ctx.clockDriftPpmMax ?? 0) / 1e6;
      const deadlineUs = atUs + grantTtlMs * 1000 * (drift + RETRY_SLACK_FRACTION);
      const holder: CrashedHolder = {
        lock: held.lock,
        client,
        ...(held.grantId ? { grantId: held.grantId } : {}),
        crashUs: atUs,
        deadlineUs,
        waiters: this.waitingAt(held.lock, client, atUs),
      };
      this.pending.push({ holder, regranted: false, faultAtCrash: faultActive, faultLater: false });
    }
  }

  /** Clients other than `client` waiting on `lock` now, in the order of their acquires. */
  private waitingAt(lock: string, client: string, atUs: number): string[] {
    const first = new Map<string, number>();
    for (const [c, a] of this.lastAnswered.get(lock)?.byClient ?? []) if (c !== client && a.endUs >= atUs) first.set(c, a.index);
    for (const m of [this.acquiring.get(lock), this.neverAnswered.get(lock)])
      for (const [c, index] of m ?? []) if (c !== client) first.set(c, Math.min(first.get(c) ?? Infinity, index));
    return [...first].sort((a, b) => a[1] - b[1]).map(([c]) => c);
  }

  /** Crashed holders whose deadline has passed are judged. */
  settle(nowUs: number): void {
    if (this.pending.length === 0) return;
    for (let i = 0; i < this.pending.length;) {
      if (this.pending[i]!.holder.deadlineUs < nowUs) this.judge(this.pending.splice(i, 1)[0]!);
      else i++;
    }
  }

  private judge(p: Pending): void {
    if (p.faultAtCrash || p.faultLater || p.holder.waiters.length === 0) return;
    this.out.judged++;
    if (p.regranted) return;
    this.out.stuckTotal++;
    if (this.out.stuck.length < WITNESS_MAX) this.out.stuck.push(p.holder);
  }
}
