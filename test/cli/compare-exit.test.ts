import { describe, expect, it } from "vitest";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
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

describe("compare never calls a liveness loss a safety violation", () => {
  it("a liveness-only cell: the table, the cells to look at and the page say liveness lost, safety held; --fail-on-violation exits 4, not 3", async () => {
    const out = mkdtempSync(join(tmpdir(), "cmp-live-"));
    const a = ["compare", "--designs", "redlock", "--scenarios", "split-vote-redlock-no-jitter", "--seeds", "3", "--workers", "1", "--out", out];
    expect(await main([...a, "--fail-on-violation"])).toBe(EXIT.livenessViolation);
    expect(io.out).toMatch(/split-vote-redlock-no-jitter\s+0\/3 0% \[0%–\d+%\] liveness lost 3\/3 seed 1/);
    expect(io.out).toContain("redlock × split-vote-redlock-no-jitter (liveness lost in 3/3, safety held): seed 1");
    expect(io.out).not.toContain("safety violated");
    const page = readFileSync(join(out, "compare.html"), "utf8");
    expect(page).toContain('<span class="liveness">liveness lost in 3/3</span>');
    expect(page).toContain("0 of 3 runs violated safety; liveness lost in 3 of 3 runs");
    // With a safety violation beside it, 3 wins, and each cell says its own.
    io.out = "";
    const both = ["compare", "--designs", "redlock", "--scenarios", "split-vote-redlock-no-jitter,redlock-gc-pause", "--seeds", "2", "--workers", "1"];
    expect(await main([...both, "--out", mkdtempSync(join(tmpdir(), "cmp-both-")), "--fail-on-violation"])).toBe(EXIT.safetyViolation);
    expect(io.out).toContain("redlock × redlock-gc-pause (safety violated in 2/2)");
    expect(io.out).toContain("redlock × split-vote-redlock-no-jitter (liveness lost in 2/2, safety held)");
  });
});

describe("compare with nothing to compare is an input error", () => {
  it("--designs library without its adapter, and a compare whose every cell is skipped, exit 2 naming the flag; nothing is written", async () => {
    const out = join(mkdtempSync(join(tmpdir(), "cmp-none-")), "out");
    expect(await main(["compare", "--designs", "library", "--scenarios", "redis-release-late-del", "--seeds", "3", "--out", out])).toBe(EXIT.badInput);
    expect(io.err).toMatch(/^lockstep: --designs: "library" needs its adapter: library:<one of redlock-v4, .*>, or --lock <adapter>\n$/);
    io.err = "";
    expect(
      await main(["compare", "--designs", "library:redlock-v4", "--scenarios", "etcd-lease-baseline", "--seeds", "1", "--workers", "1", "--out", out]),
    ).toBe(EXIT.badInput);
    expect(io.err).toMatch(
      /^lockstep: --scenarios: expected at least one scenario that fits the chosen designs; every cell was skipped \(library:redlock-v4 × etcd-lease-baseline: .*\)\n$/,
    );
    expect(existsSync(out)).toBe(false);
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
