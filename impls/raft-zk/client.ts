import type { Fiber } from "../../sim/fiber.js";
import type { Message, ProcessContext } from "../../sim/simulation.js";
import { ZK_REPLY, ZK_REQUEST, type ZkOp, type ZkReply } from "./protocol.js";
import { leaderRequest, type LeaderCursor } from "./leader-request.js";

/**
 * The Raft-ZK client library: finds the leader (following not-leader hints, rotating
 * through the servers on timeouts), keeps one session alive with pings from a spawned
 * fiber, and waits for one-shot watch events (asked of the server that set the watch).
 *
 * Session semantics are ZooKeeper's as Curator applies them: the client remembers the
 * send time of the latest request the service answered for its session (a leader
 * confirmed by a majority touched the session after that instant). Its locks are
 * trustworthy until that time plus the session timeout less a clock-drift margin
 * (SUSPENDED); after the full timeout without contact the session is treated as LOST
 * and a new one is made for the next acquisition. A "session-expired" answer ends it
 * at once.
 */
export interface ZkClientOptions {
  servers: string[];
  sessionTimeoutMs: number;
  heartbeatIntervalMs: number;
  clockDriftMarginMs: number;
  requestTimeoutMs: number;
}

export class ZkSession {
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

export type ZkCallResult = ZkReply | { status: "timeout" };


export class ZkClient {
  session: ZkSession | undefined;
  private readonly cursor: LeaderCursor;
  /** Called after each contact with the service for a session (lock libraries refresh their grants). */
  readonly contactListeners: Array<(s: ZkSession) => void> = [];

  constructor(
    readonly ctx: ProcessContext,
    readonly o: ZkClientOptions,
  ) {
    this.cursor = { servers: o.servers, guess: ctx.rng.int(0, o.servers.length - 1) };
  }

  /** Where the client sends its next request (for tests and reports). */
  get currentServer(): string {
    return this.o.servers[this.cursor.guess]!;
  }

  /**
   * Send one operation to the leader, following redirects, until `deadlineUs` (monotonic).
   * A write whose request timed out is not retried (`unknown`) unless `retryTimeouts`.
   */
  *request(op: ZkOp, deadlineUs: number, retryTimeouts: boolean): Fiber<ZkCallResult> {
    const r = yield* leaderRequest<ZkReply>(this.ctx, this.cursor, { type: ZK_REQUEST, op }, { deadlineUs, requestTimeoutMs: this.o.requestTimeoutMs, retryTimeouts });
    if (r.status !== "answered") return r;
    const rep = r.reply;
    const s = this.session;
    if (s && "sessionId" in op && op.sessionId === s.id) {
      if (rep.status === "ok") this.heard(s, r.sentUs);
      else if (rep.status === "error" && rep.error === "session-expired") s.expired = true;
    }
    return rep;
  }

  private heard(s: ZkSession, sentUs: number): void {
    if (sentUs > s.lastHeardUs) s.lastHeardUs = sentUs;
    for (const l of this.contactListeners) l(s);
  }

  /** Monotonic µs until which locks of session `s` may be trusted. */
  trustedUntilUs(s: ZkSession): number {
    return s.lastHeardUs + (this.o.sessionTimeoutMs - this.o.clockDriftMarginMs) * 1000;
  }

  /** Curator's LOST: a full session timeout without contact; the cluster has (or will have) expired it. */
  private lostByTimeout(s: ZkSession): boolean {
    return this.ctx.monoUs() >= s.lastHeardUs + this.o.sessionTimeoutMs * 1000;
  }

  /** The live session, creating one if there is none; undefined if the service could not be reached by `deadlineUs`. */
  *ensureSession(deadlineUs: number): Fiber<ZkSession | undefined> {
    const cur = this.session;
    if (cur && cur.alive && !this.lostByTimeout(cur)) return cur;
    if (cur && cur.alive) this.abandon(cur);
    while (this.ctx.monoUs() < deadlineUs) {
      const sentUs = this.ctx.monoUs();
      const r = yield* this.request({ kind: "createSession", timeoutMs: this.o.sessionTimeoutMs }, deadlineUs, false);
      if (r.status === "ok" && r.sessionId !== undefined) {
        const s = new ZkSession(r.sessionId, sentUs);
        this.session = s;
        this.ctx.spawn(this.heartbeat(s));
        return s;
      }
      // unknown/timeout: an orphan session, if created, expires by itself.
    }
    return undefined;
  }

  /** Stop using a session; ask the service to close it (best effort) so its ephemerals go now. */
  abandon(s: ZkSession): void {
    if (s.closed) return;
    s.closed = true;
    if (s.expired) return;
    const deadlineUs = this.ctx.monoUs() + this.o.sessionTimeoutMs * 1000;
    this.ctx.spawn(this.request({ kind: "closeSession", sessionId: s.id }, deadlineUs, true));
  }

  private *heartbeat(s: ZkSession): Fiber<void> {
    const { ctx, o } = this;
    for (;;) {
      yield* ctx.sleep(o.heartbeatIntervalMs);
      if (!s.alive || this.session !== s) return;
      if (this.lostByTimeout(s)) {
        this.abandon(s);
        return;
      }
      yield* this.request({ kind: "ping", sessionId: s.id }, ctx.monoUs() + o.heartbeatIntervalMs * 1000, true);
    }
  }

  /**
   * Wait until the watch this client set on `path` (through `server`) fires, or until
   * `untilUs` (monotonic). "none": that server holds no such watch (it restarted, say).
   */
  *waitForWatch(server: string, sessionId: number, path: string, untilUs: number): Fiber<"event" | "none" | "timeout"> {
    const waitMs = Math.ceil((untilUs - this.ctx.monoUs()) / 1000);
    if (waitMs <= 0) return "timeout";
    const r = yield* this.ctx.call(server, { type: ZK_REQUEST, op: { kind: "awaitWatch", sessionId, path } }, waitMs);
    if (!r.ok) return "timeout";
    const rep = replyOf(r.reply);
    return rep.status === "ok" && rep.event !== undefined && rep.event !== "none" ? "event" : "none";
  }
}

function replyOf(m: Message): ZkReply {
  if (m.type !== ZK_REPLY) return { status: "unknown" };
  return m as unknown as ZkReply;
}
