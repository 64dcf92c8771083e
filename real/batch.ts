/**
 * A batch of real runs, one after another, each with its files; more than one gets a
 * summary.json, which says which run stopped the batch. However it ends — every run done,
 * a run failing, a signal — the finished runs are summarised. The command prints through
 * the events it hands in; this module runs and writes.
 */
import { join } from "node:path";
import { writeJsonAtomic } from "../harness/sweep/write.js";
import type { RealPlan } from "./plan.js";
import { nemesisLines } from "./nemesis.js";
import { REAL_NOTE, runRealOnce } from "./run.js";
import { recordRealRun, writeRealArtifacts, type RealRunRecord } from "./record.js";
import { sampleLoad, summarize, type RealBatch, type RealSummary } from "./summary.js";
import { hooksInstalled, stoppedBySignal } from "./servers/index.js";

/** What the batch tells its command as it goes. */
export interface BatchEvents {
  /** A line about the run under way (its drawn nemesis). */
  progress(line: string): void;
  /** The ticker of one run's steps. */
  ticker(): { step(text: string): void; done(): void };
  /** A run finished and its files were written. */
  ran(record: RealRunRecord, runDir: string): void;
  /** The batch stopped before its end: `reason` at run `current` of `runs`, `finished` runs done. */
  stopped(current: number, runs: number, reason: string, finished: number): void;
  /** summary.json was written (a batch of more than one run), over these runs. */
  summarized(summary: RealSummary, path: string, records: readonly RealRunRecord[]): void;
  /** A run failed: the exit code of a failure of the real environment (said by the command), or undefined for a bug. */
  failed(err: unknown): number | undefined;
  /** The one-line reason a failed run stopped the batch. */
  reasonOf(err: unknown): string;
}

/** The finished runs; `exitCode` when a run's failure decided it, `stopped` when the batch ended early. */
export interface BatchResult {
  records: RealRunRecord[];
  exitCode?: number;
  stopped?: string;
}

/** The batch's runs, on seeds from the scenario's own; planOf(seed) plans one (a nemesis is drawn per run). */
export async function runRealBatch(plan: RealPlan, planOf: (seed: number) => RealPlan, dir: string, runs: number, ev: BatchEvents): Promise<BatchResult> {
  const b = new Batch(plan, dir, runs, ev);
  const onSignal = (signal: NodeJS.Signals): void => {
    b.stop(`stopped by ${signal}`);
    if (!hooksInstalled()) process.exit(signal === "SIGINT" ? 130 : 143);
  };
  // Before the groups' own handler (installed later, per run): the summary is written, then they stop the servers and exit.
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  try {
    for (let i = 1; i <= runs; i++) {
      const seed = plan.scenario.seed + i - 1;
      const failure = await b.run(i, seed, planOf(seed));
      if (failure) return { records: b.records, stopped: b.stoppedBy, ...(failure.exitCode !== undefined ? { exitCode: failure.exitCode } : {}) };
    }
    b.writeSummary();
    return { records: b.records };
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}

class Batch {
  readonly records: RealRunRecord[] = [];
  private readonly dirs: string[] = [];
  private readonly batch: RealBatch;
  private current = 0;
  private summaryWritten = false;
  stoppedBy: string | undefined;

  constructor(
    plan: RealPlan,
    private readonly dir: string,
    private readonly runs: number,
    private readonly ev: BatchEvents,
  ) {
    const s = plan.scenario;
    this.batch = {
      scenario: s.name,
      design: s.design,
      expect: s.expect,
      note: REAL_NOTE,
      timeScale: plan.timeScale.factor,
      runsPlanned: runs,
      loadSamples: [],
    };
  }

  writeSummary(): void {
    if (this.runs === 1 || this.summaryWritten) return;
    this.summaryWritten = true;
    sampleLoad(this.batch);
    const summary = summarize(this.records, this.dirs, this.batch);
    const path = join(this.dir, "summary.json");
    writeJsonAtomic(path, summary);
    this.ev.summarized(summary, path, this.records);
  }

  stop(reason: string): void {
    if (this.batch.stoppedBy) return;
    this.batch.stoppedBy = { run: this.current, reason };
    this.stoppedBy = reason;
    this.ev.stopped(this.current, this.runs, reason, this.records.length);
    this.writeSummary();
  }

  /** Run i on its seed and plan; a failure stops the batch (its exit code when the real environment failed). */
  async run(i: number, seed: number, plan: RealPlan): Promise<{ exitCode?: number } | undefined> {
    this.current = i;
    sampleLoad(this.batch);
    if (plan.nemesis) for (const l of nemesisLines(plan.nemesis)) this.ev.progress(`run ${i}/${this.runs}: ${l}`);
    const ticker = this.ev.ticker();
    let out;
    try {
      out = await runRealOnce(plan, { run: i, runs: this.runs, seed, progress: (l) => this.ev.progress(l), onTick: (t) => ticker.step(t) });
    } catch (err) {
      ticker.done();
      const signal = stoppedBySignal();
      if (signal) {
        this.stop(`stopped by ${signal}`);
        return {};
      }
      const code = this.ev.failed(err);
      this.stop(`failed: ${this.ev.reasonOf(err)}`);
      if (code === undefined) throw err;
      return { exitCode: code };
    }
    ticker.done();
    const record = recordRealRun(plan, out);
    const runDir = this.runs === 1 ? this.dir : join(this.dir, `run-${String(i).padStart(String(this.runs).length, "0")}`);
    writeRealArtifacts(runDir, record, out.history);
    this.records.push(record);
    this.dirs.push(runDir);
    this.ev.ran(record, runDir);
    return undefined;
  }
}
