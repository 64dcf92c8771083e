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

  it("--trace also writes trace.jsonl and the report's folded per-node command tables; without it, neither", async () => {
    const traced = join(tmp(), "t");
    expect(await main(["run", "redis-release-delayed-del", "--trace", "--out", traced])).toBe(EXIT.safetyViolation);
    const lines = readFileSync(join(traced, "trace.jsonl"), "utf8").trim().split("\n");
    expect(JSON.parse(lines[0]!)).toMatchObject({ process: "redis-1", kind: "redis-command", data: { from: "c1", reply: "OK" } });
    expect(readFileSync(join(traced, "report.html"), "utf8")).toContain('<details class="trace-node" data-node="redis-1">');
    const plain = join(tmp(), "p");
    await main(["run", "redis-release-delayed-del", "--out", plain]);
    expect(existsSync(join(plain, "trace.jsonl"))).toBe(false);
    expect(readFileSync(join(plain, "report.html"), "utf8")).not.toContain("trace-node");
    expect(readFileSync(join(plain, "history.jsonl"), "utf8")).toBe(readFileSync(join(traced, "history.jsonl"), "utf8"));
  });

  it("exits 0 on a safe run, and 0 with --ok-if-expected when unsafe was expected", async () => {
    expect(await main(["run", "naive-baseline", "--out", join(tmp(), "a")])).toBe(EXIT.ok);
    expect(await main(["run", "naive-gc-pause", "--ok-if-expected", "--out", join(tmp(), "b")])).toBe(EXIT.ok);
  });

  it("says NOT CHALLENGED, not SAFE, and exits 8 when nobody else held the lock (naive-gc-pause on redlock-v4)", async () => {
    const dir = join(tmp(), "v4");
    expect(await main(["run", "naive-gc-pause", "--lock", "redlock-v4", "--out", dir])).toBe(EXIT.notChallenged);
    expect(io.out).toMatch(
      /^NOT CHALLENGED: c2 never held order:123 while c1 believed it did: c2 tried from 1 s and gave up at 2\.7 s \(redlock-v4 did not acquire the lock\), 1\.7 s into the 30 s the workload would wait \(waitMs\): its own limit, not the scenario's; c1 held it from 3\.7 ms to 15 s \(its last act under the grant\); a pause reached c1 while it held or wanted order:123, from 3\.7 ms to 15 s: it outlasted a whole lease \(10 s\), but no other client held or wanted order:123 then\. The rule derived from the run \(client-fault-contended\) was not met: faults reached clients \(c1\)/m,
    );
    expect(io.out).toMatch(/^outcome: not-challenged /m);
    const results = JSON.parse(readFileSync(join(dir, "results.json"), "utf8"));
    expect(results.verdicts.outcome).toBe("not-challenged");
    expect(results.verdicts.safety).toBe(true);
    // The scenario names no challenge: the rule is derived from its fault, a pause on the holder c1.
    expect(results.verdicts.challenge).toMatchObject({ challenged: false, kind: "client-fault-contended", grants: 1, acquiresFailed: 1 });
    expect(results.verdicts.challenge.derived.rule).toBe("client-fault-contended");
    const report = readFileSync(join(dir, "report.html"), "utf8");
    expect(report).toContain('class="badge outcome-not-challenged"');
    expect(report).toContain("This run did not get where the story goes: c2 never held order:123");
    // --ok-if-expected does not turn a vacuous pass into 0 (nor into 6: it is its own code).
    expect(await main(["run", "naive-gc-pause", "--lock", "redlock-v4", "--ok-if-expected", "--out", join(tmp(), "v4b")])).toBe(EXIT.notChallenged);
    // The design the scenario was written for is challenged (and unsafe): c2 got the lock while c1 slept.
    expect(await main(["run", "naive-gc-pause", "--out", join(tmp(), "naive")])).toBe(EXIT.safetyViolation);
    // By the derived rule: the pause on c1 outlasted its lease while c2 wanted the lock (the FAIL lines name the overlap).
    expect(io.out).toMatch(
      /^challenged: a pause reached c1 while it held or wanted order:123 \(from 1\.1 ms\) and outlasted its lease, while c2 held or wanted it \(at 10 s\)$/m,
    );
  });

  it("rejects unknown scenarios, bad seeds and bad files with one clear line and exit 2, writing nothing", async () => {
    const dir = join(tmp(), "never");
    expect(await main(["run", "no-such", "--out", dir])).toBe(EXIT.badInput);
    expect(io.err).toMatch(/unknown scenario "[^"]+"; did you mean .*`lockstep list` names all \d+\n$/);
    expect(await main(["run", "naive-baseline", "--seed", "-3", "--out", dir])).toBe(EXIT.badInput);
    const bad = join(tmp(), "bad.json");
    writeFileSync(
      bad,
      JSON.stringify({ name: "bad", story: "s", design: "redis-setnx", expect: "safe", durationMs: 100, clients: 1, workload: { ttlMs: "long" } }),
    );
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
