/**
 * Memory of a run, two ways:
 *
 * 1. Bytes per history event retained once a run ends (heap in use after a full GC, the
 *    run's output held, over the heap before it), for naive-baseline and for a 10-minute,
 *    10-client naive-baseline run, the history held in memory whole.
 * 2. Live heap during a 10-client naive-baseline run at 1, 5 and 10 simulated minutes
 *    (a full GC, then heap in use, over the heap before the run), with the history held
 *    in memory and with it streamed as JSONL through a bounded buffer (the chunks are
 *    counted and dropped here; `lockstep run --out` writes them to history.jsonl) and
 *    nothing retained, and streamed keeping only the events the checkers read
 *    (checkers/needed-events.ts). A flat row is a run in bounded memory; the retained
 *    rows grow with the run's length (the checkers' events, by what they inherently
 *    need: linearizability searches every op of a lock).
 *
 * 3. The max RSS that checking the 10-minute run adds: the checkers still take the
 *    whole (kept) history, so this part grows with the run.
 *
 * 4. Each checker alone on that history, in a fresh process (the kept events read back
 *    from a v8-serialized file): its peak heap (in use just before each GC during the
 *    check, and at its end) over the heap before it (the history loaded, a full GC), the
 *    max RSS it adds over the process's RSS then, and its time, so a checker's working memory is read
 *    apart from the others' (in one process max RSS is a high-water mark).
 *
 * Nothing passes or fails. Run: npm run build && node --expose-gc dist/bench/memory.js
 * (npm run bench passes --expose-gc; without it the figures are heap deltas without a
 * forced GC, and say so).
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { GCProfiler, deserialize, serialize } from "node:v8";
import { loadScenario } from "../scenarios/index.js";
import type { Scenario } from "../scenarios/schema.js";
import { runScenario, type RunOptions } from "../harness/runner.js";
import type { HistoryEvent } from "../sim/history.js";
import { JsonlHistoryStream } from "../sim/history-stream.js";
import { keptForCheckers } from "../checkers/needed-events.js";
import { runCheckers } from "../checkers/run-all.js";
import { CHECKERS, checkerByName } from "../checkers/index.js";
import type { CheckContext } from "../checkers/types.js";
import { checkContextFor } from "../harness/check-context.js";
import { reportTarget } from "./targets.js";

const gc = (globalThis as { gc?: () => void }).gc;
const heapMb = (): number => {
  gc?.();
  return process.memoryUsage().heapUsed / (1024 * 1024);
};

function retained(name: string, s: Scenario): string {
  const before = heapMb();
  const t0 = performance.now();
  const run = runScenario(s, 1);
  const wallS = (performance.now() - t0) / 1000;
  const mb = heapMb() - before;
  const events = run.history.length;
  const row = `${name.padEnd(34)} ${String(events).padStart(9)} ${mb.toFixed(1).padStart(9)} ${((mb * 1024 * 1024) / Math.max(1, events)).toFixed(0).padStart(10)} ${wallS.toFixed(1).padStart(7)}`;
  void run.history.length; // held until here, so the GC above could not take it
  return row;
}

const MARKS_MIN = [1, 5, 10] as const;

/**
 * Live heap over the pre-run heap when the run first records an event at or past each
 * mark (sampled from inside the history sink: the run is mid-way, its state all live).
 */
function liveHeapAtMarks(s: Scenario, opts: (onEvent: (e: HistoryEvent) => void) => RunOptions): { mbAt: number[]; events: number; wallS: number } {
  const before = heapMb();
  const mbAt: number[] = [];
  let next = 0;
  let events = 0;
  const onEvent = (e: HistoryEvent): void => {
    events++;
    if (next < MARKS_MIN.length && e.timeUs >= MARKS_MIN[next]! * 60_000_000) {
      mbAt.push(heapMb() - before);
      next++;
    }
  };
  const t0 = performance.now();
  const run = runScenario(s, 1, {}, opts(onEvent));
  const wallS = (performance.now() - t0) / 1000;
  // The last mark is the run's end (its drain adds no events): sampled with the output held.
  while (mbAt.length < MARKS_MIN.length) mbAt.push(heapMb() - before);
  void run.history.length;
  return { mbAt, events, wallS };
}

