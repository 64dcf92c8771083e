import type { BehaviorFactory, Message, ProcessBehavior, ProcessContext } from "../../sim/simulation.js";
import type { RaftHost } from "../../services/raft/api.js";
import { RaftServiceHost, type RaftServiceConfig } from "../../services/raft-service/host.js";
import { ZK_EXPIRE_REQUEST, ZK_REPLY, ZK_REQUEST, ZK_TOUCH, type ZkOp, type ZkReply, type ZkWatchEvent } from "./protocol.js";
import { parentOf, ZkTree, type ZkCmd, type ZkEvent, type ZkResult, type ZkTreeCopy } from "./tree.js";

/**
 * A Raft-ZK server: one Raft node whose state machine is the ZkTree, plus the client
 * protocol. Writes are proposed on the leader; reads and pings pass a read barrier,
 * so a deposed leader in a minority answers nothing it could be wrong about (as a
 * ZooKeeper leader without quorum shuts down).
 *
 * Sessions: the leader alone keeps each session's last-heard time on its monotonic
 * clock and proposes `expireSession` once the session timeout has passed in silence.
 * A new leader restarts every session's timer from the moment it finds itself leader
 * (ZooKeeper's SessionTracker on leader start; etcd's lessor Promote).
 *
 * Bug `followerSessionExpiry` (documented in docs/raft-zk.md): the leader also relays
 * which sessions it heard from to the followers, and every follower times sessions on
 * its own wall clock and asks the leader to expire those it thinks silent; the leader
 * complies without checking its own timers. A follower's clock step thus expires live
 * sessions and hands their locks to others.
 */
export interface ZkServerConfig extends RaftServiceConfig {
  /**
   * Chubby's lock-delay: after a session *expires*, its ephemeral nodes stay this long
   * (timed by the leader, proposed as `endLockDelay`), so no waiter takes a lock the
   * silent holder may still act on. A close frees at once. 0: off, as in ZooKeeper.
   */
  lockDelayMs?: number;
}

interface Watch {
  client: string;
  sessionId: number;
  kind: "data" | "child";
  /** The client's awaitWatch request, answered when the watch fires. */
  waiting?: { msg: Message };
  /** Fired before the client asked: delivered on its awaitWatch. */
  fired?: ZkWatchEvent["event"];
}

export class ZkServer implements ProcessBehavior {
  readonly tree = new ZkTree();
  /** The Raft node and the expiry tick; `expiring`: sessions whose expiry is in the log (pings to them are refused). */
  private readonly host: RaftServiceHost<ZkCmd>;
  /** Leader only: monotonic µs at which each session was last heard from. */
  private readonly lastHeardUs = new Map<number, number>();
  private readonly watches = new Map<string, Watch[]>();
  private readonly bugFollowerExpiry: boolean;
  /** Bug mode: per session, this node's wall-clock ms of the last relayed touch. */
  private readonly touchWallMs = new Map<number, number>();
  private readonly touchedSinceRelay = new Set<number>();
  private readonly expiryAskedWallMs = new Map<number, number>();
  /** Leader only: monotonic µs from which each lingering session's lock-delay is counted. */
  private readonly lingerFromUs = new Map<number, number>();
  /** Leader only: lock-delay ends proposed and not yet applied. */
  private readonly lockDelayEnding = new Set<number>();
  private readonly lockDelayMs: number;

