import { describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { appendFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { main } from "../cli/main.js";
import { EXIT } from "../harness/exit-codes.js";
import { captureStdio } from "./helpers/capture-stdio.js";
import { resultFields, type SweepSummary } from "../harness/sweep/summary.js";
import { runSweep } from "../harness/sweep/sweep.js";
import { loadScenario } from "../scenarios/index.js";

const io = captureStdio();
const tmp = () => mkdtempSync(join(tmpdir(), "lockstep-interrupt-"));
const child = join(import.meta.dirname, "helpers", "cli-child.ts");
const SEEDS = "1..160";
const sweepArgs = (out: string, ...more: string[]) => ["sweep", "naive-gc-pause", "--seeds", SEEDS, "--reports", "3", "--out", out, ...more];
const readSummary = (dir: string): SweepSummary & { partial?: true; resume?: string } => JSON.parse(readFileSync(join(dir, "summary.json"), "utf8"));
const progressLines = (dir: string): number => {
  try {
    return readFileSync(join(dir, "progress.jsonl"), "utf8").split("\n").length - 2;
  } catch {
    return -1;
  }
};

/** Every file under `dir`, relative to it. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => relative(dir, join(d.parentPath, d.name)))
    .sort();
}

/**
 * Start a sweep in a child process, wait (at most 90 s) until `seedsMin` seeds are
 * checkpointed, send `signal`; resolve with its exit code or signal and its output.
 */
function interruptedSweep(
  out: string,
  signal: NodeJS.Signals,
  seedsMin: number,
  workers: string,
  entry: string[] = ["--import", "tsx", child],
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string; stdout: string }> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [...entry, ...sweepArgs(out, "--workers", workers)], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    p.stdout.on("data", (d) => (stdout += d));
    p.stderr.on("data", (d) => (stderr += d));
    const deadline = Date.now() + 90_000;
    const poll = setInterval(() => {
      if (progressLines(out) >= seedsMin) {
        clearInterval(poll);
        p.kill(signal);
      } else if (Date.now() > deadline) {
        clearInterval(poll);
        p.kill("SIGKILL");
        reject(new Error(`the sweep checkpointed no ${seedsMin} seeds within 90 s: ${stderr}`));
      }
    }, 50);
    p.on("exit", (code, sig) => {
      clearInterval(poll);
      resolve({ code, signal: sig, stderr, stdout });
    });
  });
}

