import { readdirSync, readFileSync, existsSync, statSync } from "node:fs";
import { basename, join, relative } from "node:path";
import { scenarioFromAttackFile } from "./attack-file.js";
import { InputError } from "../sim/errors.js";
import { packageRoot } from "../sim/paths.js";
import { checkJsonDepth } from "../sim/json-depth.js";
import { didYouMean } from "../sim/suggest.js";
import { parseScenario, type Scenario } from "./schema.js";
import { withLibrary } from "./with-library.js";

/**
 * The scenario registry: every `scenarios/**\/*.json` file, by name (its file name
 * without .json, which must equal its `name` field). A path to a JSON file
 * elsewhere also works, so users can keep their own scenarios.
 */
export function scenarioDir(): string {
  return join(packageRoot(), "scenarios");
}

function listFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir).sort()) {
    const p = join(dir, entry);
    if (statSync(p).isDirectory()) out.push(...listFiles(p));
    else if (entry.endsWith(".json")) out.push(p);
  }
  return out;
}

export function scenarioFiles(): Map<string, string> {
  const m = new Map<string, string>();
  for (const f of listFiles(scenarioDir())) m.set(basename(f, ".json"), f);
  return m;
}

export function loadScenarioFile(path: string, displayName = path): Scenario {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    throw new InputError(displayName, "(file)", "expected a readable scenario file");
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new InputError(displayName, "(file)", `expected valid JSON (${(e as Error).message})`);
  }
  checkJsonDepth(raw, displayName);
  if (raw !== null && typeof raw === "object" && !Array.isArray(raw) && "attack" in raw)
    raw = scenarioFromAttackFile(raw as Record<string, unknown>, displayName);
  return parseScenario(raw, displayName);
}

/**
 * Load by registered name or by path; `<scenario>@<adapter>` runs it on a real lock
 * library (scenarios/with-library.ts).
 */
export function loadScenario(nameOrPath: string): Scenario {
  const at = nameOrPath.indexOf("@", 1);
  if (at > 0 && !existsSync(nameOrPath)) {
    return withLibrary(loadScenario(nameOrPath.slice(0, at)), nameOrPath.slice(at + 1), `--lock (or the adapter after "@" in "${nameOrPath}")`);
  }
  if (nameOrPath.endsWith(".json") || nameOrPath.includes("/")) {
    if (!existsSync(nameOrPath)) throw new InputError(nameOrPath, "(file)", "no such scenario file");
    return loadScenarioFile(nameOrPath);
  }
  const files = scenarioFiles();
  const file = files.get(nameOrPath);
  if (!file) {
    // The nearest few, not all of them: a list of 79 names hides the one you meant.
    throw new InputError(
      "<arg>",
      "scenario",
      `unknown scenario "${nameOrPath}"; ${didYouMean(nameOrPath, [...files.keys()])}\`lockstep list\` names all ${files.size}`,
    );
  }
  const display = relative(packageRoot(), file);
  const s = loadScenarioFile(file, display);
  if (s.name !== nameOrPath) throw new InputError(display, "name", `expected "${nameOrPath}" (the file's name)`);
  return s;
}

export function allScenarios(): Scenario[] {
  return [...scenarioFiles().keys()].map(loadScenario);
}
