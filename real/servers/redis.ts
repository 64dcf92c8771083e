// redis-server on a free loopback port, data (AOF) in its own dir under the group's temp dir.
import { join } from "node:path";
import { findBinary } from "./binaries.js";
import type { ServerGroup } from "./group.js";
import { freePort, LOOPBACK } from "./ports.js";
import { redisPing } from "./probes.js";
import type { ServerProcess } from "./server-process.js";

export interface RedisOptions {
  name?: string;
  /** AOF fsync policy, or false for no persistence at all (default "everysec"). */
  aof?: "always" | "everysec" | "no" | false;
  /** More `--option value` arguments, appended last. */
  extraArgs?: readonly string[];
  readyTimeoutMs?: number;
}

export interface RedisServer {
  name: string;
  host: string;
  port: number;
  dataDir: string;
  process: ServerProcess;
}

export async function startRedis(group: ServerGroup, opts: RedisOptions = {}): Promise<RedisServer> {
  const command = findBinary("redis-server");
  const name = opts.name ?? group.nextName("redis");
  const dataDir = group.serverDir(name);
  const port = await freePort();
  const aof = opts.aof ?? "everysec";
  const args = [
    "--port", String(port),
    "--bind", LOOPBACK,
    "--protected-mode", "no",
    "--daemonize", "no",
    "--dir", dataDir,
    "--logfile", "",
    "--save", "",
    // aof-load-truncated: a host crash (real/aof-cut.ts) may leave a partial last command; load the rest.
    ...(aof === false ? ["--appendonly", "no"] : ["--appendonly", "yes", "--appendfsync", aof, "--aof-load-truncated", "yes"]),
    ...(opts.extraArgs ?? []),
  ];
  const proc = group.add({
    name,
    kind: `redis-server :${port}`,
    command,
    args,
    cwd: dataDir,
    logFile: join(dataDir, "server.log"),
    ready: () => redisPing(port),
    readyTimeoutMs: opts.readyTimeoutMs ?? 10_000,
    stopGraceMs: 2_000,
  });
  await proc.start();
  return { name, host: LOOPBACK, port, dataDir, process: proc };
}
