import type { SweepAvailability } from "../../reports/availability.js";
import { readFileSync } from "node:fs";
import { InputError } from "../../sim/errors.js";
import { Fields } from "../../sim/validate.js";
import { checkJsonDepth } from "../../sim/json-depth.js";
import { EXPECTATIONS } from "../../scenarios/schema.js";
import { OUTCOMES, type RateCi, type SweepSummary } from "./summary.js";
import { rangeSize, shardOf, type Shard } from "./range.js";
import type { Outcome } from "../../checkers/run-all.js";

export const SUMMARY_FORMAT = "lockstep-sweep-summary/1";
const SEED = { integer: true, min: 0, max: Number.MAX_SAFE_INTEGER } as const;

/**
 * Read a summary.json for `lockstep merge`, checking every field it uses the way the
 * scenario validator checks a scenario: types, bounds, and the sums that must hold
 * (outcomes add up to runs, shards are the sweep's own slices and hold its runs, the
 * listed seeds lie in them in order). A corrupt or hand-edited summary is refused
 * naming its file and field, never merged into a plausible-looking result.
 */
export function readSummaryFile(file: string): SweepSummary {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? "unreadable";
    throw new InputError(file, "(file)", `expected a readable summary.json written by \`lockstep sweep\` (${code})`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new InputError(file, "(file)", `expected a summary.json written by \`lockstep sweep\`, valid JSON (${(e as Error).message})`);
  }
  checkJsonDepth(raw, file);
  return parseSummary(raw, file);
}

const SUMMARY_FIELDS = [
  "format",
  "lockstep",
  "scenario",
  "seeds",
  "runs",
  "complete",
  "partial",
  "resume",
  "safety",
  "liveness",
  "checkers",
  "outcomes",
  "expected",
  "failingSeeds",
  "unexpectedSeeds",
  "replay",
  "shards",
  "execution",
  "availability",
];

export function parseSummary(raw: unknown, file: string): SweepSummary {
  const f = Fields.root(file, raw);
  if (f.obj.format !== SUMMARY_FORMAT) f.fail("format", `expected "${SUMMARY_FORMAT}" (a summary.json written by \`lockstep sweep\`)`);
  f.only(SUMMARY_FIELDS);
  if (f.has("partial")) {
    const resume = typeof f.obj.resume === "string" ? `; finish it first: ${f.obj.resume}` : "";
    throw new InputError(file, "partial", `expected a finished sweep, not one interrupted part-way${resume}`);
  }
  const lf = f.object("lockstep").only(["version"]);
  const lockstep = { version: lf.string("version") };
  const scenario = parseScenarioRef(f.object("scenario"));
  const { seeds, shards, runs, complete } = parseCoverage(f);
  const inShards = (seed: number): boolean => shards.some((s) => seed >= s.from && seed <= s.to);

  const rate = (name: string, from: Fields = f): RateCi => parseRate(from.object(name), runs);
  const safety = rate("safety");
  const liveness = rate("liveness");
  const checkers = parseCheckerRates(f.object("checkers"), runs);
  const outcomes = parseOutcomes(f.object("outcomes"), runs);

  const expected = parseExpected(f, runs, scenario);

  const failingSeeds = parseSeedList(f.object("failingSeeds"), runs, inShards);
  const unexpectedSeeds = parseSeedList(f.object("unexpectedSeeds"), runs, inShards);
  if (unexpectedSeeds.count !== runs - expected.matched) {
    throw new InputError(file, "unexpectedSeeds.count", `expected ${runs - expected.matched} (runs less expected.matched), got ${unexpectedSeeds.count}`);
  }
  const replay = f.optString("replay");
  const replayWanted = failingSeeds.count > 0 || unexpectedSeeds.count > 0;
  if (replayWanted && replay === undefined) f.fail("replay", "expected the replay command of the first failing (or unexpected) seed");
  if (!replayWanted && replay !== undefined) f.fail("replay", "expected none: no seed failed or differed from the expected verdict");

  const execution = parseExecution(f.object("execution"));

  const availability = f.has("availability") ? parseAvailability(f.object("availability"), runs) : undefined;

  return {
    format: SUMMARY_FORMAT,
    lockstep,
    scenario,
    seeds,
    runs,
    complete,
    safety,
    liveness,
    checkers,
    outcomes,
    expected,
    failingSeeds,
    unexpectedSeeds,
    ...(replay !== undefined ? { replay } : {}),
    shards,
    execution,
    ...(availability !== undefined ? { availability } : {}),
  };
}

