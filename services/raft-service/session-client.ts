import type { Fiber } from "../../sim/fiber.js";
import type { ProcessContext } from "../../sim/simulation.js";
import { leaderCall, type AnswerSink, type LeaderCursor, type StatusReply } from "./leader-request.js";

/**
 * The client side of a session with a service on the Raft core (a ZooKeeper session,
 * an etcd lease): requests go to the leader (leaderCall); one session at a time is
 * kept alive from a spawned fiber. The client remembers the send time of the latest
 * request the service answered for the session (a leader confirmed by a majority
 * heard from it after that instant): locks of the session are trusted until then plus
 * the timeout less a clock-drift margin; after the full timeout without contact the
 * session is over and the next acquisition opens a new one. An answer saying the
 * service has expired it ends it at once.
 */
export class ServiceSession {
  expired = false;
  /** Abandoned by this client (closed, or given up on): no longer used for new work. */
  closed = false;
  constructor(
    readonly id: number,
    /** Monotonic µs: send time of the latest request answered for this session. */
    public lastHeardUs: number,
  ) {}

  get alive(): boolean {
    return !this.expired && !this.closed;
  }
}

/** A service's session operations, in its own protocol. */
export interface SessionProtocol<Op, Reply, S extends ServiceSession> {
  /** Message type of a client request ({ type, op }). */
  requestType: string;
  /** Session timeout (lease TTL), ms. */
  timeoutMs: number;
  /** Pause between keepalives, ms. */
  keepAliveIntervalMs: number;
  clockDriftMarginMs: number;
  requestTimeoutMs: number;
  createOp(): Op;
  /** The new session's id, if `reply` answers `createOp` with one. */
  createdId(reply: Reply): number | undefined;
  newSession(id: number, sentUs: number): S;
  keepAliveOp(id: number): Op;
  closeOp(id: number): Op;
  /** The session whose liveness an "ok" answer to `op` proves, if any. */
  provesSession(op: Op): number | undefined;
  /** `reply` (to an op proving a session) says the service has expired that session. */
  expiredBy(reply: Reply): boolean;
}

export type SessionCallResult<Reply> = Reply | { status: "timeout" } | { status: "unknown" };

export class SessionClient<Op, Reply extends StatusReply, S extends ServiceSession> implements AnswerSink<Reply, Op> {
  session: S | undefined;
  private readonly cursor: LeaderCursor;
  /** Called after each contact with the service for a session (lock libraries refresh their grants). */
  readonly contactListeners: Array<(s: S) => void> = [];

  constructor(
    readonly ctx: ProcessContext,
    servers: string[],
    private readonly p: SessionProtocol<Op, Reply, S>,
  ) {
    this.cursor = { servers, guess: ctx.rng.int(0, servers.length - 1) };
  }

  /** Where the client sends its next request (for tests and reports). */
  get currentServer(): string {
    return this.cursor.servers[this.cursor.guess]!;
  }

  /**
   * Send one operation to the leader, following redirects, until `deadlineUs` (monotonic).
   * A write whose request timed out is not retried (`unknown`) unless `retryTimeouts`.
   * The fiber is leaderCall's own (no generator of this method wrapped round it): what
   * an answer says of the session is taken in `answered`, as leaderCall returns it.
   */
  request(op: Op, deadlineUs: number, retryTimeouts: boolean): Fiber<SessionCallResult<Reply>> {
    return leaderCall<Reply, Op>(this.ctx, this.cursor, { type: this.p.requestType, op }, deadlineUs, this.p.requestTimeoutMs, retryTimeouts, this, op);
  }

  /** leaderCall's sink (AnswerSink): an answer to an op proving the live session renews it, or says it expired. */
  answered(reply: Reply, sentUs: number, op: Op): void {
    const s = this.session;
    if (s && this.p.provesSession(op) === s.id) {
      if (reply.status === "ok") this.heard(s, sentUs);
      else if (this.p.expiredBy(reply)) s.expired = true;
    }
  }

  private heard(s: S, sentUs: number): void {
    if (sentUs > s.lastHeardUs) s.lastHeardUs = sentUs;
    for (const l of this.contactListeners) l(s);
  }

  /** Monotonic µs until which locks of session `s` may be trusted. */
  trustedUntilUs(s: S): number {
    return s.lastHeardUs + (this.p.timeoutMs - this.p.clockDriftMarginMs) * 1000;
  }

  /** A full timeout without contact: the cluster has (or will have) expired the session. */
  private lostByTimeout(s: S): boolean {
    return this.ctx.monoUs() >= s.lastHeardUs + this.p.timeoutMs * 1000;
  }

  /** The live session, opening one if there is none; undefined if the service could not be reached by `deadlineUs`. */
  *ensureSession(deadlineUs: number): Fiber<S | undefined> {
    const cur = this.session;
    if (cur && cur.alive && !this.lostByTimeout(cur)) return cur;
    if (cur && cur.alive) this.abandon(cur);
    while (this.ctx.monoUs() < deadlineUs) {
      const sentUs = this.ctx.monoUs();
      const r = yield* this.request(this.p.createOp(), deadlineUs, false);
      const id = r.status === "ok" ? this.p.createdId(r as Reply) : undefined;
      if (id !== undefined) {
        const s = this.p.newSession(id, sentUs);
        this.session = s;
        this.ctx.spawn(this.keepAlive(s));
        return s;
      }
      // unknown/timeout: an orphan session, if opened, expires by itself.
    }
    return undefined;
  }

  /** Stop using a session; ask the service to close it (best effort) so what it holds goes now. */
  abandon(s: S): void {
    if (s.closed) return;
    s.closed = true;
    if (s.expired) return;
    this.ctx.spawn(this.request(this.p.closeOp(s.id), this.ctx.monoUs() + this.p.timeoutMs * 1000, true));
  }

  private *keepAlive(s: S): Fiber<void> {
    const { ctx, p } = this;
    for (;;) {
      yield* ctx.sleep(p.keepAliveIntervalMs);
      if (!s.alive || this.session !== s) return;
      if (this.lostByTimeout(s)) {
        this.abandon(s);
        return;
      }
      yield* this.request(p.keepAliveOp(s.id), ctx.monoUs() + p.keepAliveIntervalMs * 1000, true);
    }
  }
}
