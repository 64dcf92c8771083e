import { describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { loadScenario } from "../../scenarios/index.js";
import { runScenario } from "../../harness/runner.js";
import { runCheckers } from "../../checkers/run-all.js";
import { checkContextFor } from "../../harness/check-context.js";
import { historyToJsonl } from "../../sim/history.js";

function run(name: string, seed?: number) {
  const s = loadScenario(name);
  const r = runScenario(s, seed ?? s.seed);
  return { s, r, v: runCheckers(r.history, checkContextFor(s)) };
}

const byName = (v: ReturnType<typeof run>["v"], checker: string) => v.results.find((x) => x.checker === checker)!;

describe("naive SET NX PX scenarios", () => {
  it("naive-gc-pause: a double holder and a lost update", () => {
    const { v } = run("naive-gc-pause");
    expect(v.outcome).toBe("unsafe");
    expect(byName(v, "mutual-exclusion").valid).toBe(false);
    expect(byName(v, "lost-updates").valid).toBe(false);
    expect(byName(v, "lost-updates").stats).toMatchObject({ lostUpdates: 1 });
  });

  it("naive-gc-pause-fenced: two holders, but the stale write is rejected and nothing is lost", () => {
    const { v, r } = run("naive-gc-pause-fenced");
    expect(v.outcome).toBe("unsafe-but-fenced");
    expect(byName(v, "mutual-exclusion").valid).toBe(false);
    expect(byName(v, "lost-updates").valid).toBe(true);
    const rejected = r.history.filter((e) => e.f === "storage-write" && e.type === "fail");
    expect(rejected).toHaveLength(1);
    expect(rejected[0]!.value).toMatchObject({ client: "c1", token: 1, maxTokenBefore: 2, reason: "stale-token" });
  });

  it("naive-baseline is safe over 40 seeds, and the seeds give different histories", () => {
    const digests = new Set<string>();
    for (let seed = 1; seed <= 40; seed++) {
      const { v, r } = run("naive-baseline", seed);
      expect(v.outcome, `naive-baseline seed ${seed}: npx lockstep run naive-baseline --seed ${seed}`).toBe("safe");
      expect(byName(v, "mutual-exclusion").stats!.holds).toBeGreaterThan(100);
      digests.add(createHash("sha256").update(historyToJsonl(r.history)).digest("hex"));
    }
    expect(digests.size).toBe(40);
  });

  it("naive-gc-pause is unsafe on every one of 40 seeds", () => {
    for (let seed = 1; seed <= 40; seed++) {
      expect(run("naive-gc-pause", seed).v.outcome, `seed ${seed}`).toBe("unsafe");
    }
  });
});

describe("determinism", () => {
  const digest = (name: string, seed: number) =>
    createHash("sha256")
      .update(historyToJsonl(run(name, seed).r.history))
      .digest("hex");

  it("the same scenario and seed give a byte-identical history, twice in one process", () => {
    expect(digest("naive-baseline", 7)).toBe(digest("naive-baseline", 7));
    expect(digest("naive-gc-pause", 3)).toBe(digest("naive-gc-pause", 3));
  });

  it("and in another process", () => {
    const script = `
      import { loadScenario } from "./scenarios/index.ts";
      import { runScenario } from "./harness/runner.ts";
      import { historyToJsonl } from "./sim/history.ts";
      import { createHash } from "node:crypto";
      const s = loadScenario("naive-baseline");
      process.stdout.write(createHash("sha256").update(historyToJsonl(runScenario(s, 7).history)).digest("hex"));
    `;
    const out = execFileSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { encoding: "utf8" });
    expect(out).toBe(digest("naive-baseline", 7));
  });
});
