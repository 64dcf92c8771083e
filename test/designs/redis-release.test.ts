import { describe, expect, it } from "vitest";
import { parseSetnxOptions } from "../../designs/redis-setnx/design.js";
import { parseFailoverOptions } from "../../designs/redis-failover/design.js";
import { loadScenario } from "../../scenarios/index.js";
import { outcomeOf, itSweepsToItsVerdict } from "../helpers/scenario-sweep.js";
import { inputErrorOf } from "../helpers/input-error.js";
import type { HistoryEvent } from "../../sim/history.js";
import { planDesign } from "../../real/designs.js";

/**
 * The release-recipe switch of redis-setnx / redis-fenced (`designOptions.release`):
 * compare-and-delete, plain DEL, and redis-lock 1.0.0's DEL guarded by the client's own
 * clock. Two scenario triples show that the recipe alone decides safety:
 *   late-*     c1's release is sent after its lease ran out (a storage timeout): only DEL is unsafe;
 *   delayed-*  c1's release is sent inside its lease but arrives after it: only compare-and-delete is safe.
 */
const SEEDS = 200;
const TRIPLES = {
  late: { "compare-and-delete": "safe", del: "unsafe", "del-if-unexpired": "safe" },
  delayed: { "compare-and-delete": "safe", del: "unsafe", "del-if-unexpired": "unsafe" },
} as const;
const fileSuffix = { "compare-and-delete": "cad", del: "del", "del-if-unexpired": "del-if-unexpired" } as const;
type Recipe = keyof typeof fileSuffix;
const nameOf = (family: keyof typeof TRIPLES, r: Recipe) => `redis-release-${family}-${fileSuffix[r]}`;

describe("designOptions.release: parsing", () => {
  it("defaults to compare-and-delete and accepts the three recipes", () => {
    expect(parseSetnxOptions({}, "s.json", "designOptions").release).toBe("compare-and-delete");
    for (const r of ["compare-and-delete", "del", "del-if-unexpired"] as const) {
      expect(parseSetnxOptions({ release: r }, "s.json", "designOptions").release).toBe(r);
    }
  });

  it("an unknown recipe is refused naming the field and the choices", () => {
    const e = inputErrorOf(() => parseSetnxOptions({ release: "unlink" }, "s.json", "designOptions"));
    expect(e.message).toBe('s.json: designOptions.release: expected one of "compare-and-delete", "del", "del-if-unexpired", got "unlink"');
    expect(inputErrorOf(() => parseSetnxOptions({ release: true }, "s.json", "designOptions")).field).toBe("designOptions.release");
  });

  it("real mode, whose client releases only by compare-and-delete, refuses another recipe by name", () => {
    const s = loadScenario(nameOf("late", "del"));
    const e = inputErrorOf(() => planDesign(s, []));
    expect(e.message).toBe(
      'scenarios/redis-release/redis-release-late-del.json: designOptions.release: real mode cannot run this: the real client releases by Lua compare-and-delete only; got "del"',
    );
    expect(planDesign(loadScenario(nameOf("late", "compare-and-delete")), []).name).toBe("redis-setnx");
  });

  it("redis-failover, which shares the SET NX fields, does not take it", () => {
    const e = inputErrorOf(() => parseFailoverOptions({ release: "del" }, "s.json", "designOptions"));
    expect(e.field).toBe("designOptions.release");
    expect(e.message).toMatch(/unknown field/);
  });
});

function releases(history: readonly HistoryEvent[], process: string) {
  return history.filter((e) => e.process === process && e.f === "release" && e.type !== "invoke");
}

