/**
 * Run any Redis-family scenario on a real library: `lockstep run redlock-gc-pause@redlock-v4`
 * (or `--lock redlock-v4`). The scenario keeps its clients, workload, faults and `expect`
 * (the model's verdict, so a disagreement shows as "NOT as expected"); its design becomes
 * `library` with as many nodes as the original, under the same ids, and the settings
 * both sides share carried over, as the original's design declares them
 * (its profile's `onLibrary`: node persistence and expiry cycle, node-redlock's settings).
 */
import { InputError } from "../sim/errors.js";
import type { Scenario } from "./schema.js";
import { BUILTIN_ADAPTERS, adapterPath } from "../designs/library/adapter.js";
import { library } from "../designs/library/design.js";
import { DESIGNS, profileOf } from "../designs/index.js";

export function withLibrary(s: Scenario, adapter: string, field = "--lock"): Scenario {
  const standIn = profileOf(s.design, s.designOptions, s.file).onLibrary;
  if (!standIn) {
    const redis = DESIGNS.filter((d) => d.family === "redis-nodes").map((d) => d.name);
    throw new InputError("<arg>", field, `a scenario of a Redis design (${redis.join(", ")}); "${s.name}" runs design ${s.design}`);
  }
  const original = (s.designOptions ?? {}) as Record<string, unknown>;
  const nodes = standIn.nodes;
  const builtin = BUILTIN_ADAPTERS[adapter];
  if (builtin && builtin.nodesDefault === 1 && nodes > 1) {
    throw new InputError("<arg>", field, `a single-node scenario for ${adapter} (it talks to one Redis node); "${s.name}" runs ${nodes} nodes`);
  }
  // A path given on the command line is the user's, relative to where they stand.
  // A bare word is a built-in name or nothing: refuse it here, naming the flag, not the scenario file.
  // A path must name an existing module file (checked here, so the error names the flag).
  const adapterRef = builtin ? adapter : adapterPath(adapter, "<arg>", field);
  // The design says which of its options the library takes (its node settings; node-redlock's own).
  const designOptions: Record<string, unknown> = { adapter: adapterRef, nodes, ...standIn.options(original) };
  designOptions.adapter = adapterRef;
  return { ...s, name: `${s.name}@${adapter}`, title: `${s.title} [${adapter}]`, design: library.name, designOptions, lock: adapterRef };
}
