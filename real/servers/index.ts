// Real mode, part 1: real servers from Debian packages, started and always stopped by lockstep.
export { APT_PACKAGES, findBinary, SLF4J_SIMPLE_JAR, ZOOKEEPER_JAR } from "./binaries.js";
export { MissingServerBinaryError, ServerExitedError, ServerStartTimeoutError, ServerStopTimeoutError } from "./errors.js";
export { startEtcdCluster, type EtcdCluster, type EtcdClusterOptions, type EtcdMember } from "./etcd.js";
export { ServerGroup, withServerGroup, type ServerGroupOptions } from "./group.js";
export { hooksInstalled, SIGNAL_STOP_BOUND_MS, stoppedBySignal } from "./lifecycle.js";
export { freePort, freePorts, LOOPBACK } from "./ports.js";
export { etcdHealthy, httpRequest, redisPing, tcpExchange, zkServing, zkSrvr } from "./probes.js";
export { startRedis, type RedisOptions, type RedisServer } from "./redis.js";
export { startSentinel, type SentinelOptions, type SentinelServer } from "./sentinel.js";
export { ServerProcess, type ExitInfo, type PortMove, type ServerSpec, type ServerState } from "./server-process.js";
export { startZooKeeperEnsemble, type ZooKeeperEnsemble, type ZooKeeperOptions, type ZooKeeperPeer } from "./zookeeper.js";
export { OWNER_FILE, processesIn, RUN_DIR_PREFIX, sweepDeadRuns, type OwnerRecord, type SweepResult } from "./registry.js";
export { loadNote, loadTolerantMs, LoadTolerantDeadline } from "./deadlines.js";
export { pidListensOn } from "./ports.js";
