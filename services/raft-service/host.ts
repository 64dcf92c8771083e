import type { Message, ProcessContext } from "../../sim/simulation.js";
import { isRaftMessageType, type CreateRaftNode, type RaftHost } from "../raft/api.js";
import type { RaftServiceOptions } from "./options.js";
import { canonicalForm, replicaStatesOf, type FormParts, type ReplicaStateLog } from "./replica-states.js";

/**
 * How a service server on the Raft core (raft-zk, etcd-lease) hosts its Raft node:
 * creates it from the shared options, routes "raft-" messages to it, answers client
 * requests through propose / readBarrier with a not-leader redirect, and runs the
 * leader-only expiry tick (sessions, leases) with its promote/demote transitions.
 * The service keeps its state machine, its protocol and what "expired" means.
 */
export interface RaftServiceConfig {
  peers: string[];
  options: RaftServiceOptions;
  createRaft: CreateRaftNode;
}

/** The service side of the tick; `nowUs` is the leader's monotonic clock. */
export interface RaftServiceTick {
  /** This node is not leader (pending expiries were already forgotten). */
  followerTick?(): void;
  /** This node has just found itself leader of a new term: restart every timer. */
  promote(nowUs: number): void;
  /** Every tick while leader (after `promote`, if any): propose what has expired. */
  leaderTick(nowUs: number): void;
  /** The replicated state machine, read after each apply for the replica-agreement checker. */
  state?(): unknown;
  /** canonicalForm(state()), byte for byte, where the service keeps it cheaper than a walk of the whole state. */
  stateForm?(): string;
  /** With stateForm: the parts that determine it (FormParts), so a replica that agrees with one digested before is not made to write its whole form. */
  stateParts?(out: FormParts): void;
  /** Members of the state's maps and sets, in O(1): a digest's cost, which sets how often one is taken (digestedAt). */
  stateSize?(): number;
  /** §7 log compaction (RaftNodeOptions.snapshot, restore): a copy of the state machine, and putting one back. */
  snapshot?(): unknown;
  restore?(state: unknown): void;
}

export interface NotLeaderReply {
  status: "not-leader";
  leader: string | undefined;
}

export class RaftServiceHost<Cmd> {
  readonly raft: RaftHost<Cmd>;
  /** Leader only: ids (sessions, leases) whose expiry is in the log. */
  readonly expiring = new Set<number>();
  /** The term in which this node last found itself leader (undefined: not leader). */
  private leaderTerm: number | undefined;
  private readonly tickMs: number;

  constructor(
    private readonly ctx: ProcessContext,
    cfg: RaftServiceConfig,
    restarted: boolean,
    /** `awaited`: this node's proposal waits for the result (RaftNodeOptions.apply). */
    apply: (cmd: Cmd, index: number, awaited: boolean) => unknown,
    private readonly service: RaftServiceTick,
  ) {
    const o = cfg.options;
    const state = service.state?.bind(service);
    const form = service.stateForm ? service.stateForm.bind(service) : state ? () => canonicalForm(state()) : undefined;
    const parts = service.stateForm && service.stateParts ? service.stateParts.bind(service) : undefined;
    const size = service.stateSize?.bind(service);
    const replica: ReplicaStateLog | undefined = form ? replicaStatesOf(ctx.sim).open(ctx.id) : undefined;
    // Expiry is checked on a tick: late by up to one tick, never early.
    this.tickMs = Math.max(5, Math.min(100, Math.floor(o.sessionTimeoutMs / 20)));
    this.raft = cfg.createRaft<Cmd>(
      ctx,
      {
        peers: cfg.peers,
        ...electionTimeoutsFor(ctx.id, o),
        heartbeatIntervalMs: o.raftHeartbeatIntervalMs,
        ...(service.snapshot && service.restore ? { snapshot: service.snapshot.bind(service), restore: service.restore.bind(service) } : {}),
        apply: (cmd, at) => {
          const r = apply(cmd, at.index, at.awaited);
          if (parts !== undefined) replica!.appliedParts(at.index, parts, form!, size);
          else replica?.appliedForm(at.index, form!, size);
          return r;
        },
      },
      restarted,
    );
    this.scheduleTick();
  }

