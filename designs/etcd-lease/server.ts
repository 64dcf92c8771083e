import type { BehaviorFactory, Message, ProcessBehavior, ProcessContext } from "../../sim/simulation.js";
import type { RaftHost } from "../../services/raft/api.js";
import { RaftServiceHost, type RaftServiceConfig } from "../../services/raft-service/host.js";
import { ETCD_REPLY, ETCD_REQUEST, type EtcdOp, type EtcdReply } from "./protocol.js";
import { EtcdKv, type EtcdCmd, type EtcdKvCopy, type EtcdResult, type KvEvent } from "./kv.js";

/**
 * An etcd-lease server: one Raft node whose state machine is the EtcdKv, plus the
 * client protocol. Writes (transactions, lease grant/revoke) are proposed on the
 * leader; ranges and keepalives pass a read barrier first (etcd's ensureLeadership
 * before LeaseRenew), so a deposed leader renews nothing.
 *
 * The lessor runs on the leader only (etcd's Promote/Demote): each lease expires on the
 * leader's monotonic clock TTL after its grant or last keepalive, and the leader then
 * proposes its revocation. A new leader extends every lease to now + TTL + one election
 * timeout (lessor.Promote(extend)). Followers never expire leases.
 */
export interface EtcdServerConfig extends RaftServiceConfig {
  /**
   * What becomes of a revocation an old leader decided alone (its lease timers ran on while
   * it was cut off) once it finds it no longer leads: "dropped" (etcd since PR 16822: a
   * leader checks it still leads before revoking) or "forwarded" (before it: the proposal
   * goes on to the new leader, which applies it, while the client keeps the lease alive
   * there; etcd issues 12528 and 15247).
   */
  staleLeaderRevoke?: StaleLeaderRevoke;
}

export const STALE_LEADER_REVOKES = ["dropped", "forwarded"] as const;
export type StaleLeaderRevoke = (typeof STALE_LEADER_REVOKES)[number];

export class EtcdServer implements ProcessBehavior {
  readonly kv = new EtcdKv();
  private readonly host: RaftServiceHost<EtcdCmd>;
  /** Leader only: monotonic µs at which each lease expires. */
  private readonly expiresAtUs = new Map<number, number>();
  /** staleLeaderRevoke "forwarded": revocations lost with our leadership, for the next leader we learn of. */
  private readonly revokesToForward: number[] = [];
  /** waitDelete requests, by key. */
  private readonly deleteWaiters = new Map<string, Array<{ client: string; msg: Message }>>();

  constructor(
    private readonly ctx: ProcessContext,
    private readonly cfg: EtcdServerConfig,
    restarted: boolean,
  ) {
    this.host = new RaftServiceHost<EtcdCmd>(ctx, cfg, restarted, (cmd, index, awaited) => this.applyEntry(cmd, index, awaited), {
      followerTick: () => this.forwardRevokes(),
      promote: (nowUs) => this.promote(nowUs),
      leaderTick: (nowUs) => this.expireLeases(nowUs),
      state: () => this.kv,
      stateForm: () => this.kv.stateForm(),
      stateParts: (out) => this.kv.stateParts(out),
      stateSize: () => this.kv.stateSize(),
      snapshot: () => this.kv.snapshot(),
      restore: (copy) => this.kv.restore(copy as EtcdKvCopy),
    });
  }

  get raft(): RaftHost<EtcdCmd> {
    return this.host.raft;
  }

  onMessage(from: string, msg: Message): void {
    if (this.host.handleRaftMessage(from, msg)) return;
    if (msg.type === ETCD_REQUEST) this.onRequest(from, msg);
  }

  private applyEntry(cmd: EtcdCmd, index: number, awaited: boolean): EtcdResult {
    const r = this.kv.apply(cmd, index, awaited);
    if (cmd.kind === "leaseGrant") this.expiresAtUs.set(index, this.ctx.monoUs() + cmd.ttlMs * 1000);
    else if (cmd.kind === "leaseRevoke") {
      // Revoked because this leader's lessor expired it (a client's own revoke is its release, drawn on its lane).
      if (r.ok && this.host.expiring.has(cmd.leaseId)) {
        const deleted = r.events.filter((e) => e.type === "delete").map((e) => e.key);
        this.ctx.record("info", "lease-revoked", undefined, { leaseId: cmd.leaseId, revision: r.revision, keysDeleted: deleted });
      }
      this.expiresAtUs.delete(cmd.leaseId);
      this.host.expiring.delete(cmd.leaseId);
    }
    this.fireDeletes(r.events);
    return r;
  }

  private fireDeletes(events: KvEvent[]): void {
    for (const e of events) {
      if (e.type !== "delete") continue;
      const ws = this.deleteWaiters.get(e.key);
      if (!ws) continue;
      this.deleteWaiters.delete(e.key);
      for (const w of ws) this.ctx.reply(w.client, w.msg, { type: ETCD_REPLY, status: "ok", revision: e.revision });
    }
  }

