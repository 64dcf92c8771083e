// Designs real mode can run, and how each maps onto real servers and real npm clients.
// The scenario's designOptions are parsed by the design's own parser (impls/), so defaults
// are the simulator's; an option real mode cannot honour stops the run before it starts.
//
//   redis-setnx   one redis-server; the SET NX PX recipe (real/child/setnx.ts) on ioredis
//   redis-fenced  the same, plus INCR fence:<lock> as the fencing token
//   redlock       N redis-servers (default 5); the real `redlock` package (4.2.0) on ioredis
//   etcd-lease    an etcd 3.4 cluster; concurrency.Mutex on the etcd3 client (real/child/etcd-mutex.ts)
//   raft-zk       a ZooKeeper 3.8 ensemble; the lock recipe on node-zookeeper-client (real/child/zk-lock.ts)
//   library      N redis-servers (the adapter's nodesDefault, or designOptions.nodes); the same
//                adapter module as the simulator's, loaded with plain require (real/child/library.ts)
//   redis-failover a primary, its replicas (replicating through driver proxies) and three
//                 redis-sentinels; the SET NX PX recipe on ioredis's Sentinel client (real/failover.ts)
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { InputError } from "../sim/errors.js";
import { packageRoot } from "../sim/paths.js";
import type { Scenario } from "../scenarios/schema.js";
import { designByName } from "../designs/index.js";
import type { SingleNodeSetnxOptions } from "../designs/redis-setnx/design.js";
import { redlockNodeId, type RedlockDesignOptions } from "../designs/redlock/design.js";
import { quorumOf } from "../designs/redlock/validity.js";
import type { PersistenceMode } from "../services/redis/aof.js";
import { requestBudgetMs } from "../services/raft-service/session-grants.js";
import { serverIds, type RaftServiceOptions } from "../services/raft-service/options.js";
import type { RaftZkOptions } from "../designs/raft-zk/design.js";
import { DEFAULT_ZK_RECIPE } from "../designs/raft-zk/recipe.js";
import type { EtcdLeaseOptions } from "../designs/etcd-lease/design.js";
import { PRIMARY_ID, replicaId, SENTINEL_ID, type FailoverDesignOptions } from "../designs/redis-failover/design.js";
import { BUILTIN_ADAPTERS } from "../designs/library/adapter.js";
import { commonJsSource } from "../sim/sandbox/module-loader.js";
import { libraryNodeId, type LibraryDesignOptions } from "../designs/library/design.js";
import type { RecipeConfig, RedisEndpoint } from "./protocol.js";
import { packageVersion } from "./child/packages.js";

/** The name the sentinels monitor the primary under (real/failover.ts). */
export const MASTER_NAME = "lockstep";

export type AofMode = "always" | "everysec" | false;

/** A Raft-backed service real mode starts as one cluster. */
export interface RealCluster {
  kind: "etcd" | "zookeeper";
  /** Member ids, named as the simulator names the design's servers (etcd-1…, zk-1…). */
  ids: string[];
  /** ZooKeeper: the largest session timeout the ensemble grants (maxSessionTimeout), ms. */
  sessionTimeoutMsMax?: number;
  /** The scenario's designOptions.preferredLeader: fault steps naming it act on the current leader. */
  preferredLeader?: string;
}

/** redis-failover's servers: `redis` holds the primary and its replicas; these are the rest. */
export interface RealFailover {
  primary: string;
  replicas: string[];
  /** Three sentinels, sentinel-1…3 (the simulator has one, `sentinel`). */
  sentinels: string[];
  downAfterMs: number;
}

export interface RealDesignPlan {
  name: string;
  /** The redis-servers to start, named as the simulator names the design's servers. */
  redis: Array<{ id: string; aof: AofMode }>;
  /** Or the cluster to start (etcd-lease, raft-zk). */
  cluster?: RealCluster;
  /** Or a Sentinel-watched primary with replicas (redis-failover). */
  failover?: RealFailover;
  fencing: boolean;
  /** The client recipe, given the started servers (in the order of `redis`, or of `cluster.ids`). */
  recipe(endpoints: RedisEndpoint[]): RecipeConfig;
  /** npm packages the clients load (their versions are reported by the clients themselves). */
  packages: string[];
  /** What the clients run, for the terminal and the report. */
  clients: string;
}

