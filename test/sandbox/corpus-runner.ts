/**
 * Runs every module of the escape corpus (test/sandbox/corpus/) twice as a library run
 * and prints one JSON line per module: its expectation and, per run, the history's
 * digest or the stop's error. escape-corpus.test.ts runs this in two child processes
 * with different time zones and locales and compares.
 *
 * Run: npx tsx test/sandbox/corpus-runner.ts
 */
import { createHash } from "node:crypto";
import { readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseScenario } from "../../scenarios/schema.js";
import { runScenario } from "../../harness/runner.js";
import { historyToJsonl } from "../../sim/history.js";

const HERE = dirname(fileURLToPath(import.meta.url));
export const CORPUS_DIR = join(HERE, "corpus");

export type CorpusRun = { digest: string; sample: string } | { stop: string; error: string };
export interface CorpusLine {
  module: string;
  expect: "same" | { stop: string };
  runs: CorpusRun[];
}

export function corpusScenario(probe: string): unknown {
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
    designOptions: { adapter: join(HERE, "corpus-adapter.cjs"), options: { probe } },
  };
}

function runOnce(file: string): CorpusRun {
  const s = parseScenario(corpusScenario(file), "escape-corpus.json");
  try {
    const history = historyToJsonl(runScenario(s, 1).history);
    const probeLine = history.split("\n").find((l) => l.includes("probe ")) ?? "";
    return { digest: createHash("sha256").update(history).digest("hex"), sample: probeLine.slice(0, 400) };
  } catch (e) {
    return { stop: String((e as Error).message), error: String((e as Error).name) };
  }
}

export function runCorpus(): CorpusLine[] {
  const req = createRequire(import.meta.url);
  return readdirSync(CORPUS_DIR)
    .filter((f) => f.endsWith(".cjs"))
    .sort()
    .map((f) => {
      const file = join(CORPUS_DIR, f);
      const { expect } = req(file) as { expect: CorpusLine["expect"] };
      return { module: f, expect, runs: [runOnce(file), runOnce(file)] };
    });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  for (const line of runCorpus()) process.stdout.write(JSON.stringify(line) + "\n");
}
