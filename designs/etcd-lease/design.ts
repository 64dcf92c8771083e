import type { DesignEntry } from "../types.js";
import { raftServiceProfile } from "../profile.js";
import type { CreateRaftNode } from "../../services/raft/api.js";
import { createRaftNode } from "../../services/raft/node.js";
import { Fields } from "../../sim/validate.js";
import { RAFT_SERVICE_FIELDS, parseRaftServiceFields, serverIds, type RaftServiceOptions } from "../../services/raft-service/options.js";
import { etcdServer, STALE_LEADER_REVOKES, type StaleLeaderRevoke } from "./server.js";
import { EtcdClient } from "./client.js";
import { EtcdMutexClient, HOLDER_CHECKS, MUTEX_VERSIONS, type HolderCheck, type MutexVersion } from "./mutex.js";

/** etcd-lease's options: the Raft service's, plus which Mutex.Lock code line the client runs. */
export interface EtcdLeaseOptions extends RaftServiceOptions {
  mutexVersion: MutexVersion;
  holderCheck: HolderCheck;
  staleLeaderRevoke: StaleLeaderRevoke;
}

export function parseEtcdLeaseOptions(raw: unknown, file: string, prefix: string): EtcdLeaseOptions {
  const f = Fields.root(file, raw ?? {}, prefix).only([...RAFT_SERVICE_FIELDS, "mutexVersion", "holderCheck", "staleLeaderRevoke"]);
  return {
    ...parseRaftServiceFields(f, [], "etcd"),
    mutexVersion: f.oneOf("mutexVersion", MUTEX_VERSIONS, "3.5"),
    holderCheck: f.oneOf("holderCheck", HOLDER_CHECKS, "session"),
    staleLeaderRevoke: f.oneOf("staleLeaderRevoke", STALE_LEADER_REVOKES, "dropped"),
  };
}

/** The design, with the Raft core injectable. `sessionTimeoutMs` is the lease TTL. */
export function etcdLeaseDesign(createRaft: CreateRaftNode): DesignEntry<EtcdLeaseOptions> {
  const name = "etcd-lease";
  return {
    name,
    description: "etcd-like KV on Raft: leases with TTL and keepalive, revisions, Txn on create revision; concurrency.Mutex; token = create revision",
    family: "raft",
    runs: "model",
    profile: (o) => raftServiceProfile(name, "etcd", o),
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
