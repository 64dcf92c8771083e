import type { Fiber } from "../../sim/fiber.js";
import type { ProcessContext } from "../../sim/simulation.js";
import { leaderRequest, type LeaderCursor } from "../raft-zk/leader-request.js";
import { ETCD_REPLY, ETCD_REQUEST, type EtcdOp, type EtcdReply } from "./protocol.js";

/**
 * The etcd-lease client library (clientv3 + concurrency.Session): finds the leader,
 * grants one lease per session and keeps it alive from a spawned fiber.
 *
 * Like clientv3's keepalive loop, the client trusts its lease until the send time of
 * the latest answered keepalive plus the TTL (less a clock-drift margin here); after a
 * full TTL without an answer the session is over (Session.Done) and the next lock
 * grants a new lease. "lease not found" ends it at once.
 */
export interface EtcdClientOptions {
  servers: string[];
  leaseTtlMs: number;
  keepAliveIntervalMs: number;
  clockDriftMarginMs: number;
  requestTimeoutMs: number;
}

export class EtcdSession {
  expired = false;
  closed = false;
  constructor(
    readonly leaseId: number,
    /** Monotonic µs: send time of the latest answered request that renewed or proved the lease. */
    public lastHeardUs: number,
  ) {}

  get alive(): boolean {
    return !this.expired && !this.closed;
  }
}

export type EtcdCallResult = EtcdReply | { status: "timeout" };

export class EtcdClient {
  session: EtcdSession | undefined;
  private readonly cursor: LeaderCursor;
  readonly contactListeners: Array<(s: EtcdSession) => void> = [];

  constructor(
    readonly ctx: ProcessContext,
    readonly o: EtcdClientOptions,
  ) {
    this.cursor = { servers: o.servers, guess: ctx.rng.int(0, o.servers.length - 1) };
  }

  get currentServer(): string {
    return this.o.servers[this.cursor.guess]!;
  }

  /** One operation at the leader, following redirects, until `deadlineUs` (monotonic). */
  *request(op: EtcdOp, deadlineUs: number, retryTimeouts: boolean): Fiber<EtcdCallResult> {
    const r = yield* leaderRequest<EtcdReply>(this.ctx, this.cursor, { type: ETCD_REQUEST, op }, { deadlineUs, requestTimeoutMs: this.o.requestTimeoutMs, retryTimeouts });
    if (r.status !== "answered") return r;
    const s = this.session;
    if (s && op.kind === "keepAlive" && op.leaseId === s.leaseId) {
      if (r.reply.status === "ok") this.heard(s, r.sentUs);
      else if (r.reply.status === "error") s.expired = true;
    }
    return r.reply;
  }

  private heard(s: EtcdSession, sentUs: number): void {
    if (sentUs > s.lastHeardUs) s.lastHeardUs = sentUs;
    for (const l of this.contactListeners) l(s);
  }

  trustedUntilUs(s: EtcdSession): number {
    return s.lastHeardUs + (this.o.leaseTtlMs - this.o.clockDriftMarginMs) * 1000;
  }

  private lostByTimeout(s: EtcdSession): boolean {
    return this.ctx.monoUs() >= s.lastHeardUs + this.o.leaseTtlMs * 1000;
  }

  /** concurrency.NewSession: the live session, or a new lease. */
  *ensureSession(deadlineUs: number): Fiber<EtcdSession | undefined> {
    const cur = this.session;
    if (cur && cur.alive && !this.lostByTimeout(cur)) return cur;
    if (cur && cur.alive) this.abandon(cur);
    while (this.ctx.monoUs() < deadlineUs) {
      const sentUs = this.ctx.monoUs();
      const r = yield* this.request({ kind: "leaseGrant", ttlMs: this.o.leaseTtlMs }, deadlineUs, false);
      if (r.status === "ok" && r.leaseId !== undefined) {
        const s = new EtcdSession(r.leaseId, sentUs);
        this.session = s;
        this.ctx.spawn(this.keepAlive(s));
        return s;
      }
    }
    return undefined;
  }

  /** Stop using a session and revoke its lease (best effort): its keys go with it. */
  abandon(s: EtcdSession): void {
    if (s.closed) return;
    s.closed = true;
    if (s.expired) return;
    this.ctx.spawn(this.request({ kind: "leaseRevoke", leaseId: s.leaseId }, this.ctx.monoUs() + this.o.leaseTtlMs * 1000, true));
  }

  private *keepAlive(s: EtcdSession): Fiber<void> {
    const { ctx, o } = this;
    for (;;) {
      yield* ctx.sleep(o.keepAliveIntervalMs);
      if (!s.alive || this.session !== s) return;
      if (this.lostByTimeout(s)) {
        this.abandon(s);
        return;
      }
      yield* this.request({ kind: "keepAlive", leaseId: s.leaseId }, ctx.monoUs() + o.keepAliveIntervalMs * 1000, true);
    }
  }

  /** Wait for `key` to be deleted (answered by `server`), or until `untilUs`. */
  *waitDelete(server: string, key: string, revision: number, untilUs: number): Fiber<"deleted" | "timeout"> {
    const waitMs = Math.ceil((untilUs - this.ctx.monoUs()) / 1000);
    if (waitMs <= 0) return "timeout";
    const r = yield* this.ctx.call(server, { type: ETCD_REQUEST, op: { kind: "waitDelete", key, revision } }, waitMs);
    return r.ok && r.reply.type === ETCD_REPLY ? "deleted" : "timeout";
  }
}
