import { describe, expect, it } from "vitest";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { main } from "../cli/main.js";
import { EXIT } from "../harness/exit-codes.js";
import { captureStdio } from "./helpers/capture-stdio.js";

const io = captureStdio();

const tmp = () => mkdtempSync(join(tmpdir(), "lockstep-duration-"));

/** The scenario's JSON with another duration: what `--duration` must judge the same as. */
function withDuration(name: string, durationMs: number): string {
  const raw = JSON.parse(readFileSync(join("scenarios", `${name}.json`), "utf8")) as Record<string, unknown>;
  const file = join(tmp(), `${name}.json`);
  writeFileSync(file, JSON.stringify({ ...raw, durationMs }));
  return file;
}

describe("lockstep run --duration", () => {
  it("runs the workload that long, checks it online, and judges it as a scenario of that duration is judged", async () => {
    const dir = join(tmp(), "soak");
    expect(await main(["run", "naive-gc-pause", "--duration", "2m", "--out", dir])).toBe(EXIT.safetyViolation);
    expect(io.out).toMatch(/replay: npx lockstep run naive-gc-pause --seed \d+ --duration 120000ms/);
    expect(io.out).toMatch(/wrote .*history-tail\.jsonl, .*results\.json, .*report\.html/);
    expect(existsSync(join(dir, "history.jsonl"))).toBe(false);
    const soak = JSON.parse(readFileSync(join(dir, "results.json"), "utf8"));
    const whole = join(tmp(), "whole");
    await main(["run", withDuration("naive-gc-pause", 120_000), "--out", whole]);
    const batch = JSON.parse(readFileSync(join(whole, "results.json"), "utf8"));
    const verdict = (r: { verdicts: { outcome: string; results: Array<{ checker: string; valid: unknown; summary: string }> } }) => ({
      outcome: r.verdicts.outcome,
      results: r.verdicts.results.map((x) => [x.checker, x.valid, x.checker === "linearizability" && x.valid !== true ? "" : x.summary]),
    });
    expect(verdict(soak)).toEqual(verdict(batch));
    expect(soak.scenario.name).toBe("naive-gc-pause");
    const tail = readFileSync(join(dir, "history-tail.jsonl"), "utf8").trim().split("\n");
    const last = JSON.parse(tail[tail.length - 1]!);
    expect(last.f).toBe("final-read");
    // Every event it checked fits in the tail: the report is the whole run's, and does not say otherwise.
    expect(readFileSync(join(dir, "report.html"), "utf8")).not.toContain("A long run, checked online");
  });

  it("a run longer than its tail: the report draws the last events and says the checkers judged all of it", async () => {
    const dir = join(tmp(), "tail");
    expect(await main(["run", "naive-baseline", "--duration", "5m", "--out", dir])).toBe(EXIT.ok);
    const tail = readFileSync(join(dir, "history-tail.jsonl"), "utf8").trim().split("\n");
    expect(tail).toHaveLength(20_000);
    expect(readFileSync(join(dir, "report.html"), "utf8")).toMatch(
      /A long run, checked online as it went: the checkers judged all 300 s of it; this timeline and the steps show its last 20000 events, from 2\d\d\.\d+ s/,
    );
  });

  it("a scenario's nemesis goes on through the run: its window drawn again every scenario length", async () => {
    const dir = join(tmp(), "nemesis");
    expect(await main(["run", "etcd-lease-nemesis", "--duration", "2m", "--out", dir])).toBe(EXIT.ok);
    const faults = (JSON.parse(readFileSync(join(dir, "results.json"), "utf8")).meta.faults as Array<{ atMs: number }>).map((f) => f.atMs);
    // The scenario runs 20 s: faults after that come from the repeated windows.
    expect(faults.filter((t) => t > 20_000).length).toBeGreaterThan(3);
    expect(Math.max(...faults)).toBeGreaterThan(80_000);
  });

  it("--full-history streams the whole history: the bytes a scenario of that duration writes", async () => {
    const dir = join(tmp(), "full");
    expect(await main(["run", "naive-baseline", "--duration", "45s", "--full-history", "--out", dir])).toBe(EXIT.ok);
    const whole = join(tmp(), "whole");
    expect(await main(["run", withDuration("naive-baseline", 45_000), "--out", whole])).toBe(EXIT.ok);
    expect(readFileSync(join(dir, "history.jsonl"), "utf8")).toBe(readFileSync(join(whole, "history.jsonl"), "utf8"));
  });

  it("refuses a bad duration, and flags that need the whole history held, naming the flag", async () => {
    for (const [args, flag] of [
      [["--duration", "10x"], "--duration"],
      [["--duration", "0"], "--duration"],
      [["--duration", "31d"], "--duration"],
      [["--duration", "1m", "--check-determinism"], "--check-determinism"],
      [["--duration", "1m", "--trace"], "--trace"],
    ] as const) {
      expect(await main(["run", "naive-baseline", ...args, "--out", join(tmp(), "x")]), args.join(" ")).toBe(EXIT.badInput);
      expect(io.err).toContain(`${flag}:`);
    }
  });
});
