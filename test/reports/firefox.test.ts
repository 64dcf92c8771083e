import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { loadScenario } from "../../scenarios/index.js";
import { renderRunReport } from "../../reports/run-report.js";
import { renderComparePage } from "../../reports/compare-page.js";
import { renderAuditPage } from "../../reports/audit-page.js";
import { main } from "../../cli/main.js";
import { checkHistoryFile } from "../../cli/commands/check.js";
import { recordForImported, renderImportedReport } from "../../cli/check-report.js";
import { auditPageWithLongReplay, runFixture, smallMatrix } from "./fixtures.js";
import { hangBoundMs } from "../helpers/hang-bound.js";

/**
 * The pages in Firefox (Debian's firefox-esr) at 420 px: each draws, logs no error and is no
 * wider than the window. playwright-core cannot drive firefox-esr here (its BiDi contexts send
 * emulation.setMediaFeaturesOverride, which firefox-esr 153 refuses), so
 * test/helpers/firefox-bidi.mjs speaks WebDriver BiDi to it directly. Screenshots land in
 * test-output/reports/firefox/. `npm test` installs firefox-esr first (scripts/ensure-browsers.sh).
 */
const FIREFOX = "/usr/bin/firefox-esr";
const OUT = resolve("test-output", "reports", "firefox");
const DRAWN = "body[data-drawn='1']";

interface Measured {
  file: string;
  scrollWidth: number;
  innerWidth: number;
  ready: boolean;
  errors: string[];
}

let dir: string;
const pages: Array<{ name: string; file: string; ready: string }> = [];

/** Every page a user opens: run report, imported Jepsen report, compare, audit, playground. */
async function writePages(): Promise<void> {
  const write = (name: string, html: string, ready: string): void => {
    const file = join(dir, `${name}.html`);
    writeFileSync(file, html);
    pages.push({ name, file, ready });
  };
  const gc = runFixture(loadScenario("naive-gc-pause"));
  write("run-report", renderRunReport(gc.record, gc.history), DRAWN);
  const edn = resolve(__dirname, "../fixtures/jepsen/lock-double-grant.edn");
  const c = await checkHistoryFile(edn, {});
  write(
    "jepsen-lock",
    renderImportedReport(recordForImported(edn, c.format, c.model, c.history, c.ctx, c.verdicts, `npx lockstep check ${edn}`, c.notes), c.history),
    DRAWN,
  );
  write("compare", renderComparePage(smallMatrix(["naive-baseline", "naive-gc-pause"], 2, (s, seed) => `runs/${s}-seed${seed}/report.html`)), "");
  write("audit", renderAuditPage(auditPageWithLongReplay()), "");
  expect(await main(["playground", "--out", join(dir, "playground")])).toBe(0);
  pages.push({ name: "playground", file: join(dir, "playground", "index.html"), ready: "body[data-runs='1']" });
}

describe("pages in Firefox (firefox-esr over WebDriver BiDi) at 420 px", () => {
  beforeAll(async () => {
    if (!existsSync(FIREFOX)) throw new Error(`${FIREFOX} is missing: run scripts/ensure-browsers.sh`);
    dir = mkdtempSync(join(tmpdir(), "lockstep-firefox-pages-"));
    mkdirSync(OUT, { recursive: true });
    await writePages();
  }, hangBoundMs(120_000));
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it(
    "each page draws, logs no error, and is no wider than the window",
    () => {
      const jobs = pages.map((p) => ({ file: p.file, width: 420, png: join(OUT, `${p.name}-420.png`), ready: p.ready }));
      const jobsFile = join(dir, "jobs.json");
      writeFileSync(jobsFile, JSON.stringify(jobs));
      const bound = hangBoundMs(90_000);
      const r = spawnSync(process.execPath, ["--experimental-websocket", resolve(__dirname, "../helpers/firefox-bidi.mjs"), jobsFile, String(bound)], {
        encoding: "utf8",
        timeout: bound + 10_000,
      });
      expect(r.status, r.stderr).toBe(0);
      const measured = r.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as Measured);
      expect(measured.map((m) => m.file)).toEqual(pages.map((p) => p.file));
      for (const m of measured) {
        expect({ file: m.file, ready: m.ready, errors: m.errors }).toEqual({ file: m.file, ready: true, errors: [] });
        expect(m.scrollWidth, m.file).toBeLessThanOrEqual(m.innerWidth);
      }
    },
    hangBoundMs(120_000),
  );
});
