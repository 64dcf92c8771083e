/** The options of the SET NX PX designs, parsed with errors naming the field. */
import { Fields } from "../../sim/validate.js";
import { PERSISTENCE_MODES, type PersistenceMode } from "../../services/redis/aof.js";
import { RELEASE_RECIPES, type ReleaseRecipe } from "./client.js";

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
