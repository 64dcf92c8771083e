import { describe, expect, it } from "vitest";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { main } from "../cli/main.js";
import { EXIT } from "../harness/exit-codes.js";
import { captureStdio } from "./helpers/capture-stdio.js";
import type { SweepSummary } from "../harness/sweep/summary.js";

const io = captureStdio();
const dir = join(import.meta.dirname, "fixtures", "summaries");
const shard1 = join(dir, "shard-1-of-2.json");
const shard2 = join(dir, "shard-2-of-2.json");
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

interface BadCase {
  what: string;
  set?: Record<string, unknown>;
  delete?: string[];
  raw?: string;
  exit: number;
  message: string;
}
const corpus = JSON.parse(readFileSync(join(dir, "bad.json"), "utf8")) as { cases: BadCase[] };

/** shard-1-of-2.json with the case's edits, as file text. */
function mutated(c: BadCase): string {
  if (c.raw !== undefined) return c.raw;
  const doc = JSON.parse(readFileSync(shard1, "utf8")) as Record<string, unknown>;
  const at = (path: string): [Record<string, unknown>, string] => {
    const keys = path.split(".");
    let o = doc;
    for (const k of keys.slice(0, -1)) o = o[k] as Record<string, unknown>;
    return [o, keys[keys.length - 1]!];
  };
  for (const [path, value] of Object.entries(c.set ?? {})) {
    const [o, k] = at(path);
    o[k] = value;
  }
  for (const path of c.delete ?? []) {
    const [o, k] = at(path);
    delete o[k];
  }
  return JSON.stringify(doc, null, 2);
}

describe("lockstep merge validates every field of a summary", () => {
  it("the good fixtures merge: 40 runs of naive-gc-pause, all unsafe, as expected", async () => {
    expect(await main(["merge", shard1, shard2, "--json"])).toBe(EXIT.safetyViolation);
    const merged = JSON.parse(io.out) as SweepSummary;
    expect(merged.runs).toBe(40);
    expect(merged.complete).toBe(true);
    expect(merged.failingSeeds).toEqual({ count: 40, first: [1, 2, 3, 4, 5], limit: 5 });
  });

  it("no false alarm: empty shards (more shards than seeds) and an already merged summary merge as sweeps write them", async () => {
    const root = mkdtempSync(join(tmpdir(), "lockstep-merge-"));
    const parts: string[] = [];
    for (const i of [1, 2, 3]) {
      const out = join(root, `s${i}`);
      await main(["sweep", "naive-gc-pause", "--seeds", "7..8", "--shard", `${i}/3`, "--workers", "1", "--reports", "0", "--out", out]);
      parts.push(join(out, "summary.json"));
    }
    expect((JSON.parse(readFileSync(parts[0]!, "utf8")) as SweepSummary).runs).toBe(0);
    io.err = "";
    const partial = join(root, "first-two.json");
    expect(await main(["merge", parts[0]!, parts[1]!, "--out", partial])).toBe(EXIT.safetyViolation);
    io.out = "";
    expect(await main(["merge", partial, parts[2]!, "--json"])).toBe(EXIT.safetyViolation);
    expect(io.err).toBe("");
    const merged = JSON.parse(io.out) as SweepSummary;
    expect(merged).toMatchObject({ runs: 2, complete: true, failingSeeds: { count: 2, first: [7, 8] } });
    expect(merged.shards.map((s) => `${s.index}/${s.count}`)).toEqual(["1/3", "2/3", "3/3"]);
  });

  it(`the corpus holds at least 100 bad summaries, each a different input`, () => {
    expect(corpus.cases.length).toBeGreaterThanOrEqual(100);
    expect(new Set(corpus.cases.map(mutated)).size).toBe(corpus.cases.length);
  });

  for (const c of corpus.cases) {
    it(`${c.what}: exit ${c.exit}, one line naming the field`, async () => {
      const file = join(mkdtempSync(join(tmpdir(), "lockstep-merge-")), "summary.json");
      writeFileSync(file, mutated(c));
      const out = join(file, "..", "merged.json");
      expect(await main(["merge", file, shard2, "--out", out])).toBe(c.exit);
      expect(io.err).toBe(`lockstep: ${file}: ${c.message}\n`);
      expect(io.err).not.toMatch(CONTROL);
      expect(io.out).toBe("");
      expect(existsSync(out)).toBe(false);
    });
  }
});

describe("lockstep merge of audit shards", () => {
  it("merges two audit shards into audit.json and audit.html, and refuses a sweep summary among them", async () => {
    const root = mkdtempSync(join(tmpdir(), "lockstep-merge-audit-"));
    const parts: string[] = [];
    for (const i of [1, 2]) {
      const out = join(root, `a${i}`);
      await main([
        "audit",
        "--design",
        "redis-setnx",
        "--attacks",
        "late-release,waiter-deadline,holder-pause-before-write",
        "--seeds",
        "2",
        "--shard",
        `${i}/2`,
        "--workers",
        "1",
        "--out",
        out,
      ]);
      parts.push(join(out, "audit.json"));
    }
    io.out = "";
    io.err = "";
    const merged = join(root, "audit.json");
    expect(await main(["merge", ...parts, "--out", merged])).toBe(EXIT.ok);
    expect(io.out).toMatch(/late-release .*\nwaiter-deadline .*\nholder-pause-before-write .*known limit of this backend/);
    expect((JSON.parse(readFileSync(merged, "utf8")) as { rows: Array<{ attack: string }> }).rows.map((r) => r.attack)).toEqual([
      "late-release",
      "waiter-deadline",
      "holder-pause-before-write",
    ]);
    expect(existsSync(join(root, "audit.html"))).toBe(true);
    io.out = "";
    expect(await main(["merge", parts[0]!, shard2])).toBe(EXIT.badInput);
    expect(io.err).toBe(`lockstep: ${shard2}: (file): expected an audit.json like the other files given (audits and sweep summaries do not merge)\n`);
  });
});
