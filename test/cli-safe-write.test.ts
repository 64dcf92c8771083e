import { describe, expect, it } from "vitest";
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { main } from "../cli/main.js";
import { EXIT } from "../harness/exit-codes.js";
import { captureStdio } from "./helpers/capture-stdio.js";
import { writtenByLockstep } from "../harness/safe-write.js";
import { scenarioToJson } from "../harness/explore/scenario-file.js";
import { loadScenario } from "../scenarios/index.js";

const io = captureStdio();
const tmp = () => mkdtempSync(join(tmpdir(), "lockstep-write-"));
const fixtures = join(import.meta.dirname, "fixtures", "summaries");
const shards = [join(fixtures, "shard-1-of-2.json"), join(fixtures, "shard-2-of-2.json")];
const oneLine = (): string => {
  expect(io.err.endsWith("\n") && io.err.indexOf("\n") === io.err.length - 1).toBe(true);
  return io.err.trimEnd();
};

describe("writes never replace what lockstep did not write", () => {
  it("merge --out over a file lockstep did not write: exit 2, the file untouched; --force replaces it", async () => {
    const file = join(tmp(), "notes.txt");
    writeFileSync(file, "my notes\n");
    expect(await main(["merge", ...shards, "--out", file])).toBe(EXIT.badInput);
    expect(oneLine()).toBe(
      `lockstep: ${file}: --out: expected a file lockstep wrote; this one it did not write, so it is left alone (choose another path, or --force to replace it)`,
    );
    expect(readFileSync(file, "utf8")).toBe("my notes\n");
    expect(io.out).toBe("");
    io.err = "";
    expect(await main(["merge", ...shards, "--out", file, "--force"])).toBe(EXIT.safetyViolation);
    expect(JSON.parse(readFileSync(file, "utf8")).runs).toBe(40);
    // Now lockstep's own: replaced again without --force.
    expect(await main(["merge", ...shards, "--out", file])).toBe(EXIT.safetyViolation);
    expect(io.err).toBe("");
  });

  it("merge --out a directory: exit 2, the directory and its parent as they were (no temp file)", async () => {
    const parent = tmp();
    const dir = join(parent, "out");
    mkdirSync(dir);
    expect(await main(["merge", ...shards, "--out", dir])).toBe(EXIT.badInput);
    expect(oneLine()).toBe(`lockstep: ${dir}: --out: expected a regular file or nothing to write over; this is a directory, which lockstep never replaces`);
    expect(statSync(dir).isDirectory()).toBe(true);
    expect(readdirSync(parent)).toEqual(["out"]);
  });

  it("merge --out a symbolic link or a FIFO: never replaced by a regular file, even with --force", async () => {
    const dir = tmp();
    const target = join(dir, "target.json");
    writeFileSync(target, "{}\n");
    const link = join(dir, "link.json");
    symlinkSync(target, link);
    expect(await main(["merge", ...shards, "--out", link, "--force"])).toBe(EXIT.badInput);
    expect(oneLine()).toBe(
      `lockstep: ${link}: --out: expected a regular file or nothing to write over; this is a symbolic link, which lockstep never replaces`,
    );
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(target, "utf8")).toBe("{}\n");
    io.err = "";
    const fifo = join(dir, "fifo");
    execFileSync("mkfifo", [fifo]);
    expect(await main(["merge", ...shards, "--out", fifo, "--force"])).toBe(EXIT.badInput);
    expect(oneLine()).toBe(`lockstep: ${fifo}: --out: expected a regular file or nothing to write over; this is a FIFO, which lockstep never replaces`);
    expect(lstatSync(fifo).isFIFO()).toBe(true);
  });

  it("run --out a file, or a directory holding a results.json lockstep did not write: refused before the run, nothing written", async () => {
    const file = join(tmp(), "plain");
    writeFileSync(file, "x");
    expect(await main(["run", "naive-baseline", "--out", file])).toBe(EXIT.badInput);
    expect(oneLine()).toBe(`lockstep: ${file}: --out: expected a directory (or nothing there yet); this is a file`);
    io.err = "";
    const dir = tmp();
    writeFileSync(join(dir, "results.json"), '{"mine": true}\n');
    expect(await main(["run", "naive-baseline", "--out", dir])).toBe(EXIT.badInput);
    expect(oneLine()).toBe(
      `lockstep: ${join(dir, "results.json")}: --out: expected a file lockstep wrote; this one it did not write, so it is left alone (choose another path, or --force to replace it)`,
    );
    expect(readdirSync(dir)).toEqual(["results.json"]);
    expect(io.out).toBe("");
  });

  it("no false alarm: a run, and a sweep, write again over their own output; a stale temp file from a killed run is replaced and gone", async () => {
    const dir = tmp();
    expect(await main(["run", "naive-baseline", "--out", dir])).toBe(EXIT.ok);
    writeFileSync(join(dir, ".report.html.lockstep-tmp"), "half a rep");
    expect(await main(["run", "naive-baseline", "--out", dir])).toBe(EXIT.ok);
    expect(readdirSync(dir).sort()).toEqual(["history.jsonl", "report.html", "results.json"]);
    const sweep = tmp();
    for (let i = 0; i < 2; i++)
      expect(await main(["sweep", "naive-gc-pause", "--seeds", "1..4", "--workers", "1", "--reports", "1", "--out", sweep])).toBe(EXIT.safetyViolation);
    expect(io.err).not.toMatch(/lockstep: /);
  });

  it("a write that fails part-way leaves no temporary file and no target, and names the target", async () => {
    const dir = tmp();
    // Something in the way of report.html's temporary file: the third write fails after two succeeded.
    mkdirSync(join(dir, ".report.html.lockstep-tmp", "x"), { recursive: true });
    expect(await main(["run", "naive-baseline", "--out", dir])).toBe(EXIT.badInput);
    expect(oneLine()).toBe(
      `lockstep: ${join(dir, "report.html")}: --out: expected a writable place; the write failed (EEXIST, something is in the way) and nothing was left behind`,
    );
    expect(readdirSync(dir)).toEqual([".report.html.lockstep-tmp"]);
    expect(existsSync(join(dir, "history.jsonl"))).toBe(false);
  });

  it("compare, explore, shrink and debate refuse an --out that is a file before any work", async () => {
    const file = join(tmp(), "plain");
    writeFileSync(file, "x");
    for (const args of [
      ["compare", "--designs", "redis-setnx", "--scenarios", "naive-baseline", "--seeds", "2"],
      ["explore", "--design", "redis-setnx"],
      ["shrink", "naive-gc-pause", "--seed", "1"],
      ["debate"],
    ]) {
      io.err = "";
      expect(await main([...args, "--out", file])).toBe(EXIT.badInput);
      expect(io.err).toBe(`lockstep: ${file}: --out: expected a directory (or nothing there yet); this is a file\n`);
      expect(io.out).toBe("");
    }
    expect(readFileSync(file, "utf8")).toBe("x");
  });

  it("no false alarm: run --trace writes twice into one --out (trace.jsonl and a history's tail are its own)", async () => {
    const dir = tmp();
    for (let i = 0; i < 2; i++) expect(await main(["run", "naive-gc-pause", "--trace", "--ok-if-expected", "--out", dir])).toBe(EXIT.ok);
    expect(io.err).not.toMatch(/lockstep: /);
    expect(writtenByLockstep(join(dir, "trace.jsonl"))).toBe(true);
    // history-tail.jsonl (run --duration) starts at the index its tail keeps, not at 0.
    const history = readFileSync(join(dir, "history.jsonl"), "utf8").split("\n");
    writeFileSync(join(dir, "history-tail.jsonl"), history.slice(5).join("\n"));
    expect(writtenByLockstep(join(dir, "history-tail.jsonl"))).toBe(true);
  });

  it("no false alarm: every kind of file lockstep writes is recognised as its own, and compare writes twice into one directory", async () => {
    const dir = tmp();
    expect(await main(["compare", "--designs", "redis-setnx", "--scenarios", "naive-gc-pause", "--seeds", "2", "--workers", "1", "--out", dir])).toBe(EXIT.ok);
    expect(await main(["compare", "--designs", "redis-setnx", "--scenarios", "naive-gc-pause", "--seeds", "2", "--workers", "1", "--out", dir])).toBe(EXIT.ok);
    expect(io.err).not.toMatch(/lockstep: /);
    const written = readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((d) => d.isFile())
      .map((d) => join(d.parentPath, d.name));
    const kinds = new Set(written.map((f) => f.replace(/^.*\//, "").replace(/^seed-\d+$/, "")));
    expect([...kinds].sort()).toEqual(expect.arrayContaining(["compare.html", "history.jsonl", "matrix.json", "report.html", "results.json", "summary.json"]));
    for (const f of written) expect(writtenByLockstep(f), f).toBe(true);
    const scenario = join(dir, "scenario.json");
    writeFileSync(scenario, JSON.stringify(scenarioToJson(loadScenario("naive-baseline")), null, 2) + "\n");
    // A real-mode summary (real/summary.ts) begins with its scenario's name.
    const real = join(dir, "real-summary.json");
    writeFileSync(real, JSON.stringify({ scenario: "naive-baseline", design: "redis-setnx", note: "real run: not replayable" }, null, 2) + "\n");
    for (const f of [scenario, real]) expect(writtenByLockstep(f), f).toBe(true);
    // And what it did not write is not its own.
    for (const [name, text] of [
      ["t.jsonl", '{"timeUs":1,"note":"mine"}\n'],
      ["h.jsonl", '{"index":3,"timeUs":"soon"}\n'],
      ["a.json", '{"name": "x"}'],
      ["b.txt", "hello"],
      ["c.json", '{\n  "scenarios": []\n}\n'],
    ] as const) {
      writeFileSync(join(dir, name), text);
      expect(writtenByLockstep(join(dir, name)), name).toBe(false);
    }
  });
});
