import { describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadScenario, loadScenarioFile } from "../../scenarios/index.js";
import { runScenario } from "../../harness/runner.js";
import { runCheckers } from "../../checkers/run-all.js";
import { checkContextFor } from "../../harness/check-context.js";
import { buildRecord } from "../../harness/artifacts.js";
import { exploreCommand } from "../../cli/commands/explore.js";
import { shippedSignatures } from "../../harness/explore/runs.js";
import {
  explainCounterexample,
  failureSignature,
  faultFamilies,
  likeShipped,
  lockIdentity,
  type FailureSignature,
} from "../../reports/counterexample-story.js";
import type { Scenario } from "../../scenarios/schema.js";

const tmp = () => mkdtempSync(join(tmpdir(), "lockstep-cx-story-"));

function explain(s: Scenario) {
  const run = runScenario(s, s.seed);
  const verdicts = runCheckers(run.history, checkContextFor(s));
  const record = buildRecord(s, s.seed, run, verdicts);
  const failed = verdicts.results.filter((r) => r.valid === false).map((r) => r.checker);
  const like = likeShipped(failureSignature(s, failed), shippedSignatures(lockIdentity(s)));
  return { lines: explainCounterexample(record, run.history, like), run, verdicts, like };
}

describe("the similarity rule: same lock, same fault kinds, same failing checkers", () => {
  const sig = (lock: string, faults: string[], failed: string[]): FailureSignature => ({ lock, faults, failed });
  const cx = sig("redis-setnx", ["pause of a client"], ["lost-updates", "mutual-exclusion"]);

  it("is the same failure only when all three agree; related when two do; nothing for another lock", () => {
    const like = likeShipped(cx, [
      { name: "same", sig: sig("redis-setnx", ["pause of a client"], ["lost-updates", "mutual-exclusion"]) },
      { name: "other-checkers", sig: sig("redis-setnx", ["pause of a client"], ["mutual-exclusion"]) },
      { name: "other-faults", sig: sig("redis-setnx", ["crash"], ["lost-updates", "mutual-exclusion"]) },
      { name: "other-lock", sig: sig("redis-fenced", ["pause of a client"], ["lost-updates", "mutual-exclusion"]) },
      { name: "nothing-in-common", sig: sig("redis-setnx", ["crash"], ["fencing"]) },
      { name: "never-fails", sig: sig("redis-setnx", ["pause of a client"], []) },
    ]);
    expect(like.same).toEqual(["same"]);
    expect(like.related.map((r) => r.name)).toEqual(["other-checkers", "other-faults"]);
    expect(like.related[0]!.differs).toBe("same faults; it fails mutual-exclusion");
  });

  it("counts fault families: a restart is a crash, an isolation a partition; a client's pause is not a server's", () => {
    const clients = new Set(["c1"]);
    expect(
      faultFamilies(
        [
          { kind: "restart", atMs: 1, target: "redis-1" },
          { kind: "crash", atMs: 2, target: "redis-2" },
        ] as never,
        clients,
      ),
    ).toEqual(["crash"]);
    expect(faultFamilies([{ kind: "isolate", atMs: 1, target: "zk-1" }] as never, clients)).toEqual(["partition"]);
    expect(
      faultFamilies(
        [
          { kind: "pause", atMs: 1, target: "c1" },
          { kind: "pause", atMs: 1, target: "redis-1" },
        ] as never,
        clients,
      ),
    ).toEqual(["pause of a client", "pause of a server"]);
    expect(lockIdentity({ design: "redlock", designOptions: { variant: "seed-000" } })).toBe("redlock (variant seed-000)");
    expect(lockIdentity(loadScenario("library-redlock-v4-gc-pause"))).toBe("library (adapter redlock-v4)");
  });
});

describe("a counterexample's story, from its history", () => {
  it("naive-gc-pause told as if explore had found it: the pause, the step that failed at its time, and the shipped scenario it matches", () => {
    const s = { ...loadScenario("naive-gc-pause"), name: "explore-redis-setnx-seed9" };
    const { lines, run, verdicts } = explain(s);
    const pause = run.history.find((e) => e.process === "nemesis" && e.f === "pause")!;
    expect(lines[0]).toBe(`at ${pause.timeUs / 1000} ms, the fault: c1 is paused for 15 s — ${s.faults[0]!.note}`);
    // The first failure is mutual exclusion at the overlap's start, as the checker's witness says.
    const me = verdicts.results.find((r) => r.checker === "mutual-exclusion")!;
    const overlapUs = (me.witness as Array<{ overlapStartUs: number }>)[0]!.overlapStartUs;
    const failedLine = lines.find((l) => l.includes("the step that failed"))!;
    expect(failedLine).toContain("mutual-exclusion: c1 held order:123");
    expect(failedLine.startsWith(`at ${+(overlapUs / 1e6).toFixed(3)} s,`)).toBe(true);
    expect(lines.filter((l) => /then (lost-updates|linearizability|fencing) fails too/.test(l))).toHaveLength(3);
    expect(lines.at(-1)).toBe(
      "the same failure as shipped scenario naive-gc-pause (same lock, fault kinds and failing checkers): `lockstep run naive-gc-pause`",
    );
    expect(lines.join("\n")).not.toMatch(/[{}"]/); // words, not JSON
  });

  it("a failure no shipped scenario has is said to be new, not linked to the nearest name", () => {
    // redis-setnx losing its key on a restart (persistence none): no shipped redis-setnx scenario crashes.
    const base = loadScenario("naive-baseline");
    const s: Scenario = {
      ...base,
      name: "explore-redis-setnx-restart",
      durationMs: 3000,
      faults: [{ kind: "restart", atMs: 63, delayMs: 0, target: "redis-1" } as Scenario["faults"][number]],
    };
    const { lines, like } = explain(s);
    expect(like.same).toEqual([]);
    expect(lines).toContain("at 63 ms, the fault: redis-1 restarts");
    expect(lines.some((l) => l.includes("the server's side: redis-1 crashes with persistence none"))).toBe(true);
    expect(lines.at(-1)).toMatch(/^no shipped scenario fails the same way/);
    expect(lines.at(-1)).not.toContain("naive-gc-pause");
  });

  it("explore prints the story and writes it into the counterexample's scenario file, whose report tells it", () => {
    const r = exploreCommand({ design: "redlock", runs: "200", shrinkRuns: "400", seed: "1", faultsMax: "6", durationMs: "6000", out: tmp() });
    expect(r.story!.length).toBeGreaterThan(2);
    expect(r.text).toContain(`what happened, from the run's history:\n${r.story!.map((l) => `  ${l}`).join("\n")}\n`);
    expect(r.story!.some((l) => l.includes("the step that failed"))).toBe(true);
    const s = loadScenarioFile(r.file!);
    for (const l of r.story!) expect(s.story).toContain(`- ${l}`);
    const html = readFileSync(join(r.file!, "..", "run", "report.html"), "utf8");
    expect(html).toContain("What happened, from the run&#39;s history:\n- ");
    expect(html).toMatch(/\.story-text \{[^}]*white-space: pre-line/);
  });
});
