import { describe, expect, it } from "vitest";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadScenario, scenarioFiles } from "../../scenarios/index.js";
import { DEBATE, debateTests, type DebateClaim } from "../../reports/debate-claims.js";
import { bearingOf, classify, renderDebatePage, tallyText } from "../../reports/debate.js";
import { thumbnailSvg } from "../../reports/debate-thumb.js";
import { buildRunView } from "../../reports/run-view.js";
import { tally } from "../../harness/debate.js";
import { main } from "../../cli/main.js";
import { HOSTILE, hostileScenario, runFixture, wilson } from "./fixtures.js";

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
    const hostile: DebateClaim = {
      id: "x",
      who: "antirez",
      source: "AZ",
      words: HOSTILE,
      verbatim: true,
      section: HOSTILE,
      claim: HOSTILE,
      tests: [{ scenario: "naive-gc-pause", shows: HOSTILE, supportedBy: ["unsafe"] }],
    };
    const html = renderDebatePage([
      { claim: gcClaim, scenario: "naive-gc-pause", record: gc.record, report: "naive-gc-pause/report.html" },
      { claim: gcClaim, scenario: "redlock-gc-pause" },
      { claim: hostile, scenario: "naive-gc-pause", record: gc.record, report: `${HOSTILE}/r.html` },
    ]);
    expect(html.includes(`<a href="naive-gc-pause/report.html">naive-gc-pause</a>`)).toBe(true);
    expect(html.includes("Borne out by every run that tested it (1).")).toBe(true); // one of the two tests ran
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
      const code = await main(["debate", "--out", out, "--seed", "1", "--seeds", "3"]);
      expect(code).toBe(0);
      const html = readFileSync(join(out, "debate.html"), "utf8");
      const scenarios = [...new Set(debateTests().map((t) => t.test.scenario))];
      for (const s of scenarios) {
        expect(existsSync(join(out, s, "report.html")), s).toBe(true);
        expect(html.includes(`href="${s}/report.html"`), s).toBe(true);
        expect(html.includes(`aria-label="timeline of ${s}, seed 1:`), s).toBe(true);
        const rec = JSON.parse(readFileSync(join(out, s, "results.json"), "utf8"));
        expect(rec.seed).toBe(1);
      }
      // Every test row carries its rate over seeds 1..3.
      expect(html.match(/<div class="seeds">seeds 1–3: /g)).toHaveLength(debateTests().length);
    } finally {
      process.exitCode = undefined; // main() sets it, as the CLI does
      rmSync(out, { recursive: true, force: true });
    }
  });
});

