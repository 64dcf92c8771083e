/** redis-setnx and redis-fenced in real mode: one redis-server, the SET NX PX recipe on ioredis (real-client.ts). */
import type { SingleNodeSetnxOptions } from "./design.js";
import { aofFor, noteSweep, refuse, type RealDesignPlan, type RealPlanInput } from "../real-plan.js";

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
    recipe: (eps) => ({ kind: "setnx", redis: eps[0]!, requestTimeoutMs: o.requestTimeoutMs, retryDelayMs: o.retryDelayMs, fencing }),
  };
}
