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
  /** The port to try first (default: a free one); taken by another process, a fresh one is used. */
  port?: number;
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
  let port = opts.port ?? (await freePort());
  const aof = opts.aof ?? "everysec";
  const portParts = (p: number) => ({
    kind: `redis-server :${p}`,
    args: [
      "--port",
      String(p),
      "--bind",
      LOOPBACK,
      "--protected-mode",
      "no",
      "--daemonize",
      "no",
      "--dir",
      dataDir,
      "--logfile",
      "",
      "--save",
      "",
      // aof-load-truncated: a host crash (real/aof-cut.ts) may leave a partial last command; load the rest.
      ...(aof === false ? ["--appendonly", "no"] : ["--appendonly", "yes", "--appendfsync", aof, "--aof-load-truncated", "yes"]),
      ...(opts.extraArgs ?? []),
    ],
    ready: () => redisPing(p),
    listenPorts: [p],
  });
  const proc = group.add({
    name,
    ...portParts(port),
    command,
    cwd: dataDir,
    logFile: join(dataDir, "server.log"),
    readyWhat: "PING answered +PONG",
    readyTimeoutMs: opts.readyTimeoutMs ?? 10_000,
    stopGraceMs: 2_000,
    rebind: async () => portParts((port = await freePort())),
  });
  await proc.start();
  return { name, host: LOOPBACK, port, dataDir, process: proc };
}
