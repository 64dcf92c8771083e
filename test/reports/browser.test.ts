import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { loadScenario } from "../../scenarios/index.js";
import { computeHolds } from "../../checkers/holds.js";
import { renderRunReport } from "../../reports/run-report.js";
import { renderComparePage } from "../../reports/compare-page.js";
import { renderAuditPage } from "../../reports/audit-page.js";
import { writeRunArtifacts } from "../../harness/artifacts.js";
import { main } from "../../cli/main.js";
import { checkHistoryFile } from "../../cli/commands/check.js";
import { recordForImported, renderImportedReport } from "../../cli/check-report.js";
import { DEBATE, debateTests } from "../../reports/debate-claims.js";
import { HOSTILE, auditPageWithLongReplay, hostileScenario, longScenario, runFixture, smallMatrix, type RunFixture } from "./fixtures.js";
import { hangBoundMs } from "../helpers/hang-bound.js";

/**
 * The reports in headless Chromium (Debian's, at /usr/bin/chromium; see
 * scripts/ensure-browsers.sh). Every report is generated here from a fresh run.
 * Screenshots and the pages land in test-output/reports/ (git-ignored). The open+draw
 * time of the long report is measured and printed, not asserted.
 */
const CHROMIUM = "/usr/bin/chromium";
const OUT = resolve("test-output", "reports");
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

interface Report {
  lockstepReport: {
    holdsTotal: number;
    holdsDrawn: number;
    violationsDrawn: number;
    notesDrawn: number;
    regOpsDrawn: number;
    denseLanes: number;
    notesByKind: Record<string, number>;
    drawMs: number;
    domainUs: [number, number];
    redraws: number;
  };
}

