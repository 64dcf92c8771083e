// Start the servers a real run's design needs, as members of the run's ServerGroup (so every
// exit path stops them), and describe each the same way whatever it is: id (the simulator's
// name for it), the process, its client endpoint, and the software and version it runs.
import { spawnSync } from "node:child_process";
import { findBinary, startEtcdCluster, startRedis, startZooKeeperEnsemble, zkSrvr, ZOOKEEPER_JAR, LOOPBACK, type ServerGroup } from "./servers/index.js";
import { ZK_TICK_MS, type RealDesignPlan } from "../designs/real-plan.js";
import { serverVersion } from "./versions.js";
import { startFailoverServers } from "./failover.js";
import type { PeerLinks } from "./peer-proxies.js";
import type { ProxySet } from "./proxy.js";
import type { StartedServer } from "./started-server.js";

export type { StartedServer } from "./started-server.js";

const VERSION_TIMEOUT_MS = 5_000;
let javaLineCache: string | undefined;

/** ZooKeeper's version as the running server reports it (`srvr`), and the JVM's from `java -version`. */
async function zookeeperVersion(clientPort: number): Promise<{ version: string; line: string }> {
  const srvr = await zkSrvr(clientPort);
  const m = /^Zookeeper version: (\d+\.\d+\.\d+)\S*/m.exec(srvr);
  if (javaLineCache === undefined) {
    const java = spawnSync(findBinary("java"), ["-version"], { encoding: "utf8", timeout: VERSION_TIMEOUT_MS });
    javaLineCache = (`${java.stderr ?? ""}`.split("\n").find((l) => l.includes("version")) ?? "java (version unknown)").trim();
  }
  return { version: m ? m[1]! : "unknown", line: `${m ? m[0] : "Zookeeper version unknown"} on ${javaLineCache}` };
}

/**
 * `links` takes the proxies of server↔server links (redis-failover's replication), `peerLinks`
 * those of etcd/ZooKeeper peer traffic; `runEndMs` is the run's end, drain included.
 */
export async function startDesignServers(
  group: ServerGroup,
  design: RealDesignPlan,
  opts: { links?: ProxySet; peerLinks?: PeerLinks; runEndMs?: number } = {},
): Promise<StartedServer[]> {
  const peers = opts.peerLinks;
  const c = design.cluster;
  if (design.failover) {
    if (!opts.links) throw new Error("redis-failover needs a ProxySet for its replication links");
    return startFailoverServers(group, design.failover, design.redis[0]!.aof, opts.links, opts.runEndMs ?? 0);
  }
  if (!c) return startRedisServers(group, design);
  if (c.kind === "etcd") return startEtcdServers(group, c, peers);
  return startZooKeeperServers(group, c, peers);
}

type ClusterPlan = NonNullable<RealDesignPlan["cluster"]>;

/** Standalone Redis servers, one per node of the design. */
async function startRedisServers(group: ServerGroup, design: RealDesignPlan): Promise<StartedServer[]> {
  const v = serverVersion("redis-server");
  // everysec runs as appendfsync no: the driver plays the fsync, so a crash can lose what a host crash would (real/aof-cut.ts).
  const redis = await Promise.all(design.redis.map((r) => startRedis(group, { name: r.id, aof: r.aof === "everysec" ? "no" : r.aof })));
  return redis.map((r, i) => ({
    id: r.name,
    kind: "redis-server",
    process: r.process,
    endpoint: { id: r.name, host: r.host, port: r.port },
    binary: v.path,
    version: v.version,
    versionLine: v.line,
    aof: design.redis[i]!.aof === "everysec" ? "everysec (run as appendfsync no, fsync ticks by the driver every 1 s)" : String(design.redis[i]!.aof || "off"),
  }));
}

async function startEtcdServers(group: ServerGroup, c: ClusterPlan, peers: PeerLinks | undefined): Promise<StartedServer[]> {
  const v = serverVersion("etcd");
  const cluster = await startEtcdCluster(group, {
    size: c.ids.length,
    namePrefix: "etcd-",
    ...(peers ? { peerProxy: (name, target, pids) => peers.destination(name, target, pids) } : {}),
  });
  return cluster.members.map((m) => ({
    id: m.name,
    kind: "etcd",
    process: m.process,
    endpoint: { id: m.name, host: LOOPBACK, port: m.clientPort },
    binary: v.path,
    version: v.version,
    versionLine: v.line,
    aof: "n/a",
  }));
}

async function startZooKeeperServers(group: ServerGroup, c: ClusterPlan, peers: PeerLinks | undefined): Promise<StartedServer[]> {
  const ensemble = await startZooKeeperEnsemble(group, {
    size: c.ids.length,
    namePrefix: "zk-",
    tickTimeMs: ZK_TICK_MS,
    ...(c.sessionTimeoutMsMax !== undefined ? { maxSessionTimeoutMs: c.sessionTimeoutMsMax } : {}),
    ...(peers
      ? {
          peerProxy: (from: string, to: string, target: { host: string; port: number }, kind: "quorum" | "election") => peers.zooKeeper(from, to, target, kind),
        }
      : {}),
  });
  const v = await zookeeperVersion(ensemble.peers[0]!.clientPort);
  return ensemble.peers.map((p) => ({
    id: p.name,
    kind: "zookeeper",
    process: p.process,
    endpoint: { id: p.name, host: LOOPBACK, port: p.clientPort },
    binary: ZOOKEEPER_JAR,
    version: v.version,
    versionLine: v.line,
    aof: "n/a",
  }));
}
