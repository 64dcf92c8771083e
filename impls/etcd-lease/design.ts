import type { DesignEntry } from "../types.js";
import type { CreateRaftNode } from "../raft/api.js";
import { createRaftNode } from "../raft/node.js";
import { parseRaftServiceOptions, serverIds, type RaftServiceOptions } from "../raft-zk/options.js";
import { etcdServer } from "./server.js";
import { EtcdClient } from "./client.js";
import { EtcdMutexClient } from "./mutex.js";

/** The design, with the Raft core injectable. `sessionTimeoutMs` is the lease TTL. */
export function etcdLeaseDesign(createRaft: CreateRaftNode): DesignEntry<RaftServiceOptions> {
  return {
    name: "etcd-lease",
    description: "etcd-like KV on Raft: leases with TTL and keepalive, revisions, Txn on create revision; concurrency.Mutex; token = create revision",
    parseOptions: (raw, file, prefix) => parseRaftServiceOptions(raw, file, prefix, [], "etcd"),
    setup({ sim, processOptions }, o) {
      const peers = serverIds("etcd", o.nodes);
      for (const id of peers) sim.addProcess(id, "server", processOptions(id), etcdServer({ peers, options: o, createRaft }));
      return {
        serverIds: peers,
        fencing: true,
        createClient: (ctx) =>
          new EtcdMutexClient(
            new EtcdClient(ctx, {
              servers: peers,
              leaseTtlMs: o.sessionTimeoutMs,
              keepAliveIntervalMs: o.heartbeatIntervalMs,
              clockDriftMarginMs: o.clockDriftMarginMs,
              requestTimeoutMs: o.requestTimeoutMs,
            }),
            o.watchPollMs,
          ),
      };
    },
  };
}

export const etcdLease = etcdLeaseDesign(createRaftNode);
