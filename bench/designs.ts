/**
 * Simulated seconds per wall second of each registered design on its baseline
 * scenario (the one `lockstep explore` varies), simulator only, no checkers.
 *
 * Run: npm run bench (all benches) or npx tsx bench/designs.ts
 */
import { pathToFileURL } from "node:url";
import { allScenarios } from "../scenarios/index.js";
import { DESIGNS } from "../designs/index.js";
import { pickBase } from "../harness/explore/base.js";
import { measureScenario } from "./kernel.js";

export interface DesignRow {
  design: string;
  scenario: string;
  runs: number;
  wallMs: number;
  simSPerWallS: number;
  eventsPerS: number;
}

export async function main(wallMsMin = 1000): Promise<DesignRow[]> {
  console.log("== designs: simulated s per wall s on each design's baseline scenario ==");
  const scenarios = allScenarios();
  const rows: DesignRow[] = [];
  for (const d of DESIGNS) {
    let base;
    try {
      base = pickBase(d.name, scenarios);
    } catch {
      console.log(`${d.name}: no scenario uses it, skipped`);
      continue;
    }
    const m = measureScenario(base, wallMsMin, 2);
    rows.push({ design: d.name, scenario: base.name, runs: m.runs, wallMs: m.wallMs, simSPerWallS: m.simSPerWallS, eventsPerS: m.eventsPerS });
  }
  console.log("design          baseline scenario              runs  wall ms  sim s/wall s   events/s");
  for (const r of rows) {
    console.log(
      `${r.design.padEnd(15)} ${r.scenario.padEnd(30)} ${String(r.runs).padStart(5)} ${String(r.wallMs).padStart(8)} ${String(r.simSPerWallS).padStart(13)} ${String(r.eventsPerS).padStart(10)}`,
    );
  }
  return rows;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((e: unknown) => {
    console.error(e);
    process.exitCode = 1;
  });
}
