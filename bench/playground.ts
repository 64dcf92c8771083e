/**
 * The playground's re-simulation time per edit, in Chromium: for every debate scenario,
 * ten edits of its first fault (its duration, else its time; the seed when it has no
 * fault), each timed in the page from the edit to the report frame drawn (simulate,
 * check, render, draw). Prints the median and the slowest per scenario against the
 * 200 ms the issue asks for. Figures are printed, never judged.
 *
 *   npm run build && node dist/bench/playground.js
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { chromium, type Page } from "playwright-core";
import { writePlayground } from "../playground/write.js";
import { debateTests } from "../reports/debate-claims.js";

const CHROMIUM = "/usr/bin/chromium";
const EDITS = 10;

interface Stats {
  runs: number;
  lastMs: number;
  simMs: number;
  outcome: string;
}

async function editOnce(page: Page, k: number): Promise<Stats> {
  const before = await page.evaluate(() => (window as unknown as { lockstepPlayground: Stats }).lockstepPlayground.runs);
  await page.evaluate((k) => {
    const input = (document.querySelector('#pg-faults input[data-key="durationMs"]') ?? document.querySelector("#pg-faults input")) as HTMLInputElement | null;
    const target = input ?? (document.getElementById("pg-seed") as HTMLInputElement);
    // Back and forth by 100 ms (or seed +1, -1): each edit is a new run of a like-sized scenario.
    target.value = String(Number(target.value) + (k % 2 === 0 ? 1 : -1) * (input ? 100 : 1));
    target.dispatchEvent(new Event("change"));
  }, k);
  await page.waitForFunction((n) => (window as unknown as { lockstepPlayground: Stats }).lockstepPlayground.runs > n, before, { timeout: 60_000 });
  return page.evaluate(() => ({ ...(window as unknown as { lockstepPlayground: Stats }).lockstepPlayground }));
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

async function main(): Promise<void> {
  if (!existsSync(CHROMIUM)) {
    console.log(`bench/playground: ${CHROMIUM} is missing (scripts/ensure-chromium.sh), skipped`);
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), "lockstep-playground-bench-"));
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--headless", "--no-sandbox", "--disable-gpu"] });
  try {
    const url = pathToFileURL(await writePlayground(dir)).href;
    const names = [...new Set(debateTests().map((t) => t.test.scenario))];
    console.log(`playground: time per edit, edit -> report drawn, median of ${EDITS} edits (simulate + check + render in brackets)`);
    const medians: number[] = [];
    for (const name of names) {
      const page = await browser.newPage({ viewport: { width: 1300, height: 900 } });
      await page.goto(`${url}#scenario=${name}`);
      await page.waitForSelector("body[data-runs='1']", { timeout: 60_000 });
      const all: Stats[] = [];
      for (let k = 0; k < EDITS; k++) all.push(await editOnce(page, k));
      const m = median(all.map((s) => s.lastMs));
      medians.push(m);
      const worst = Math.max(...all.map((s) => s.lastMs));
      console.log(
        `  ${name.padEnd(38)} ${m.toFixed(0).padStart(5)} ms  (${median(all.map((s) => s.simMs)).toFixed(0)} ms)  slowest ${worst.toFixed(0)} ms  ${m <= 200 ? "under" : "OVER"} 200 ms  outcome ${all[all.length - 1]!.outcome}`,
      );
      await page.close();
    }
    console.log(`  ${names.length} scenarios; the slowest median ${Math.max(...medians).toFixed(0)} ms`);
  } finally {
    await browser.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