export const REAL_DESIGN_NAMES = ["redis-setnx", "redis-fenced", "redlock", "redis-failover", "etcd-lease", "raft-zk", "library"] as const;

/** Every server id of the plan, in start order. */
export function designServerIds(d: RealDesignPlan): string[] {
  return d.cluster ? d.cluster.ids : [...d.redis.map((r) => r.id), ...(d.failover?.sentinels ?? [])];
}

/**
 * Real clusters run 3 members unless the scenario names a size: the simulator's default of 5
 * matters for scenarios that cut the cluster, and those set `nodes` or are refused anyway.
 */
const REAL_CLUSTER_SIZE_DEFAULT = 3;
/** The real servers' Raft timing (REAL-SYSTEMS.md: tried on this machine); the simulator's is 150–300 ms / 50 ms. */
const ETCD_HEARTBEAT_MS = 100;
const ETCD_ELECTION_MS = 1000;
/** etcd's minimum lease TTL: ceil(1.5 × election timeout) in seconds (lessor minLeaseTTL). */
const ETCD_LEASE_TTL_S_MIN = Math.ceil((1.5 * ETCD_ELECTION_MS) / 1000);
export const ZK_TICK_MS = 200;

function refuse(s: Scenario, field: string, why: string): never {
  throw new InputError(s.file, field, `real mode cannot run this: ${why}`);
}

/** Options set in the scenario file itself (not defaults). */
function given(s: Scenario): Record<string, unknown> {
  const o = s.designOptions;
  return typeof o === "object" && o !== null ? (o as Record<string, unknown>) : {};
}

function aofFor(s: Scenario, persistence: PersistenceMode, fsyncIntervalMs: number): AofMode {
  if (persistence === "none") return false;
  if (persistence === "always") return "always";
  if (fsyncIntervalMs !== 1000) {
    refuse(s, "designOptions.fsyncIntervalMs", `redis-server's appendfsync everysec syncs every 1000 ms; expected 1000, got ${fsyncIntervalMs}`);
  }
  return "everysec";
}

function noteSweep(s: Scenario, notApplied: string[]): void {
  if (given(s).sweepIntervalMs !== undefined) {
    notApplied.push("designOptions.sweepIntervalMs: the simulator's model of Redis's expiry sweep; redis-server expires keys its own way");
  }
}

function setnxPlan(s: Scenario, o: SingleNodeSetnxOptions, fencing: boolean, notApplied: string[]): RealDesignPlan {
  // The real child runs only the Lua compare-and-delete release; running a del scenario with it would test the wrong recipe.
  if (o.release !== "compare-and-delete") refuse(s, "designOptions.release", `the real client releases by Lua compare-and-delete only; got "${o.release}"`);
  noteSweep(s, notApplied);
  const aof = aofFor(s, o.persistence, o.fsyncIntervalMs);
  return {
    name: s.design,
    redis: [{ id: "redis-1", aof }],
    fencing,
    packages: ["ioredis"],
    clients: `the SET NX PX recipe${fencing ? " + INCR fencing token" : ""} on ioredis (Lua compare-and-delete release)`,
    recipe: (eps) => ({ kind: "setnx", redis: eps[0]!, requestTimeoutMs: o.requestTimeoutMs, retryDelayMs: o.retryDelayMs, fencing }),
  };
}

function redlockPlan(s: Scenario, o: RedlockDesignOptions, notApplied: string[]): RealDesignPlan {
  if (o.variant !== "node-redlock")
    refuse(s, "designOptions.variant", `"${o.variant}" is a simulator model; real mode runs the redlock package 4.2.0 (variant "node-redlock")`);
  if (o.quorum !== quorumOf(o.nodes)) refuse(s, "designOptions.quorum", `the redlock package always uses floor(N/2)+1 = ${quorumOf(o.nodes)}; got ${o.quorum}`);
  if (o.driftConstantMs !== 2) refuse(s, "designOptions.driftConstantMs", `the redlock package adds a fixed 2 ms; got ${o.driftConstantMs}`);
  if (o.clock !== "wall") refuse(s, "designOptions.clock", `the redlock package times with Date.now() (the wall clock); got "${o.clock}"`);
  noteSweep(s, notApplied);
  if (s.workload.waitMs > 0)
    notApplied.push(`workload.waitMs (${s.workload.waitMs} ms): node-redlock v4 has no wait bound; it retries retryCount (${o.retryCount}) times`);
  const aof = aofFor(s, o.persistence, o.fsyncIntervalMs);
  const ids = Array.from({ length: o.nodes }, (_, i) => redlockNodeId(i + 1));
  return {
    name: s.design,
    redis: ids.map((id) => ({ id, aof })),
    fencing: false,
    packages: ["ioredis", "redlock"],
    clients: `the redlock package on ${o.nodes} ioredis connections`,
    recipe: (eps) => ({
      kind: "redlock-v4",
      redis: eps,
      requestTimeoutMs: o.requestTimeoutMs,
      driftFactor: o.driftFactor,
      retryCount: o.retryCount,
      retryDelayMs: o.retryDelayMs,
      retryJitterMs: o.retryJitterMs,
    }),
  };
}

