/**
 * Run any Redis-family scenario on a real library: `lockstep run redlock-gc-pause@redlock-v4`
 * (or `--lock redlock-v4`). The scenario keeps its clients, workload, faults and `expect`
 * (the model's verdict, so a disagreement shows as "NOT as expected"); its design becomes
 * `library` with as many nodes as the original, under the same ids, and the settings
 * both sides share carried over: node persistence and expiry cycle, and node-redlock's
 * driftFactor/retryCount/retryDelay/retryJitter where the scenario set them.
 */
import { InputError } from "../sim/errors.js";
import type { Scenario } from "./schema.js";
import { BUILTIN_ADAPTERS, adapterPath } from "../designs/library/adapter.js";

/** Designs whose scenarios a Redis lock library can run, with their node count. */
const REDIS_DESIGNS: Record<string, (o: Record<string, unknown>) => number> = {
  redlock: (o) => (typeof o.nodes === "number" ? o.nodes : 5),
  "redis-setnx": () => 1,
  "redis-fenced": () => 1,
  library: (o) => (typeof o.nodes === "number" ? o.nodes : 1),
};

/** The redlock model's default requestTimeoutMs (designs/redlock/design.ts). */
const REDLOCK_MODEL_REQUEST_TIMEOUT_MS = 50;

const SHARED_NODE_OPTIONS = ["persistence", "fsyncIntervalMs", "sweepIntervalMs"];
const REDLOCK_OPTIONS: Record<string, string> = {
  driftFactor: "driftFactor",
  retryCount: "retryCount",
  retryDelayMs: "retryDelay",
  retryJitterMs: "retryJitter",
};

export function withLibrary(s: Scenario, adapter: string, field = "--lock"): Scenario {
  const nodesOf = REDIS_DESIGNS[s.design];
  if (!nodesOf) {
    throw new InputError("<arg>", field, `a scenario of a Redis design (${Object.keys(REDIS_DESIGNS).join(", ")}); "${s.name}" runs design ${s.design}`);
  }
  const original = (s.designOptions ?? {}) as Record<string, unknown>;
  const nodes = nodesOf(original);
  const builtin = BUILTIN_ADAPTERS[adapter];
  if (builtin && builtin.nodesDefault === 1 && nodes > 1) {
    throw new InputError("<arg>", field, `a single-node scenario for ${adapter} (it talks to one Redis node); "${s.name}" runs ${nodes} nodes`);
  }
  // A path given on the command line is the user's, relative to where they stand.
  // A bare word is a built-in name or nothing: refuse it here, naming the flag, not the scenario file.
  // A path must name an existing module file (checked here, so the error names the flag).
  const adapterRef = builtin ? adapter : adapterPath(adapter, "<arg>", field);
  const designOptions: Record<string, unknown> = { adapter: adapterRef, nodes };
  for (const k of SHARED_NODE_OPTIONS) if (k in original) designOptions[k] = original[k];
  if (s.design === "redlock") {
    const redlock: Record<string, unknown> = {};
    for (const [ours, theirs] of Object.entries(REDLOCK_OPTIONS)) if (ours in original) redlock[theirs] = original[ours];
    // The model's per-node timeout (the Redis docs' 5-50 ms) is not node-redlock's: the
    // library waits for every node. The same behaviour comes from the client's
    // commandTimeout, so that is what the model's requestTimeoutMs becomes.
    const ioredis = { commandTimeout: typeof original.requestTimeoutMs === "number" ? original.requestTimeoutMs : REDLOCK_MODEL_REQUEST_TIMEOUT_MS };
    designOptions.options = { redlock, ioredis };
  }
  if (s.design === "library") Object.assign(designOptions, { ...original, adapter: adapterRef });
  return { ...s, name: `${s.name}@${adapter}`, title: `${s.title} [${adapter}]`, design: "library", designOptions, lock: adapterRef };
}