/** The seed range, its shards, and how many of its seeds ran: each consistent with the others. */
function parseCoverage(f: Fields): Pick<SweepSummary, "seeds" | "shards" | "runs" | "complete"> {
  const rf = f.object("seeds").only(["from", "to"]);
  const seeds = { from: rf.number("from", SEED), to: rf.number("to", SEED) };
  if (seeds.to < seeds.from) rf.fail("to", `expected at least seeds.from (${seeds.from})`);
  const size = rangeSize(seeds);

  const shards = f.array("shards").map((x, i) => parseShard(f.item("shards", i, x), seeds));
  if (shards.length === 0) f.fail("shards", "expected at least one shard");
  const shardRuns = shards.reduce((n, s) => n + rangeSize(s), 0);
  const runs = f.number("runs", { integer: true, min: 0, max: size });
  if (runs !== shardRuns) f.fail("runs", `expected ${shardRuns} (the seeds of its shards)`);
  const complete = f.boolean("complete");
  if (complete !== (runs === size)) f.fail("complete", `expected ${runs === size} (${runs} of the range's ${size} seeds)`);
  return { seeds, shards, runs, complete };
}

function parseExpected(f: Fields, runs: number, scenario: SweepSummary["scenario"]): SweepSummary["expected"] {
  const ef = f.object("expected").only(["verdict", "matched", "rate"]);
  const expected = {
    verdict: ef.oneOf("verdict", EXPECTATIONS),
    matched: ef.number("matched", { integer: true, min: 0, max: runs }),
    rate: ef.number("rate", { min: 0, max: 1 }),
  };
  if (expected.verdict !== scenario.expect) ef.fail("verdict", `expected "${scenario.expect}" (scenario.expect)`);
  return expected;
}

function parseScenarioRef(sf: Fields): SweepSummary["scenario"] {
  sf.only(["name", "file", "design", "expect", "digest"]);
  const scenario = {
    name: sf.string("name"),
    file: sf.string("file"),
    design: sf.string("design"),
    expect: sf.oneOf("expect", EXPECTATIONS),
    digest: sf.string("digest"),
  };
  if (!/^[0-9a-f]{16}$/.test(scenario.digest)) sf.fail("digest", "expected 16 hex digits");
  return scenario;
}

function parseCheckerRates(cf: Fields, runs: number): Record<string, RateCi> {
  const checkers: Record<string, RateCi> = {};
  for (const name of Object.keys(cf.obj)) {
    if (!/^[a-z][a-z0-9-]*$/.test(name)) throw new InputError(cf.file, cf.field(name), "expected a checker name (lower-case letters, digits, dashes)");
    checkers[name] = parseRate(cf.object(name), runs);
  }
  return checkers;
}

function parseOutcomes(of: Fields, runs: number): Partial<Record<Outcome, number>> {
  of.only(OUTCOMES);
  const outcomes: Partial<Record<Outcome, number>> = {};
  for (const o of OUTCOMES) if (of.has(o)) outcomes[o] = of.number(o, { integer: true, min: 1, max: runs });
  const outcomeSum = Object.values(outcomes).reduce((n, k) => n + k, 0);
  if (outcomeSum !== runs) throw new InputError(of.file, of.path, `expected counts adding up to runs (${runs}), got ${outcomeSum}`);
  return outcomes;
}

/** failingSeeds / unexpectedSeeds: a count, the first `limit` seeds in order, each in a shard. */
function parseSeedList(lf: Fields, runs: number, inShards: (seed: number) => boolean): SweepSummary["failingSeeds"] {
  const file = lf.file;
  lf.only(["count", "first", "limit"]);
  const count = lf.number("count", { integer: true, min: 0, max: runs });
  const limit = lf.number("limit", { integer: true, min: 1, max: Number.MAX_SAFE_INTEGER });
  const first = lf.array("first").map((x, i) => {
    if (typeof x !== "number" || !Number.isSafeInteger(x) || x < 0)
      throw new InputError(file, `${lf.field("first")}[${i}]`, `expected a seed (an integer >= 0), got ${JSON.stringify(x)}`);
    return x;
  });
  const wanted = Math.min(count, limit);
  if (first.length !== wanted) lf.fail("first", `expected the first ${wanted} seed(s) (min of count and limit)`);
  first.forEach((seed, i) => {
    const at = `${lf.field("first")}[${i}]`;
    if (i > 0 && seed <= first[i - 1]!) throw new InputError(file, at, `expected seeds in increasing order, got ${seed} after ${first[i - 1]}`);
    if (!inShards(seed)) throw new InputError(file, at, `expected a seed of the summary's shards, got ${seed}`);
  });
  return { count, first, limit };
}

