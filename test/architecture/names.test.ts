import { fileURLToPath } from "node:url";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { comparedNames } from "./names.js";
import { LAYERS, sourcesIn } from "./imports.js";
import { DESIGNS } from "../../designs/index.js";
import { FAULT_KINDS } from "../../faults/index.js";

const root = fileURLToPath(new URL("../..", import.meta.url));

/**
 * Words that are a design's or a fault kind's name and also another vocabulary's own
 * (file, word, why): compared there, they mean the other thing.
 */
const ELSEWHERE: ReadonlyArray<[string, string, string]> = [
  ["checkers/challenge.ts", "crash", "a hold's end (Hold.endedBy), not a fault kind"],
  ["services/raft/core/step.ts", "restart", "a Raft core input (RaftInput.type), not a fault kind"],
];

/** Every comparison of a name in the source tree outside the folder that owns it (tests and scenario data are not scanned). */
function comparisons(): string[] {
  const designs = new Set(DESIGNS.map((d) => d.name));
  const kinds = new Set<string>(FAULT_KINDS);
  const out: string[] = [];
  for (const file of sourcesIn(root, [...LAYERS, "bench"])) {
    const text = readFileSync(join(root, file), "utf8");
    if (!file.startsWith("designs/")) out.push(...comparedNames(file, text, designs).map((x) => `design ${x}`));
    if (!file.startsWith("faults/")) out.push(...comparedNames(file, text, kinds).map((x) => `fault kind ${x}`));
  }
  return out;
}

const excused = (found: string): boolean => ELSEWHERE.some(([file, word]) => found.includes(` ${file}:`) && found.includes(`"${word}"`));

describe("names: a design and a fault kind declare their facts; no layer above tests their names", () => {
  const found = comparisons();

  it("no design name is compared outside designs/, no fault kind's outside faults/", () => {
    expect(found.filter((f) => !excused(f))).toEqual([]);
  });

  it("each word excused as another vocabulary's is still there (a stale excuse fails)", () => {
    for (const [file, word] of ELSEWHERE)
      expect(
        found.some((f) => f.includes(` ${file}:`) && f.includes(`"${word}"`)),
        `${file} ${word}`,
      ).toBe(true);
  });

  it("the check can fail: planted comparisons, case labels, lookup lists and tables are found", () => {
    const names = new Set(["redis-setnx", "pause", "library"]);
    const planted = [
      'if (lock.design === "redis-setnx") x();',
      'switch (f.kind) { case "pause": break; }',
      'const NODE_ONLY = new Set(["library"]);',
      'if (["pause", "crash"].includes(k)) y();',
      'const T: Record<string, number> = { "redis-setnx": 100, pause: 1 };',
      'const ok = "pause" !== e.f;',
    ].join("\n");
    const hits = comparedNames("planted.ts", planted, names);
    expect(hits).toEqual([
      'planted.ts:1: "redis-setnx" compared',
      'planted.ts:2: "pause" as a case label',
      'planted.ts:3: "library" in a list looked up',
      'planted.ts:4: "pause" in a list looked up',
      'planted.ts:5: "redis-setnx" as a table key',
      'planted.ts:5: "pause" as a table key',
      'planted.ts:6: "pause" compared',
    ]);
    // Building a value that carries a name, and comments, are no comparison.
    expect(comparedNames("ok.ts", '// if (k === "pause")\nconst step = { kind: "pause", design: "library" };\nf("redis-setnx");', names)).toEqual([]);
  });
});
