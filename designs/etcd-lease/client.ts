import type { Fiber } from "../../sim/fiber.js";
import type { ProcessContext } from "../../sim/simulation.js";
import { ServiceSession, SessionClient, type SessionCallResult } from "../../services/raft-service/session-client.js";
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

export class EtcdSession extends ServiceSession {
  get leaseId(): number {
    return this.id;
  }
}

export type EtcdCallResult = SessionCallResult<EtcdReply>;

export class EtcdClient extends SessionClient<EtcdOp, EtcdReply, EtcdSession> {
  constructor(
    ctx: ProcessContext,
    readonly o: EtcdClientOptions,
  ) {
    super(ctx, o.servers, {
      requestType: ETCD_REQUEST,
      timeoutMs: o.leaseTtlMs,
      keepAliveIntervalMs: o.keepAliveIntervalMs,
      clockDriftMarginMs: o.clockDriftMarginMs,
      requestTimeoutMs: o.requestTimeoutMs,
      // concurrency.NewSession: a new lease.
      createOp: () => ({ kind: "leaseGrant", ttlMs: o.leaseTtlMs }),
      createdId: (r) => (r.status === "ok" ? r.leaseId : undefined),
      newSession: (id, sentUs) => new EtcdSession(id, sentUs),
      keepAliveOp: (leaseId) => ({ kind: "keepAlive", leaseId }),
      // Revoking the lease takes its keys with it.
      closeOp: (leaseId) => ({ kind: "leaseRevoke", leaseId }),
      // Only a keepalive's answer renews the lease; "lease not found" ends it.
      provesSession: (op) => (op.kind === "keepAlive" ? op.leaseId : undefined),
      expiredBy: (r) => r.status === "error",
    });
  }

  /** Wait for `key` to be deleted (answered by `server`), or until `untilUs`. */
  *waitDelete(server: string, key: string, revision: number, untilUs: number): Fiber<"deleted" | "timeout"> {
    const waitMs = Math.ceil((untilUs - this.ctx.monoUs()) / 1000);
    if (waitMs <= 0) return "timeout";
    const r = yield* this.ctx.call(server, { type: ETCD_REQUEST, op: { kind: "waitDelete", key, revision } }, waitMs);
    return r.ok && r.reply.type === ETCD_REPLY ? "deleted" : "timeout";
  }
}