function marksRow(name: string, r: { mbAt: number[]; events: number; wallS: number }): string {
  return `${name.padEnd(34)} ${r.mbAt.map((mb) => mb.toFixed(1).padStart(8)).join(" ")} ${String(r.events).padStart(9)} ${r.wallS.toFixed(1).padStart(7)}`;
}

export async function main(): Promise<void> {
  console.log(`== memory: heap retained by a run's output (history + meta), seed 1${gc ? "" : " (no --expose-gc: deltas without a forced GC, noisy)"} ==`);
  console.log("run                                   events  heap MB  bytes/ev  wall s");
  const base = loadScenario("naive-baseline");
  // One unmeasured run first: code loaded at first use (fengari for the Lua scripts,
  // services/redis/lua.ts) would otherwise count as retained by the first measured run.
  void runScenario(base, 1).history.length;
  // Runs of a few hundred events are below the heap's noise; naive-baseline has ~20k.
  console.log(retained("naive-baseline (30 s, 3 clients)", base));
  const clients = Array.from({ length: 10 }, (_, i) => ({ id: `c${i + 1}`, startMs: 0 }));
  const long: Scenario = { ...base, name: "naive-baseline-10min-10c", durationMs: 600_000, clients };
  console.log(retained("naive-baseline, 10 min, 10 clients", long));

  console.log("");
  console.log("== memory: live heap during a 10-client naive-baseline run, MB over the heap before it, seed 1 ==");
  console.log(`history                              ${MARKS_MIN.map((m) => `${m} min`.padStart(8)).join(" ")}    events  wall s`);
  const retainedRow = liveHeapAtMarks(long, (onEvent) => ({ historySink: onEvent }));
  console.log(marksRow("retained in memory", retainedRow));
  /** The run streamed to JSONL (each chunk to `write`), keeping `retainHistory` of it. */
  const streamedRun = (retainHistory: RunOptions["retainHistory"], write: (chunk: string) => void) =>
    liveHeapAtMarks(long, (onEvent) => {
      const stream = new JsonlHistoryStream(write);
      return {
        retainHistory,
        historySink: (e) => {
          stream.push(e);
          onEvent(e);
        },
      };
    });
  let chars = 0;
  const streamed = streamedRun(false, (chunk) => (chars += chunk.length));
  console.log(marksRow("streamed as JSONL, none retained", streamed));
  const keep = keptForCheckers(long.clients.map((c) => c.id));
  const checked = streamedRun(keep, () => {});
  console.log(marksRow("streamed, checkers' events kept", checked));
  console.log(`(streamed: ${(chars / (1024 * 1024)).toFixed(1)} MB of JSONL through a 64 KiB buffer)`);
  const mbList = (r: { mbAt: number[] }): string => r.mbAt.map((mb) => mb.toFixed(1)).join(" / ");
  reportTarget(
    `: a 10-minute 10-client run in bounded memory: live heap at ${MARKS_MIN.join(" / ")} sim min, history streamed ${mbList(streamed)} MB, beside history retained ${mbList(retainedRow)} MB; ` +
      `checking still keeps the checkers' events (${mbList(checked)} MB)`,
  );

  // What is not yet bounded: the checkers' own working memory over the whole history
  // (max RSS is a high-water mark, so this counts only what checking adds above the runs).
  const history = runScenario(long, 1, {}, { retainHistory: keep }).history;
  const heapBeforeMb = heapMb();
  const rssBeforeMb = process.resourceUsage().maxRSS / 1024;
  const t0 = performance.now();
  const peak = peakHeapMbOf(() => runCheckers(history, checkContextFor(long)));
  console.log(
    `checking the 10-min run's kept events (${history.length}): peak heap +${(peak.peakMb - heapBeforeMb).toFixed(0)} MB, max RSS +${(process.resourceUsage().maxRSS / 1024 - rssBeforeMb).toFixed(0)} MB, ${((performance.now() - t0) / 1000).toFixed(1)} s, outcome ${peak.result.outcome}`,
  );

  printEachCheckerAlone(history, long);
}

