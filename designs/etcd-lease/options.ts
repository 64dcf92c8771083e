import { Fields } from "../../sim/validate.js";
import { RAFT_SERVICE_FIELDS, parseRaftServiceFields, type RaftServiceOptions } from "../../services/raft-service/options.js";
import { STALE_LEADER_REVOKES, type StaleLeaderRevoke } from "./server.js";
import { HOLDER_CHECKS, MUTEX_VERSIONS, type HolderCheck, type MutexVersion } from "./mutex.js";

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