let ctx: BrowserContext;
let userDataDir: string;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: run scripts/ensure-browsers.sh`);
  mkdirSync(OUT, { recursive: true });
  userDataDir = mkdtempSync(join(tmpdir(), "lockstep-chromium-"));
  ctx = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    viewport: { width: 1400, height: 1000 },
  });
});

afterAll(async () => {
  await ctx?.close();
  if (userDataDir) rmSync(userDataDir, { recursive: true, force: true });
});

/** Open a page and wait until it has drawn; collects console errors and uncaught exceptions. */
async function open(file: string, waitDrawn = true): Promise<{ page: Page; problems: string[]; ms: number }> {
  const page = await ctx.newPage();
  const problems: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error" || m.type() === "warning") problems.push(`console ${m.type()}: ${m.text()}`);
  });
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  page.on("dialog", (d) => {
    problems.push(`dialog: ${d.message()}`);
    void d.dismiss();
  });
  page.on("request", (r) => {
    if (!r.url().startsWith("file:") && !r.url().startsWith("data:")) problems.push(`network request: ${r.url()}`);
  });
  const t0 = performance.now();
  await page.goto(pathToFileURL(file).href);
  if (waitDrawn) await page.waitForSelector("body[data-drawn='1']", { timeout: hangBoundMs(20_000) });
  return { page, problems, ms: performance.now() - t0 };
}

function write(name: string, html: string): string {
  const p = join(OUT, name);
  writeFileSync(p, html);
  return p;
}

const reportOf = (page: Page) => page.evaluate(() => (window as unknown as Report).lockstepReport);

describe("run report in Chromium", () => {
  let gc: RunFixture;
  let file: string;
  beforeAll(() => {
    gc = runFixture(loadScenario("naive-gc-pause"));
    file = write("naive-gc-pause.html", renderRunReport(gc.record, gc.history));
  });

  it("draws a hold bar per hold, marks the violation, zooms, and logs no errors", async () => {
    const { page, problems, ms } = await open(file);
    console.log(
      `[browser] naive-gc-pause report: ${(statSync(file).size / 1e3).toFixed(0)} kB (script bundled with the d3 it uses); open+draw ${ms.toFixed(0)} ms`,
    );
    const holds = computeHolds(gc.history);
    const r0 = await reportOf(page);
    expect(r0.holdsTotal).toBe(holds.length);
    expect(r0.holdsDrawn).toBe(holds.length);
    expect(await page.getAttribute("#timeline", "data-holds-drawn")).toBe(String(holds.length));

    // The violation: drawn on the timeline and said in words above it.
    expect(r0.violationsDrawn).toBeGreaterThan(0);
    expect(await page.locator("#timeline g.violation").count()).toBe(r0.violationsDrawn);
    expect(await page.locator("#findings").innerText()).toMatch(/c1 held order:123.*while c2 held it/);
    await page.screenshot({ path: join(OUT, "run-report.png"), fullPage: true });

    // A tooltip on the c1 hold (its bar spans most of the run on the first lane).
    const box = (await page.locator("#timeline").boundingBox())!;
    const lane0 = await page.locator("#timeline .lab").first().boundingBox();
    await page.mouse.move(box.x + box.width * 0.35, lane0!.y + lane0!.height / 2);
    await expect.poll(() => page.locator("#tooltip").innerText()).toMatch(/c1 holds order:123[\s\S]*grant\s+c1#1/);

    // Zoom with the wheel: the visible window narrows and the hold bars still draw.
    const before = r0.domainUs[1] - r0.domainUs[0];
    await page.mouse.move(box.x + box.width * 0.45, box.y + box.height / 2);
    for (let i = 0; i < 4; i++) await page.mouse.wheel(0, -400);
    await expect
      .poll(async () => {
        const r = await reportOf(page);
        return r.domainUs[1] - r.domainUs[0];
      })
      .toBeLessThan(before / 4);
    const zoomed = await reportOf(page);
    expect(zoomed.redraws).toBeGreaterThan(r0.redraws);
    await page.screenshot({ path: join(OUT, "run-report-zoomed.png") });

    // "show on the timeline" zooms to the overlap of the two holds.
    await page.locator("[data-violation='0']").click();
    const v = gc.record.verdicts.results.find((x) => x.checker === "mutual-exclusion")!.witness as Array<{ overlapStartUs: number; overlapEndUs: number }>;
    await expect
      .poll(async () => {
        const r = await reportOf(page);
        return r.domainUs[0] <= v[0]!.overlapStartUs && r.domainUs[1] >= v[0]!.overlapEndUs && r.domainUs[1] - r.domainUs[0] < 1_000_000;
      })
      .toBe(true);
    await page.waitForTimeout(600); // the zoom transition
    expect((await reportOf(page)).holdsDrawn).toBe(2); // both holders are in the window
    await page.locator("#timeline-section").screenshot({ path: join(OUT, "run-report-violation.png") });

    // A story step highlights its mark.
    await page.locator("#steps li.tone-fault").first().hover();
    expect(await page.locator("#timeline rect.hi").count()).toBe(1);

    expect(problems).toEqual([]);
    await page.close();
  });

  it("naive-gc-pause: redis-1's lane shows the key set for c1, its expiry by redis-1's clock, and the key set for c2, with tooltips", async () => {
    const { page, problems } = await open(file);
    const r = await reportOf(page);
    expect(r.notesByKind["key-expired"]).toBe(1);
    expect(r.notesByKind["key-set"]).toBe(2);
    const expiry = page.locator("#timeline g.note[data-f='key-expired'][data-lane='redis-1']");
    expect(await expiry.count()).toBe(1);
    // The mark sits on redis-1's lane.
    const lanes = await page.locator("#timeline .lab text.lane-name").evaluateAll((els) => els.map((e) => e.textContent));
    const laneBoxes = await page.locator("#timeline rect.lane").evaluateAll((els) => els.map((e) => e.getBoundingClientRect()).map((b) => [b.top, b.bottom]));
    const markBox = (await expiry.locator("path").boundingBox())!;
    const redisRow = laneBoxes[lanes.indexOf("redis-1")]!;
    expect(markBox.y).toBeGreaterThanOrEqual(redisRow[0]! - 1);
    expect(markBox.y + markBox.height).toBeLessThanOrEqual(redisRow[1]! + 1);
    await page.mouse.move(markBox.x + markBox.width / 2, markBox.y + markBox.height / 2);
    await expect.poll(() => page.locator("#tooltip").innerText()).toMatch(/redis-1 expires lock:order:123[\s\S]*by redis-1's clock/);
    // The story tells it in words.
    expect(await page.locator("#steps li.tone-server").first().innerText()).toMatch(/redis-1 expires lock:order:123/);
    // Clocks all accurate here: one sentence, not an empty chart.
    expect(await page.locator("#clocks.collapsed").count()).toBe(1);
    expect(await page.locator("#clocks svg").count()).toBe(0);
    await page.locator("#timeline-section").screenshot({ path: join(OUT, "naive-gc-pause-server-lane.png") });
    expect(problems).toEqual([]);
    await page.close();
  });

  it("raft-zk-client-gc-pause: the leader's lane shows who expired c1's session, and the commit that deleted its node", async () => {
    const f = runFixture(loadScenario("raft-zk-client-gc-pause"));
    const { page, problems } = await open(write("raft-zk-client-gc-pause.html", renderRunReport(f.record, f.history)));
    const decided = page.locator("#timeline g.note[data-f='session-expiry']");
    expect(await decided.count()).toBe(1);
    const lane = await decided.getAttribute("data-lane");
    expect(lane).toMatch(/^zk-\d$/);
    expect(await page.locator(`#timeline g.note[data-f='session-expired'][data-lane='${lane}']`).count()).toBe(1);
    const box = (await decided.locator("path").boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await expect.poll(() => page.locator("#tooltip").innerText()).toMatch(new RegExp(`decided by\\s+${lane}[\\s\\S]*leader's monotonic clock`));
    await page.screenshot({ path: join(OUT, "raft-zk-client-gc-pause.png"), fullPage: true });
    expect(problems).toEqual([]);
    await page.close();
  });

  it("redis-release-delayed-del: redis-1's lane shows c1's late DEL deleting c2's key, with its tooltip and story line", async () => {
    const f = runFixture(loadScenario("redis-release-delayed-del"));
    const { page, problems } = await open(write("redis-release-delayed-del.html", renderRunReport(f.record, f.history)));
    const deleted = page.locator("#timeline g.note[data-f='key-deleted'][data-lane='redis-1']");
    expect(await deleted.count()).toBeGreaterThanOrEqual(1);
    const c1 = deleted.filter({ hasText: "c1 deleted c2's key" });
    expect(await c1.count()).toBe(1);
    expect(await c1.getAttribute("class")).toMatch(/note-delete/);
    const box = (await c1.locator("path").boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await expect.poll(() => page.locator("#tooltip").innerText()).toMatch(/redis-1: c1's DEL deletes c2's key[\s\S]*set for\s+c2/);
    const story = await page.locator("#steps").innerText();
    expect(story).toMatch(/redis-1 runs c1's DEL and deletes lock:order:123, which it holds for c2/);
    await page.locator("#timeline-section").screenshot({ path: join(OUT, "redis-release-delayed-del.png") });
    expect(problems).toEqual([]);
    await page.close();
  });

  it("check --out on Knossos's cas-register history: each op is a bar on its process's lane, with its values", async () => {
    const file = resolve(__dirname, "../fixtures/jepsen/cas-register-bad.edn");
    const c = await checkHistoryFile(file, {});
    const html = renderImportedReport(recordForImported(file, c.format, c.model, c.history, c.ctx, c.verdicts, `npx lockstep check ${file}`), c.history);
    const { page, problems } = await open(write("cas-register-bad.html", html));
    const r = await reportOf(page);
    expect(r.regOpsDrawn).toBe(3);
    // The axis starts at the history's first event, not at 0 (its :time is its own).
    expect(r.domainUs[0]).toBe(c.history[0]!.timeUs);
    const lanes = await page.locator("#timeline .lab text.lane-name").evaluateAll((els) => els.map((e) => e.textContent));
    const rows = await page.locator("#timeline rect.lane").evaluateAll((els) => els.map((e) => e.getBoundingClientRect()).map((b) => [b.top, b.bottom]));
    const casRow = rows[lanes.indexOf("2")]!;
    // Hover the middle of process 2's cas (invoked 3.296201 s, returned 3.298762 s).
    const box = (await page.locator("#timeline rect.lane").first().boundingBox())!;
    const [d0, d1] = r.domainUs;
    const x = box.x + (box.width * ((3_296_201 + 3_298_762) / 2 - d0)) / (d1 - d0);
    await page.mouse.move(x, (casRow[0]! + casRow[1]!) / 2);
    await expect.poll(() => page.locator("#tooltip").innerText()).toMatch(/2 cas 0 → 3 → ok[\s\S]*invoked/);
    // The read that cannot follow, in words with its value; no "counter ?" anywhere.
    expect(await page.locator("#findings").innerText()).toMatch(/the register is not linearizable[\s\S]*1 read → 0 cannot follow it/);
    expect(await page.locator("body").innerText()).not.toMatch(/counter \?|counter = \?/);
    await page.locator("#timeline-section").screenshot({ path: join(OUT, "cas-register-bad.png") });
    expect(problems).toEqual([]);
    await page.close();
  });

  it("check --out on a Jepsen lock history: the nemesis's ops are a lane, under their own names", async () => {
    const file = resolve(__dirname, "../fixtures/jepsen/lock-double-grant.edn");
    const c = await checkHistoryFile(file, {});
    const html = renderImportedReport(recordForImported(file, c.format, c.model, c.history, c.ctx, c.verdicts, `npx lockstep check ${file}`), c.history);
    const { page, problems } = await open(write("lock-double-grant.html", html));
    const lanes = await page.locator("#timeline .lab text.lane-name").evaluateAll((els) => els.map((e) => e.textContent));
    expect(lanes).toContain("nemesis");
    const marks = page.locator("#timeline g.fault text");
    expect(await marks.allTextContents()).toContain(':start ["isolated",{"n1":["n4","n5"]}]');
    expect(await page.locator("#steps").innerText()).toMatch(/the nemesis runs :start for [\d.]+ ms — \["isolated"/);
    await page.locator("#timeline-section").screenshot({ path: join(OUT, "lock-double-grant.png") });
    // The clamped grant (1 µs, stamped before its invoke) is left out of the figures and said so.
    const latency = page.locator("#latency").locator("xpath=..");
    expect(await latency.innerText()).toMatch(/1 grant is left out[\s\S]*1 grant\. p50 7\.719 ms/);
    // Its target, p99 and p50 labels (p99 = p50 = 7.719 ms, just under the 10 ms target) never overlap.
    const labels = await page.locator("#latency g.ql text").evaluateAll((els) => els.map((t) => t.getBoundingClientRect()).map((b) => [b.top, b.bottom]));
    expect(labels).toHaveLength(3);
    const byTop = labels.sort((a, b) => a[0]! - b[0]!);
    for (let i = 1; i < byTop.length; i++) expect(byTop[i]![0]).toBeGreaterThanOrEqual(byTop[i - 1]![1]! - 1);
    // The Checkers box stands apart from the box above it (the linearizability failure's).
    const gap = await page.evaluate(() => {
      const ck = document.getElementById("checkers")!;
      return ck.getBoundingClientRect().top - ck.previousElementSibling!.getBoundingClientRect().bottom;
    });
    expect(gap).toBeGreaterThanOrEqual(8);
    await page.screenshot({ path: join(OUT, "lock-double-grant-page.png"), fullPage: true });
    expect(problems).toEqual([]);
    await page.close();
  });

  it("raft-zk-leader-crash-acquire: zk-1's lane is leader in term 1 until its crash, the new leader's lane from then on", async () => {
    const f = runFixture(loadScenario("raft-zk-leader-crash-acquire"));
    const { page, problems } = await open(write("raft-zk-leader-crash-acquire.html", renderRunReport(f.record, f.history)));
    const leaders = page.locator("#timeline g.role[data-role='leader']");
    expect(await leaders.count()).toBe(2);
    const band = async (i: number) => ({
      lane: await leaders.nth(i).getAttribute("data-lane"),
      term: Number(await leaders.nth(i).getAttribute("data-term")),
      s: Number(await leaders.nth(i).getAttribute("data-s")),
      e: Number(await leaders.nth(i).getAttribute("data-e")),
      text: await leaders.nth(i).locator("text").textContent(),
      box: (await leaders.nth(i).locator("rect").boundingBox())!,
    });
    const [old, next] = [await band(0), await band(1)];
    await page.screenshot({ path: join(OUT, "raft-zk-leader-crash-acquire.png"), fullPage: true });
    await page.locator("#timeline").screenshot({ path: join(OUT, "raft-zk-leader-crash-acquire-lanes.png") });
    expect(old).toMatchObject({ lane: "zk-1", term: 1 });
    expect(old.text).toMatch(/^(leader, term 1|leader t1|L1)$/);
    expect(next.lane).not.toBe("zk-1");
    expect(next).toMatchObject({ term: 2, text: "leader, term 2" });
    // The new leader's band starts after the old one's ends (zk-1's crash), on the page too.
    expect(next.s).toBeGreaterThan(old.e);
    expect(next.box.x).toBeGreaterThan(old.box.x + old.box.width);
    expect(next.box.y).not.toBe(old.box.y);
    // zk-1 comes back as a follower of the new leader, and its label says so.
    const back = page.locator("#timeline g.role[data-lane='zk-1'][data-term='2']");
    expect(await back.locator("text").textContent()).toBe(`follower of ${next.lane}, term 2`);
    expect(problems).toEqual([]);
    await page.close();
  });

  it("naive-gc-pause: the linearizability witness is drawn, and its link zooms the timeline to it", async () => {
    const { page, problems } = await open(file);
    const sec = page.locator("#linearization");
    const w = gc.record.verdicts.results.find((x) => x.checker === "linearizability")!.witness as {
      prefixTail: unknown[];
      cannotFollow: Array<{ startUs: number; endUs: number }>;
    };
    expect(await sec.locator("g.lin-op").count()).toBe(w.prefixTail.length + w.cannotFollow.length);
    expect(await sec.locator("g.lin-op.stuck").count()).toBe(1);
    expect(await sec.locator("g.lin-op.stuck rect").boundingBox()).not.toBeNull();
    await sec.screenshot({ path: join(OUT, "linearizability-witness.png") });
    await sec.locator("button[data-show]").click();
    const stuck = w.cannotFollow[0]!;
    await expect
      .poll(async () => {
        const r = await reportOf(page);
        return r.domainUs[0] <= stuck.startUs && r.domainUs[1] >= stuck.endUs && r.domainUs[1] - r.domainUs[0] < 8_000_000;
      })
      .toBe(true);
    expect(await page.locator("#timeline rect.hi").count()).toBe(1);
    expect(problems).toEqual([]);
    await page.close();
  });

  it("at 1280x720 the timeline starts above the fold", async () => {
    const page = await ctx.newPage();
    await page.setViewportSize({ width: 1280, height: 720 });
    await page.goto(pathToFileURL(file).href);
    await page.waitForSelector("body[data-drawn='1']", { timeout: hangBoundMs(20_000) });
    const tl = (await page.locator("#timeline").boundingBox())!;
    // At least the network lane and the first client lanes are visible without scrolling.
    expect(tl.y + 120).toBeLessThan(720);
    await page.screenshot({ path: join(OUT, "run-report-1280x720.png") });
    await page.close();
  });

  it("at 420 px nothing is wider than the window: the plot fits its frame, each violation's word inside the plot and above the servers' marks", async () => {
    const page = await ctx.newPage();
    await page.setViewportSize({ width: 420, height: 900 });
    await page.goto(pathToFileURL(file).href);
    await page.waitForSelector("body[data-drawn='1']", { timeout: hangBoundMs(20_000) });
    const m = await page.evaluate(() => {
      const frame = document.getElementById("timeline")!.getBoundingClientRect();
      const svg = document.querySelector("#timeline svg")!.getBoundingClientRect();
      const clip = document.querySelector("#timeline rect.hit-area")!.getBoundingClientRect(); // the plot
      const words = [...document.querySelectorAll("#timeline text.vlabel")].map((t) => t.getBoundingClientRect());
      // Later in the document is drawn on top: every note and violation band precedes the words' layer.
      const wordsLayer = document.querySelector("#timeline g.vlabels")!;
      const under = [...document.querySelectorAll("#timeline g.note, #timeline g.violation")];
      return {
        doc: document.documentElement.scrollWidth,
        svgRight: svg.right,
        frameRight: frame.right,
        plot: [clip.left, clip.right],
        words: words.map((w) => [w.left, w.right]),
        marksUnder: under.length,
        labelsOverMarks: under.every((g) => (wordsLayer.compareDocumentPosition(g) & Node.DOCUMENT_POSITION_PRECEDING) !== 0),
      };
    });
    expect(m.doc).toBeLessThanOrEqual(420);
    expect(m.svgRight).toBeLessThanOrEqual(m.frameRight + 1);
    expect(m.words.length).toBeGreaterThan(0);
    for (const [l, r] of m.words) {
      expect(l).toBeGreaterThanOrEqual(m.plot[0]! - 1);
      expect(r).toBeLessThanOrEqual(m.plot[1]! + 1);
    }
    expect(m.marksUnder).toBeGreaterThan(m.words.length);
    expect(m.labelsOverMarks).toBe(true);
    // The linearization keeps its labels legible (it scrolls in its frame) and opens on the operation that cannot follow.
    const lin = await page.evaluate(() => {
      const frame = document.querySelector(".lin-frame")!.getBoundingClientRect();
      const stuck = document.querySelector("g.lin-op.stuck rect")!.getBoundingClientRect();
      const label = document.querySelector("g.lin-op text")!.getBoundingClientRect();
      return { frame: [frame.left, frame.right], stuck: [stuck.left, stuck.right], labelPx: label.height };
    });
    expect(lin.labelPx).toBeGreaterThanOrEqual(9);
    expect(lin.stuck[0]).toBeGreaterThanOrEqual(lin.frame[0]! - 1);
    expect(lin.stuck[1]).toBeLessThanOrEqual(lin.frame[1]! + 1);
    await page.screenshot({ path: join(OUT, "run-report-420.png"), fullPage: true });
    await page.close();
  });

  it("a hostile lock name and story run nothing and show as text", async () => {
    const f = runFixture(hostileScenario());
    const { page, problems } = await open(write("hostile.html", renderRunReport(f.record, f.history)));
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await page.locator("img").count()).toBe(0);
    expect(await page.locator("b[onmouseover]").count()).toBe(0);
    expect(await page.locator("h1").innerText()).toContain(HOSTILE);
    expect(await page.locator(".story-text").innerText()).toContain("</script><script>window.__pwned = 1</script>");
    // The lock name reaches the tooltip as text too.
    const box = (await page.locator("#timeline").boundingBox())!;
    const lane0 = (await page.locator("#timeline .lab").first().boundingBox())!;
    await page.mouse.move(box.x + box.width * 0.35, lane0.y + lane0.height / 2);
    await expect.poll(() => page.locator("#tooltip").innerText()).toContain(`c1 holds ${HOSTILE}`);
    expect(await page.locator("#tooltip img").count()).toBe(0);
    expect(problems).toEqual([]);
    await page.close();
  });

  it("a run with an empty history still draws, with no errors", async () => {
    const f = runFixture(loadScenario("naive-gc-pause"));
    const record = { ...f.record, meta: { ...f.record.meta, clockSamples: [] } };
    const { page, problems } = await open(write("empty.html", renderRunReport(record, [])));
    expect((await reportOf(page)).holdsDrawn).toBe(0);
    expect(problems).toEqual([]);
    await page.close();
  });

  // Its simulation and checkers alone take a minute when the machine is shared: a longer budget, nothing timed is asserted.
  it("a 10-minute run with 10 clients: every hold drawn; size and open+draw time printed", { timeout: hangBoundMs(400_000) }, async () => {
    const f = runFixture(longScenario(), 1);
    const html = renderRunReport(f.record, f.history);
    const file = write("naive-long.html", html);
    const holds = computeHolds(f.history).length;
    const { page, problems, ms } = await open(file);
    const r = await reportOf(page);
    expect(r.holdsDrawn).toBe(holds);
    // 53,000 holds at whole-run zoom: every client lane is a density strip, not one solid bar.
    expect(r.denseLanes).toBe(f.record.meta.clientIds.length);
    expect(problems).toEqual([]);
    const sizeMb = statSync(file).size / 1e6;
    console.log(
      `[browser] long run report: ${f.history.length} history events, ${holds} holds, ${sizeMb.toFixed(2)} MB; ` +
        `open+draw ${ms.toFixed(0)} ms (page.goto to drawn), the page's own performance.now() at drawn: ${r.drawMs.toFixed(0)} ms`,
    );
    await page.locator("#timeline-section").screenshot({ path: join(OUT, "run-report-long.png") });
    // redis-1's lane is busy to the end: the counted strips reach the run's last tenth.
    const strips = await page
      .locator("#timeline g.note-density[data-lane='redis-1'] rect")
      .evaluateAll((els) => els.map((e) => e.getBoundingClientRect().right));
    expect(strips.length).toBeGreaterThan(0);
    const plot = (await page.locator("#timeline rect.lane").first().boundingBox())!;
    expect(strips.reduce((a, x) => Math.max(a, x), 0)).toBeGreaterThan(plot.x + plot.width * 0.9);
    // Zoom in to 1/50 of the run: only the holds in the window are drawn.
    await page.evaluate(() => document.getElementById("zoom-in")!.click());
    for (let i = 0; i < 5; i++) {
      await page.locator("#zoom-in").click();
      await page.waitForTimeout(300);
    }
    const z = await reportOf(page);
    expect(z.holdsDrawn).toBeLessThan(holds / 20);
    expect(z.holdsDrawn).toBeGreaterThan(0);
    expect(z.denseLanes).toBe(0); // zoomed in, each hold is its own bar again
    await page.locator("#timeline-section").screenshot({ path: join(OUT, "run-report-long-zoomed.png") });
    await page.close();
  });
});

