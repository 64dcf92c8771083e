import type { DesignEntry } from "../types.js";
import { raftServiceProfile } from "../profile.js";
import { etcdPlan } from "./real-plan.js";
import type { CreateRaftNode } from "../../services/raft/api.js";
import { createRaftNode } from "../../services/raft/node.js";
import { serverIds } from "../../services/raft-service/options.js";
import { etcdServer } from "./server.js";
import { EtcdClient } from "./client.js";
import { EtcdMutexClient } from "./mutex.js";
import { parseEtcdLeaseOptions, type EtcdLeaseOptions } from "./options.js";

/** The design, with the Raft core injectable. `sessionTimeoutMs` is the lease TTL. */
export function etcdLeaseDesign(createRaft: CreateRaftNode): DesignEntry<EtcdLeaseOptions> {
  const name = "etcd-lease";
  return {
    name,
    description: "etcd-like KV on Raft: leases with TTL and keepalive, revisions, Txn on create revision; concurrency.Mutex; token = create revision",
    family: "raft",
    runs: "model",
    profile: (o) => raftServiceProfile(name, "etcd", o),
    real: { plan: etcdPlan, serverClocksWhy: "etcd is a Go binary, which ignores libfaketime", sizedByNodes: true },
    parseOptions: parseEtcdLeaseOptions,
    setup({ sim, processOptions }, o) {
      const peers = serverIds("etcd", o.nodes);
      for (const id of peers)
        sim.addProcess(id, "server", processOptions(id), etcdServer({ peers, options: o, createRaft, staleLeaderRevoke: o.staleLeaderRevoke }));
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
            o.mutexVersion,
            o.holderCheck,
          ),
      };
    },
  };
}

export const etcdLease = etcdLeaseDesign(createRaftNode);

export { parseEtcdLeaseOptions, type EtcdLeaseOptions } from "./options.js";