/**
 * Client packages a built-in adapter's library needs in another major version than the one
 * installed as itself. redis-lock@1.0.0 insists on `"v4" in client` (node-redis 4.x, its
 * devDependency); the project's `redis` is 6, whose clients carry no such marker, and the
 * simulator's `require("redis")` models node-redis 4's client (with the marker). So the real
 * run hands redis-lock's adapter node-redis 4 for `require("redis")`, installed as `redis-v4`.
 */
const LIBRARY_REQUIRE_ALIASES: Record<string, Record<string, { pkg: string; major: string }>> = {
  "redis-lock": { redis: { pkg: "redis-v4", major: "4." } },
};

function libraryRequireAliases(s: Scenario, adapter: string, notApplied: string[]): Record<string, string> | undefined {
  const aliases = LIBRARY_REQUIRE_ALIASES[adapter];
  if (!aliases) return undefined;
  const out: Record<string, string> = {};
  for (const [request, { pkg, major }] of Object.entries(aliases)) {
    // An npm alias's package.json names the real package, so read it by the alias's folder.
    let v: string;
    try {
      v = (JSON.parse(readFileSync(join(packageRoot(), "node_modules", pkg, "package.json"), "utf8")) as { version: string }).version;
    } catch {
      return refuse(s, "designOptions.adapter", `${adapter} needs ${request}@${major}x, installed as ${pkg}; it is missing (npm ci installs it)`);
    }
    if (!v.startsWith(major)) refuse(s, "designOptions.adapter", `${adapter} needs ${request}@${major}x, and ${pkg} is ${v}`);
    out[request] = pkg;
    notApplied.push(
      `designOptions.adapter (${adapter}): its require("${request}") gets ${request}@${v} (installed as ${pkg}), the major version the library accepts; the project's own ${request} is ${packageVersion(request)}`,
    );
  }
  return out;
}

function libraryPlan(s: Scenario, o: LibraryDesignOptions, notApplied: string[]): RealDesignPlan {
  const requireAliases = libraryRequireAliases(s, o.adapter, notApplied);
  noteSweep(s, notApplied);
  if (given(s).basePort !== undefined)
    notApplied.push(`designOptions.basePort (${o.basePort}): the adapter is given the real servers' (or their proxies') loopback ports`);
  notApplied.push(
    `designOptions.adapter (${o.adapter}): loaded with the client process's own require, not in the simulator's sandbox: the library sees the host's clock, timers and randomness, and its own real ioredis/redis clients (a real run is not replayable anyway)`,
  );
  // Compiled now as well as in the client, so a module esbuild cannot compile is refused before anything starts.
  if (commonJsSource(o.adapterFile).compiled)
    notApplied.push(`designOptions.adapter (${o.adapter}): compiled to CommonJS by esbuild, as the simulator compiles it`);
  const aof = aofFor(s, o.persistence, o.fsyncIntervalMs);
  const ids = Array.from({ length: o.nodes }, (_, i) => libraryNodeId(i + 1));
  const what = BUILTIN_ADAPTERS[o.adapter]?.description ?? `the adapter ${o.adapterFile}`;
  return {
    name: s.design,
    redis: ids.map((id) => ({ id, aof })),
    fencing: false,
    packages: [],
    clients: `${what}, unmodified, against ${o.nodes} redis-server${o.nodes === 1 ? "" : "s"}`,
    recipe: (eps) => ({
      kind: "library",
      adapter: o.adapter,
      adapterFile: o.adapterFile,
      addresses: eps.map((e) => `${e.host}:${e.port}`),
      options: o.options,
      ...(requireAliases ? { requireAliases } : {}),
    }),
  };
}