describe("a sweep survives interruption", () => {
  let reference: SweepSummary | undefined;
  const uninterrupted = async (): Promise<SweepSummary> => {
    if (!reference) {
      const out = tmp();
      expect(await main(sweepArgs(out, "--workers", "1"))).toBe(EXIT.safetyViolation);
      reference = readSummary(out);
      expect(reference.runs).toBe(160);
      // A finished sweep keeps no progress file.
      expect(existsSync(join(out, "progress.jsonl"))).toBe(false);
    }
    return reference;
  };

  it("SIGINT mid-way: exit 130, a partial summary saying how to resume, no temporary file; --resume gives the uninterrupted summary", async () => {
    const ref = await uninterrupted();
    const out = tmp();
    const r = await interruptedSweep(out, "SIGINT", 16, "2");
    expect(r.code).toBe(EXIT.interrupted);
    const partial = readSummary(out);
    expect(partial.partial).toBe(true);
    expect(partial.runs).toBeGreaterThanOrEqual(16);
    expect(partial.runs).toBeLessThan(160);
    expect(partial.runs).toBe(progressLines(out));
    const resume = `npx lockstep sweep naive-gc-pause --seeds 1..160 --failing-max 20 --reports 3 --out ${out} --resume`;
    expect(partial.resume).toBe(resume);
    expect(r.stderr).toContain(`\nresume: ${resume}\n`);
    expect(r.stderr).toContain(`lockstep: interrupted after ${partial.runs} of the shard's seeds; ${join(out, "summary.json")} is partial (merge refuses it)`);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(filesUnder(out)).toEqual(["progress.jsonl", "summary.json"]);

    // merge will not take it.
    io.err = "";
    expect(await main(["merge", join(out, "summary.json")])).toBe(EXIT.badInput);
    expect(io.err).toBe(
      `lockstep: ${join(out, "summary.json")}: partial: expected a finished sweep, not one interrupted part-way; finish it first: ${resume}\n`,
    );

    io.err = "";
    expect(await main(sweepArgs(out, "--workers", "1", "--resume"))).toBe(EXIT.safetyViolation);
    const resumed = readSummary(out);
    expect(JSON.stringify(resultFields(resumed))).toBe(JSON.stringify(resultFields(ref)));
    expect(resumed.partial).toBeUndefined();
    expect(io.out).toContain(`(${partial.runs} seed(s) read back from the interrupted run's progress)`);
    expect(filesUnder(out).filter((f) => !f.startsWith("failing/"))).toEqual(["summary.json"]);
    expect(filesUnder(join(out, "failing"))).toEqual(
      ["seed-1", "seed-2", "seed-3"].flatMap((d) => ["history.jsonl", "report.html", "results.json"].map((f) => join(d, f))),
    );
  });

  // bin/lockstep.js runs the sweep from its start-up bundle (cli/bundle.ts) after `npm run build`: Ctrl-C must work the same there.
  const bin = join(import.meta.dirname, "..", "bin", "lockstep.js");
  const bundled = existsSync(join(import.meta.dirname, "..", "dist", "cli", "bundle", "sweep.js"));
  it.skipIf(!bundled)("SIGINT to the bundled sweep (bin/lockstep.js): exit 130 and a partial summary; --resume gives the uninterrupted summary", async () => {
    const ref = await uninterrupted();
    const out = tmp();
    const r = await interruptedSweep(out, "SIGINT", 16, "2", [bin]);
    expect(r.code).toBe(EXIT.interrupted);
    const partial = readSummary(out);
    expect([partial.partial, partial.runs]).toEqual([true, progressLines(out)]);
    expect(partial.runs).toBeLessThan(160);
    expect(filesUnder(out)).toEqual(["progress.jsonl", "summary.json"]);
    expect(await main(sweepArgs(out, "--workers", "1", "--resume"))).toBe(EXIT.safetyViolation);
    expect(JSON.stringify(resultFields(readSummary(out)))).toBe(JSON.stringify(resultFields(ref)));
  });

  it("SIGKILL mid-way, with the last progress line cut short: --resume gives the uninterrupted summary", async () => {
    const ref = await uninterrupted();
    const out = tmp();
    const r = await interruptedSweep(out, "SIGKILL", 8, "1");
    expect(r.signal).toBe("SIGKILL");
    expect(existsSync(join(out, "summary.json"))).toBe(false);
    const kept = progressLines(out);
    expect(kept).toBeGreaterThanOrEqual(8);
    // As if killed inside a write: half a line at the end, which is dropped (that seed runs again).
    appendFileSync(join(out, "progress.jsonl"), '{"seed":9999,"outco');
    expect(await main(sweepArgs(out, "--workers", "2", "--resume"))).toBe(EXIT.safetyViolation);
    expect(JSON.stringify(resultFields(readSummary(out)))).toBe(JSON.stringify(resultFields(ref)));
    expect(io.out).toContain(`(${kept} seed(s) read back from the interrupted run's progress)`);
    expect(existsSync(join(out, "progress.jsonl"))).toBe(false);
  });

  it("refuses a resume that is not the same sweep, a fresh start over unfinished progress, a resume with nothing to resume, and a corrupt progress line, naming the file and field", async () => {
    const out = tmp();
    const progress = join(out, "progress.jsonl");
    const header = (seeds: string) =>
      readFileSync(progress, "utf8")
        .split("\n")[0]!
        .replace(/"seeds":\{[^}]*\}/, seeds);
    expect(await main(["sweep", "naive-gc-pause", "--seeds", "1..4", "--workers", "1", "--reports", "0", "--out", join(out, "x"), "--resume"])).toBe(
      EXIT.badInput,
    );
    expect(io.err).toBe(
      `lockstep: ${join(out, "x", "progress.jsonl")}: --resume: expected the progress.jsonl of an interrupted sweep in --out; there is none (run without --resume to start)\n`,
    );
    // A progress file as a kill leaves it: the header and one seed.
    expect(await main(["sweep", "naive-gc-pause", "--seeds", "1..4", "--workers", "1", "--reports", "0", "--out", out])).toBe(EXIT.safetyViolation);
    const seedLine = JSON.stringify({
      seed: 1,
      outcome: "unsafe",
      safety: false,
      liveness: true,
      valid: false,
      checkers: { "mutual-exclusion": false },
      expectationMet: true,
      eventsRun: 10,
      endUs: 10,
      availability: { grants: 2, failedAcquires: 0, idleWhileWaitingUs: 0, challenged: true },
    });
    writeFileSync(
      progress,
      `${JSON.stringify({ format: "lockstep-sweep-progress/1", lockstep: readSummary(out).lockstep.version, scenario: { name: "naive-gc-pause", digest: readSummary(out).scenario.digest }, seeds: { from: 1, to: 4 }, shard: { index: 1, count: 1 } })}\n${seedLine}\n`,
    );
    const cases: Array<[string[], string]> = [
      [
        ["--seeds", "1..4"],
        `lockstep: ${progress}: --out: expected no unfinished sweep here; this directory holds one: add --resume to continue it, or choose another --out\n`,
      ],
      [
        ["--seeds", "1..5", "--resume"],
        `lockstep: ${progress}: line 1: seeds: expected {"from":1,"to":5} (--seeds), got {"from":1,"to":4}; resume with the flags the sweep was started with, or choose another --out\n`,
      ],
      [
        ["--seeds", "1..4", "--shard", "1/2", "--resume"],
        `lockstep: ${progress}: line 1: shard: expected {"index":1,"count":2} (--shard), got {"index":1,"count":1}; resume with the flags the sweep was started with, or choose another --out\n`,
      ],
    ];
    for (const [args, message] of cases) {
      io.err = "";
      expect(await main(["sweep", "naive-gc-pause", "--workers", "1", "--reports", "0", "--out", out, ...args])).toBe(EXIT.badInput);
      expect(io.err).toBe(message);
    }
    io.err = "";
    expect(await main(["sweep", "naive-gc-pause-fenced", "--seeds", "1..4", "--workers", "1", "--out", out, "--resume"])).toBe(EXIT.badInput);
    expect(io.err).toMatch(
      new RegExp(`^lockstep: ${progress}: line 1: scenario\\.name: expected "naive-gc-pause-fenced" \\(the scenario being swept\\), got "naive-gc-pause"`),
    );
    const bad: Array<[string, string]> = [
      ['{"seed": 1, "outcome": "fine"', "line 2: expected one JSON value per line"],
      [seedLine.replace('"seed":1', '"seed":7'), "line 2.seed: expected an integer from 1 to 4, got 7"],
      [
        seedLine.replace('"outcome":"unsafe"', '"outcome":"fine"'),
        'line 2.outcome: expected one of "safe", "unsafe", "unsafe-but-fenced", "liveness-loss", "not-challenged", "unknown", got "fine"',
      ],
      [seedLine.replace('"safety":false', '"safety":"no"'), 'line 2.safety: expected true, false or "unknown", got "no"'],
      [`${seedLine}\n${seedLine}`, "line 3: seed: expected each seed once, got 1 again"],
    ];
    for (const [line, message] of bad) {
      writeFileSync(progress, `${header('"seeds":{"from":1,"to":4}')}\n${line}\n`);
      io.err = "";
      expect(await main(["sweep", "naive-gc-pause", "--seeds", "1..4", "--workers", "1", "--reports", "0", "--out", out, "--resume"])).toBe(EXIT.badInput);
      expect(io.err.startsWith(`lockstep: ${progress}: ${message}`)).toBe(true);
    }
  });

  it("an --out that cannot take the results is refused before any seed runs", async () => {
    const file = join(tmp(), "a-file");
    writeFileSync(file, "x");
    expect(await main(["sweep", "naive-gc-pause", "--seeds", "1..100000", "--workers", "1", "--out", file])).toBe(EXIT.badInput);
    expect(io.err).toBe(`lockstep: ${file}: --out: expected a directory (or nothing there yet); this is a file\n`);
    const dir = tmp();
    writeFileSync(join(dir, "summary.json"), "my own summary\n");
    io.err = "";
    expect(await main(["sweep", "naive-gc-pause", "--seeds", "1..100000", "--workers", "1", "--out", dir])).toBe(EXIT.badInput);
    expect(io.err).toBe(
      `lockstep: ${join(dir, "summary.json")}: --out: expected a file lockstep wrote; this one it did not write, so it is left alone (choose another path, or --force to replace it)\n`,
    );
    expect(readdirSync(dir)).toEqual(["summary.json"]);
  });

  it("interrupted while writing the failing seeds' reports: marked interrupted, no report listed, nothing half-written; resumed, every report is written", async () => {
    const out = tmp();
    const scenario = loadScenario("naive-gc-pause");
    const controller = new AbortController();
    // Abort inside the report phase, once the first report is whole (its three files renamed
    // into place): a timer after the last seed raced the first write under load. Polled
    // between jobs, at most REPORT_POLLS_MAX times.
    const REPORT_POLLS_MAX = 1_000_000;
    const firstReport = join(out, "failing", "seed-1");
    let polls = 0;
    const abortAfterFirstReport = (): void => {
      const whole = existsSync(firstReport) && filesUnder(firstReport).filter((f) => !f.includes("lockstep-tmp")).length >= 3;
      if (whole || ++polls > REPORT_POLLS_MAX) controller.abort();
      else setImmediate(abortAfterFirstReport);
    };
    const stream = { isTTY: true, write: (t: string) => void (t.includes("12/12") && setImmediate(abortAfterFirstReport)) };
    const options = {
      range: { from: 1, to: 12 },
      workers: 1,
      limit: 20,
      outDir: out,
      reportsMax: 3,
      checkpoint: { resume: false },
      signal: controller.signal,
      progress: stream,
    };
    const r = await runSweep(scenario, options);
    expect(r.interrupted).toBe(true);
    expect(r.summary.runs).toBe(12);
    expect(r.summary.execution.reports).toEqual([]);
    expect(filesUnder(out).filter((f) => f.includes("lockstep-tmp"))).toEqual([]);
    // At least the first report was written whole before the interrupt was seen, not all three.
    expect(filesUnder(join(out, "failing")).length % 3).toBe(0);
    expect(filesUnder(join(out, "failing")).length).toBeGreaterThan(0);
    expect(filesUnder(join(out, "failing")).length).toBeLessThan(9);
    const again = await runSweep(scenario, { ...options, checkpoint: { resume: true }, signal: undefined, progress: false });
    expect(again.interrupted).toBe(false);
    expect(again.resumed).toBe(12);
    expect(again.summary.execution.reports.map((x) => x.seed)).toEqual([1, 2, 3]);
    expect(filesUnder(join(out, "failing"))).toHaveLength(9);
  });
});
