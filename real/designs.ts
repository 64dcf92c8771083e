// Designs real mode can run, and how each maps onto real servers and real npm clients.
// The scenario's designOptions are parsed by the design's own parser (impls/), so defaults
// are the simulator's; an option real mode cannot honour stops the run before it starts.
//
//   redis-setnx   one redis-server; the SET NX PX recipe (real/child/setnx.ts) on ioredis
//   redis-fenced  the same, plus INCR fence:<lock> as the fencing token
//   redlock       N redis-servers (default 5); the real `redlock` package (4.2.0) on ioredis
import { InputError } from "../sim/errors.js";
import type { Scenario } from "../scenarios/schema.js";
import { designByName } from "../impls/index.js";
import type { SingleNodeSetnxOptions } from "../impls/redis-setnx/design.js";
import { redlockNodeId, type RedlockDesignOptions } from "../impls/redlock/design.js";
import { quorumOf } from "../impls/redlock/validity.js";
import type { PersistenceMode } from "../impls/redis/aof.js";
import type { RecipeConfig, RedisEndpoint } from "./protocol.js";

export type AofMode = "always" | "everysec" | false;

export interface RealDesignPlan {
  name: string;
  /** The redis-servers to start, named as the simulator names the design's servers. */
  redis: Array<{ id: string; aof: AofMode }>;
  fencing: boolean;
  /** The client recipe, given the started servers (in the order of `redis`). */
  recipe(endpoints: RedisEndpoint[]): RecipeConfig;
  /** npm packages the clients load (their versions are reported by the clients themselves). */
  packages: string[];
  /** What the clients run, for the terminal and the report. */
  clients: string;
}

export const REAL_DESIGN_NAMES = ["redis-setnx", "redis-fenced", "redlock"] as const;

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
  if (o.variant !== "node-redlock") refuse(s, "designOptions.variant", `"${o.variant}" is the simulator's model of the seed's loop; real mode runs the redlock package (variant "node-redlock")`);
  if (o.quorum !== quorumOf(o.nodes)) refuse(s, "designOptions.quorum", `the redlock package always uses floor(N/2)+1 = ${quorumOf(o.nodes)}; got ${o.quorum}`);
  if (o.driftConstantMs !== 2) refuse(s, "designOptions.driftConstantMs", `the redlock package adds a fixed 2 ms; got ${o.driftConstantMs}`);
  if (o.clock !== "wall") refuse(s, "designOptions.clock", `the redlock package times with Date.now() (the wall clock); got "${o.clock}"`);
  noteSweep(s, notApplied);
  if (s.workload.waitMs > 0) notApplied.push(`workload.waitMs (${s.workload.waitMs} ms): node-redlock v4 has no wait bound; it retries retryCount (${o.retryCount}) times`);
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

/** The real-mode plan of the scenario's design; InputError if real mode cannot run it as written. */
export function planDesign(s: Scenario, notApplied: string[]): RealDesignPlan {
  const entry = designByName(s.design);
  if (!entry || !(REAL_DESIGN_NAMES as readonly string[]).includes(s.design)) {
    refuse(s, "design", `design "${s.design}" has no real-mode mapping yet; real mode runs ${REAL_DESIGN_NAMES.join(", ")}`);
  }
  const options = entry.parseOptions(s.designOptions, s.file, "designOptions");
  switch (s.design) {
    case "redis-setnx":
      return setnxPlan(s, options as SingleNodeSetnxOptions, false, notApplied);
    case "redis-fenced":
      return setnxPlan(s, options as SingleNodeSetnxOptions, true, notApplied);
    default:
      return redlockPlan(s, options as RedlockDesignOptions, notApplied);
  }
}