describe("comparison page in Chromium", () => {
  it("shows the matrix, links a failing cell to a run report that opens, and logs no errors", async () => {
    const dir = join(OUT, "compare");
    rmSync(dir, { recursive: true, force: true });
    const names = ["naive-baseline", "naive-gc-pause", "naive-gc-pause-fenced"];
    // naive-gc-pause on redlock too: c2 gives up after its retries, so that 0% was never challenged.
    const m = smallMatrix(
      [...names, ["naive-gc-pause", "redlock"]],
      4,
      (s, seed) => `runs/${s}-seed${seed}/report.html`,
      (f) => {
        writeRunArtifacts(join(dir, "runs", `${f.scenario.name}-seed${f.record.seed}`), f.record, f.history);
      },
    );
    const file = join(dir, "compare.html");
    writeFileSync(file, renderComparePage(m));
    const { page, problems } = await open(file, false);
    expect(await page.locator("td.cell").count()).toBe(names.length * m.designs.length);
    const failing = m.cells.filter((c) => c.failingSeed !== undefined);
    expect(failing.length).toBeGreaterThan(0);
    expect(await page.locator("a.seed").count()).toBe(failing.length);
    const unchallenged = page.locator("td.cell.unchallenged[data-design='redlock'][data-scenario='naive-gc-pause']");
    expect(await unchallenged.count()).toBe(1);
    expect(await unchallenged.innerText()).toMatch(/not challenged[\s\S]*failed acquire/);
    expect(await page.locator("td.cell.zero[data-design='redlock']").count()).toBe(0);
    // The cells not run say why, on the page.
    const empty = page.locator("td.cell.empty");
    expect(await empty.count()).toBeGreaterThan(0);
    for (const t of await empty.allInnerTexts()) expect(t).toMatch(/not (run|asked for)/);
    await page.screenshot({ path: join(OUT, "compare.png"), fullPage: true });
    // Eight designs fit a 1400 px window; beyond, the matrix scrolls inside the page.
    const eight = Array.from({ length: 8 }, (_, i) => `design-${i + 1}`);
    const wide = {
      ...m,
      designs: eight,
      cells: eight.flatMap((d, i) => m.cells.filter((c) => c.design === m.designs[i % m.designs.length]).map((c) => ({ ...c, design: d }))),
    };
    writeFileSync(join(dir, "compare-8.html"), renderComparePage(wide));
    const w = await open(join(dir, "compare-8.html"), false);
    await w.page.setViewportSize({ width: 1400, height: 900 });
    expect(await w.page.locator("thead th").count()).toBe(9);
    expect(await w.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1400);
    await w.page.screenshot({ path: join(OUT, "compare-8-designs.png") });
    // At 420 px a matrix of two designs fits the screen without a sideways scroll.
    const two = { ...m, designs: m.designs.slice(0, 2), cells: m.cells.filter((c) => m.designs.slice(0, 2).includes(c.design)) };
    writeFileSync(join(dir, "compare-2.html"), renderComparePage(two));
    await w.page.setViewportSize({ width: 420, height: 900 });
    await w.page.goto(pathToFileURL(join(dir, "compare-2.html")).href);
    const fit = await w.page.evaluate(() => {
      const wrap = document.querySelector(".matrix-wrap")!;
      return { doc: document.documentElement.scrollWidth, wrap: wrap.scrollWidth - wrap.clientWidth };
    });
    expect(fit).toEqual({ doc: 420, wrap: 0 });
    await w.page.screenshot({ path: join(OUT, "compare-420.png"), fullPage: true });
    await w.page.close();
    await page.locator("a.seed").first().click();
    await page.waitForSelector("body[data-drawn='1']", { timeout: hangBoundMs(20_000) });
    expect(page.url()).toContain(`/runs/${failing[0]!.scenario}-seed${failing[0]!.failingSeed}/report.html`);
    expect(problems).toEqual([]);
    await page.close();
  });
});

