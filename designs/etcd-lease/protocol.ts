import type { Compare, KeyValue, KvOp, OpResponse, RangeOp } from "./kv.js";

/** Messages between etcd-lease clients and servers (the Raft protocol's own start with "raft-"). */
export const ETCD_REQUEST = "etcd-request";
export const ETCD_REPLY = "etcd-reply";

export type EtcdOp =
  | { kind: "leaseGrant"; ttlMs: number }
  | { kind: "keepAlive"; leaseId: number }
  | { kind: "leaseRevoke"; leaseId: number }
  | { kind: "txn"; compare: Compare[]; success: KvOp[]; failure: KvOp[] }
  /** A linearizable range read. */
  | ({ kind: "range" } & Omit<RangeOp, "op">)
  /**
   * Watch for the deletion of `key` (etcd's waitDelete: a watch from `revision`): the
   * server answers once the key is gone from its applied state, at once if it is already.
   */
  | { kind: "waitDelete"; key: string; revision: number };

export type EtcdReply =
  | { status: "ok"; revision: number; leaseId?: number; ttlMs?: number; succeeded?: boolean; responses?: OpResponse[]; kvs?: KeyValue[] }
  | { status: "error"; error: "lease-not-found" }
  /** Not executed: this server is not the leader (`leader`: who it believes is). */
  | { status: "not-leader"; leader?: string }
  /** Not executed: the leader has not applied this lease's grant yet; ask again. */
  | { status: "retry" }
  /** A write whose fate is unknown (leadership lost while it was in the log). */
  | { status: "unknown" };
