import { describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { main } from "../cli/main.js";
import { EXIT } from "../harness/exit-codes.js";
import { printable } from "../terminal/printable.js";
import { captureStdio } from "./helpers/capture-stdio.js";

const io = captureStdio();
const tmp = () => mkdtempSync(join(tmpdir(), "lockstep-hostile-"));
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

describe("messages from data print as one plain line", () => {
  it("printable escapes newlines, NULs and terminal escapes, and leaves plain text alone", () => {
    expect(printable("a\nb\u0000c\u001b]0;owned\u0007d\u009b2J")).toBe("a\\nb\\x00c\\x1b]0;owned\\x07d\\x9b2J");
    expect(printable("order:123 — ok")).toBe("order:123 — ok");
  });

  it("a scenario file of terminal escapes and NULs that is not JSON: exit 2, one line, no raw control characters", async () => {
    const file = join(tmp(), "evil.json");
    writeFileSync(file, '{"name": "\u001b[2J\u001b]0;pwned\u0007\u0000x');
    expect(await main(["run", file])).toBe(EXIT.badInput);
    expect(io.err).toMatch(/evil\.json: \(file\): expected valid JSON/);
    expect(io.err.trimEnd().split("\n")).toHaveLength(1);
    expect(io.err).not.toMatch(CONTROL);
  });

  it("a scenario name with escapes is echoed escaped", async () => {
    expect(await main(["run", "nope\u001b[2J"])).toBe(EXIT.badInput);
    expect(io.err).toContain("nope\\x1b[2J");
    expect(io.err).not.toMatch(CONTROL);
  });

  it("a scenario nested 100,000 deep is refused by depth, not by a stack overflow", async () => {
    const file = join(tmp(), "deep.json");
    writeFileSync(file, "[".repeat(100_000) + "]".repeat(100_000));
    expect(await main(["run", file])).toBe(EXIT.badInput);
    expect(io.err).toMatch(/deep\.json: \(file\): expected JSON nested at most 64 deep/);
  });
  // Each of these reached the event queue as time Infinity (exit 1, a stack trace).
  const base = { name: "huge", design: "redis-setnx", durationMs: 1000, clients: 1, workload: { locks: ["L"], ttlMs: 100 } };
  const huge: [string, Record<string, unknown>, RegExp][] = [
    [
      "a fault's atMs",
      { ...base, faults: [{ kind: "pause", target: "c1", atMs: 1e308, durationMs: 10 }] },
      /faults\[0\]\.atMs: expected a number >= 0, at most 1000000000000 in size/,
    ],
    [
      "a fault's durationMs",
      { ...base, faults: [{ kind: "pause", target: "c1", atMs: 1, durationMs: 1e308 }] },
      /faults\[0\]\.durationMs: expected a number >= 0, at most/,
    ],
    ["workload.ttlMs", { ...base, workload: { locks: ["L"], ttlMs: 1e308 } }, /workload\.ttlMs: expected an integer >= 1, at most/],
    ["workload.thinkMs", { ...base, workload: { locks: ["L"], ttlMs: 100, thinkMs: 1e308 } }, /workload\.thinkMs: expected a number >= 0, at most/],
    ["a clock's offsetMs", { ...base, clocks: { c1: { offsetMs: -1e308 } } }, /clocks\.c1\.offsetMs: expected a number, at most/],
  ];
  for (const [what, scenario, message] of huge) {
    it(`${what} of 1e308 is refused by the validator: exit 2, one line naming the field`, async () => {
      const file = join(tmp(), "huge.json");
      writeFileSync(file, JSON.stringify(scenario));
      expect(await main(["run", file, "--out", join(tmp(), "out")])).toBe(EXIT.badInput);
      expect(io.err).toMatch(message);
      expect(io.err.trimEnd().split("\n")).toHaveLength(1);
      expect(io.err).not.toMatch(/\n\s+at /);
    });
  }

  it("lock names, client ids and paths with terminal escapes print escaped, in the summary and in --json (C1 controls too)", async () => {
    const dir = tmp();
    const file = join(dir, "escapes.json");
    const lock = "L\u001b]0;owned\u0007\u009b2J";
    writeFileSync(
      file,
      JSON.stringify({ ...base, name: "escapes", story: "s", expect: "safe", clients: [{ id: "c\u001b[31m1" }], workload: { locks: [lock], ttlMs: 100 } }),
    );
    // One client, so the run is not challenged (exit 8) and its NOT CHALLENGED line names the lock;
    // its --out path (from the command line) carries the escapes too.
    expect(await main(["run", file, "--out", join(dir, "out\u001b[2J\u009b")])).toBe(EXIT.notChallenged);
    expect(io.out).toContain("NOT CHALLENGED: only c\\x1b[31m1 was ever granted L\\x1b]0;owned");
    expect(io.out).toContain("out\\x1b[2J\\x9b/history.jsonl");
    expect(io.out).not.toMatch(CONTROL);
    io.out = "";
    expect(await main(["run", file, "--out", join(dir, "out"), "--json"])).toBe(EXIT.notChallenged);
    expect(io.out).not.toMatch(CONTROL);
    const record = JSON.parse(io.out) as { scenario: { workload: { locks: string[] } } };
    expect(record.scenario.workload.locks).toEqual([lock]);
    // An unsafe run names the lock in its FAIL lines.
    const gc = JSON.parse(readFileSync(join(import.meta.dirname, "..", "scenarios", "naive-gc-pause.json"), "utf8"));
    writeFileSync(file, JSON.stringify({ ...gc, name: "escapes", workload: { ...gc.workload, locks: [lock] } }));
    io.out = "";
    expect(await main(["run", file, "--out", join(dir, "gc")])).toBe(EXIT.safetyViolation);
    expect(io.out).toContain('lock "L\\x1b]0;owned\\x07\\x9b2J" is not linearizable');
    expect(io.out).not.toMatch(CONTROL);
  });

  it("a summary whose scenario name and replay line hold escapes merges with them printed escaped", async () => {
    const dir = tmp();
    const summary = JSON.parse(readFileSync(join(import.meta.dirname, "fixtures", "summaries", "shard-1-of-2.json"), "utf8"));
    summary.scenario.name = "x\u001b[2J\u009b";
    summary.replay = "npx lockstep run x\u001b]0;t\u0007";
    summary.shards = [{ index: 1, count: 1, from: 1, to: 40 }];
    summary.seeds = { from: 1, to: 40 };
    writeFileSync(join(dir, "s.json"), JSON.stringify(summary));
    // 20 runs over 1..40 in one shard: refused (runs must be the shard's 40), naming the field.
    expect(await main(["merge", join(dir, "s.json")])).toBe(EXIT.badInput);
    expect(io.err).toBe(`lockstep: ${join(dir, "s.json")}: runs: expected 40 (the seeds of its shards), got 20\n`);
    summary.seeds = { from: 1, to: 20 };
    summary.shards = [{ index: 1, count: 1, from: 1, to: 20 }];
    summary.complete = true;
    writeFileSync(join(dir, "s.json"), JSON.stringify(summary));
    io.err = "";
    expect(await main(["merge", join(dir, "s.json")])).toBe(EXIT.safetyViolation);
    expect(io.err).toBe("");
    expect(io.out).toContain("lockstep sweep x\\x1b[2J\\x9b — design redis-setnx");
    expect(io.out).toContain("replay: npx lockstep run x\\x1b]0;t\\x07");
    expect(io.out).not.toMatch(CONTROL);
  });
});