describe("the debate, fair and checkable", () => {
  const claims = DEBATE.flatMap((r) => r.claims);
  const byId = (id: string) => claims.find((c) => c.id === id)!;

  it("gives each claim in its author's short words, linked to the passage; a paraphrase is marked as one", () => {
    for (const c of claims) {
      expect(c.words.split(/\s+/).length, c.id).toBeLessThanOrEqual(30);
      expect(c.section.length, c.id).toBeGreaterThan(0);
    }
    expect(byId("rd-persistence").verbatim).toBe(false);
    const html = renderDebatePage(debateTests().map(({ claim, test }) => ({ claim, scenario: test.scenario })));
    for (const c of claims) {
      const fragment = encodeURIComponent(c.words.split(" ").slice(0, 8).join(" ")).replace(/'/g, "&#39;");
      expect(html, c.id).toContain(`#:~:text=${fragment}`);
    }
    const card = (id: string) => html.slice(html.indexOf(`id="claim-${id}"`), html.indexOf("</article>", html.indexOf(`id="claim-${id}"`)));
    expect(card("rd-persistence")).toContain("paraphrase, not a quote");
    expect(card("mk-gc-pause")).not.toContain("paraphrase, not a quote");
    expect(card("mk-gc-pause")).toContain("<q>if the GC pause lasts longer than the lease expiry period");
    expect(card("mk-gc-pause")).toContain("in short (lockstep's paraphrase)");
  });

  it("has the rounds both sides argued: efficiency vs correctness, and network delay as a pause", () => {
    expect(byId("mk-efficiency-correctness").words).toContain("for efficiency or for correctness");
    expect(byId("mk-network-delay").words).toBe("A long network delay can produce the same effect as the process pause.");
    const rounds = DEBATE.map((r) => r.title);
    expect(rounds).toContain("What is the lock for?");
    expect(rounds).toContain("Network delay, the same as a pause?");
    // Both sides speak in every round.
    for (const r of DEBATE) expect(new Set(r.claims.map((c) => c.who)), r.title).toEqual(new Set(["Kleppmann", "antirez"]));
    // A claim no run can test says why, and is never given a verdict.
    const html = renderDebatePage([]);
    const card = html.slice(
      html.indexOf('id="claim-mk-efficiency-correctness"'),
      html.indexOf("</article>", html.indexOf('id="claim-mk-efficiency-correctness"')),
    );
    expect(card).toContain("No run tests this claim: a judgement about what a failure costs");
    expect(card).not.toMatch(/borne out/i);
  });

  it("a safe run in which nobody got near a hold tested nothing: untested, never 'not borne out'", () => {
    const test = { scenario: "x", shows: "", supportedBy: ["unsafe" as const] };
    expect(classify(test, "safe", false)).toBe("untested");
    expect(classify(test, "safe", true)).toBe("not-borne-out");
    expect(classify(test, "unsafe", false)).toBe("borne-out");
    expect(classify({ ...test, supportedBy: ["safe"] }, "safe", false)).toBe("untested");
    // A claim that a client refuses: the refusal is the test.
    expect(classify({ ...test, supportedBy: ["safe"], testedBy: "refusal" }, "safe", false, true)).toBe("borne-out");
    expect(classify({ ...test, supportedBy: ["safe"], testedBy: "refusal" }, "safe", false, false)).toBe("untested");
    const safe = runFixture(loadScenario("naive-baseline"));
    const html = renderDebatePage([{ claim: gcClaimOf(), scenario: "naive-gc-pause", record: safe.record, challenged: false }]);
    expect(html).toContain('<tr class="b-untested"');
    expect(html).not.toContain("Not borne out");
  });

  it("tallies seeds with a Wilson interval, leaving untested seeds out of the rate", () => {
    const test = { scenario: "x", shows: "", supportedBy: ["unsafe" as const] };
    const runs = [
      { seed: 1, outcome: "unsafe" as const, challenged: true, refused: false },
      { seed: 2, outcome: "safe" as const, challenged: true, refused: false },
      { seed: 3, outcome: "safe" as const, challenged: false, refused: false },
      { seed: 4, outcome: "unsafe" as const, challenged: true, refused: false },
    ];
    const t = tally(test, runs);
    expect(t).toMatchObject({ from: 1, to: 4, borneOut: 2, notBorneOut: 1, untested: 1 });
    expect(t.ci95).toEqual(wilson(2, 3));
    expect(tallyText(t)).toMatch(/^seeds 1–4: borne out in 2 of 3 \(67%, 95% interval \d+%–\d+%\); 1 of 4 did not test it$/);
  });

  it("draws one run's timeline as a thumbnail: a bar per hold, the violating ones red, ids escaped", () => {
    const gc = runFixture(loadScenario("naive-gc-pause"));
    const svg = thumbnailSvg(gc.record, gc.history);
    expect(svg.match(/class="th-hold/g)!.length).toBe(buildRunView(gc.record, gc.history).holds.s.length);
    expect(svg.match(/class="th-hold bad"/g)).toHaveLength(2);
    expect(svg).toMatch(/class="th-fault"/);
    const hostile = runFixture(hostileScenario());
    expect(thumbnailSvg(hostile.record, hostile.history)).not.toContain("<img");
  });
});

function gcClaimOf(): DebateClaim {
  return DEBATE.flatMap((r) => r.claims).find((c) => c.id === "mk-gc-pause")!;
}
