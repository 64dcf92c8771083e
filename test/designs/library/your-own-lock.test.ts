/**
 * The example in examples/my-lock (a user's own TypeScript lock, ES module syntax, and
 * its adapter), run through the public API as a user's own test would: safe on the
 * baseline, unsafe under the GC pause, the same history for the same seed.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { check } from "../../../api/index.js";
import { packageRoot } from "../../../sim/paths.js";

const adapter = join(packageRoot(), "examples", "my-lock", "adapter.ts");

describe("examples/my-lock through the public API", () => {
  it("is safe with no faults and loses mutual exclusion to a GC pause; replay line names --lock", () => {
    const ok = check("naive-baseline", 1, { lock: adapter });
    expect(ok.outcome).toBe("safe");
    expect(ok.history.filter((e) => e.type === "ok" && e.f === "acquire").length).toBeGreaterThan(100);
    const bad = check("naive-gc-pause", 1, { lock: adapter });
    expect(bad.outcome).toBe("unsafe");
    expect(bad.verdicts.results.find((r) => r.checker === "mutual-exclusion")?.valid).toBe(false);
    expect(bad.replay).toBe(`npx lockstep run naive-gc-pause@${adapter} --seed 1`);
  });

  it("is deterministic: same seed, same history; another seed, another", () => {
    const a = JSON.stringify(check("naive-baseline", 4, { lock: adapter }).history);
    expect(JSON.stringify(check("naive-baseline", 4, { lock: adapter }).history)).toBe(a);
    expect(JSON.stringify(check("naive-baseline", 5, { lock: adapter }).history)).not.toBe(a);
  });
});
