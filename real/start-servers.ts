// Start the servers a real run's design needs, as members of the run's ServerGroup (so every
// exit path stops them), and describe each the same way whatever it is: id (the simulator's
// name for it), the process, its client endpoint, and the software and version it runs.
import { readlinkSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { basename } from "node:path";
import { findBinary, startEtcdCluster, startRedis, startZooKeeperEnsemble, ZOOKEEPER_JAR, LOOPBACK, type ServerGroup, type ServerProcess } from "./servers/index.js";
import { ZK_TICK_MS, type RealDesignPlan } from "./designs.js";
import { serverVersion } from "./versions.js";
import type { RedisEndpoint } from "./protocol.js";

export interface StartedServer {
  id: string;
  kind: "redis-server" | "etcd" | "zookeeper";
  process: ServerProcess;
  endpoint: RedisEndpoint;
  binary: string;
  version: string;
  versionLine: string;
  /** Redis: the AOF mode; other servers: "n/a". */
  aof: string;
}

const VERSION_TIMEOUT_MS = 5_000;
let zkVersionCache: { version: string; line: string } | undefined;

/** ZooKeeper's version from the jar Debian links zookeeper.jar to, and the JVM's from `java -version`. */
function zookeeperVersion(): { version: string; line: string } {
  if (zkVersionCache) return zkVersionCache;
  let jar = ZOOKEEPER_JAR;
  try {
    jar = readlinkSync(ZOOKEEPER_JAR);
  } catch {
    /* not a link: keep the name */
  }
  const m = /zookeeper-(\d+\.\d+\.\d+)/.exec(basename(jar));
  const java = spawnSync(findBinary("java"), ["-version"], { encoding: "utf8", timeout: VERSION_TIMEOUT_MS });
  const javaLine = `${java.stderr ?? ""}`.split("\n").find((l) => l.includes("version")) ?? "java (version unknown)";
  zkVersionCache = { version: m ? m[1]! : "unknown", line: `${basename(jar)} on ${javaLine.trim()}` };
  return zkVersionCache;
}

export async function startDesignServers(group: ServerGroup, design: RealDesignPlan): Promise<StartedServer[]> {
  const c = design.cluster;
  if (!c) {
    const v = serverVersion("redis-server");
    const redis = await Promise.all(design.redis.map((r) => startRedis(group, { name: r.id, aof: r.aof })));
    return redis.map((r, i) => ({
      id: r.name,
      kind: "redis-server",
      process: r.process,
      endpoint: { id: r.name, host: r.host, port: r.port },
      binary: v.path,
      version: v.version,
      versionLine: v.line,
      aof: String(design.redis[i]!.aof || "off"),
    }));
  }
  if (c.kind === "etcd") {
    const v = serverVersion("etcd");
    const cluster = await startEtcdCluster(group, { size: c.ids.length, namePrefix: "etcd-" });
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
  const v = zookeeperVersion();
  const ensemble = await startZooKeeperEnsemble(group, {
    size: c.ids.length,
    namePrefix: "zk-",
    tickTimeMs: ZK_TICK_MS,
    ...(c.sessionTimeoutMsMax !== undefined ? { maxSessionTimeoutMs: c.sessionTimeoutMsMax } : {}),
  });
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