/** Real Sentinel needs a majority of sentinels to fail over; three is the smallest set that survives one. */
const SENTINELS = 3;

function failoverPlan(s: Scenario, o: FailoverDesignOptions, notApplied: string[]): RealDesignPlan {
  if (o.persistence !== "none") {
    refuse(
      s,
      "designOptions.persistence",
      `a crashed primary's AOF would have to be cut back to its last fsync (a host crash), which real mode does not do for redis-failover yet; expected "none", got "${o.persistence}"`,
    );
  }
  if (o.fencing) refuse(s, "designOptions.fencing", "the real failover client takes no fencing token yet; expected false");
  if (o.waitReplicas !== 0) refuse(s, "designOptions.waitReplicas", `the real failover client sends no WAIT yet; expected 0, got ${o.waitReplicas}`);
  // The model's failover timing was measured on real sentinels; real ones cannot be told it.
  if (o.failoverVoteMs !== 220)
    refuse(s, "designOptions.failoverVoteMs", `real Sentinels take their own time to vote; expected the measured default 220, got ${o.failoverVoteMs}`);
  if (o.sentinelInfoMs !== 1000)
    refuse(s, "designOptions.sentinelInfoMs", `real Sentinels poll INFO once a second during a failover; expected 1000, got ${o.sentinelInfoMs}`);
  noteSweep(s, notApplied);
  const g = given(s);
  notApplied.push(
    `designOptions.sentinelPingMs (${o.sentinelPingMs} ms): redis-sentinel pings every min(1000 ms, down-after-milliseconds); one sentinel in the simulator is ${SENTINELS} here (quorum 2: real Sentinel fails over only with a majority)`,
  );
  if (g.replAckIntervalMs !== undefined)
    notApplied.push(`designOptions.replAckIntervalMs (${o.replAckIntervalMs} ms): replicas send REPLCONF ACK every second`);
  const replicas = Array.from({ length: o.replicas }, (_, i) => replicaId(i + 1));
  const sentinels = Array.from({ length: SENTINELS }, (_, i) => `${SENTINEL_ID}-${i + 1}`);
  return {
    name: s.design,
    redis: [{ id: PRIMARY_ID, aof: false }, ...replicas.map((id) => ({ id, aof: false as const }))],
    failover: { primary: PRIMARY_ID, replicas, sentinels, downAfterMs: o.downAfterMs },
    fencing: false,
    packages: ["ioredis"],
    clients: `the SET NX PX recipe on ioredis's Sentinel client (${SENTINELS} sentinels, down-after ${o.downAfterMs} ms; Lua compare-and-delete release)`,
    recipe: (eps) => ({
      kind: "setnx",
      redis: eps[0]!,
      sentinels: eps.filter((e) => sentinels.includes(e.id)),
      masterName: MASTER_NAME,
      requestTimeoutMs: o.requestTimeoutMs,
      retryDelayMs: o.retryDelayMs,
      fencing: false,
    }),
  };
}

/** What both Raft-backed services refuse or run without, and the cluster size. */
function raftServiceCommon(s: Scenario, o: RaftServiceOptions, prefix: "etcd" | "zk", notApplied: string[]): string[] {
  const g = given(s);
  for (const [bug, on] of Object.entries(o.bugs))
    if (on) refuse(s, `designOptions.bugs.${bug}`, "a switchable bug of the simulated service; the real server has only its own bugs");
  const raftTiming = ["electionTimeoutMsMin", "electionTimeoutMsMax", "raftHeartbeatIntervalMs"].filter((k) => g[k] !== undefined);
  notApplied.push(
    `designOptions.${raftTiming.length ? raftTiming.join("/") : "electionTimeoutMsMin/Max, raftHeartbeatIntervalMs"} (the simulator's Raft timing, ${o.electionTimeoutMsMin}–${o.electionTimeoutMsMax} ms / ${o.raftHeartbeatIntervalMs} ms): ` +
      (prefix === "etcd"
        ? `etcd runs with --heartbeat-interval ${ETCD_HEARTBEAT_MS} --election-timeout ${ETCD_ELECTION_MS}`
        : `ZooKeeper runs its own election (Zab, FastLeaderElection) with tickTime ${ZK_TICK_MS} ms`),
  );
  const size = g.nodes !== undefined || cutsServerLinks(s) ? o.nodes : REAL_CLUSTER_SIZE_DEFAULT;
  if (size !== o.nodes)
    notApplied.push(`designOptions.nodes (the simulator's default, ${o.nodes}): real mode starts ${size} members; set nodes to run another size`);
  if (o.preferredLeader !== undefined) {
    notApplied.push(
      `designOptions.preferredLeader (${o.preferredLeader}): the real servers elect their own leader; a fault step that names ${o.preferredLeader} acts on whichever member is the leader when it fires`,
    );
  }
  return serverIds(prefix, size);
}