/** Each checker on the run's kept events in a fresh process of its own: its peak heap and max RSS alone. */
function printEachCheckerAlone(history: HistoryEvent[], long: Scenario): void {
  console.log("");
  console.log("== memory: each checker alone on the 10-min run's kept events, in a fresh process ==");
  console.log("checker                  peak heap +MB  max RSS +MB  time s  verdict");
  const dir = mkdtempSync(join(tmpdir(), "lockstep-memory-"));
  try {
    const file = join(dir, "history.v8");
    writeFileSync(file, serialize({ history, ctx: checkContextFor(long) }));
    const self = fileURLToPath(import.meta.url);
    for (const c of CHECKERS) {
      const out = execFileSync(process.execPath, ["--expose-gc", self, ONE_CHECKER_FLAG, c.name, file], { encoding: "utf8", maxBuffer: 1 << 20 });
      const r = JSON.parse(out.trim().split("\n").pop()!) as OneChecker;
      console.log(
        `${c.name.padEnd(24)} ${r.peakHeapMb.toFixed(1).padStart(13)} ${r.maxRssMb.toFixed(0).padStart(12)} ${r.wallS.toFixed(2).padStart(7)}  ${String(r.valid)}`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const ONE_CHECKER_FLAG = "--one-checker";

/** `f`'s result and the peak heap in use while it ran (just before each GC, and at its end), MB. */
function peakHeapMbOf<T>(f: () => T): { result: T; peakMb: number } {
  const profiler = new GCProfiler();
  profiler.start();
  const result = f();
  const endBytes = process.memoryUsage().heapUsed;
  const gcs = profiler.stop()?.statistics ?? [];
  const peakBytes = gcs.reduce((m, g) => Math.max(m, g.beforeGC.heapStatistics.usedHeapSize), endBytes);
  return { result, peakMb: peakBytes / (1024 * 1024) };
}

interface OneChecker {
  /** Peak heap in use during the check (sampled before each GC, and at its end) over the heap before it, MB. */
  peakHeapMb: number;
  /** Max RSS over the RSS before the check (history loaded, after a full GC), MB. */
  maxRssMb: number;
  wallS: number;
  valid: unknown;
}

/** The child of section 4: one checker on the history in `file`; prints one JSON line. */
function oneChecker(name: string, file: string): void {
  const { history, ctx } = deserialize(readFileSync(file)) as { history: HistoryEvent[]; ctx: CheckContext };
  const c = checkerByName(name);
  if (!c) throw new Error(`no checker named ${name}`);
  const heapBeforeMb = heapMb();
  const rssBeforeMb = process.memoryUsage().rss / (1024 * 1024);
  const t0 = performance.now();
  const { result: r, peakMb } = peakHeapMbOf(() => c.check(history, ctx));
  const wallS = (performance.now() - t0) / 1000;
  const peakHeapMb = peakMb - heapBeforeMb;
  const maxRssMb = Math.max(0, process.resourceUsage().maxRSS / 1024 - rssBeforeMb);
  const line: OneChecker = { peakHeapMb, maxRssMb, wallS, valid: r.valid };
  console.log(JSON.stringify(line));
  void history.length;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href && process.argv[2] === ONE_CHECKER_FLAG) {
  oneChecker(process.argv[3]!, process.argv[4]!);
} else if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((e: unknown) => {
    console.error(e);
    process.exitCode = 1;
  });
}
