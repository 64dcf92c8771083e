// redis-sentinel monitoring a primary, on a free loopback port, config in its own dir.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { findBinary } from "./binaries.js";
import type { ServerGroup } from "./group.js";
import { freePort, LOOPBACK } from "./ports.js";
import { redisPing } from "./probes.js";
import type { ServerProcess } from "./server-process.js";

export interface SentinelOptions {
  /** The primary to monitor. */
  primary: { host: string; port: number };
  name?: string;
  masterName?: string;
  quorum?: number;
  downAfterMs?: number;
  failoverTimeoutMs?: number;
  readyTimeoutMs?: number;
  /** This sentinel's run id (40 hex digits), so peers can be told it before it starts. */
  myId?: string;
  /** Peers and replicas written into the config: known from the start, not after ~2 s of hello messages. */
  knownSentinels?: ReadonlyArray<{ host: string; port: number; id: string }>;
  knownReplicas?: ReadonlyArray<{ host: string; port: number }>;
  /** Use this port (when peers must be told it in advance) instead of a fresh one. */
  port?: number;
}

export interface SentinelServer {
  name: string;
  host: string;
  port: number;
  masterName: string;
  configFile: string;
  process: ServerProcess;
}

export async function startSentinel(group: ServerGroup, opts: SentinelOptions): Promise<SentinelServer> {
  const command = findBinary("redis-sentinel");
  const name = opts.name ?? group.nextName("sentinel");
  const dir = group.serverDir(name);
  let port = opts.port ?? (await freePort());
  const masterName = opts.masterName ?? "mymaster";
  const configFile = join(dir, "sentinel.conf");
  const portParts = (p: number) => {
    writeSentinelConfig(configFile, p, dir, masterName, opts);
    return { kind: `redis-sentinel :${p}`, args: [configFile], ready: () => redisPing(p), listenPorts: [p] };
  };
  const proc = group.add({
    name,
    ...portParts(port),
    command,
    cwd: dir,
    logFile: join(dir, "server.log"),
    readyWhat: "PING answered +PONG",
    readyTimeoutMs: opts.readyTimeoutMs ?? 10_000,
    stopGraceMs: 2_000,
    // Peers told this port in advance cannot follow a move: only a sentinel that chose its own port moves.
    ...(opts.port === undefined ? { rebind: async () => portParts((port = await freePort())) } : {}),
  });
  await proc.start();
  return { name, host: LOOPBACK, port, masterName, configFile, process: proc };
}

/** Sentinel rewrites this file (it must be writable); a restart reads the rewritten state. */
function writeSentinelConfig(configFile: string, port: number, dir: string, masterName: string, opts: SentinelOptions): void {
  writeFileSync(
    configFile,
    [
      `port ${port}`,
      `bind ${LOOPBACK}`,
      "protected-mode no",
      "daemonize no",
      'logfile ""',
      `dir ${dir}`,
      `sentinel monitor ${masterName} ${opts.primary.host} ${opts.primary.port} ${opts.quorum ?? 1}`,
      `sentinel down-after-milliseconds ${masterName} ${opts.downAfterMs ?? 1000}`,
      `sentinel failover-timeout ${masterName} ${opts.failoverTimeoutMs ?? 3000}`,
      `sentinel parallel-syncs ${masterName} 1`,
      ...(opts.myId ? [`sentinel myid ${opts.myId}`] : []),
      ...(opts.knownSentinels ?? []).map((k) => `sentinel known-sentinel ${masterName} ${k.host} ${k.port} ${k.id}`),
      ...(opts.knownReplicas ?? []).map((k) => `sentinel known-replica ${masterName} ${k.host} ${k.port}`),
      "",
    ].join("\n"),
  );
}