/**
 * Does a network step cut links between two servers? Then the real cluster has the
 * simulator's size: which side of a partition holds a majority is counted on it.
 */
function cutsServerLinks(s: Scenario): boolean {
  const server = (id: string): boolean => /^(etcd|zk)-\d+$/.test(id);
  return s.faults.some((f) =>
    f.kind === "isolate"
      ? f.target !== undefined && server(f.target)
      : f.kind === "partition"
        ? (f.groups ?? []).filter((g) => g.some(server)).length >= 2
        : f.kind === "cut" && (f.links ?? []).some(([a, b]) => server(a) && server(b)),
  );
}

const leaderOpt = (o: RaftServiceOptions): { preferredLeader?: string } => (o.preferredLeader !== undefined ? { preferredLeader: o.preferredLeader } : {});

function etcdPlan(s: Scenario, o: EtcdLeaseOptions, notApplied: string[]): RealDesignPlan {
  // The real child runs etcd v3.5's Mutex with the session check; another variant would test the wrong recipe.
  if (o.mutexVersion !== "3.5")
    refuse(s, "designOptions.mutexVersion", `the real client runs etcd v3.5's Mutex (the #11456 check after waiting) only; got "${o.mutexVersion}"`);
  if (o.holderCheck !== "session")
    refuse(s, "designOptions.holderCheck", `the real client stops trusting its lock when its lease may have expired ("session") only; got "${o.holderCheck}"`);
  if (o.staleLeaderRevoke !== "dropped")
    refuse(
      s,
      "designOptions.staleLeaderRevoke",
      `a model of etcd before PR 16822; the real etcd-server is the version installed; got "${o.staleLeaderRevoke}"`,
    );
  const ttlS = o.sessionTimeoutMs / 1000;
  if (!Number.isInteger(ttlS) || ttlS < ETCD_LEASE_TTL_S_MIN) {
    refuse(
      s,
      "designOptions.sessionTimeoutMs",
      `etcd lease TTLs are whole seconds, at least ${ETCD_LEASE_TTL_S_MIN} s with a ${ETCD_ELECTION_MS} ms election timeout; expected a multiple of 1000 from ${ETCD_LEASE_TTL_S_MIN * 1000}, got ${o.sessionTimeoutMs}`,
    );
  }
  const ids = raftServiceCommon(s, o, "etcd", notApplied);
  notApplied.push(
    `designOptions.heartbeatIntervalMs (${o.heartbeatIntervalMs} ms): etcd3 1.1.2 sends a lease keepalive every TTL/3 (${Math.round((o.sessionTimeoutMs / 3) * 10) / 10} ms)`,
  );
  return {
    name: s.design,
    redis: [],
    cluster: { kind: "etcd", ids, ...leaderOpt(o) },
    fencing: true,
    packages: ["etcd3"],
    clients: `etcd's concurrency.Mutex on the etcd3 client (lease + keepalive, Txn on create revision, watch of the next-lower key; token = create revision) against ${ids.length} etcd members`,
    recipe: (eps) => ({
      kind: "etcd-mutex",
      endpoints: eps.map((e) => `http://${e.host}:${e.port}`),
      leaseTtlS: ttlS,
      clockDriftMarginMs: o.clockDriftMarginMs,
      callTimeoutMs: requestBudgetMs({ o }),
      watchPollMs: o.watchPollMs,
    }),
  };
}

