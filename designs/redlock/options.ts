import { Fields } from "../../sim/validate.js";
import { InputError } from "../../sim/errors.js";
import { PERSISTENCE_MODES, type PersistenceMode } from "../../services/redis/aof.js";
import { REDLOCK_VARIANTS, USING_CHECKS, type RedlockClientOptions } from "./client.js";
import { quorumOf } from "./validity.js";

/**
 * `redlock`: N independent Redis primaries redis-1..redis-N (Kleppmann's A..E for
 * N = 5), no replication between them, and the Redlock client (client.ts).
 *
 * Options and defaults, with where each comes from (docs/redlock.md has the table):
 *   nodes 5                — Redis docs: "N=5 ... a reasonable value"
 *   quorum N/2+1           — Redis docs, node-redlock `Math.floor(n/2)+1`
 *   variant "node-redlock" — node-redlock v4.2.0; "node-redlock-v5" (v5.0.0-beta.2: an
 *                            attempt resolves on a quorum, no clock check after it);
 *                            "seed-000" (the seed's loop: sequential, no drift)
 *   using false            — v5 only: hold every lock inside using() (auto-extension)
 *   automaticExtensionThresholdMs 500 — v5's automaticExtensionThreshold
 *   usingCheck "signal"    — what the using() routine checks before acting (client.ts)
 *   driftFactor 0.01       — node-redlock, redlock-rb ClockDriftFactor
 *   driftConstantMs 2      — node-redlock / redlock-rb: 1 ms expire precision + 1 ms
 *   retryCount 10          — node-redlock v4/v5 (redlock-rb: 3)
 *   retryDelayMs 200       — node-redlock (seed-000: 10, its sleep(0.01))
 *   retryJitterMs 100      — node-redlock (seed-000: 0)
 *   requestTimeoutMs 50    — Redis docs: per-node timeout 5–50 ms for a 10 s TTL (node-redlock
 *                            has none; an ioredis commandTimeout plays it, docs/libraries.md)
 *   clock "wall"           — node-redlock measures with Date.now()
 *   persistence "none"     — Redis's default config has the AOF off
 *   fsyncIntervalMs 1000   — appendfsync everysec
 *   sweepIntervalMs 100    — Redis hz 10
 *
 * The client's options (client.ts) with `nodes` as a count, plus the nodes' own settings.
 */
export type RedlockDesignOptions = Omit<RedlockClientOptions, "nodes"> & {
  nodes: number;
  persistence: PersistenceMode;
  fsyncIntervalMs: number;
  sweepIntervalMs: number;
};

export const redlockNodeId = (i: number): string => `redis-${i}`;

const FIELDS = [
  "nodes",
  "quorum",
  "variant",
  "driftFactor",
  "driftConstantMs",
  "retryCount",
  "retryDelayMs",
  "retryJitterMs",
  "requestTimeoutMs",
  "clock",
  "using",
  "automaticExtensionThresholdMs",
  "usingCheck",
  "persistence",
  "fsyncIntervalMs",
  "sweepIntervalMs",
];

export function parseRedlockOptions(raw: unknown, file: string, prefix: string): RedlockDesignOptions {
  const f = Fields.root(file, raw ?? {}, prefix).only(FIELDS);
  const nodes = f.number("nodes", { integer: true, min: 1, max: 15, dflt: 5 });
  const quorum = f.number("quorum", { integer: true, min: 1, dflt: quorumOf(nodes) });
  if (quorum > nodes) throw new InputError(file, f.field("quorum"), `expected at most the number of nodes (${nodes}), got ${quorum}`);
  const variant = f.oneOf("variant", REDLOCK_VARIANTS, "node-redlock");
  const seed = variant === "seed-000";
  const using = f.boolean("using", false);
  if (using && variant !== "node-redlock-v5")
    f.fail("using", `expected false unless variant is "node-redlock-v5" (using() auto-extension is v5's; variant is "${variant}")`);
  for (const k of ["automaticExtensionThresholdMs", "usingCheck"]) {
    if (f.has(k) && !using) f.fail(k, 'expected only with "using": true');
  }
  return {
    nodes,
    quorum,
    variant,
    driftFactor: f.number("driftFactor", { min: 0, max: 0.5, dflt: seed ? 0 : 0.01 }),
    driftConstantMs: f.number("driftConstantMs", { min: 0, dflt: seed ? 0 : 2 }),
    retryCount: f.number("retryCount", { integer: true, min: 0, dflt: 10 }),
    retryDelayMs: f.number("retryDelayMs", { min: 0, dflt: seed ? 10 : 200 }),
    retryJitterMs: f.number("retryJitterMs", { min: 0, dflt: seed ? 0 : 100 }),
    requestTimeoutMs: f.number("requestTimeoutMs", { min: 1, dflt: 50 }),
    clock: f.oneOf("clock", ["wall", "monotonic"] as const, "wall"),
    using,
    automaticExtensionThresholdMs: f.number("automaticExtensionThresholdMs", { min: 0, dflt: 500 }),
    usingCheck: f.oneOf("usingCheck", USING_CHECKS, "signal"),
    persistence: f.oneOf("persistence", PERSISTENCE_MODES, "none"),
    fsyncIntervalMs: f.number("fsyncIntervalMs", { min: 1, dflt: 1000 }),
    sweepIntervalMs: f.number("sweepIntervalMs", { min: 1, dflt: 100 }),
  };
}