  /** Feeds Raft protocol messages to the node; false for any other message. */
  handleRaftMessage(from: string, msg: Message): boolean {
    if (!isRaftMessageType(msg.type)) return false;
    this.raft.handleRaftMessage(from, msg);
    return true;
  }

  /** The redirect answer, with the leader this node believes in now. */
  notLeader(): NotLeaderReply {
    return { status: "not-leader", leader: this.raft.leaderId() };
  }

  /** Propose `cmd`; a failed proposal is answered here (not-leader, or unknown if it may yet commit). */
  propose<Res>(cmd: Cmd, reply: (body: NotLeaderReply | { status: "unknown" }) => void, onApplied: (result: Res, index: number) => void): void {
    this.raft.propose<Res>(cmd, (r) => {
      if (!r.ok) return reply(r.error === "not-leader" ? this.notLeader() : { status: "unknown" });
      onApplied(r.result, r.index);
    });
  }

  /** Run `onConfirmed` once a majority confirms this node still leads; otherwise answer not-leader. */
  readBarrier(reply: (body: NotLeaderReply) => void, onConfirmed: () => void): void {
    this.raft.readBarrier((b) => (b.ok ? onConfirmed() : reply(this.notLeader())));
  }

  /**
   * Propose the expiry of `id`; if it does not make it into the log, the next leader (maybe
   * us) times it again. `onLost` hears of an expiry that was in our log when we lost the
   * leadership (a service that models what a real one then does with it).
   */
  expire(id: number, cmd: Cmd, onLost?: () => void): void {
    this.expiring.add(id);
    this.raft.propose<unknown>(cmd, (r) => {
      if (r.ok) return;
      this.expiring.delete(id);
      if (r.error === "lost-leadership") onLost?.();
    });
  }

  private scheduleTick(): void {
    this.ctx.setTimer(this.tickMs, () => {
      this.tick();
      this.scheduleTick();
    });
  }

  /**
   * A note when this node's role or term has changed since the last tick, read from the
   * Raft node's accessors (the core is not touched): so the server lanes show who led
   * in which term. Sampled on the tick, so a note is late by up to one tick.
   */
  private noteRole(): void {
    const term = this.raft.currentTerm();
    const leader = this.raft.leaderId();
    const role = this.raft.isLeader() ? "leader" : leader === undefined ? "no leader known" : "follower";
    // Compared field by field: a key string built on every tick of every server was most of a tick's cost.
    if (this.roleSeen !== undefined && role === this.roleSeen && term === this.termSeen && (leader ?? "") === this.leaderSeen) return;
    this.roleSeen = role;
    this.termSeen = term;
    this.leaderSeen = leader ?? "";
    this.ctx.record("info", "raft-role", undefined, {
      role,
      term,
      ...(leader !== undefined && role !== "leader" ? { leader } : {}),
      was: this.roleWas ?? "starting",
    });
    this.roleWas = `${role}, term ${term}`;
  }
  /** What the last note said (undefined: none yet). */
  private roleSeen: string | undefined;
  private termSeen = 0;
  private leaderSeen = "";
  private roleWas: string | undefined;

  private tick(): void {
    this.noteRole();
    if (!this.raft.isLeader()) {
      // Demote: followers never expire anything.
      this.leaderTerm = undefined;
      this.expiring.clear();
      this.service.followerTick?.();
      return;
    }
    const nowUs = this.ctx.monoUs();
    const term = this.raft.currentTerm();
    if (this.leaderTerm !== term) {
      // New leadership: nobody's silence so far was observed by us.
      this.leaderTerm = term;
      this.expiring.clear();
      this.service.promote(nowUs);
    }
    this.service.leaderTick(nowUs);
  }
}

/** The election timeout range of one server (the preferred leader's is shorter). */
export function electionTimeoutsFor(id: string, o: RaftServiceOptions): { electionTimeoutMsMin: number; electionTimeoutMsMax: number } {
  if (o.preferredLeader === id) {
    const t = Math.max(o.raftHeartbeatIntervalMs + 1, Math.floor(o.electionTimeoutMsMin / 2));
    return { electionTimeoutMsMin: t, electionTimeoutMsMax: t };
  }
  return { electionTimeoutMsMin: o.electionTimeoutMsMin, electionTimeoutMsMax: o.electionTimeoutMsMax };
}
