import { describe, expect, it } from "vitest";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { main } from "../../cli/main.js";
import { EXIT } from "../../harness/exit-codes.js";
import { captureStdio } from "../helpers/capture-stdio.js";

const io = captureStdio();
const args = (scenario: string) => [
  "compare",
  "--designs",
  "redis-setnx",
  "--scenarios",
  scenario,
  "--seeds",
  "1",
  "--workers",
  "1",
  "--out",
  mkdtempSync(join(tmpdir(), "cmp-exit-")),
];

describe("compare --fail-on-violation", () => {
  it("exits 3 when a cell had a safety violation, 0 without the flag", async () => {
    expect(await main([...args("naive-gc-pause"), "--fail-on-violation"])).toBe(EXIT.safetyViolation);
    expect(io.out).toContain("safety violated");
    expect(await main(args("naive-gc-pause"))).toBe(EXIT.ok);
  });

  it("exits 0 with the flag when no cell had a violation", async () => {
    expect(await main([...args("naive-baseline"), "--fail-on-violation"])).toBe(EXIT.ok);
    expect(io.out).toContain("naive-baseline  0/1 0%");
    expect(io.out).not.toContain("safety violated");
  });
});

describe("compare's skipped cells", () => {
  it("a library column skips a non-Redis scenario, saying why, instead of stopping the compare", async () => {
    const out = mkdtempSync(join(tmpdir(), "cmp-skip-"));
    expect(
      await main(["compare", "--designs", "raft-zk,library:redis-lock", "--scenarios", "raft-zk-baseline", "--seeds", "1", "--workers", "1", "--out", out]),
    ).toBe(EXIT.ok);
    expect(io.out).toContain("skipped library:redis-lock × raft-zk-baseline: library:redis-lock cannot run it: expected a scenario of a Redis design");
    expect(io.out).toMatch(/raft-zk-baseline\s+0\/1/);
  });
});
