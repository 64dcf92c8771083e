/**
 * Runs every module of the escape corpus (test/sandbox/corpus/) twice as a library run
 * and prints one JSON line per module: its expectation and, per run, the history's
 * digest or the stop's error. escape-corpus.test.ts runs this in two child processes
 * with different time zones, locales and install folders, and compares. A module
 * expected to stop runs once (a hang costs the watchdog's bound).
 *
 * Run: npx tsx test/sandbox/corpus-runner.ts [install folder]
 * With an install folder, the adapter, its helpers and the corpus are copied there
 * first (symlinks kept), and the probes run from the copy.
 */
import { createHash } from "node:crypto";
import { cpSync, mkdirSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseScenario } from "../../scenarios/schema.js";
import { runScenario } from "../../harness/runner.js";
import { historyToJsonl } from "../../sim/history.js";

const HERE = dirname(fileURLToPath(import.meta.url));
export const CORPUS_DIR = join(HERE, "corpus");
/** The watchdog's bound for the hang-* probes, ms. */
const HANG_PROBE_WATCHDOG_MS = "2000";

export type CorpusRun = { digest: string; sample: string } | { stop: string; error: string };
export interface CorpusLine {
  module: string;
  expect: "same" | { stop: string };
  runs: CorpusRun[];
}

/** The files an install of the corpus holds: the adapter, its helpers and the probes. */
const INSTALL_FILES = ["corpus-adapter.cjs", "corpus-reach.cjs", "corpus-spy.cjs", "corpus-exercise.cjs", "corpus"];

/** Copy the corpus into `folder` (an install of it); its directory. */
export function installCorpus(folder: string): string {
  mkdirSync(folder, { recursive: true });
  for (const f of INSTALL_FILES) cpSync(join(HERE, f), join(folder, f), { recursive: true, verbatimSymlinks: true });
  return folder;
}

/** A scenario running `probe` (a path relative to the adapter's folder) through the corpus adapter in `installDir`. */
export function corpusScenario(probe: string, installDir = HERE): unknown {
  return {
    name: "escape-corpus",
    title: "escape corpus probe",
    story: "One probe module of the escape corpus, run as a library adapter.",
    design: "library",
    expect: "safe",
    seed: 1,
    durationMs: 400,
    clients: 2,
    workload: { locks: ["k"], ttlMs: 1000, waitMs: 100, workMs: 5, thinkMs: 50, thinkJitterMs: 20 },
    designOptions: { adapter: join(installDir, "corpus-adapter.cjs"), options: { probe } },
  };
}

function runOnce(probe: string, installDir: string): CorpusRun {
  const s = parseScenario(corpusScenario(probe, installDir), "escape-corpus.json");
  try {
    const history = historyToJsonl(runScenario(s, 1).history);
    const probeLine = history.split("\n").find((l) => l.includes("probe ")) ?? "";
    return { digest: createHash("sha256").update(history).digest("hex"), sample: probeLine.slice(0, 400) };
  } catch (e) {
    return { stop: String((e as Error).message), error: String((e as Error).name) };
  }
}

export function runCorpus(installDir = HERE): CorpusLine[] {
  const req = createRequire(import.meta.url);
  return readdirSync(CORPUS_DIR)
    .filter((f) => f.endsWith(".cjs"))
    .sort()
    .map((f) => {
      const { expect } = req(join(CORPUS_DIR, f)) as { expect: CorpusLine["expect"] };
      const probe = `./corpus/${f}`;
      // A hang costs the watchdog's bound: short for the probes that hang, the default for the rest.
      process.env.LOCKSTEP_WATCHDOG_MS = f.startsWith("hang-") ? HANG_PROBE_WATCHDOG_MS : "";
      const runs = [runOnce(probe, installDir)];
      if (expect === "same") runs.push(runOnce(probe, installDir));
      return { module: f, expect, runs };
    });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const installDir = process.argv[2] ? installCorpus(process.argv[2]) : HERE;
  for (const line of runCorpus(installDir)) process.stdout.write(JSON.stringify(line) + "\n");
}