describe("audit page in Chromium", () => {
  it("at 420 px a counterexample's long replay command wraps inside its card", async () => {
    const html = renderAuditPage(auditPageWithLongReplay());
    const { page, problems } = await open(write("audit-420.html", html), false);
    await page.setViewportSize({ width: 420, height: 900 });
    const sticking = await page.evaluate(() =>
      [...document.querySelectorAll(".cause p code")]
        .filter((el) => el.getBoundingClientRect().right > el.parentElement!.getBoundingClientRect().right + 1)
        .map((el) => el.textContent),
    );
    expect(await page.locator(".cause p code", { hasText: "--seed 2" }).count()).toBe(1);
    expect(sticking).toEqual([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(420);
    await page.screenshot({ path: join(OUT, "audit-420.png"), fullPage: true });
    expect(problems).toEqual([]);
    await page.close();
  });
});

describe("debate page in Chromium", () => {
  it("quotes each claim with a link to its passage, draws a thumbnail per run that opens its report, and logs no errors", async () => {
    const dir = join(OUT, "debate");
    rmSync(dir, { recursive: true, force: true });
    expect(await main(["debate", "--out", dir, "--seed", "1", "--seeds", "3"])).toBe(0);
    process.exitCode = undefined;
    const { page, problems } = await open(join(dir, "debate.html"), false);
    const claims = DEBATE.flatMap((r) => r.claims);
    expect(await page.locator("article.claim").count()).toBe(claims.length);
    expect(await page.locator("blockquote.words.verbatim q").count()).toBe(claims.filter((c) => c.verbatim).length);
    expect(await page.locator("blockquote.words.paraphrase").count()).toBe(claims.filter((c) => !c.verbatim).length);
    for (const href of await page.locator("a.passage").evaluateAll((as) => as.map((a) => (a as HTMLAnchorElement).href)))
      expect(href).toMatch(/^https?:\/\/[^#]+#:~:text=./);
    // One thumbnail per test row, drawn with a size, each bar inside it.
    const thumbs = page.locator("svg.thumb");
    expect(await thumbs.count()).toBe(debateTests().length);
    const box = await thumbs.first().boundingBox();
    expect(box!.width).toBeGreaterThan(100);
    expect(box!.height).toBeGreaterThan(8);
    expect(await page.locator("svg.thumb .th-hold.bad").count()).toBeGreaterThan(0);
    expect(await page.locator("div.seeds").count()).toBe(debateTests().length);
    // The untestable claims say why; none of them is given a verdict.
    const untestable = page.locator("#claim-mk-efficiency-correctness .overall");
    expect(await untestable.innerText()).toMatch(/^No run tests this claim/);
    await page.screenshot({ path: join(OUT, "debate.png"), fullPage: true });
    await page.locator("#claim-mk-gc-pause").screenshot({ path: join(OUT, "debate-claim.png") });
    await page.locator("#claim-mk-gc-pause a.thumb-link").first().click();
    await page.waitForSelector("body[data-drawn='1']", { timeout: hangBoundMs(20_000) });
    expect(page.url()).toContain("/naive-gc-pause/report.html");
    expect(problems).toEqual([]);
    await page.close();
  });
});