  private onRequest(from: string, msg: Message): void {
    const op = msg.op as EtcdOp;
    // The body is a fresh literal of this request's: typed in place (a spread into a new
    // object per reply took the generic copy path, the bodies having many shapes).
    const reply = (body: EtcdReply): void => {
      const out = body as unknown as Message;
      out.type = ETCD_REPLY;
      this.ctx.reply(from, msg, out);
    };
    if (op.kind === "waitDelete") {
      // Any member serves watches from its own applied state.
      if (!this.kv.get(op.key)) return reply({ status: "ok", revision: this.kv.revision });
      const ws = this.deleteWaiters.get(op.key) ?? [];
      ws.push({ client: from, msg });
      this.deleteWaiters.set(op.key, ws);
      return;
    }
    if (!this.host.raft.isLeader()) return reply(this.host.notLeader());
    switch (op.kind) {
      case "keepAlive": {
        const id = op.leaseId;
        if (this.kv.deadLeases.has(id) || this.host.expiring.has(id)) return reply({ status: "error", error: "lease-not-found" });
        const lease = this.kv.leases.get(id);
        if (!lease) return reply({ status: "retry" });
        // Renew at receipt; answer only once a majority confirms we still lead.
        this.expiresAtUs.set(id, this.ctx.monoUs() + lease.ttlMs * 1000);
        return this.host.readBarrier(reply, () => reply({ status: "ok", revision: this.kv.revision, ttlMs: lease.ttlMs }));
      }
      case "range":
        return this.host.readBarrier(reply, () => reply({ status: "ok", revision: this.kv.revision, kvs: this.kv.range({ op: "range", ...op }) }));
      case "leaseGrant":
      case "leaseRevoke":
      case "txn": {
        const cmd: EtcdCmd =
          op.kind === "leaseGrant"
            ? { kind: "leaseGrant", ttlMs: op.ttlMs, owner: from }
            : op.kind === "leaseRevoke"
              ? { kind: "leaseRevoke", leaseId: op.leaseId }
              : { kind: "txn", compare: op.compare, success: op.success, failure: op.failure };
        return this.host.propose<EtcdResult>(cmd, reply, (res) => {
          if (!res.ok) return reply({ status: "error", error: res.error });
          reply({
            status: "ok",
            revision: res.revision,
            ...(res.leaseId !== undefined ? { leaseId: res.leaseId, ttlMs: (cmd as { ttlMs: number }).ttlMs } : {}),
            ...(res.succeeded !== undefined ? { succeeded: res.succeeded, responses: res.responses } : {}),
          });
        });
      }
    }
  }

  /** Promote(extend): every lease gets its full TTL plus one election timeout from now. */
  private promote(nowUs: number): void {
    const extendUs = this.cfg.options.electionTimeoutMsMax * 1000;
    for (const [id, l] of this.kv.leases) this.expiresAtUs.set(id, nowUs + l.ttlMs * 1000 + extendUs);
    this.ctx.record("info", "leader", undefined, {
      term: this.raft.currentTerm(),
      leases: this.kv.leases.size,
      note: `extends every lease by its TTL + ${extendUs / 1000} ms`,
    });
  }

  private expireLeases(nowUs: number): void {
    for (const [id, l] of this.kv.leases) {
      if (this.host.expiring.has(id)) continue;
      const at = this.expiresAtUs.get(id);
      if (at === undefined) {
        this.expiresAtUs.set(id, nowUs + l.ttlMs * 1000);
        continue;
      }
      if (nowUs > at) {
        this.ctx.record("info", "lease-expiry", undefined, {
          leaseId: id,
          owner: l.owner,
          decidedBy: this.ctx.id,
          clock: "the leader's monotonic clock",
          ttlMs: l.ttlMs,
          overdueMs: (nowUs - at) / 1000,
        });
        this.host.expire(id, { kind: "leaseRevoke", leaseId: id }, () => this.onRevokeLost(id));
      }
    }
  }

  /** A revocation of ours that was in the log when we lost the leadership. */
  private onRevokeLost(leaseId: number): void {
    if (this.cfg.staleLeaderRevoke !== "forwarded") return;
    this.revokesToForward.push(leaseId);
    this.forwardRevokes();
  }

  /** As a follower's proposals go to the leader: once one is known. */
  private forwardRevokes(): void {
    const leader = this.raft.leaderId();
    if (this.revokesToForward.length === 0 || leader === undefined || leader === this.ctx.id) return;
    for (const leaseId of this.revokesToForward) {
      this.ctx.record("info", "lease-revoke-forwarded", undefined, { leaseId, to: leader, note: "an old leader's revocation, decided alone" });
      this.ctx.send(leader, { type: ETCD_REQUEST, op: { kind: "leaseRevoke", leaseId } });
    }
    this.revokesToForward.length = 0;
  }
}

export function etcdServer(cfg: EtcdServerConfig): BehaviorFactory {
  return (ctx, restarted) => new EtcdServer(ctx, cfg, restarted);
}
