/**
 * The run report of a big run in Chromium: raft-zk-scale's report (1000 clients on 1000
 * locks for 5 simulated s, some 160,000 operations), written as `lockstep run` writes it,
 * then opened ROUNDS times in a fresh page of Debian's Chromium (playwright-core), each
 * timed from navigation to the page saying it has drawn (body[data-drawn="1"]). Printed:
 * the page's size, what it drew (holds, dense lanes drawn as density strips, notes), and
 * the time to open and draw as the median with the fastest and slowest. Also the time to
 * write the page, and the machine's load. Figures are printed, never judged.
 *
 * Run: npm run build && node dist/bench/report-page.js
 */
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { chromium } from "playwright-core";
import { loadScenario } from "../scenarios/index.js";
import { runScenario } from "../harness/runner.js";
import { runCheckers } from "../checkers/run-all.js";
import { checkContextFor } from "../harness/check-context.js";
import { buildRecord } from "../harness/artifacts.js";
import { renderRunReport } from "../reports/run-report.js";
import { formatSpread, spreadOf } from "./rounds.js";
import { reportTarget } from "./targets.js";

const CHROMIUM = "/usr/bin/chromium";
const ROUNDS = 5;
export const REPORT_PAGE_TARGET_MS = 3000;

interface Drawn {
  holdsTotal: number;
  holdsDrawn: number;
  denseLanes: number;
  notesDrawn: number;
  drawMs: number;
}

/** The report page of raft-zk-scale seed 1, as `lockstep run` writes it; its operations, and the time to write it. */
function writeReport(dir: string): { file: string; ops: number; writeMs: number } {
  const s = loadScenario("raft-zk-scale");
  const run = runScenario(s, s.seed);
  const verdicts = runCheckers(run.history, checkContextFor(s));
  const t0 = performance.now();
  const html = renderRunReport(buildRecord(s, s.seed, run, verdicts), run.history);
  const file = join(dir, "report.html");
  writeFileSync(file, html);
  const ops = run.history.filter((e) => e.type === "invoke").length;
  return { file, ops, writeMs: performance.now() - t0 };
}

async function main(): Promise<void> {
  if (!existsSync(CHROMIUM)) {
    console.log(`bench/report-page: ${CHROMIUM} is missing (scripts/ensure-chromium.sh), skipped`);
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), "lockstep-report-page-"));
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--headless", "--no-sandbox", "--disable-gpu"] });
  try {
    const { file, ops, writeMs } = writeReport(dir);
    console.log(
      `== report page: raft-zk-scale seed 1, ${ops} operations, ${(statSync(file).size / 1e6).toFixed(1)} MB, written in ${writeMs.toFixed(0)} ms ==`,
    );
    console.log(
      `load average before: ${loadavg()
        .map((x) => x.toFixed(2))
        .join(" ")}`,
    );
    const times: number[] = [];
    let drawn: Drawn | undefined;
    for (let i = 0; i < ROUNDS; i++) {
      const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
      const errors: string[] = [];
      page.on("pageerror", (e) => errors.push(e.message));
      const t0 = performance.now();
      await page.goto(pathToFileURL(file).href);
      await page.waitForSelector("body[data-drawn='1']", { timeout: 120_000 });
      times.push(performance.now() - t0);
      drawn = await page.evaluate(() => (window as unknown as { lockstepReport: Drawn }).lockstepReport);
      if (errors.length > 0) console.log(`  page errors: ${errors.join("; ")}`);
      await page.close();
    }
    const d = drawn!;
    const t = spreadOf(times);
    console.log(
      `open + first draw: ${formatSpread(t)} ms over ${ROUNDS} fresh pages; drew ${d.holdsDrawn} of ${d.holdsTotal} holds, ${d.denseLanes} dense lane(s) as density strips, ${d.notesDrawn} notes (last draw ${d.drawMs.toFixed(0)} ms in the page)`,
    );
    console.log(
      `load average after: ${loadavg()
        .map((x) => x.toFixed(2))
        .join(" ")}`,
    );
    reportTarget(
      `: the report of a ${ops}-op run opens and draws in Chromium ≤ ${REPORT_PAGE_TARGET_MS} ms: ${formatSpread(t)} ms (${t.median <= REPORT_PAGE_TARGET_MS ? "met" : "not met"})`,
    );
  } finally {
    await browser.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
