import { describe, expect, it } from "vitest";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadScenario, scenarioFiles } from "../../scenarios/index.js";
import { DEBATE, debateTests, type DebateClaim } from "../../reports/debate-claims.js";
import { bearingOf, renderDebatePage } from "../../reports/debate.js";
import { main } from "../../cli/main.js";
import { HOSTILE, runFixture } from "./fixtures.js";

describe("debate claims (data)", () => {
  it("names only scenarios that exist, and each expects an outcome the claim can be judged by", () => {
    const files = scenarioFiles();
    for (const { claim, test } of debateTests()) {
      expect(files.has(test.scenario), `${claim.id} → ${test.scenario}`).toBe(true);
      expect(test.supportedBy.length).toBeGreaterThan(0);
    }
  });

  it("has both sides in the debate, each claim with a source", () => {
    const claims = DEBATE.flatMap((r) => r.claims);
    expect(new Set(claims.map((c) => c.who))).toEqual(new Set(["Kleppmann", "antirez"]));
    expect(new Set(claims.map((c) => c.id)).size).toBe(claims.length);
    for (const c of claims) expect(["MK", "AZ", "RD"]).toContain(c.source);
  });
});

describe("debate page", () => {
  const gcClaim = DEBATE.flatMap((r) => r.claims).find((c) => c.id === "mk-gc-pause")!;
  const fencedClaim = DEBATE.flatMap((r) => r.claims).find((c) => c.id === "mk-fencing")!;
  const gc = runFixture(loadScenario("naive-gc-pause"));

  it("judges a claim by its run's outcome", () => {
    expect(bearingOf({ claim: gcClaim, scenario: "naive-gc-pause", record: gc.record })).toBe("borne-out");
    // The same unsafe run does not bear out the fencing claim (which needs the stale write rejected).
    const asFenced: DebateClaim = { ...fencedClaim, tests: [{ ...fencedClaim.tests[0]!, scenario: "naive-gc-pause" }] };
    expect(bearingOf({ claim: asFenced, scenario: "naive-gc-pause", record: gc.record })).toBe("not-borne-out");
    expect(bearingOf({ claim: gcClaim, scenario: "naive-gc-pause" })).toBe("not-run");
  });

  it("shows each claim beside its scenarios, linked to their reports, escaped", () => {
    const hostile: DebateClaim = { id: "x", who: "antirez", source: "AZ", claim: HOSTILE, tests: [{ scenario: "naive-gc-pause", shows: HOSTILE, supportedBy: ["unsafe"] }] };
    const html = renderDebatePage([
      { claim: gcClaim, scenario: "naive-gc-pause", record: gc.record, report: "naive-gc-pause/report.html" },
      { claim: gcClaim, scenario: "redlock-gc-pause" },
      { claim: hostile, scenario: "naive-gc-pause", record: gc.record, report: `${HOSTILE}/r.html` },
    ]);
    expect(html.includes(`<a href="naive-gc-pause/report.html">naive-gc-pause</a>`)).toBe(true);
    expect(html.includes("Borne out by the run.")).toBe(true); // one of the two tests ran
    expect(html.match(/<tr class="b-borne-out"/g)).toHaveLength(2);
    expect(html.match(/<tr class="b-not-run"/g)).toHaveLength(1);
    expect(html.includes("<img")).toBe(false);
    expect(html.includes("&lt;img src=x onerror=alert(1)&gt;")).toBe(true);
    expect(/<script/.test(html)).toBe(false);
  });
});

describe("lockstep debate", () => {
  it("runs every claim's scenario, writes each report and debate.html linking to them", async () => {
    const out = mkdtempSync(join(tmpdir(), "lockstep-debate-"));
    try {
      const code = await main(["debate", "--out", out, "--seed", "1"]);
      expect(code).toBe(0);
      const html = readFileSync(join(out, "debate.html"), "utf8");
      const scenarios = [...new Set(debateTests().map((t) => t.test.scenario))];
      for (const s of scenarios) {
        expect(existsSync(join(out, s, "report.html")), s).toBe(true);
        expect(html.includes(`href="${s}/report.html"`), s).toBe(true);
        const rec = JSON.parse(readFileSync(join(out, s, "results.json"), "utf8"));
        expect(rec.seed).toBe(1);
      }
    } finally {
      process.exitCode = undefined; // main() sets it, as the CLI does
      rmSync(out, { recursive: true, force: true });
    }
  });
});
