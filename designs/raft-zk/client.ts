import type { Fiber } from "../../sim/fiber.js";
import type { Message, ProcessContext } from "../../sim/simulation.js";
import { ZK_REPLY, ZK_REQUEST, type ZkOp, type ZkReply } from "./protocol.js";
import { ServiceSession, SessionClient, type SessionCallResult } from "../../services/raft-service/session-client.js";

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

export type ZkSession = ServiceSession;

export type ZkCallResult = SessionCallResult<ZkReply>;

export class ZkClient extends SessionClient<ZkOp, ZkReply, ZkSession> {
  constructor(
    ctx: ProcessContext,
    readonly o: ZkClientOptions,
  ) {
    super(ctx, o.servers, {
      requestType: ZK_REQUEST,
      timeoutMs: o.sessionTimeoutMs,
      keepAliveIntervalMs: o.heartbeatIntervalMs,
      clockDriftMarginMs: o.clockDriftMarginMs,
      requestTimeoutMs: o.requestTimeoutMs,
      createOp: () => ({ kind: "createSession", timeoutMs: o.sessionTimeoutMs }),
      createdId: (r) => (r.status === "ok" ? r.sessionId : undefined),
      newSession: (id, sentUs) => new ServiceSession(id, sentUs),
      keepAliveOp: (sessionId) => ({ kind: "ping", sessionId }),
      // Closing the session deletes its ephemerals now.
      closeOp: (sessionId) => ({ kind: "closeSession", sessionId }),
      // Any request answered for the session is contact (ZooKeeper touches it on every packet).
      provesSession: (op) => ("sessionId" in op ? op.sessionId : undefined),
      expiredBy: (r) => r.status === "error" && r.error === "session-expired",
    });
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
