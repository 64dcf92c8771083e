import { describe, expect, it } from "vitest";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { main } from "../cli/main.js";
import { EXIT } from "../harness/exit-codes.js";
import { captureStdio } from "./helpers/capture-stdio.js";

const io = captureStdio();

const tmp = () => mkdtempSync(join(tmpdir(), "lockstep-cli-"));

describe("lockstep run", () => {
  it("writes history, results and report, prints verdicts, seed and replay command, exits 3 on a violation", async () => {
    const dir = join(tmp(), "run");
    const code = await main(["run", "naive-gc-pause", "--seed", "4", "--out", dir]);
    expect(code).toBe(EXIT.safetyViolation);
    for (const f of ["history.jsonl", "results.json", "report.html"]) expect(existsSync(join(dir, f))).toBe(true);
    expect(io.out).toMatch(/FAIL mutual-exclusion/);
    expect(io.out).toMatch(/seed: 4/);
    expect(io.out).toMatch(/replay: npx lockstep run naive-gc-pause --seed 4/);
    const results = JSON.parse(readFileSync(join(dir, "results.json"), "utf8"));
    expect(results.verdicts.outcome).toBe("unsafe");
    expect(results.seed).toBe(4);
    const lines = readFileSync(join(dir, "history.jsonl"), "utf8").trim().split("\n");
    expect(lines.every((l) => typeof JSON.parse(l).timeUs === "number")).toBe(true);
  });

  it("exits 0 on a safe run, and 0 with --ok-if-expected when unsafe was expected", async () => {
    expect(await main(["run", "naive-baseline", "--out", join(tmp(), "a")])).toBe(EXIT.ok);
    expect(await main(["run", "naive-gc-pause", "--ok-if-expected", "--out", join(tmp(), "b")])).toBe(EXIT.ok);
  });

  it("rejects unknown scenarios, bad seeds and bad files with one clear line and exit 2, writing nothing", async () => {
    const dir = join(tmp(), "never");
    expect(await main(["run", "no-such", "--out", dir])).toBe(EXIT.badInput);
    expect(io.err).toMatch(/unknown scenario; did you mean .*`lockstep list` names all \d+\n$/);
    expect(await main(["run", "naive-baseline", "--seed", "-3", "--out", dir])).toBe(EXIT.badInput);
    const bad = join(tmp(), "bad.json");
    writeFileSync(bad, JSON.stringify({ name: "bad", story: "s", design: "redis-setnx", expect: "safe", durationMs: 100, clients: 1, workload: { ttlMs: "long" } }));
    io.err = "";
    expect(await main(["run", bad, "--out", dir])).toBe(EXIT.badInput);
    expect(io.err).toBe(`lockstep: ${bad}: workload.ttlMs: expected an integer >= 1, got "long"\n`);
    expect(io.err).not.toMatch(/\n\s+at /); // no stack trace
    expect(existsSync(dir)).toBe(false);
  });

  it("says plainly when the output directory cannot be made, without a stack trace", async () => {
    const file = join(tmp(), "a-file");
    writeFileSync(file, "not a directory");
    io.err = "";
    expect(await main(["run", "naive-gc-pause", "--out", join(file, "run")])).toBe(EXIT.badInput);
    expect(io.err).toBe(`lockstep: ${join(file, "run")}: --out: expected a directory (or nothing there yet); a file is in the way of its path (ENOTDIR)\n`);
  });

  it("rejects unknown commands and options with exit 2", async () => {
    expect(await main(["frobnicate"])).toBe(EXIT.badInput);
    expect(await main(["run", "naive-baseline", "--colour"])).toBe(EXIT.badInput);
  });
});

describe("lockstep list", () => {
  it("names designs, scenarios and checkers", async () => {
    expect(await main(["list"])).toBe(EXIT.ok);
    expect(io.out).toMatch(/redis-setnx/);
    expect(io.out).toMatch(/naive-gc-pause/);
    expect(io.out).toMatch(/mutual-exclusion/);
  });
});
