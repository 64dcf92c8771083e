import type { DesignEntry } from "../types.js";
import { Fields } from "../../sim/validate.js";
import { redisServer } from "../../services/redis/server.js";
import { directConnection } from "../../services/redis/client.js";
import { PERSISTENCE_MODES, type PersistenceMode } from "../../services/redis/aof.js";
import { RELEASE_RECIPES, SetnxLockClient, type ReleaseRecipe } from "./client.js";
import { picked, REDIS_NODE_OPTIONS, type DesignProfile } from "../profile.js";

/** Options of the single-node SET NX PX designs (`redis-setnx`, `redis-fenced`). */
export interface SetnxDesignOptions {
  requestTimeoutMs: number;
  retryDelayMs: number;
  sweepIntervalMs: number;
  persistence: PersistenceMode;
  fsyncIntervalMs: number;
}

export const SETNX_OPTION_FIELDS = ["requestTimeoutMs", "retryDelayMs", "sweepIntervalMs", "persistence", "fsyncIntervalMs"];

/** Parse the options every SET NX design shares; `extra` names fields a caller parses itself. */
export function parseSetnxFields(f: Fields): SetnxDesignOptions {
  return {
    requestTimeoutMs: f.number("requestTimeoutMs", { min: 1, dflt: 100 }),
    retryDelayMs: f.number("retryDelayMs", { min: 1, dflt: 10 }),
    sweepIntervalMs: f.number("sweepIntervalMs", { min: 1, dflt: 100 }),
    // Redis's default configuration has the AOF off.
    persistence: f.oneOf("persistence", PERSISTENCE_MODES, "none"),
    fsyncIntervalMs: f.number("fsyncIntervalMs", { min: 1, dflt: 1000 }),
  };
}

/** The single-node designs' own options, beside the shared ones (redis-failover does not take these). */
export interface SingleNodeSetnxOptions extends SetnxDesignOptions {
  release: ReleaseRecipe;
}

/**
 * Options of redis-setnx and redis-fenced. `release` is parsed here rather than in
 * parseSetnxFields so that redis-failover, which shares those fields, refuses it.
 */
export function parseSetnxOptions(raw: unknown, file: string, prefix: string): SingleNodeSetnxOptions {
  const f = Fields.root(file, raw ?? {}, prefix).only([...SETNX_OPTION_FIELDS, "release"]);
  return { ...parseSetnxFields(f), release: f.oneOf("release", RELEASE_RECIPES, "compare-and-delete") };
}

/** The one node of a single-node design. */
const NODE = "redis-1";

/** What a single-node SET NX PX design declares: one node holds the key, unreplicated. */
function setnxProfile(o: SingleNodeSetnxOptions, fencing: boolean): DesignProfile {
  return {
    servers: [NODE],
    lockServers: [NODE],
    keyNodes: [NODE],
    requestTimeoutMs: o.requestTimeoutMs,
    fencing,
    renewsItself: false,
    leader: { none: "its Redis nodes are independent" },
    failover: { none: "does not replicate asynchronously" },
    reference: { design: "redis-setnx", label: "redis-setnx (reference)" },
    onLibrary: { nodes: 1, options: (given) => picked(given, REDIS_NODE_OPTIONS) },
  };
}

/** A single-node SET NX PX design; `fencing` adds the INCR token (redis-fenced). */
export function setnxDesign(name: string, fencing: boolean, description: string): DesignEntry<SingleNodeSetnxOptions> {
  return {
    name,
    description,
    family: "redis-nodes",
    runs: "model",
    parseOptions: parseSetnxOptions,
    setup({ sim, processOptions }, o) {
      sim.addProcess(
        NODE,
        "server",
        processOptions(NODE),
        redisServer({ sweepIntervalMs: o.sweepIntervalMs, persistence: o.persistence, fsyncIntervalMs: o.fsyncIntervalMs }),
      );
      return {
        serverIds: [NODE],
        fencing,
        createClient: (ctx) =>
          new SetnxLockClient(ctx, { conn: directConnection(ctx, NODE, o.requestTimeoutMs), retryDelayMs: o.retryDelayMs, fencing, release: o.release }),
      };
    },
    profile: (o) => setnxProfile(o, fencing),
  };
}

export const redisSetnx = setnxDesign(
  "redis-setnx",
  false,
  "single Redis node, SET NX PX with a random token, compare-and-delete release (design brief 000, approach 1); no fencing token",
);
