/**
 * The designs real mode runs, each by its real-plan.ts (its client is its real-client.ts,
 * picked by the recipe's kind in real/child/main.ts). A design missing here is refused by
 * real mode, naming the ones it runs.
 */
import { REDIS_CLOCK_WHY, type RealDesignPlan, type RealPlanInput, type RealSide } from "./real-plan.js";
import type { SingleNodeSetnxOptions } from "./redis-setnx/design.js";
import { setnxPlan } from "./redis-setnx/real-plan.js";
import { redlockPlan } from "./redlock/real-plan.js";
import { failoverPlan } from "./redis-failover/real-plan.js";
import { etcdPlan } from "./etcd-lease/real-plan.js";
import { zkPlan } from "./raft-zk/real-plan.js";
import { libraryPlan } from "./library/real-plan.js";

/** A plan over the options its design's parser returned (designs/index.ts parses them first). */
const side = <O>(
  plan: (s: RealPlanInput, o: O, notApplied: string[]) => RealDesignPlan,
  facts: Omit<RealSide<O>, "plan"> = { serverClocksWhy: REDIS_CLOCK_WHY },
): RealSide<unknown> => ({ ...facts, plan: (s, o, notApplied) => plan(s, o as O, notApplied) });

export const REAL_SIDES: Readonly<Record<string, RealSide<unknown>>> = {
  "redis-setnx": side<SingleNodeSetnxOptions>((s, o, n) => setnxPlan(s, o, false, n)),
  "redis-fenced": side<SingleNodeSetnxOptions>((s, o, n) => setnxPlan(s, o, true, n)),
  redlock: side(redlockPlan),
  "redis-failover": side(failoverPlan),
  "etcd-lease": side(etcdPlan, { serverClocksWhy: "etcd is a Go binary, which ignores libfaketime", sizedByNodes: true }),
  "raft-zk": side(zkPlan, { serverClocksWhy: "ZooKeeper's JVM would need libfaketime and its clients' Node processes too; not wired up", sizedByNodes: true }),
  library: side(libraryPlan),
};
