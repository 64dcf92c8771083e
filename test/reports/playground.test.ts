import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { main } from "../../cli/main.js";
import { loadScenario } from "../../scenarios/index.js";
import { runScenario } from "../../harness/runner.js";
import { historyToJsonl } from "../../sim/history.js";
import { debateTests } from "../../reports/debate-claims.js";
import { hangBoundMs } from "../helpers/hang-bound.js";

/**
 * The playground in headless Chromium: the page is written by `lockstep playground`,
 * edited by dragging and by keys as a student would, and what it computed is compared
 * with `lockstep run` on the scenario file it downloads. Screenshots of the edited
 * states land in test-output/playground/ (git-ignored).
 */
const CHROMIUM = "/usr/bin/chromium";
const OUT = resolve("test-output", "playground");
const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

interface Playground {
  lockstepPlayground: { runs: number; outcome: string; historyJsonl: string; fileName: string; seed: number; error: string; lastMs: number };
}

let ctx: BrowserContext;
let userDataDir: string;
let pageUrl: string;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: run scripts/ensure-browsers.sh`);
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT, { recursive: true });
  expect(await main(["playground", "--out", join(OUT, "page")])).toBe(0);
  pageUrl = pathToFileURL(join(OUT, "page", "index.html")).href;
  userDataDir = mkdtempSync(join(tmpdir(), "lockstep-chromium-"));
  ctx = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    viewport: { width: 1300, height: 900 },
    acceptDownloads: true,
  });
}, 120_000);

afterAll(async () => {
  await ctx?.close();
  if (userDataDir) rmSync(userDataDir, { recursive: true, force: true });
});

async function open(fragment: string): Promise<{ page: Page; problems: string[] }> {
  const page = await ctx.newPage();
  const problems: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error" || m.type() === "warning") problems.push(`console ${m.type()}: ${m.text()}`);
  });
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  await page.goto(pageUrl + fragment);
  await page.waitForSelector("body[data-runs='1']", { timeout: hangBoundMs(60_000) });
  return { page, problems };
}

const pg = (page: Page): Promise<Playground["lockstepPlayground"]> => page.evaluate(() => (window as unknown as Playground).lockstepPlayground);

/** Waits for the run after an edit (data-runs counts the runs drawn). */
async function nextRun(page: Page, before: number): Promise<Playground["lockstepPlayground"]> {
  await page.waitForFunction((n) => (window as unknown as Playground).lockstepPlayground.runs > n, before, { timeout: hangBoundMs(60_000) });
  return pg(page);
}

/** Drags the pause's right edge until it lasts `ms`, by the handles' own pixel scale. */
async function dragPauseTo(page: Page, ms: number, beforeLetGo?: () => Promise<void>): Promise<void> {
  const startBox = (await page.locator('[data-fault="0"][data-field="start"]').boundingBox())!;
  const durHandle = page.locator('[data-fault="0"][data-field="duration"]');
  const durBox = (await durHandle.boundingBox())!;
  const nowMs = Number(await durHandle.getAttribute("aria-valuenow"));
  const pxPerMs = (durBox.x - startBox.x) / nowMs;
  const y = durBox.y + durBox.height / 2;
  const x0 = durBox.x + durBox.width / 2;
  await page.mouse.move(x0, y);
  await page.mouse.down();
  await page.mouse.move(x0 + (ms - nowMs) * pxPerMs * 0.5, y, { steps: 4 });
  await page.mouse.move(x0 + (ms - nowMs) * pxPerMs, y, { steps: 4 });
  await beforeLetGo?.();
  await page.mouse.up();
}

/** `lockstep run <downloaded file> --seed N`: the history it writes. */
async function cliHistory(page: Page, name: string): Promise<string> {
  const [download] = await Promise.all([page.waitForEvent("download"), page.click("#pg-download")]);
  const file = join(OUT, name);
  await download.saveAs(file);
  const { seed, outcome } = await pg(page);
  const dir = join(OUT, `${name}-run`);
  await main(["run", file, "--seed", String(seed), "--out", dir]);
  process.exitCode = undefined;
  // The same verdict too: the file carries every edit (faults, design, fencing, challenge).
  expect((JSON.parse(readFileSync(join(dir, "results.json"), "utf8")) as { verdicts: { outcome: string } }).verdicts.outcome).toBe(outcome);
  return readFileSync(join(dir, "history.jsonl"), "utf8");
}

describe("lockstep playground in Chromium", () => {
  it(
    "naive-gc-pause: a pause shorter than the TTL fails no checker (safe once a served waiter counts as a test), a longer one is unsafe; the page's history and verdict are the CLI's",
    async () => {
      const { page, problems } = await open("#scenario=naive-gc-pause");
      expect((await pg(page)).outcome).toBe("unsafe");
      expect(await page.locator("#pg-outcome").textContent()).toBe("unsafe");

      // 15 s pause, 10 s TTL: shortened to 8 s the lease outlives the pause. While held, the
      // verdict line already says what letting go here would give: no checker fails, but by
      // the rule derived from its fault (a pause on the holder outlasting its lease) the run
      // tested nothing: c2 is served only after c1 wakes and releases.
      await dragPauseTo(page, 8000, async () => {
        await page.waitForFunction(() => document.getElementById("pg-outcome")!.textContent === "not challenged (if let go here)", null, {
          timeout: hangBoundMs(30_000),
        });
        expect((await pg(page)).runs).toBe(1);
        // The lines under the badge are the preview's too, not the last run's FAILED ones; the report is dimmed.
        expect(await page.locator("#pg-checkers li.fail").count()).toBe(0);
        expect(await page.locator("#pg-challenged").textContent()).toMatch(/^NOT challenged: /);
        expect(await page.locator("body").getAttribute("data-previewing")).toBe("1");
      });
      let st = await nextRun(page, 1);
      expect(await page.locator("body").getAttribute("data-previewing")).toBeNull();
      const shortMs = JSON.parse(readScenario(await page.evaluate(() => location.hash))).faults[0].durationMs;
      expect(shortMs).toBeGreaterThan(7000);
      expect(shortMs).toBeLessThan(9000);
      expect(st.outcome).toBe("not-challenged");
      expect(await page.locator("#pg-checkers li.fail").count()).toBe(0);
      // c2 asked for the lock while c1 held it and got it after c1 let go: a test the lock passed.
      await page.selectOption("#pg-challenge", "waiter-served");
      st = await nextRun(page, 2);
      expect(st.outcome).toBe("safe");
      expect(await page.locator("#pg-outcome").textContent()).toBe("safe");
      expect(await page.locator("#pg-challenged").textContent()).toMatch(/^challenged: /);
      // The report frame was drawn by the run report's own page script, for this run.
      const frame = page.frameLocator("#pg-report");
      await expect.poll(() => frame.locator("body").getAttribute("data-drawn")).toBe("1");
      expect(await frame.locator(".badge").first().textContent()).toBe("safe");
      await page.screenshot({ path: join(OUT, "1-pause-shortened-safe.png"), fullPage: true });
      expect(await cliHistory(page, "shortened.json")).toBe(st.historyJsonl);

      await dragPauseTo(page, 12000);
      st = await nextRun(page, 3);
      expect(st.outcome).toBe("unsafe");
      expect(await frame.locator(".badge").first().textContent()).toBe("unsafe");
      await page.screenshot({ path: join(OUT, "2-pause-lengthened-unsafe.png"), fullPage: true });
      const cli = await cliHistory(page, "lengthened.json");
      expect(cli).toBe(st.historyJsonl);
      expect(cli.length).toBeGreaterThan(1000);

      // The address bar now holds the run: opened elsewhere, the same history.
      const hash = await page.evaluate(() => location.hash);
      expect(hash.startsWith("#run=")).toBe(true);
      const shared = await open(hash);
      expect((await pg(shared.page)).historyJsonl).toBe(st.historyJsonl);
      expect(shared.problems).toEqual([]);
      expect(problems).toEqual([]);
    },
    hangBoundMs(180_000),
  );

  it(
    "computes every debate scenario's history exactly as the CLI's runner does",
    async () => {
      const { page, problems } = await open("#scenario=naive-gc-pause");
      const names = [...new Set(debateTests().map((t) => t.test.scenario))];
      expect(names.length).toBeGreaterThan(10);
      let runs = 1;
      for (const name of names) {
        await page.evaluate((n) => (location.hash = "#scenario=" + n), name);
        const st = await nextRun(page, runs++);
        const s = loadScenario(name);
        expect(st.error).toBe("");
        expect(st.historyJsonl, name).toBe(historyToJsonl(runScenario(s, s.seed).history));
      }
      expect(problems).toEqual([]);
    },
    hangBoundMs(180_000),
  );

  it(
    "is usable from the keyboard: arrow keys on a focused handle edit the fault and re-run",
    async () => {
      const { page, problems } = await open("#scenario=naive-gc-pause");
      await page.locator('[data-fault="0"][data-field="duration"]').focus();
      await page.keyboard.press("Shift+ArrowLeft");
      const st = await nextRun(page, 1);
      expect(JSON.parse(readScenario(await page.evaluate(() => location.hash))).faults[0].durationMs).toBe(14000);
      // Focus stays on the handle, so the next key press keeps editing.
      expect(await page.evaluate(() => document.activeElement?.getAttribute("data-field"))).toBe("duration");
      expect(st.outcome).toBe("unsafe");
      // The seed field and the fencing toggle are form controls: Tab reaches them.
      await page.fill("#pg-seed", "7");
      await page.locator("#pg-seed").press("Enter");
      expect((await nextRun(page, 2)).seed).toBe(7);
      expect(problems).toEqual([]);
    },
    hangBoundMs(120_000),
  );

  it(
    "fencing on a design with tokens: the stale write is rejected (unsafe but fenced)",
    async () => {
      const { page, problems } = await open("#scenario=naive-gc-pause");
      await page.selectOption("#pg-design", "redis-fenced");
      await nextRun(page, 1);
      await page.check("#pg-fencing");
      const st = await nextRun(page, 2);
      expect(st.outcome).toBe("unsafe-but-fenced");
      await page.screenshot({ path: join(OUT, "3-redis-fenced-fencing-on.png"), fullPage: true });
      expect(await cliHistory(page, "fenced.json")).toBe(st.historyJsonl);
      expect(problems).toEqual([]);
    },
    hangBoundMs(120_000),
  );

  it(
    "says what is wrong with an edit the design cannot run, and keeps the last run",
    async () => {
      const { page, problems } = await open("#scenario=naive-gc-pause");
      await page.check("#pg-fencing");
      await page.waitForSelector("body[data-error]");
      expect(await page.locator("#pg-error").textContent()).toMatch(/workload\.fencing.*redis-setnx.*no fencing token/);
      expect((await pg(page)).outcome).toBe("unsafe");
      expect(problems).toEqual([]);
    },
    hangBoundMs(60_000),
  );

  it(
    "a damaged link says so and opens naive-gc-pause",
    async () => {
      const { page, problems } = await open("#run=not-a-run");
      expect(await page.locator("#pg-error").textContent()).toMatch(/damaged/);
      expect(await page.locator("#pg-scenario").inputValue()).toBe("naive-gc-pause");
      expect(problems).toEqual([]);
    },
    hangBoundMs(60_000),
  );

  it(
    "the debate page links each claim's scenario into the playground, which opens at it",
    async () => {
      const dir = join(OUT, "debate");
      expect(await main(["debate", "--out", dir, "--seed", "1", "--seeds", "1"])).toBe(0);
      process.exitCode = undefined;
      const page = await ctx.newPage();
      const problems: string[] = [];
      page.on("pageerror", (e) => problems.push(e.message));
      await page.goto(pathToFileURL(join(dir, "debate.html")).href);
      const links = page.locator("a.play");
      expect(await links.count()).toBe(debateTests().length);
      await page.locator('tr[data-scenario="redlock-clock-jump"] a.play').first().click();
      await page.waitForSelector("body[data-runs='1']", { timeout: hangBoundMs(60_000) });
      expect(await page.locator("#pg-scenario").inputValue()).toBe("redlock-clock-jump");
      expect((await pg(page)).outcome).toBe("unsafe");
      expect(await page.locator('[data-field="jump"]').count()).toBe(1);
      expect(problems).toEqual([]);
    },
    hangBoundMs(180_000),
  );

  it(
    "a narrow window reflows: nothing wider than the window",
    async () => {
      const { page, problems } = await open("#scenario=redlock-clock-jump");
      await page.setViewportSize({ width: 420, height: 800 });
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      const widths = await page.evaluate(() => ({ doc: document.documentElement.scrollWidth, win: window.innerWidth }));
      expect(widths.doc).toBeLessThanOrEqual(widths.win);
      // The run's report (an iframe as wide as the page): its timeline's right end, where the violation is, used to be cut off.
      const report = (await (await page.$("#pg-report"))!.contentFrame())!;
      await report.waitForSelector("body[data-drawn='1']", { timeout: hangBoundMs(20_000) });
      const measure = () =>
        report.evaluate(() => ({
          doc: document.documentElement.scrollWidth,
          win: window.innerWidth,
          plotRight: document.querySelector("#timeline svg")!.getBoundingClientRect().right,
          frameRight: document.getElementById("timeline")!.getBoundingClientRect().right,
        }));
      // The report lays itself out again on its own next frame after the resize.
      await expect.poll(async () => (await measure()).doc, { timeout: hangBoundMs(10_000) }).toBeLessThanOrEqual(420);
      const inner = await measure();
      expect(inner.plotRight).toBeLessThanOrEqual(Math.min(inner.frameRight, inner.win) + 1);
      expect(problems).toEqual([]);
    },
    hangBoundMs(60_000),
  );
});

function readScenario(hash: string): string {
  const b64 = hash.slice("#run=".length).replace(/-/g, "+").replace(/_/g, "/");
  return JSON.stringify((JSON.parse(Buffer.from(b64, "base64").toString("utf8")) as { raw: unknown }).raw);
}
