/**
 * A design's real-mode side, shared by the designs: what a design's real-plan.ts returns
 * (the servers real mode starts for it, the client recipe, what it runs), and the helpers
 * every plan uses to refuse an option real mode cannot honour, naming the field. Each
 * design's own plan is in its folder (designs/<name>/real-plan.ts); real/ runs the plan.
 */
import { InputError } from "../sim/errors.js";
import type { PersistenceMode } from "../services/redis/aof.js";
import { serverIds, type RaftServiceOptions } from "../services/raft-service/options.js";
import type { RecipeConfig, RedisEndpoint } from "./real-recipe.js";

/** What a plan reads of the scenario (real/designs.ts builds it from the scenario file). */
export interface RealPlanInput {
  file: string;
  design: string;
  /** designOptions as the file gives them (not defaulted): what the user set. */
  designOptions: unknown;
  /** workload.waitMs, ms. */
  waitMs: number;
  /** Does a fault step cut links between two servers? (see real/designs.ts) */
  cutsServerLinks: boolean;
}

/** A design's real-mode entry: its plan from the parsed options; an InputError where real mode cannot run it. */
export interface RealSide<O> {
  plan(s: RealPlanInput, options: O, notApplied: string[]): RealDesignPlan;
  /** Why its servers' clocks cannot be offset or drifted in real mode. */
  serverClocksWhy: string;
  /** Real mode starts another number of servers than the simulator unless designOptions.nodes says (a cluster of 3). */
  sizedByNodes?: boolean;
}

/** Why a redis-server's clock cannot be faked (REAL-SYSTEMS.md). */
export const REDIS_CLOCK_WHY = "redis-server's clock cannot be faked: libfaketime deadlocks it";

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
  /**
   * Why the clients' clocks cannot be faked with the libfaketime library at `faketimeLib`
   * (their runtime does not read time through libc, or breaks under it), if they cannot;
   * asked only when a step fakes one.
   */
  clientClocksWhy?: (faketimeLib: string) => string | undefined;
}

/**
 * Real clusters run 3 members unless the scenario names a size: the simulator's default of 5
 * matters for scenarios that cut the cluster, and those set `nodes` or are refused anyway.
 */
export const REAL_CLUSTER_SIZE_DEFAULT = 3;
/** The real servers' Raft timing (REAL-SYSTEMS.md: tried on this machine); the simulator's is 150–300 ms / 50 ms. */
export const ETCD_HEARTBEAT_MS = 100;
export const ETCD_ELECTION_MS = 1000;
/** etcd's minimum lease TTL: ceil(1.5 × election timeout) in seconds (lessor minLeaseTTL). */
export const ETCD_LEASE_TTL_S_MIN = Math.ceil((1.5 * ETCD_ELECTION_MS) / 1000);
export const ZK_TICK_MS = 200;

export function refuse(s: RealPlanInput, field: string, why: string): never {
  throw new InputError(s.file, field, `real mode cannot run this: ${why}`);
}

/** Options set in the scenario file itself (not defaults). */
export function given(s: RealPlanInput): Record<string, unknown> {
  const o = s.designOptions;
  return typeof o === "object" && o !== null ? (o as Record<string, unknown>) : {};
}

export function aofFor(s: RealPlanInput, persistence: PersistenceMode, fsyncIntervalMs: number): AofMode {
  if (persistence === "none") return false;
  if (persistence === "always") return "always";
  if (fsyncIntervalMs !== 1000) {
    refuse(s, "designOptions.fsyncIntervalMs", `redis-server's appendfsync everysec syncs every 1000 ms; expected 1000, got ${fsyncIntervalMs}`);
  }
  return "everysec";
}

export function noteSweep(s: RealPlanInput, notApplied: string[]): void {
  if (given(s).sweepIntervalMs !== undefined) {
    notApplied.push("designOptions.sweepIntervalMs: the simulator's model of Redis's expiry sweep; redis-server expires keys its own way");
  }
}

/** What both Raft-backed services refuse or run without, and the cluster size. */
export function raftServiceCommon(s: RealPlanInput, o: RaftServiceOptions, prefix: "etcd" | "zk", notApplied: string[]): string[] {
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
  const size = g.nodes !== undefined || s.cutsServerLinks ? o.nodes : REAL_CLUSTER_SIZE_DEFAULT;
  if (size !== o.nodes)
    notApplied.push(`designOptions.nodes (the simulator's default, ${o.nodes}): real mode starts ${size} members; set nodes to run another size`);
  if (o.preferredLeader !== undefined) {
    notApplied.push(
      `designOptions.preferredLeader (${o.preferredLeader}): the real servers elect their own leader; a fault step that names ${o.preferredLeader} acts on whichever member is the leader when it fires`,
    );
  }
  return serverIds(prefix, size);
}

export const leaderOpt = (o: RaftServiceOptions): { preferredLeader?: string } =>
  o.preferredLeader !== undefined ? { preferredLeader: o.preferredLeader } : {};
