// redis-failover on real servers: a primary, its asynchronous replicas and three
// redis-sentinels (quorum 2) on loopback, as members of the run's ServerGroup.
//
// Each replica replicates *through a proxy in the driver* (real/proxy.ts): the scenario's
// cut of the link redis-primary → redis-replica-1 holds the replication stream there, so the
// primary acknowledges a SET that the replica never sees — the trigger sits at the proxy,
// where it cannot race the write. When the primary is killed its side of the proxied
// connection closes and the held bytes are dropped with it, as a host crash loses what it
// had not yet sent.
//
// The sentinels are told each other and the replicas in their config (fixed run ids), and
// the run starts only once every sentinel reports both peers and every replica and every
// replica's link is up: left to discover each other by hello messages (every 2 s) a fresh
// trio took ~4.2 s to fail over after a kill, against ~1.2 s once acquainted (measured).
//
// The replica's configured primary is the proxy's port, which Sentinel sees as a replica
// "pointing elsewhere" and re-points (+fix-slave-config) once failover-timeout has passed;
// failover-timeout is set past the run's end so that never happens inside a run. The
// simulator's one sentinel becomes three here (Sentinel needs a majority to fail over).
import { randomBytes } from "node:crypto";
import { startRedis, startSentinel, freePorts, tcpExchange, LOOPBACK, type RedisServer, type ServerGroup } from "./servers/index.js";
import { RealRunError } from "./errors.js";
import type { ProxySet } from "./proxy.js";
import type { StartedServer } from "./started-server.js";
import type { AofMode, RealFailover } from "../designs/real-plan.js";
import { MASTER_NAME } from "../designs/redis-failover/real-plan.js";
import { serverVersion } from "./versions.js";
import { LoadTolerantDeadline, loadNote } from "./servers/deadlines.js";

export { MASTER_NAME };
const SENTINEL_QUORUM = 2;
const ACQUAINT_TIMEOUT_MS = 15_000;
const ACQUAINT_POLL_MS = 20;
const ASK_TIMEOUT_MS = 500;

/** Bulk-string values of a reply (nested arrays flattened), in order. */
function bulkValues(reply: string): string[] {
  const lines = reply.split("\r\n");
  const vals: string[] = [];
  for (let i = 0; i < lines.length; i++) if (lines[i]!.startsWith("$") && i + 1 < lines.length) vals.push(lines[++i]!);
  return vals;
}

/** Each instance's field → value map in a (nested) reply of SENTINEL master/replicas/sentinels. */
function instances(reply: string): Array<Map<string, string>> {
  const vals = bulkValues(reply);
  const out: Array<Map<string, string>> = [];
  for (let i = 0; i + 1 < vals.length; i += 2) {
    if (vals[i] === "name" || out.length === 0) out.push(new Map());
    out[out.length - 1]!.set(vals[i]!, vals[i + 1]!);
  }
  return out;
}

/** One command's whole reply: a PING follows it, and the reply ends at its +PONG. */
async function ask(port: number, command: string): Promise<string> {
  return tcpExchange(port, `${command}\r\nPING\r\n`, (r) => r.endsWith("+PONG\r\n"), ASK_TIMEOUT_MS).catch(() => "");
}

/**
 * Ready to fail over: every sentinel is connected to both peers (a sentinel that tried a peer
 * before it listened retries only once a second, and until then it cannot gather a quorum:
 * measured, failover 2.5 s instead of 1.2–1.7 s), sees the primary up and every replica with
 * its link up; every replica's own link to the primary is up.
 */
