import { describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { main } from "../../cli/main.js";
import { EXIT } from "../../harness/exit-codes.js";
import { captureStdio } from "../helpers/capture-stdio.js";
import type { CompareMatrix } from "../../reports/types.js";

const io = captureStdio();
const out = () => mkdtempSync(join(tmpdir(), "cmp-attacks-"));

describe("compare --attacks", () => {
  it("compiles each attack for each design: the same attack on every column, refused cells skipped with the reason", async () => {
    const dir = out();
    const code = await main([
      "compare",
      "--designs",
      "redis-setnx,raft-zk",
      "--attacks",
      "crash-restart-no-fsync,lost-acquire-reply",
      "--seeds",
      "2",
      "--workers",
      "1",
      "--out",
      dir,
    ]);
    expect(code).toBe(EXIT.ok);
    const m = JSON.parse(readFileSync(join(dir, "matrix.json"), "utf8")) as CompareMatrix;
    expect(m.scenarios).toEqual(["crash-restart-no-fsync", "lost-acquire-reply"]);
    const cell = (d: string, a: string) => m.cells.find((c) => c.design === d && c.scenario === a);
    expect(cell("redis-setnx", "crash-restart-no-fsync")?.violations).toBe(2);
    expect(cell("redis-setnx", "lost-acquire-reply")?.violations).toBe(0);
    expect(cell("raft-zk", "lost-acquire-reply")?.runs).toBe(2);
    expect(cell("raft-zk", "crash-restart-no-fsync")).toBeUndefined();
    expect(m.skipped).toEqual([{ design: "raft-zk", scenario: "crash-restart-no-fsync", reason: expect.stringMatching(/^refused: .*consensus/) }]);
    // Each cell replays from its own compiled scenario file.
    expect(io.out).toMatch(/npx lockstep run .*cells\/redis-setnx\/crash-restart-no-fsync\/attack-crash-restart-no-fsync\.json --seed 1/);
  });

  it("refuses an unknown attack with the catalogue's names, and --attacks with --scenarios", async () => {
    expect(await main(["compare", "--designs", "redis-setnx", "--attacks", "holder-pause", "--seeds", "1", "--out", out()])).toBe(EXIT.badInput);
    expect(io.err).toMatch(/--attacks: .*unknown attack "holder-pause"; did you mean holder-pause-before-write/);
    expect(await main(["compare", "--designs", "redis-setnx", "--attacks", "--scenarios", "naive-baseline", "--seeds", "1", "--out", out()])).toBe(
      EXIT.badInput,
    );
    expect(io.err).toMatch(/either --attacks or --scenarios/);
  });
});

describe("compare --lock", () => {
  it("adds your adapter as a column, in a flat folder; a missing file names the flag", async () => {
    const dir = out();
    const code = await main([
      "compare",
      "--lock",
      "examples/my-lock/adapter.ts",
      "--scenarios",
      "naive-gc-pause",
      "--seeds",
      "1",
      "--workers",
      "1",
      "--out",
      dir,
    ]);
    expect(code).toBe(EXIT.ok);
    const m = JSON.parse(readFileSync(join(dir, "matrix.json"), "utf8")) as CompareMatrix;
    expect(m.designs).toEqual(["library:examples/my-lock/adapter.ts"]);
    expect(m.cells).toHaveLength(1);
    expect(readFileSync(join(dir, "cells", "library-my-lock-adapter", "naive-gc-pause", "summary.json"), "utf8")).toContain('"runs": 1');
    expect(await main(["compare", "--lock", "no/such/adapter.ts", "--scenarios", "naive-gc-pause", "--seeds", "1", "--out", out()])).toBe(EXIT.badInput);
    expect(io.err).toMatch(/--lock: .*no file at/);
  });
});