  constructor(
    private readonly ctx: ProcessContext,
    private readonly cfg: ZkServerConfig,
    restarted: boolean,
  ) {
    this.bugFollowerExpiry = cfg.options.bugs.followerSessionExpiry === true;
    this.lockDelayMs = cfg.lockDelayMs ?? 0;
    this.host = new RaftServiceHost<ZkCmd>(ctx, cfg, restarted, (cmd, zxid, awaited) => this.applyEntry(cmd, zxid, awaited), {
      followerTick: () => {
        if (this.bugFollowerExpiry) this.followerExpiryBug();
      },
      promote: (nowUs) => {
        for (const id of this.tree.sessions.keys()) this.lastHeardUs.set(id, nowUs);
        // A new leader counts every lock-delay again from its election (never shorter).
        this.lockDelayEnding.clear();
        for (const id of this.tree.lingering.keys()) this.lingerFromUs.set(id, nowUs);
        ctx.record("info", "leader", undefined, { term: this.raft.currentTerm(), sessions: this.tree.sessions.size, note: "restarts every session's timer" });
      },
      leaderTick: (nowUs) => this.leaderTick(nowUs),
      state: () => this.tree,
      stateForm: () => this.tree.stateForm(),
      stateParts: (out) => this.tree.stateParts(out),
      stateSize: () => this.tree.stateSize(),
      snapshot: () => this.tree.snapshot(),
      restore: (copy) => this.tree.restore(copy as ZkTreeCopy),
    });
  }

  get raft(): RaftHost<ZkCmd> {
    return this.host.raft;
  }

  private get expiring(): Set<number> {
    return this.host.expiring;
  }

  onMessage(from: string, msg: Message): void {
    if (this.host.handleRaftMessage(from, msg)) return;
    if (msg.type === ZK_REQUEST) this.onRequest(from, msg);
    else if (msg.type === ZK_TOUCH && this.bugFollowerExpiry) {
      for (const id of msg.sessions as number[]) this.touchWallMs.set(id, this.ctx.wallMs());
    } else if (msg.type === ZK_EXPIRE_REQUEST && this.bugFollowerExpiry) {
      const id = msg.sessionId as number;
      if (this.raft.isLeader() && this.tree.sessions.has(id) && !this.expiring.has(id)) {
        // The bug: the leader complies without asking its own timers.
        this.ctx.record("info", "session-expiry", undefined, {
          sessionId: id,
          owner: this.tree.sessions.get(id)!.owner,
          decidedBy: from,
          clock: `${from}'s wall clock (the follower-expiry bug)`,
        });
        this.expire(id);
      }
    }
  }

  private applyEntry(cmd: ZkCmd, zxid: number, awaited: boolean): ZkResult {
    // Events are read by the watches here (if any) and by a leader's expiry record only.
    const withEvents = this.watches.size > 0 || (cmd.kind === "expireSession" && this.raft.isLeader());
    const r = this.tree.apply(cmd, zxid, awaited, withEvents);
    if (cmd.kind === "createSession") {
      // The session's timer starts when its creation is applied here (as leader, it counts).
      this.lastHeardUs.set(zxid, this.ctx.monoUs());
      this.touchWallMs.set(zxid, this.ctx.wallMs());
    } else if ((cmd.kind === "expireSession" || cmd.kind === "closeSession") && r.ok) {
      if (cmd.kind === "expireSession" && this.raft.isLeader()) {
        const deleted = r.events.filter((e) => e.type === "deleted").map((e) => e.path);
        this.ctx.record("info", "session-expired", undefined, { sessionId: cmd.sessionId, zxid, ephemeralsDeleted: deleted });
      }
      this.lastHeardUs.delete(cmd.sessionId);
      this.expiring.delete(cmd.sessionId);
      this.touchWallMs.delete(cmd.sessionId);
      this.expiryAskedWallMs.delete(cmd.sessionId);
      if (this.tree.lingering.has(cmd.sessionId)) this.lingerFromUs.set(cmd.sessionId, this.ctx.monoUs());
    } else if (cmd.kind === "endLockDelay") {
      this.lingerFromUs.delete(cmd.sessionId);
      this.lockDelayEnding.delete(cmd.sessionId);
    }
    this.fireWatches(r.events);
    return r;
  }

  private fireWatches(events: ZkEvent[]): void {
    // Watches live where they were set (the leader, mostly): a server without any has nothing to look up.
    if (this.watches.size === 0) return;
    for (const e of events) {
      this.fire(e.path, "data", e.type);
      if (e.type !== "changed") this.fire(parentOf(e.path), "child", "children");
    }
  }

