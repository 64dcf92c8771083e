// A ZooKeeper (3.8) ensemble on loopback, each peer run as
// `java -Xmx128m -cp … org.apache.zookeeper.server.quorum.QuorumPeerMain zoo.cfg` with
// tickTime 200 and the admin server off. Ready = `srvr` reports a Mode on every peer.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { findBinary, isReadable, SLF4J_SIMPLE_JAR, ZOOKEEPER_JAR } from "./binaries.js";
import type { ServerGroup } from "./group.js";
import { freePorts, LOOPBACK } from "./ports.js";
import { zkServing } from "./probes.js";
import type { ServerProcess } from "./server-process.js";

export interface ZooKeeperOptions {
  size?: number;
  namePrefix?: string;
  tickTimeMs?: number;
  heapMb?: number;
  readyTimeoutMs?: number;
  /** maxSessionTimeout (default: ZooKeeper's 20 ticks), ms. */
  maxSessionTimeoutMs?: number;
  /**
   * Route each server's connections to every other through a proxy for the directed pair
   * (real/peer-proxies.ts): given (me, other, the other's real port), returns the proxy's
   * port, which goes into my zoo.cfg as the other's quorum or election port.
   */
  peerProxy?: (from: string, to: string, target: { host: string; port: number }, kind: "quorum" | "election") => Promise<number>;
}

export interface ZooKeeperPeer {
  id: number;
  name: string;
  clientPort: number;
  quorumPort: number;
  electionPort: number;
  configFile: string;
  dataDir: string;
  process: ServerProcess;
}

export interface ZooKeeperEnsemble {
  peers: ZooKeeperPeer[];
  /** host:port,host:port,… for clients. */
  connectString: string;
}

export async function startZooKeeperEnsemble(group: ServerGroup, opts: ZooKeeperOptions = {}): Promise<ZooKeeperEnsemble> {
  const java = findBinary("java");
  const jar = findBinary(ZOOKEEPER_JAR); // its manifest Class-Path names the dependency jars
  const classPath = isReadable(SLF4J_SIMPLE_JAR) ? `${jar}:${SLF4J_SIMPLE_JAR}` : jar;
  const size = opts.size ?? 3;
  const prefix = opts.namePrefix ?? "zk";
  const ports = await freePorts(size * 3);
  const plan = Array.from({ length: size }, (_, i) => ({
    id: i + 1,
    name: `${prefix}${i + 1}`,
    clientPort: ports[3 * i]!,
    quorumPort: ports[3 * i + 1]!,
    electionPort: ports[3 * i + 2]!,
  }));
  const serverLinesOf = await serverLines(plan, opts);
  const peers: ZooKeeperPeer[] = plan.map((p) => {
    const dir = group.serverDir(p.name);
    const dataDir = join(dir, "data");
    const configFile = join(dir, "zoo.cfg");
    writeFileSync(configFile, zooCfg(p, dataDir, serverLinesOf.get(p.name)!, opts));
    writeMyId(dataDir, p.id);
    const args = [
      `-Xmx${opts.heapMb ?? 128}m`,
      "-XX:+UseSerialGC",
      "-XX:TieredStopAtLevel=1",
      "-XX:-UsePerfData",
      "-Djava.net.preferIPv4Stack=true",
      "-Dzookeeper.admin.enableServer=false",
      "-Dorg.slf4j.simpleLogger.defaultLogLevel=info",
      "-cp",
      classPath,
      "org.apache.zookeeper.server.quorum.QuorumPeerMain",
      configFile,
    ];
    const proc = group.add({
      name: p.name,
      kind: `zookeeper :${p.clientPort}`,
      command: java,
      args,
      cwd: dir,
      logFile: join(dir, "server.log"),
      ready: () => zkServing(p.clientPort),
      readyWhat: "`srvr` reporting a Mode (the ensemble has a leader)",
      listenPorts: [p.clientPort],
      readyTimeoutMs: opts.readyTimeoutMs ?? 30_000,
      stopGraceMs: 2_000,
    });
    return { ...p, configFile, dataDir, process: proc };
  });
  await Promise.all(peers.map((p) => p.process.spawnProcess()));
  await Promise.all(peers.map((p) => p.process.waitReady()));
  return { peers, connectString: peers.map((p) => `${LOOPBACK}:${p.clientPort}`).join(",") };
}

type PeerPlan = { id: number; name: string; clientPort: number; quorumPort: number; electionPort: number };

/** Each server's own line is its real listen address; the others' are as it should reach them (through a peer proxy, if any). */
async function serverLines(plan: readonly PeerPlan[], opts: ZooKeeperOptions): Promise<Map<string, string[]>> {
  const serverLinesOf = new Map<string, string[]>();
  for (const me of plan) {
    const lines: string[] = [];
    for (const o of plan.length === 1 ? [] : plan) {
      let q = o.quorumPort;
      let e = o.electionPort;
      if (o !== me && opts.peerProxy) {
        q = await opts.peerProxy(me.name, o.name, { host: LOOPBACK, port: o.quorumPort }, "quorum");
        e = await opts.peerProxy(me.name, o.name, { host: LOOPBACK, port: o.electionPort }, "election");
      }
      lines.push(`server.${o.id}=${LOOPBACK}:${q}:${e}`);
    }
    serverLinesOf.set(me.name, lines);
  }
  return serverLinesOf;
}

/** zoo.cfg for one server. */
function zooCfg(p: PeerPlan, dataDir: string, serverLines: readonly string[], opts: ZooKeeperOptions): string {
  return [
    `tickTime=${opts.tickTimeMs ?? 200}`,
    "initLimit=10",
    "syncLimit=5",
    `dataDir=${dataDir}`,
    `clientPort=${p.clientPort}`,
    `clientPortAddress=${LOOPBACK}`,
    "admin.enableServer=false",
    "4lw.commands.whitelist=ruok,srvr,stat,mntr",
    "preAllocSize=1024",
    "autopurge.purgeInterval=0",
    ...(opts.maxSessionTimeoutMs !== undefined ? [`maxSessionTimeout=${opts.maxSessionTimeoutMs}`] : []),
    ...serverLines,
    "",
  ].join("\n");
}

function writeMyId(dataDir: string, id: number): void {
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(join(dataDir, "myid"), `${id}\n`);
}
