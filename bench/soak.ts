/**
 * A long run checked online (`lockstep run --duration`): naive-baseline with 10
 * clients for SOAK_HOURS (default 24) simulated hours, every checker judging the
 * streamed history (checkers/run-online.ts), nothing of it held but the report's tail.
 * Printed: the resident set at each tenth of the run and its peak (the process's max
 * RSS), the wall time, the events and the verdicts. Flat rows are bounded memory.
 * The soak runs in a child process, so its max RSS is its own.
 *
 * Run: npm run build && node dist/bench/soak.js   (SOAK_HOURS=2 for a shorter one)
 */
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { loadScenario } from "../scenarios/index.js";
import { parseScenario } from "../scenarios/schema.js";
import { runSoak } from "../harness/soak.js";
import { reportTarget } from "./targets.js";

const CLIENTS = 10;
const RSS_TARGET_MB = 200;

interface ChildReport {
  hours: number;
  wallS: number;
  peakRssMb: number;
  rssMbAt: Array<[number, number]>;
  events: number;
  outcome: string;
  results: Array<[string, unknown, string]>;
}

function child(hours: number): ChildReport {
  const base = loadScenario("naive-baseline");
  const raw = JSON.parse(JSON.stringify({ ...base, clients: CLIENTS, file: undefined, checks: undefined, limits: undefined }));
  const s = parseScenario({ ...raw, name: `naive-baseline-${CLIENTS}-clients` }, "<bench soak>");
  const rssMbAt: Array<[number, number]> = [];
  let nextTenth = 0;
  let events = 0;
  const started = performance.now();
  const soak = runSoak(s, 1, {
    durationMs: hours * 3_600_000,
    historySink: () => void events++,
    progress: (simMs, durationMs) => {
      if (simMs < (nextTenth * durationMs) / 10) return;
      nextTenth++;
      rssMbAt.push([Math.round((100 * simMs) / durationMs), Math.round(process.memoryUsage().rss / 1e6)]);
    },
  });
  return {
    hours,
    wallS: (performance.now() - started) / 1000,
    peakRssMb: Math.round(process.resourceUsage().maxRSS / 1000),
    rssMbAt,
    events,
    outcome: soak.verdicts.outcome,
    results: soak.verdicts.results.map((r) => [r.checker, r.valid, r.summary.slice(0, 110)]),
  };
}

function parent(): void {
  const hours = Number(process.env.SOAK_HOURS ?? 24);
  const self = fileURLToPath(import.meta.url);
  const out = execFileSync(process.execPath, [self, "--child", String(hours)], { encoding: "utf8", maxBuffer: 16 << 20 });
  const r = JSON.parse(out.trim().split("\n").pop()!) as ChildReport;
  console.log(`== soak: naive-baseline, ${CLIENTS} clients, ${hours} simulated hours, every checker online ==`);
  console.log(`resident set by progress: ${r.rssMbAt.map(([pct, mb]) => `${pct}% ${mb} MB`).join(", ")}`);
  console.log(`events recorded: ${r.events.toLocaleString("en-US")}; wall ${r.wallS.toFixed(0)} s; outcome ${r.outcome}`);
  for (const [checker, valid, summary] of r.results) console.log(`  ${String(checker).padEnd(18)} ${String(valid).padEnd(7)} ${summary}`);
  reportTarget(
    `: ${hours} h soak of naive-baseline with ${CLIENTS} clients, every checker online: peak RSS ${r.peakRssMb} MB (target <= ${RSS_TARGET_MB} MB), wall ${r.wallS.toFixed(0)} s, ${r.events.toLocaleString("en-US")} events, ${r.outcome}`,
  );
}

if (process.argv[2] === "--child") console.log(JSON.stringify(child(Number(process.argv[3]))));
else parent();
