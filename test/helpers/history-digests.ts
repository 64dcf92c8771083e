/**
 * SHA-256 of every shipped scenario's history (JSONL bytes, as `lockstep run` writes
 * history.jsonl) for seeds 1–5: the byte-identical-history guard for speed work
 * (issue 17). test/sim/histories-golden.test.ts compares them with the committed
 * fixture; `npm run golden:update` rewrites it (only for a deliberate, named change).
 */
import { createHash } from "node:crypto";
import { writeFileSync, renameSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { loadScenario, scenarioFiles } from "../../scenarios/index.js";
import { runScenario } from "../../harness/runner.js";
import { historyToJsonl } from "../../sim/history.js";
import { packageRoot } from "../../sim/paths.js";

export const GOLDEN_SEEDS = [1, 2, 3, 4, 5] as const;

/** scenario name → seed (as a string key) → hex digest. */
export type DigestFixture = Record<string, Record<string, string>>;

export function fixturePath(): string {
  return join(packageRoot(), "test", "fixtures", "history-digests.json");
}

/** Every scenario of the registry, sorted by name (the registry's own order). */
export function shippedScenarioNames(): string[] {
  return [...scenarioFiles().keys()].sort();
}

/**
 * The seeds a loop over every shipped scenario runs `name` on: all of `seeds`, or the first
 * alone for a scenario at the scale the simulator is benchmarked on (scenarios/scale/:
 * 1000 clients, seconds a run where the others take milliseconds; the golden digests too,
 * which every engineer runs on every commit).
 */
export function seedsFor(name: string, seeds: readonly number[]): readonly number[] {
  return isScaleScenario(name) ? seeds.slice(0, 1) : seeds;
}

/** Whether `name` is one of scenarios/scale/: the simulator's benchmark runs. */
export function isScaleScenario(name: string): boolean {
  return /[/\\]scenarios[/\\]scale[/\\]/.test(scenarioFiles().get(name) ?? "");
}

export function historyDigest(name: string, seed: number): string {
  const jsonl = historyToJsonl(runScenario(loadScenario(name), seed).history);
  return createHash("sha256").update(jsonl).digest("hex");
}

export function scenarioDigests(name: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const seed of seedsFor(name, GOLDEN_SEEDS)) out[String(seed)] = historyDigest(name, seed);
  return out;
}

function writeFixture(): void {
  const fixture: DigestFixture = {};
  const started = performance.now();
  for (const name of shippedScenarioNames()) {
    const t0 = performance.now();
    fixture[name] = scenarioDigests(name);
    console.log(`${name.padEnd(48)} ${((performance.now() - t0) / 1000).toFixed(2)} s`);
  }
  // Whole file or nothing: a temporary file renamed over the old one.
  const path = fixturePath();
  writeFileSync(`${path}.tmp`, JSON.stringify(fixture, null, 2) + "\n");
  renameSync(`${path}.tmp`, path);
  console.log(
    `wrote ${path}: ${Object.keys(fixture).length} scenarios × seeds ${GOLDEN_SEEDS.join(",")} in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  writeFixture();
}
