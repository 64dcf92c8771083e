/**
 * What a design declares about itself for the layers above (attacks, the audit, scenarios
 * run on a library, real mode, the playground), so that none of them knows a design by
 * its name: they ask its profile. A design's `profile(options)` answers for the options
 * its parser returned; `family` and `runs` hold for every option.
 */
import type { RaftServiceOptions } from "../services/raft-service/options.js";

/**
 * The kind of service a design stands on: independent Redis nodes `redis-1..N` (a Redis
 * lock library can run its scenarios), a Redis primary with replicas, or a Raft cluster.
 */
export type DesignFamily = "redis-nodes" | "redis-replicated" | "raft";

/** Whether a design is a model built into lockstep, or a real lock library run through an adapter. */
export type DesignRuns = "model" | "adapter";

/** The lock a design's findings are judged against: the backend's reference recipe. */
export interface DesignReference {
  design: string;
  designOptions?: Record<string, unknown>;
  /** What reports call it ("redis-setnx (reference)"). */
  label: string;
}

/** How a Redis lock library stands in for this design on its scenarios (scenarios/with-library.ts). */
export interface LibraryStandIn {
  /** The Redis nodes the library talks to, the design's own ids redis-1..N. */
  nodes: number;
  /** The library design's options taken from the scenario's own (as written, not defaulted). */
  options(given: Record<string, unknown>): Record<string, unknown>;
}

/** A fact a design either has, or says why not (an attack refusing it quotes the reason). */
export type Either<T> = T | { none: string };

/** An asynchronous failover: the primary's acknowledged writes may be lost on a promotion. */
export interface Failover {
  primary: string;
  replicas: readonly string[];
  /** Options under which a failover completes within an attack's few seconds (the lock's own win). */
  promptOptions: Record<string, unknown>;
}

export interface DesignProfile {
  /** Every server process the design's setup creates, in its order. */
  servers: readonly string[];
  /** The servers a client talks to for a lock (a fault on "the lock service" acts on these). */
  lockServers: readonly string[];
  /**
   * The processes that each hold their own, unreplicated copy of a lock's key (a single
   * node, Redlock's N): a restart without fsync loses it there. Empty where consensus or
   * a failover replicates the key.
   */
  keyNodes: readonly string[];
  /** How long the client waits for one reply, ms (Infinity: no limit). */
  requestTimeoutMs: number;
  /**
   * The lease the service keeps for a silent holder whatever the client asks (a session
   * timeout, a lease TTL), ms; undefined where the lease is the TTL the client asks for.
   */
  serviceLeaseMs?: number;
  /** Whether grants carry a fencing token the resource can check. */
  fencing: boolean;
  /** Whether the client renews its hold by itself (session pings, lease keepalives, an auto-extension). */
  renewsItself: boolean;
  /** A leader elected among the servers ("@leader" in a fault step), or why there is none. */
  leader: Either<{ elected: true }>;
  /** Replicas a promotion can choose, or why there are none. */
  failover: Either<Failover>;
  /** The recipe the audit judges this lock against. */
  reference: DesignReference;
  /** How a Redis lock library runs this design's scenarios, where it can. */
  onLibrary?: LibraryStandIn;
}

/** `<prefix>-1` .. `<prefix>-N`. */
export const nodeIds = (prefix: string, count: number): string[] => Array.from({ length: count }, (_, i) => `${prefix}-${i + 1}`);

/** The fields of `given` among `fields`, in that order (options carried over as written). */
export function picked(given: Record<string, unknown>, fields: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of fields) if (k in given) out[k] = given[k];
  return out;
}

/** The node options a Redis lock library shares with every Redis-node design. */
export const REDIS_NODE_OPTIONS = ["persistence", "fsyncIntervalMs", "sweepIntervalMs"] as const;

/** A lock service on a Raft cluster `<prefix>-1..N`: sessions or leases it keeps, tokens from its log, an elected leader. */
export function raftServiceProfile(design: string, idPrefix: string, o: RaftServiceOptions): DesignProfile {
  const servers = nodeIds(idPrefix, o.nodes);
  return {
    servers,
    lockServers: servers,
    keyNodes: [],
    requestTimeoutMs: o.requestTimeoutMs,
    serviceLeaseMs: o.sessionTimeoutMs,
    fencing: true,
    renewsItself: true,
    leader: { elected: true },
    failover: { none: "does not replicate asynchronously" },
    // Its own recipe, as the service ships it (default options).
    reference: { design, label: `${design} (reference)` },
  };
}
