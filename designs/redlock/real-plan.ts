/** redlock in real mode: N redis-servers, the real `redlock` package (4.2.0) on ioredis (real-client.ts). */
import { redlockNodeId, type RedlockDesignOptions } from "./options.js";
import { quorumOf } from "./validity.js";
import { aofFor, noteSweep, refuse, type RealDesignPlan, type RealPlanInput } from "../real-plan.js";
import type { RecipeConfig, RedisEndpoint } from "../real-recipe.js";

/** The recipe config this design's real client runs (designs/real-recipe.ts). */
export interface RedlockRecipeConfig extends RecipeConfig {
  kind: "redlock-v4";
  redis: RedisEndpoint[];
  requestTimeoutMs: number;
  driftFactor: number;
  retryCount: number;
  retryDelayMs: number;
  retryJitterMs: number;
}

export function redlockPlan(s: RealPlanInput, o: RedlockDesignOptions, notApplied: string[]): RealDesignPlan {
  if (o.variant !== "node-redlock")
    refuse(s, "designOptions.variant", `"${o.variant}" is a simulator model; real mode runs the redlock package 4.2.0 (variant "node-redlock")`);
  if (o.quorum !== quorumOf(o.nodes)) refuse(s, "designOptions.quorum", `the redlock package always uses floor(N/2)+1 = ${quorumOf(o.nodes)}; got ${o.quorum}`);
  if (o.driftConstantMs !== 2) refuse(s, "designOptions.driftConstantMs", `the redlock package adds a fixed 2 ms; got ${o.driftConstantMs}`);
  if (o.clock !== "wall") refuse(s, "designOptions.clock", `the redlock package times with Date.now() (the wall clock); got "${o.clock}"`);
  noteSweep(s, notApplied);
  if (s.waitMs > 0) notApplied.push(`workload.waitMs (${s.waitMs} ms): node-redlock v4 has no wait bound; it retries retryCount (${o.retryCount}) times`);
  const aof = aofFor(s, o.persistence, o.fsyncIntervalMs);
  const ids = Array.from({ length: o.nodes }, (_, i) => redlockNodeId(i + 1));
  return {
    name: s.design,
    redis: ids.map((id) => ({ id, aof })),
    fencing: false,
    packages: ["ioredis", "redlock"],
    clients: `the redlock package on ${o.nodes} ioredis connections`,
    recipe: (eps): RedlockRecipeConfig => ({
      client: "redlock/real-client.js",
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