  private fire(path: string, kind: Watch["kind"], event: ZkEvent["type"] | "children"): void {
    const ws = this.watches.get(path);
    if (!ws) return;
    const keep: Watch[] = [];
    for (const w of ws) {
      // A watch of a session that has died is dropped silently.
      if (!this.tree.sessions.has(w.sessionId)) continue;
      if (w.kind !== kind || w.fired !== undefined) {
        keep.push(w);
        continue;
      }
      if (w.waiting) {
        this.ctx.record("info", "watch-fired", undefined, { path, client: w.client, event });
        this.ctx.reply(w.client, w.waiting.msg, { type: ZK_REPLY, status: "ok", event });
      } else keep.push({ ...w, fired: event }); // one-shot: kept only until delivered
    }
    if (keep.length > 0) this.watches.set(path, keep);
    else this.watches.delete(path);
  }

  private onRequest(from: string, msg: Message): void {
    const op = msg.op as ZkOp;
    // The body is a fresh literal of this request's: typed in place (a spread into a new
    // object per reply took the generic copy path, the bodies having many shapes).
    const reply = (body: ZkReply): void => {
      const out = body as unknown as Message;
      out.type = ZK_REPLY;
      this.ctx.reply(from, msg, out);
    };
    // Watches live where they were set, leader or not.
    if (op.kind === "awaitWatch") return this.awaitWatch(from, msg, op.path, reply);
    if (!this.raft.isLeader()) return reply(this.host.notLeader());
    if (op.kind === "createSession") {
      return this.host.propose<ZkResult>({ kind: "createSession", timeoutMs: op.timeoutMs, owner: from }, reply, (res, zxid) => {
        reply(res.ok ? { status: "ok", zxid, sessionId: res.sessionId } : { status: "error", error: res.error });
      });
    }
    const sid = op.sessionId;
    if (this.tree.deadSessions.has(sid) || this.expiring.has(sid)) return reply({ status: "error", error: "session-expired" });
    if (!this.tree.sessions.has(sid)) return reply({ status: "retry" });
    // Any request is a sign of life (ZooKeeper touches the session on every packet).
    this.touch(sid);
    switch (op.kind) {
      case "ping":
        return this.host.readBarrier(reply, () => reply({ status: "ok" }));
      case "closeSession":
      case "create":
      case "delete":
      case "set": {
        const cmd: ZkCmd = op.kind === "closeSession" ? { kind: "closeSession", sessionId: sid } : op;
        return this.host.propose<ZkResult>(cmd, reply, (res, zxid) => {
          reply(res.ok ? { status: "ok", zxid, path: res.path, stat: res.stat } : { status: "error", error: res.error });
        });
      }
      case "get":
      case "exists":
      case "getChildren":
        return this.host.readBarrier(reply, () => {
          if (!this.tree.sessions.has(sid)) return reply({ status: "error", error: "session-expired" });
          reply(this.read(from, sid, op.kind, op.path, op.watch));
        });
    }
  }

  private awaitWatch(client: string, msg: Message, path: string, reply: (b: ZkReply) => void): void {
    const ws = this.watches.get(path) ?? [];
    const i = ws.findIndex((w) => w.client === client && this.tree.sessions.has(w.sessionId));
    if (i < 0) return reply({ status: "ok", event: "none" });
    const w = ws[i]!;
    if (w.fired !== undefined) {
      ws.splice(i, 1);
      if (ws.length === 0) this.watches.delete(path);
      return reply({ status: "ok", event: w.fired });
    }
    w.waiting = { msg };
  }

