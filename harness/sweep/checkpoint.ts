import type { RunAvailability } from "../../reports/availability.js";
import { parseAvailabilityCounts } from "./summary-read.js";
import { closeSync, existsSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { InputError } from "../../sim/errors.js";
import { Fields } from "../../sim/validate.js";
import { OUTCOMES } from "./summary.js";
import type { SeedResult } from "./run-seed.js";
import type { Shard } from "./range.js";
import type { Verdict } from "../../checkers/types.js";
import { writeTextSafe } from "../safe-write.js";

/**
 * A sweep's progress on disk: `<out>/progress.jsonl`, a header line naming the sweep,
 * then one line per finished seed, appended as each chunk of seeds finishes. A sweep
 * stopped any way (Ctrl-C, SIGKILL, a power cut) is resumed from it with --resume;
 * a line cut short by a kill is the last one and is dropped (that seed runs again).
 * A finished sweep removes it: summary.json is then the whole result.
 */
export const PROGRESS_FORMAT = "lockstep-sweep-progress/1";
export const PROGRESS_FILE = "progress.jsonl";

export interface ProgressHeader {
  format: typeof PROGRESS_FORMAT;
  lockstep: string;
  scenario: { name: string; digest: string };
  seeds: { from: number; to: number };
  shard: { index: number; count: number };
}

export function progressPath(outDir: string): string {
  return join(outDir, PROGRESS_FILE);
}

export class Checkpoint {
  /** Opened at the first append and kept (an append by path opened and closed the file per chunk). */
  private fd: number | undefined;

  private constructor(
    readonly path: string,
    readonly done: SeedResult[],
  ) {}

  /** Start a new progress file (refusing to discard one a resume could use). */
  static start(outDir: string, header: ProgressHeader): Checkpoint {
    const path = progressPath(outDir);
    if (existsSync(path)) {
      throw new InputError(path, "--out", "expected no unfinished sweep here; this directory holds one: add --resume to continue it, or choose another --out");
    }
    writeTextSafe(path, JSON.stringify(header) + "\n");
    return new Checkpoint(path, []);
  }

  /** Read the progress of the same sweep, and rewrite it without a line cut short. */
  static resume(outDir: string, header: ProgressHeader, shard: Shard): Checkpoint {
    const path = progressPath(outDir);
    let text: string;
    try {
      text = readFileSync(path, "utf8");
    } catch {
      throw new InputError(path, "--resume", "expected the progress.jsonl of an interrupted sweep in --out; there is none (run without --resume to start)");
    }
    const lines = text.split("\n");
    // The last piece has no newline after it: empty, or a line a kill cut short.
    lines.pop();
    if (lines.length === 0) throw new InputError(path, "line 1", `expected a "${PROGRESS_FORMAT}" header line`);
    checkHeader(path, lines[0]!, header);
    const seen = new Set<number>();
    const done = lines.slice(1).map((line, i) => {
      const r = parseSeedLine(path, i + 2, line, header);
      if (!inShard(r.seed, shard))
        throw new InputError(path, `line ${i + 2}: seed`, `expected a seed of shard ${shard.index}/${shard.count} (${shard.from}..${shard.to}), got ${r.seed}`);
      if (seen.has(r.seed)) throw new InputError(path, `line ${i + 2}: seed`, `expected each seed once, got ${r.seed} again`);
      seen.add(r.seed);
      return r;
    });
    writeTextSafe(path, lines.map((l) => l + "\n").join(""));
    return new Checkpoint(path, done);
  }

  append(results: readonly SeedResult[]): void {
    if (results.length === 0) return;
    this.fd ??= openSync(this.path, "a");
    let text = "";
    for (const r of results) text += JSON.stringify(r) + "\n";
    // Written whole before the next chunk is read: a kill leaves at most the last line cut short.
    const buf = Buffer.from(text, "utf8");
    for (let at = 0; at < buf.length;) at += writeSync(this.fd, buf, at);
  }

  /** Done appending (the sweep ended, however it ended). */
  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}

/** The sweep finished and its summary is written: its progress is no longer needed. */
export function removeProgress(outDir: string): void {
  rmSync(progressPath(outDir), { force: true });
}

function parseJsonLine(path: string, n: number, line: string): unknown {
  try {
    return JSON.parse(line);
  } catch (e) {
    throw new InputError(path, `line ${n}`, `expected one JSON value per line (${(e as Error).message})`);
  }
}

function checkHeader(path: string, line: string, want: ProgressHeader): void {
  const f = Fields.root(path, parseJsonLine(path, 1, line), "line 1");
  if (f.obj.format !== PROGRESS_FORMAT) f.fail("format", `expected "${PROGRESS_FORMAT}"`);
  const same = (name: string, got: unknown, wanted: unknown, what: string): void => {
    if (JSON.stringify(got) !== JSON.stringify(wanted)) {
      throw new InputError(
        path,
        `line 1: ${name}`,
        `expected ${JSON.stringify(wanted)} (${what}), got ${JSON.stringify(got)}; resume with the flags the sweep was started with, or choose another --out`,
      );
    }
  };
  const scenario = f.obj.scenario as Record<string, unknown> | undefined;
  same("scenario.name", scenario?.name, want.scenario.name, "the scenario being swept");
  same("scenario.digest", scenario?.digest, want.scenario.digest, "the scenario's content, which has changed since");
  same("seeds", f.obj.seeds, want.seeds, "--seeds");
  same("shard", f.obj.shard, want.shard, "--shard");
  same("lockstep", f.obj.lockstep, want.lockstep, "the lockstep version, whose results may differ");
}

const VERDICT = (f: Fields, name: string): Verdict => {
  const v = f.obj[name];
  if (v !== true && v !== false && v !== "unknown") f.fail(name, 'expected true, false or "unknown"');
  return v as Verdict;
};

/** A list of names of checkers the line judged (its `checkers`). */
function checkerNames(f: Fields, field: string, checkers: Record<string, Verdict>): string[] {
  return f.array(field).map((x, i) => {
    if (typeof x !== "string" || !(x in checkers)) f.fail(`${field}[${i}]`, `expected one of the line's checkers (${Object.keys(checkers).join(", ")})`);
    return x as string;
  });
}

function parseSeedLine(path: string, n: number, line: string, h: ProgressHeader): SeedResult {
  const f = Fields.root(path, parseJsonLine(path, n, line), `line ${n}`).only([
    "seed",
    "outcome",
    "safety",
    "liveness",
    "valid",
    "checkers",
    "notApplicable",
    "expectationMet",
    "eventsRun",
    "endUs",
    "availability",
  ]);
  const seed = f.number("seed", { integer: true, min: h.seeds.from, max: h.seeds.to });
  const cf = f.object("checkers");
  const checkers: Record<string, Verdict> = {};
  for (const name of Object.keys(cf.obj)) checkers[name] = VERDICT(cf, name);
  const notApplicable = f.has("notApplicable") ? checkerNames(f, "notApplicable", checkers) : [];
  return {
    seed,
    outcome: f.oneOf("outcome", OUTCOMES),
    safety: VERDICT(f, "safety"),
    liveness: VERDICT(f, "liveness"),
    valid: VERDICT(f, "valid"),
    checkers,
    ...(notApplicable.length > 0 ? { notApplicable } : {}),
    expectationMet: f.boolean("expectationMet"),
    eventsRun: f.number("eventsRun", { integer: true, min: 0, max: Number.MAX_SAFE_INTEGER }),
    endUs: f.number("endUs", { min: 0, max: Number.MAX_SAFE_INTEGER }),
    availability: parseRunAvailability(f.object("availability")),
  };
}

function parseRunAvailability(f: Fields): RunAvailability {
  f.only(["grants", "failedAcquires", "idleWhileWaitingUs", "challenged"]);
  return { ...parseAvailabilityCounts(f), challenged: f.boolean("challenged") };
}

/** Whether a seed belongs to the shard (a checkpoint line from elsewhere is refused). */
export function inShard(seed: number, s: Shard): boolean {
  return seed >= s.from && seed <= s.to;
}
