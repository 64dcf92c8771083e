import type { DesignEntry } from "../types.js";
import { Fields } from "../../sim/validate.js";
import { InputError } from "../../sim/errors.js";
import { redisServer } from "../../services/redis/server.js";
import { PERSISTENCE_MODES, type PersistenceMode } from "../../services/redis/aof.js";
import { REDLOCK_VARIANTS, RedlockClient, USING_CHECKS, type RedlockClientOptions } from "./client.js";
import { quorumOf } from "./validity.js";
import { picked, REDIS_NODE_OPTIONS, type DesignProfile } from "../profile.js";

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

/** The model's options node-redlock takes too, by node-redlock's names. */
const NODE_REDLOCK_OPTIONS: Record<string, string> = {
  driftFactor: "driftFactor",
  retryCount: "retryCount",
  retryDelayMs: "retryDelay",
  retryJitterMs: "retryJitter",
};

/**
 * node-redlock's settings from the model's, where the scenario sets them. The model's
 * per-node timeout (the Redis docs' 5-50 ms) is not node-redlock's: the library waits for
 * every node. The same behaviour comes from the client's commandTimeout, so that is what
 * the model's requestTimeoutMs becomes.
 */
function onNodeRedlock(given: Record<string, unknown>, o: RedlockDesignOptions): Record<string, unknown> {
  const redlock: Record<string, unknown> = {};
  for (const [ours, theirs] of Object.entries(NODE_REDLOCK_OPTIONS)) if (ours in given) redlock[theirs] = given[ours];
  return { ...picked(given, REDIS_NODE_OPTIONS), options: { redlock, ioredis: { commandTimeout: o.requestTimeoutMs } } };
}

/** N independent nodes, each its own copy of the key; node-redlock v5's using() renews. */
function redlockProfile(o: RedlockDesignOptions): DesignProfile {
  const nodes = Array.from({ length: o.nodes }, (_, i) => redlockNodeId(i + 1));
  return {
    servers: nodes,
    lockServers: nodes,
    keyNodes: nodes,
    requestTimeoutMs: o.requestTimeoutMs,
    fencing: false,
    renewsItself: o.using,
    leader: { none: "its Redis nodes are independent" },
    failover: { none: "does not replicate asynchronously" },
    reference: { design: "redlock", designOptions: { nodes: o.nodes }, label: "redlock (reference)" },
    onLibrary: { nodes: o.nodes, options: (given) => onNodeRedlock(given, o) },
  };
}

export const redlock: DesignEntry<RedlockDesignOptions> = {
  name: "redlock",
  description:
    'Redlock over N independent Redis nodes (default 5), as node-redlock builds it: same token everywhere, quorum N/2+1, validity = TTL − elapsed − drift; designOptions.variant "seed-000" for design brief 000\'s simpler loop',
  family: "redis-nodes",
  runs: "model",
  parseOptions: parseRedlockOptions,
  profile: redlockProfile,
  checkWorkload(o, workload, file) {
    // using() throws this itself before acquiring: "A lock `duration` must be at least
    // 100ms greater than the `automaticExtensionThreshold` setting."
    if (o.using && o.automaticExtensionThresholdMs > workload.ttlMs - 100) {
      throw new InputError(
        file,
        "designOptions.automaticExtensionThresholdMs",
        `expected at most workload.ttlMs − 100 = ${workload.ttlMs - 100} (node-redlock v5's using() refuses a duration less than 100 ms above the threshold), got ${o.automaticExtensionThresholdMs}`,
      );
    }
  },
  setup({ sim, processOptions }, o) {
    const { nodes: count, persistence, fsyncIntervalMs, sweepIntervalMs, ...clientOptions } = o;
    const nodes = Array.from({ length: count }, (_, i) => redlockNodeId(i + 1));
    for (const n of nodes) {
      sim.addProcess(n, "server", processOptions(n), redisServer({ sweepIntervalMs, persistence, fsyncIntervalMs }));
    }
    return {
      serverIds: nodes,
      fencing: false,
      createClient: (ctx) => new RedlockClient(ctx, { ...clientOptions, nodes }),
    };
  },
};