describe("the scenarios' stories, on their own seed", () => {
  it("each scenario runs the recipe its name says, on redis-setnx", () => {
    for (const family of ["late", "delayed"] as const) {
      for (const r of Object.keys(fileSuffix) as Recipe[]) {
        const s = loadScenario(nameOf(family, r));
        expect(s.design).toBe("redis-setnx");
        expect(parseSetnxOptions(s.designOptions, s.file, "designOptions").release).toBe(r);
        expect(s.expect).toBe(TRIPLES[family][r]);
      }
    }
  });

  it("late: c1 releases after its lease; DEL removes c2's key, the other two remove nothing", () => {
    const runs = Object.fromEntries((Object.keys(fileSuffix) as Recipe[]).map((r) => [r, outcomeOf(loadScenario(nameOf("late", r)), 1)]));
    for (const r of Object.keys(fileSuffix) as Recipe[]) {
      const h = runs[r]!.history;
      // The cut made c1's read time out, so c1 never wrote; its release came after its lapse.
      expect(
        h.filter((e) => e.process === "c1" && e.f === "read" && e.type === "info"),
        r,
      ).toHaveLength(1);
      expect(
        h.filter((e) => e.process === "c1" && e.f === "write"),
        r,
      ).toHaveLength(0);
      const lapse = h.find((e) => e.process === "c1" && e.f === "lapse")!;
      const rel = releases(h, "c1")[0]!;
      expect(rel.timeUs, r).toBeGreaterThan(lapse.timeUs);
      expect(rel.type, r).toBe("ok");
      // DEL deleted a key (c2's); compare-and-delete found another value; the clock guard sent nothing.
      expect((rel.value as { released: boolean }).released, r).toBe(r === "del");
    }
    const del = runs.del!.verdicts.results.find((x) => x.checker === "mutual-exclusion")!;
    expect(del.valid).toBe(false);
    expect(del.summary).toMatch(/c2 held .* while c3 held it/);
  });

  it("delayed: c1 releases inside its lease; the release times out at the client and lands after the key expired", () => {
    for (const r of Object.keys(fileSuffix) as Recipe[]) {
      const h = outcomeOf(loadScenario(nameOf("delayed", r)), 1).history;
      const invoke = h.find((e) => e.process === "c1" && e.f === "release" && e.type === "invoke")!;
      const lapse = h.find((e) => e.process === "c1" && e.f === "lapse");
      // Sent with about 0.7 s of lease left, by c1's own clock: the clock guard passes.
      expect(invoke.timeUs, r).toBeLessThan(400_000);
      expect(lapse, r).toBeUndefined();
      expect(releases(h, "c1")[0]!.type, r).toBe("info");
      const c2ok = h.find((e) => e.process === "c2" && e.f === "acquire" && e.type === "ok")!;
      expect(c2ok.timeUs, r).toBeGreaterThan(1_000_000);
      const c3ok = h.find((e) => e.process === "c3" && e.f === "acquire" && e.type === "ok")!;
      const c2rel = h.find((e) => e.process === "c2" && e.f === "release" && e.type === "invoke")!;
      // Two holders exactly when the late command deletes without comparing.
      if (r === "compare-and-delete") expect(c3ok.timeUs, r).toBeGreaterThan(c2rel.timeUs);
      else expect(c3ok.timeUs, r).toBeLessThan(c2rel.timeUs);
    }
  });

  it("redis-fenced takes the switch too: a late DEL still gives two holders there", () => {
    const s = loadScenario(nameOf("late", "del"));
    const fenced = { ...s, design: "redis-fenced" };
    const r = outcomeOf(fenced, 1);
    expect(r.mutualExclusion).toBe(false);
    // Challenged as redis-release-late-cad is: the lock passes on by expiry while c2's late release is on its way.
    const cad = outcomeOf({ ...fenced, designOptions: { release: "compare-and-delete" }, challenge: { kind: "expiry-handover" } }, 1);
    expect(cad.mutualExclusion).toBe(true);
    expect(cad.outcome).toBe("safe");
  });
});

describe(`release recipes, ${SEEDS}-seed sweeps: each scenario's verdict on every seed`, () => {
  for (const family of ["late", "delayed"] as const) {
    for (const r of Object.keys(fileSuffix) as Recipe[]) itSweepsToItsVerdict(nameOf(family, r), SEEDS);
  }
});
