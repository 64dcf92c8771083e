import type { Message } from "../../sim/simulation.js";
import type { Effect, Entry } from "./store.js";

/**
 * The messages of Redis replication and of Sentinel's control of it, as lockstep
 * models them (server.ts, sentinel.ts). Names follow Redis: the stream of effects,
 * REPLCONF ACK (and GETACK, which asks for one now), a full resync, REPLICAOF, PING.
 */
export const REPL = {
  stream: "redis-repl-stream",
  ack: "redis-repl-ack",
  getAck: "redis-repl-getack",
  fullSync: "redis-full-sync",
  replicaOf: "redis-replicaof",
  replicaOfOk: "redis-replicaof-ok",
  ping: "redis-ping",
  pong: "redis-pong",
  getPrimary: "sentinel-get-master-addr-by-name",
  primaryIs: "sentinel-master-addr",
} as const;

/** Primary → replica: effects starting at replication offset `startOffset` (1-based). */
export interface ReplStream extends Message {
  type: typeof REPL.stream;
  replId: string;
  startOffset: number;
  effects: Effect[];
}

/** Replica → primary, every second: the history it follows and how far it got. */
export interface ReplAck extends Message {
  type: typeof REPL.ack;
  replId: string;
  offset: number;
}

/** Primary → replica: the whole data set, when the replica's history is not ours. */
export interface ReplFullSync extends Message {
  type: typeof REPL.fullSync;
  replId: string;
  offset: number;
  entries: Array<[string, Entry]>;
}

/** Sentinel → node: follow `primaryId`, or (null) become a primary with these replicas. */
export interface ReplicaOf extends Message {
  type: typeof REPL.replicaOf;
  primaryId: string | null;
  replicaIds?: string[];
}

export interface Pong extends Message {
  type: typeof REPL.pong;
  role: "primary" | "replica";
  replId: string;
  offset: number;
  primaryId: string | null;
}