async function acquainted(sentinelPorts: number[], replicaPorts: number[]): Promise<boolean> {
  for (const p of sentinelPorts) {
    const peers = instances(await ask(p, `SENTINEL sentinels ${MASTER_NAME}`));
    if (peers.length !== sentinelPorts.length - 1 || peers.some((m) => m.get("flags") !== "sentinel")) return false;
    const [master] = instances(await ask(p, `SENTINEL master ${MASTER_NAME}`));
    if (master?.get("flags") !== "master") return false;
    const reps = instances(await ask(p, `SENTINEL replicas ${MASTER_NAME}`));
    if (reps.length !== replicaPorts.length || reps.some((m) => m.get("flags") !== "slave" || m.get("master-link-status") !== "ok")) return false;
  }
  for (const p of replicaPorts) if (!(await ask(p, "INFO replication")).includes("master_link_status:up")) return false;
  return true;
}

/** Polls until `acquainted`; a clear error with a sentinel's log when that takes too long. */
async function waitAcquainted(sentinelPorts: number[], replicaPorts: number[], firstSentinel: StartedServer["process"]): Promise<void> {
  const deadline = new LoadTolerantDeadline(ACQUAINT_TIMEOUT_MS);
  // Bounded: ACQUAINT_TIMEOUT_MS of polling, stretched by the machine's load.
  while (!(await acquainted(sentinelPorts, replicaPorts))) {
    if (deadline.expired()) {
      const what = "every sentinel to see both peers, the primary and its replicas (link up)";
      throw new RealRunError(`the sentinels were not ready after ${deadline.elapsedMs()} ms: waited for ${what} (${loadNote()})`, firstSentinel.logTail());
    }
    await new Promise((r) => setTimeout(r, ACQUAINT_POLL_MS));
  }
}

export async function startFailoverServers(group: ServerGroup, f: RealFailover, aof: AofMode, links: ProxySet, runEndMs: number): Promise<StartedServer[]> {
  const rv = serverVersion("redis-server");
  const sv = serverVersion("redis-sentinel");
  // Redis 7 waits repl-diskless-sync-delay (5 s) for more replicas before a full sync; one is all there is.
  const syncNow = ["--repl-diskless-sync-delay", "0"];
  const primary = await startRedis(group, { name: f.primary, aof, extraArgs: syncNow });
  const replicas: RedisServer[] = [];
  for (const id of f.replicas) {
    const px = await links.add(id, { id: f.primary, host: primary.host, port: primary.port });
    replicas.push(await startRedis(group, { name: id, aof, extraArgs: [...syncNow, "--replicaof", LOOPBACK, String(px.port)] }));
  }
  const ports = await freePorts(f.sentinels.length);
  const ids = f.sentinels.map(() => randomBytes(20).toString("hex"));
  const sentinels = await Promise.all(
    f.sentinels.map((name, i) =>
      startSentinel(group, {
        name,
        port: ports[i]!,
        myId: ids[i]!,
        primary,
        masterName: MASTER_NAME,
        quorum: SENTINEL_QUORUM,
        downAfterMs: f.downAfterMs,
        failoverTimeoutMs: Math.max(60_000, 2 * runEndMs),
        knownSentinels: f.sentinels.flatMap((_, j) => (j === i ? [] : [{ host: LOOPBACK, port: ports[j]!, id: ids[j]! }])),
        knownReplicas: replicas.map((r) => ({ host: r.host, port: r.port })),
      }),
    ),
  );
  await waitAcquainted(
    ports,
    replicas.map((r) => r.port),
    sentinels[0]!.process,
  );
  const aofText = String(aof || "off");
  const redis = (r: { name: string; host: string; port: number; process: StartedServer["process"] }): StartedServer => ({
    id: r.name,
    kind: "redis-server",
    process: r.process,
    endpoint: { id: r.name, host: r.host, port: r.port },
    binary: rv.path,
    version: rv.version,
    versionLine: rv.line,
    aof: aofText,
  });
  return [
    redis(primary),
    ...replicas.map(redis),
    ...sentinels.map((s) => ({
      id: s.name,
      kind: "redis-sentinel" as const,
      process: s.process,
      endpoint: { id: s.name, host: s.host, port: s.port },
      binary: sv.path,
      version: sv.version,
      versionLine: sv.line,
      aof: "n/a",
    })),
  ];
}