function parseExecution(xf: Fields): SweepSummary["execution"] {
  xf.only(["workers", "wallMs", "reports"]);
  const workers = xf.array("workers").map((x, i) => {
    if (typeof x !== "number" || !Number.isSafeInteger(x) || x < 1)
      throw new InputError(xf.file, `${xf.field("workers")}[${i}]`, `expected a positive integer, got ${JSON.stringify(x)}`);
    return x;
  });
  const wallMs = xf.number("wallMs", { min: 0 });
  const reports = xf.array("reports").map((x, i) => {
    const pf = xf.item("reports", i, x).only(["seed", "dir"]);
    return { seed: pf.number("seed", SEED), dir: pf.string("dir") };
  });
  return { workers, wallMs, reports };
}

/** Sums over the sweep's runs (reports/availability.ts); challenged runs are some of the runs. */
function parseAvailability(f: Fields, runs: number): SweepAvailability {
  f.only(["grants", "failedAcquires", "idleWhileWaitingUs", "challengedRuns"]);
  return { ...parseAvailabilityCounts(f), challengedRuns: f.number("challengedRuns", { integer: true, min: 0, max: runs }) };
}

/** The counts a run's and a sweep's availability share (the caller checks which other fields are allowed). */
export function parseAvailabilityCounts(f: Fields): Pick<SweepAvailability, "grants" | "failedAcquires" | "idleWhileWaitingUs"> {
  const count = { integer: true, min: 0, max: Number.MAX_SAFE_INTEGER };
  return {
    grants: f.number("grants", count),
    failedAcquires: f.number("failedAcquires", count),
    idleWhileWaitingUs: f.number("idleWhileWaitingUs", { min: 0, max: Number.MAX_SAFE_INTEGER }),
  };
}

/** A shard must be the very slice `--shard i/n` runs of the summary's range. */
function parseShard(f: Fields, seeds: { from: number; to: number }): Shard {
  f.only(["index", "count", "from", "to"]);
  // More shards than seeds is allowed (some slices are empty), as `--shard` allows it.
  const count = f.number("count", { integer: true, min: 1, max: Number.MAX_SAFE_INTEGER });
  const index = f.number("index", { integer: true, min: 1, max: count });
  const want = shardOf(seeds, index, count);
  const from = f.number("from", SEED);
  const to = f.number("to", SEED);
  if (from !== want.from || to !== want.to) {
    throw new InputError(
      f.file,
      f.path,
      `expected shard ${index}/${count} of seeds ${seeds.from}..${seeds.to} to cover ${want.from}..${want.to}, got ${from}..${to}`,
    );
  }
  return { index, count, from, to };
}

function parseRate(f: Fields, runs: number): RateCi {
  f.only(["violations", "unknown", "notApplicable", "rate", "ci95"]);
  const violations = f.number("violations", { integer: true, min: 0, max: runs });
  const unknown = f.number("unknown", { integer: true, min: 0, max: runs });
  const notApplicable = f.has("notApplicable") ? f.number("notApplicable", { integer: true, min: 1, max: runs }) : 0;
  // A run's verdict is a violation, unknown or n/a, one of them.
  if (violations + unknown + notApplicable > runs) f.fail("unknown", `expected at most ${runs - violations - notApplicable} (runs less violations and n/a)`);
  const rate = f.number("rate", { min: 0, max: 1 });
  const ci = f.array("ci95");
  const ok = ci.length === 2 && ci.every((x) => typeof x === "number" && x >= 0 && x <= 1) && (ci[0] as number) <= (ci[1] as number);
  if (!ok) f.fail("ci95", "expected [low, high] with 0 <= low <= high <= 1");
  return { violations, unknown, ...(notApplicable > 0 ? { notApplicable } : {}), rate, ci95: [ci[0] as number, ci[1] as number] };
}
