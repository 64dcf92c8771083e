/** raft-zk in real mode: a ZooKeeper ensemble; the lock recipe on node-zookeeper-client (real-client.ts). */
import type { RaftZkOptions } from "./options.js";
import { DEFAULT_ZK_RECIPE } from "./recipe.js";
import { requestBudgetMs } from "../../services/raft-service/session-grants.js";
import { leaderOpt, raftServiceCommon, refuse, ZK_TICK_MS, type RealDesignPlan, type RealPlanInput } from "../real-plan.js";
import type { RecipeConfig } from "../real-recipe.js";

/** The recipe config this design's real client runs (designs/real-recipe.ts). */
export interface ZkLockRecipeConfig extends RecipeConfig {
  /** The ZooKeeper lock recipe on node-zookeeper-client (designs/raft-zk/real-client.ts). */
  kind: "zk-lock";
  /** host:port,host:port,… */
  connectString: string;
  sessionTimeoutMs: number;
  /** The recipe's own session heartbeat (an exists("/") call), ms. */
  heartbeatIntervalMs: number;
  clockDriftMarginMs: number;
  callTimeoutMs: number;
  watchPollMs: number;
}

export function zkPlan(s: RealPlanInput, o: RaftZkOptions, notApplied: string[]): RealDesignPlan {
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
    recipe: (eps): ZkLockRecipeConfig => ({
      client: "raft-zk/real-client.js",
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