function zkPlan(s: Scenario, o: RaftZkOptions, notApplied: string[]): RealDesignPlan {
  // The real child runs one recipe (lease-style trust, GUID names, predecessor watch with a re-list); real ZooKeeper has no lock delay.
  const r = o.recipe;
  if (r.connectionStatePolicy !== DEFAULT_ZK_RECIPE.connectionStatePolicy)
    refuse(
      s,
      "designOptions.connectionStatePolicy",
      `the real client runs the "${DEFAULT_ZK_RECIPE.connectionStatePolicy}" policy only; got "${r.connectionStatePolicy}"`,
    );
  if (r.lockNodeProtection !== DEFAULT_ZK_RECIPE.lockNodeProtection)
    refuse(s, "designOptions.lockNodeProtection", "the real client always puts a GUID in its lock node's name; got false");
  if (r.waitRecipe !== DEFAULT_ZK_RECIPE.waitRecipe)
    refuse(
      s,
      "designOptions.waitRecipe",
      `the real client re-lists the children after a watch fires ("${DEFAULT_ZK_RECIPE.waitRecipe}") only; got "${r.waitRecipe}"`,
    );
  if (o.lockDelayMs !== 0) refuse(s, "designOptions.lockDelayMs", `real ZooKeeper has no lock delay (a Chubby feature); expected 0, got ${o.lockDelayMs}`);
  // ZooKeeper grants 2–20 ticks unless the ensemble says otherwise; the ensemble is told the
  // scenario's timeout as its maximum, so the negotiated one is the scenario's (if ≥ 2 ticks).
  if (o.sessionTimeoutMs < 2 * ZK_TICK_MS || o.sessionTimeoutMs % ZK_TICK_MS !== 0) {
    refuse(
      s,
      "designOptions.sessionTimeoutMs",
      `ZooKeeper expires sessions in ticks of ${ZK_TICK_MS} ms, at least 2 ticks; expected a multiple of ${ZK_TICK_MS} from ${2 * ZK_TICK_MS}, got ${o.sessionTimeoutMs}`,
    );
  }
  const ids = raftServiceCommon(s, o, "zk", notApplied);
  return {
    name: s.design,
    redis: [],
    cluster: { kind: "zookeeper", ids, sessionTimeoutMsMax: Math.max(20 * ZK_TICK_MS, o.sessionTimeoutMs), ...leaderOpt(o) },
    fencing: true,
    packages: ["node-zookeeper-client"],
    clients: `the ZooKeeper lock recipe on node-zookeeper-client (ephemeral sequential node with a GUID, predecessor watch; token = creation zxid; session heartbeat every ${o.heartbeatIntervalMs} ms) against ${ids.length} ZooKeeper servers`,
    recipe: (eps) => ({
      kind: "zk-lock",
      connectString: eps.map((e) => `${e.host}:${e.port}`).join(","),
      sessionTimeoutMs: o.sessionTimeoutMs,
      heartbeatIntervalMs: o.heartbeatIntervalMs,
      clockDriftMarginMs: o.clockDriftMarginMs,
      callTimeoutMs: requestBudgetMs({ o }),
      watchPollMs: o.watchPollMs,
    }),
  };
}

/** The real-mode plan of the scenario's design; InputError if real mode cannot run it as written. */
export function planDesign(s: Scenario, notApplied: string[]): RealDesignPlan {
  const entry = designByName(s.design);
  if (!entry || !(REAL_DESIGN_NAMES as readonly string[]).includes(s.design)) {
    refuse(s, "design", `design "${s.design}" has no real-mode mapping yet; real mode runs ${REAL_DESIGN_NAMES.join(", ")}`);
  }
  const options = entry.parseOptions(s.designOptions, s.file, "designOptions");
  // The real child's workload checks its lock where workload.validityCheck says, as the simulator's does.
  switch (s.design) {
    case "redis-setnx":
      return setnxPlan(s, options as SingleNodeSetnxOptions, false, notApplied);
    case "redis-fenced":
      return setnxPlan(s, options as SingleNodeSetnxOptions, true, notApplied);
    case "etcd-lease":
      return etcdPlan(s, options as EtcdLeaseOptions, notApplied);
    case "raft-zk":
      return zkPlan(s, options as RaftZkOptions, notApplied);
    case "redis-failover":
      return failoverPlan(s, options as FailoverDesignOptions, notApplied);
    case "library":
      return libraryPlan(s, options as LibraryDesignOptions, notApplied);
    default:
      return redlockPlan(s, options as RedlockDesignOptions, notApplied);
  }
}
