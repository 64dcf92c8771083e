/** redis-setnx and redis-fenced in real mode: one redis-server, the SET NX PX recipe on ioredis (real-client.ts). */
import type { SingleNodeSetnxOptions } from "./options.js";
import { aofFor, noteSweep, refuse, type RealDesignPlan, type RealPlanInput } from "../real-plan.js";
import type { RecipeConfig, RedisEndpoint } from "../real-recipe.js";

/** The recipe config this design's real client runs (designs/real-recipe.ts). */
export interface SetnxRecipeConfig extends RecipeConfig {
  kind: "setnx";
  redis: RedisEndpoint;
  /** redis-failover: find the primary through these sentinels (ioredis's Sentinel client) instead of `redis`. */
  sentinels?: RedisEndpoint[];
  masterName?: string;
  /** ioredis commandTimeout: the design's per-request socket timeout. */
  requestTimeoutMs: number;
  retryDelayMs: number;
  fencing: boolean;
}

export function setnxPlan(s: RealPlanInput, o: SingleNodeSetnxOptions, fencing: boolean, notApplied: string[]): RealDesignPlan {
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
    recipe: (eps): SetnxRecipeConfig => ({
      client: "redis-setnx/real-client.js",
      kind: "setnx",
      redis: eps[0]!,
      requestTimeoutMs: o.requestTimeoutMs,
      retryDelayMs: o.retryDelayMs,
      fencing,
    }),
  };
}
