import { readFileSync } from "node:fs";
import { join } from "node:path";
import { dataBlock, page } from "../reports/html.js";
import { DEBATE } from "../reports/debate-claims.js";
import { scenarioFiles } from "../scenarios/index.js";
import { DESIGNS, designByName } from "../designs/index.js";
import { packageRoot } from "../sim/paths.js";
import { writeFilesSafe, checkOutputDir, type SafeWriteOptions } from "../harness/safe-write.js";
import { buildPlaygroundScript } from "./build.js";
import { PLAYGROUND_STYLE, playgroundBody } from "./layout.js";
import type { PlaygroundData, PlaygroundScenario, RawScenario } from "./play.js";

/** A real lock library needs Node (npm code in node:vm realms), so its design is not in the playground. */
const inBrowser = (design: string): boolean => designByName(design)?.runs !== "adapter";

/**
 * The scenarios the playground offers: the debate's first (each claim's), then every
 * other built-in scenario on a simulated design. A scenario with a random nemesis is
 * left out: its faults are drawn by fast-check, which the page does not carry.
 */
export function playgroundData(): PlaygroundData {
  const claimsOf = new Map<string, PlaygroundScenario["claims"]>();
  for (const round of DEBATE)
    for (const c of round.claims)
      for (const t of c.tests) claimsOf.set(t.scenario, [...(claimsOf.get(t.scenario) ?? []), { id: c.id, who: c.who, claim: c.claim }]);
  const root = packageRoot();
  const scenarios: PlaygroundScenario[] = [];
  for (const [name, path] of scenarioFiles()) {
    const raw = JSON.parse(readFileSync(path, "utf8")) as RawScenario;
    if (!inBrowser(raw.design) || raw.nemesis !== undefined) continue;
    scenarios.push({
      name,
      file: path
        .slice(root.length + 1)
        .split("\\")
        .join("/"),
      raw,
      claims: claimsOf.get(name) ?? [],
    });
  }
  scenarios.sort((a, b) => Number(b.claims.length > 0) - Number(a.claims.length > 0) || a.name.localeCompare(b.name));
  return { scenarios, designs: DESIGNS.map((d) => d.name).filter(inBrowser) };
}

/** The page: the editor's markup, the scenarios as data, and the one bundled script. */
export async function renderPlayground(): Promise<string> {
  return page({
    title: "lockstep playground: change the fault, watch the verdict",
    style: PLAYGROUND_STYLE,
    body: playgroundBody() + "\n" + dataBlock("playground-data", playgroundData()),
    scripts: [await buildPlaygroundScript()],
    csp: PLAYGROUND_CSP,
  });
}

/** As the reports' CSP (no network at all), plus the report frame, which is inline (srcdoc). */
const PLAYGROUND_CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; frame-src 'self' about:";

/** Writes DIR/index.html; returns its path. */
export async function writePlayground(dir: string, o: SafeWriteOptions = {}): Promise<string> {
  checkOutputDir(dir, o.flag);
  const path = join(dir, "index.html");
  const text = await renderPlayground();
  writeFilesSafe([{ path, text }], o);
  return path;
}