  private read(client: string, sessionId: number, kind: "get" | "exists" | "getChildren", path: string, watch: boolean): ZkReply {
    const addWatch = (k: Watch["kind"]): void => {
      if (!watch) return;
      const ws = this.watches.get(path) ?? [];
      if (!ws.some((w) => w.client === client && w.kind === k && w.fired === undefined)) ws.push({ client, sessionId, kind: k });
      this.watches.set(path, ws);
    };
    if (kind === "exists") {
      addWatch("data"); // exists watches a node's creation too
      const stat = this.tree.exists(path);
      return { status: "ok", ...(stat ? { stat } : {}) };
    }
    if (kind === "get") {
      const n = this.tree.get(path);
      if (!n) return { status: "error", error: "no-node" };
      addWatch("data");
      return { status: "ok", data: n.data, stat: n.stat };
    }
    const children = this.tree.getChildren(path);
    if (!children) return { status: "error", error: "no-node" };
    addWatch("child");
    return { status: "ok", children };
  }

  private touch(sessionId: number): void {
    this.lastHeardUs.set(sessionId, this.ctx.monoUs());
    if (this.bugFollowerExpiry) this.touchedSinceRelay.add(sessionId);
  }

  private expire(sessionId: number): void {
    this.host.expire(sessionId, { kind: "expireSession", sessionId, ...(this.lockDelayMs > 0 ? { lingerEphemerals: true } : {}) });
  }

  private leaderTick(nowUs: number): void {
    for (const [id, s] of this.tree.sessions) {
      if (this.expiring.has(id)) continue;
      const last = this.lastHeardUs.get(id);
      if (last === undefined) {
        this.lastHeardUs.set(id, nowUs);
        continue;
      }
      if (nowUs - last > s.timeoutMs * 1000) {
        this.ctx.record("info", "session-expiry", undefined, {
          sessionId: id,
          owner: s.owner,
          decidedBy: this.ctx.id,
          clock: "the leader's monotonic clock",
          silentMs: (nowUs - last) / 1000,
          timeoutMs: s.timeoutMs,
        });
        this.expire(id);
      }
    }
    for (const id of this.tree.lingering.keys()) {
      if (this.lockDelayEnding.has(id)) continue;
      const from = this.lingerFromUs.get(id);
      if (from === undefined) {
        this.lingerFromUs.set(id, nowUs);
        continue;
      }
      if (nowUs - from < this.lockDelayMs * 1000) continue;
      this.lockDelayEnding.add(id);
      // Not committed (deposed, say): the next leader times it again.
      this.host.propose<ZkResult>(
        { kind: "endLockDelay", sessionId: id },
        () => this.lockDelayEnding.delete(id),
        () => {},
      );
    }
    if (this.bugFollowerExpiry && this.touchedSinceRelay.size > 0) {
      const sessions = [...this.touchedSinceRelay];
      this.touchedSinceRelay.clear();
      for (const p of this.cfg.peers) if (p !== this.ctx.id) this.ctx.send(p, { type: ZK_TOUCH, sessions });
    }
  }

  /** The bug: a follower's wall clock decides that a session is silent. */
  private followerExpiryBug(): void {
    const leader = this.raft.leaderId();
    if (!leader || leader === this.ctx.id) return;
    const nowMs = this.ctx.wallMs();
    for (const [id, s] of this.tree.sessions) {
      const last = this.touchWallMs.get(id) ?? nowMs;
      const asked = this.expiryAskedWallMs.get(id);
      if (nowMs - last > s.timeoutMs && (asked === undefined || nowMs - asked > s.timeoutMs)) {
        this.expiryAskedWallMs.set(id, nowMs);
        this.ctx.record("info", "session-expiry-asked", undefined, {
          sessionId: id,
          owner: s.owner,
          leader,
          silentMsByMyWallClock: nowMs - last,
          timeoutMs: s.timeoutMs,
        });
        this.ctx.send(leader, { type: ZK_EXPIRE_REQUEST, sessionId: id });
      }
    }
  }
}

export function zkServer(cfg: ZkServerConfig): BehaviorFactory {
  return (ctx, restarted) => new ZkServer(ctx, cfg, restarted);
}
