// An etcd (3.4) cluster on loopback: every member on its own free client and peer ports, data
// dirs under the group's temp dir. Ready = every member's GET /health says {"health":"true"}.
import { basename, join } from "node:path";
import { findBinary } from "./binaries.js";
import type { ServerGroup } from "./group.js";
import { freePorts, LOOPBACK } from "./ports.js";
import { etcdHealthy } from "./probes.js";
import type { ServerProcess } from "./server-process.js";

/** A short run's keys and revisions take kilobytes; the quota only bounds a runaway run. */
const ETCD_BACKEND_QUOTA_BYTES = 128 * 1024 * 1024;

export interface EtcdClusterOptions {
  size?: number;
  /** Member name prefix (default "etcd": etcd1, etcd2, …). */
  namePrefix?: string;
  heartbeatMs?: number;
  electionMs?: number;
  readyTimeoutMs?: number;
  /**
   * Put a proxy in front of each member's peer port (real/peer-proxies.ts): given the member's
   * name, its real peer address and the members' live pids, returns the proxy's port, which
   * the member advertises (and --initial-cluster names) while it listens on its own.
   */
  peerProxy?: (name: string, target: { host: string; port: number }, pids: () => ReadonlyMap<string, number | undefined>) => Promise<number>;
}

export interface EtcdMember {
  name: string;
  clientPort: number;
  peerPort: number;
  clientUrl: string;
  dataDir: string;
  process: ServerProcess;
}

export interface EtcdCluster {
  members: EtcdMember[];
  /** Comma-separated client URLs (etcdctl --endpoints). */
  endpoints: string;
}

/** One member's command line. On a restart the data dir exists and etcd ignores the --initial-* flags. */
function etcdArgs(
  name: string,
  dataDir: string,
  clientUrl: string,
  peerUrl: string,
  advertisedPeerUrl: string,
  cluster: { initialCluster: string; token: string },
  opts: EtcdClusterOptions,
): string[] {
  const { initialCluster, token } = cluster;
  return [
    "--name",
    name,
    "--data-dir",
    dataDir,
    "--listen-client-urls",
    clientUrl,
    "--advertise-client-urls",
    clientUrl,
    "--listen-peer-urls",
    peerUrl,
    "--initial-advertise-peer-urls",
    advertisedPeerUrl,
    "--initial-cluster",
    initialCluster,
    "--initial-cluster-state",
    "new",
    "--initial-cluster-token",
    token,
    "--heartbeat-interval",
    String(opts.heartbeatMs ?? 100),
    "--election-timeout",
    String(opts.electionMs ?? 1000),
    // Disk per member for a short run: etcd 3.4 preallocates 64 MB WAL segments (no flag
    // changes that), so keep one segment plus the one being prepared, one snapshot, and
    // bound the backend; a run never writes enough to snapshot at 10 000 transactions.
    "--max-wals",
    "1",
    "--max-snapshots",
    "1",
    "--snapshot-count",
    "10000",
    "--quota-backend-bytes",
    String(ETCD_BACKEND_QUOTA_BYTES),
    "--logger",
    "zap",
    "--log-outputs",
    "stderr",
  ];
}

export async function startEtcdCluster(group: ServerGroup, opts: EtcdClusterOptions = {}): Promise<EtcdCluster> {
  const command = findBinary("etcd");
  const size = opts.size ?? 3;
  const prefix = opts.namePrefix ?? "etcd";
  const ports = await freePorts(size * 2);
  const plan = Array.from({ length: size }, (_, i) => ({
    name: `${prefix}${i + 1}`,
    clientPort: ports[2 * i]!,
    peerPort: ports[2 * i + 1]!,
    advertisedPeerPort: ports[2 * i + 1]!,
  }));
  let members: EtcdMember[] = [];
  const pids = () => new Map(members.map((m) => [m.name, m.process.pid]));
  if (opts.peerProxy) for (const m of plan) m.advertisedPeerPort = await opts.peerProxy(m.name, { host: LOOPBACK, port: m.peerPort }, pids);
  const initialCluster = plan.map((m) => `${m.name}=http://${LOOPBACK}:${m.advertisedPeerPort}`).join(",");
  const token = `lockstep-${basename(group.dir)}-${prefix}`;
  members = plan.map((m) => {
    const dir = group.serverDir(m.name);
    const dataDir = join(dir, "data");
    const clientUrl = `http://${LOOPBACK}:${m.clientPort}`;
    const peerUrl = `http://${LOOPBACK}:${m.peerPort}`;
    const advertisedPeerUrl = `http://${LOOPBACK}:${m.advertisedPeerPort}`;
    const args = etcdArgs(m.name, dataDir, clientUrl, peerUrl, advertisedPeerUrl, { initialCluster, token }, opts);
    const proc = group.add({
      name: m.name,
      kind: `etcd :${m.clientPort}`,
      command,
      args,
      cwd: dir,
      logFile: join(dir, "server.log"),
      ready: () => etcdHealthy(m.clientPort),
      readyWhat: 'GET /health answered {"health":"true"} (the cluster has a leader)',
      listenPorts: [m.clientPort, m.peerPort],
      readyTimeoutMs: opts.readyTimeoutMs ?? 20_000,
      stopGraceMs: 2_000,
    });
    return { name: m.name, clientPort: m.clientPort, peerPort: m.peerPort, clientUrl, dataDir, process: proc };
  });
  // All members must run before any is healthy (health needs a leader, a leader needs a quorum).
  await Promise.all(members.map((m) => m.process.spawnProcess()));
  await Promise.all(members.map((m) => m.process.waitReady()));
  return { members, endpoints: members.map((m) => m.clientUrl).join(",") };
}
