import { describe, expect, it } from "vitest";
import { loadScenario } from "../../scenarios/index.js";
import { computeHolds } from "../../checkers/holds.js";
import { buildRunView } from "../../reports/run-view.js";
import { renderRunReport } from "../../reports/run-report.js";
import { packView, packColumn } from "../../reports/pack.js";
import { unpackView } from "../../reports/browser/unpack.js";
import { buildBrowserScript } from "../../reports/bundle.js";
import { CSP, escapeHtml, jsonForScript } from "../../reports/html.js";
import { HOSTILE, hostileScenario, runFixture } from "./fixtures.js";

const unpack = (v: unknown): unknown => unpackView(v);

function embedded(html: string): unknown {
  const m = /<script type="application\/json" id="run-data">([\s\S]*?)<\/script>/.exec(html);
  expect(m).not.toBeNull();
  return JSON.parse(m![1]!);
}

describe("run view (what the page draws)", () => {
  const gc = runFixture(loadScenario("naive-gc-pause"));
  const view = buildRunView(gc.record, gc.history);

  it("has one hold per computed hold, the pause on c1, and the writes the resource saw", () => {
    expect(view.holds.s.length).toBe(computeHolds(gc.history).length);
    expect(view.holds.s.length).toBe(2);
    const pause = view.faults.filter((f) => f.kind === "pause");
    expect(pause).toHaveLength(1);
    expect(pause[0]!.lanes.map((l) => view.lanes[l]!.id)).toEqual(["c1"]);
    const start = gc.history.find((e) => e.process === "nemesis" && (e.value as { phase: string }).phase === "start")!;
    const end = gc.history.find((e) => e.process === "nemesis" && (e.value as { phase: string }).phase === "end")!;
    expect([pause[0]!.s, pause[0]!.e]).toEqual([start.timeUs, end.timeUs]);
    expect(view.writes.t.length).toBe(gc.history.filter((e) => e.f === "storage-write").length);
    expect(view.writes.ok).toEqual([1, 1]);
  });

  it("marks the overlap of c1's and c2's holds as the violation, with the checker's sentence", () => {
    const me = view.violations.find((v) => v.checker === "mutual-exclusion");
    expect(me).toBeDefined();
    expect(me!.holds.map((h) => view.lanes[view.holds.lane[h]!]!.id).sort()).toEqual(["c1", "c2"]);
    expect(me!.sentence).toMatch(/c1 held order:123.*while c2 held it/);
    expect(me!.e).toBeGreaterThan(me!.s);
    expect(view.holds.bad).toEqual([1, 1]);
    // c1 acted after its lease had lapsed by its own clock, and its release found the key gone.
    const c1 = view.holds.lane.findIndex((l) => view.lanes[l]!.id === "c1");
    expect(view.holds.st[c1]).toBe(1);
    expect(view.holds.lap[c1]).toBeGreaterThan(view.holds.s[c1]!);
    expect(view.holds.rel[c1]).toBe(1);
  });

  it("tells the story in steps that name their marks, in time order", () => {
    const kinds = view.steps.map((s) => s.ref.kind);
    expect(kinds).toContain("fault");
    expect(kinds).toContain("violation");
    expect(kinds).toContain("hold");
    const times = view.steps.map((s) => s.t);
    expect([...times].sort((a, b) => a - b)).toEqual(times);
    expect(view.steps.some((s) => /c1 is paused for 15 s/.test(s.text))).toBe(true);
  });

  it("has no violation and no bad mark where the run is safe", () => {
    const safe = runFixture(loadScenario("naive-baseline"));
    const v = buildRunView(safe.record, safe.history);
    expect(safe.record.verdicts.safety).toBe(true);
    expect(v.violations).toEqual([]);
    expect(v.holds.bad.every((b) => b === 0)).toBe(true);
    expect(v.holds.s.length).toBe(computeHolds(safe.history).length);
    expect(v.latency.count).toBe(v.holds.s.length);
    expect(v.latency.p50Ms!).toBeLessThanOrEqual(v.latency.p99Ms!);
  });

  it("survives packing: the page's decoder gives back the same columns", () => {
    const safe = runFixture(loadScenario("naive-baseline"));
    const v = buildRunView(safe.record, safe.history);
    const round = unpack(JSON.parse(JSON.stringify(packView(v))));
    expect(round).toEqual(JSON.parse(JSON.stringify(v)));
    expect(packColumn([5, 5, 5])).toEqual({ c: 5, n: 3 });
    expect(packColumn([1000000, 1000010, 1000020, 1000030])).toEqual({ d: [1000000, 10, 10, 10] });
    expect(packColumn([3, 1, 2])).toEqual([3, 1, 2]);
  });
});

describe("run report HTML", () => {
  const gc = runFixture(loadScenario("naive-gc-pause"));
  const html = renderRunReport(gc.record, gc.history);

  it("is self-contained: the page's script bundled with the d3 it uses, a no-network CSP, no external references", () => {
    expect(html.includes(`http-equiv="Content-Security-Policy" content="${escapeHtml(CSP)}"`)).toBe(true);
    expect(CSP).toMatch(/^default-src 'none';/);
    const scripts = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]!);
    expect(scripts).toHaveLength(1);
    // d3-selection's namespace table and d3-zoom's wheel handling are in it: d3 is bundled, not fetched.
    expect(scripts[0]).toContain("http://www.w3.org/2000/svg");
    expect(scripts[0]).toContain("wheel");
    // Nothing left to load: no module syntax, no require.
    expect(/\bimport\s*[({"']|\brequire\(/.test(scripts[0]!)).toBe(false);
    expect(/<script[^>]+src=/.test(html)).toBe(false);
    expect(/<link[^>]+href=/.test(html)).toBe(false);
  });

  it("is the same bytes for the same run: the bundled script too (a report is a pure function of its run)", () => {
    const again = runFixture(loadScenario("naive-gc-pause"));
    expect(renderRunReport(again.record, again.history)).toBe(html);
    // And esbuild gives the same script on every build.
    expect(buildBrowserScript("run")).toBe(buildBrowserScript("run"));
    expect(html).toContain(buildBrowserScript("run"));
  });

  it("shows every checker's verdict, the design, seed and the replay command", () => {
    for (const r of gc.record.verdicts.results) expect(html.includes(escapeHtml(r.checker))).toBe(true);
    expect(html.includes("redis-setnx")).toBe(true);
    expect(html.includes("npx lockstep run naive-gc-pause --seed 1")).toBe(true);
    expect(html.includes("outcome-unsafe")).toBe(true);
  });

  it("the header's time is the axis's: the scenario's 20 s and the 2 s drain the timeline draws", () => {
    const data = unpack(embedded(html)) as ReturnType<typeof buildRunView>;
    expect(data.endUs).toBe(22_000_000);
    expect(html).toContain("<dt>simulated</dt><dd>22 s (20 s and a 2 s drain)</dd>");
  });

  it("embeds the data the page draws", () => {
    const data = unpack(embedded(html)) as ReturnType<typeof buildRunView>;
    expect(data.holds.s.length).toBe(2);
    expect(data.violations.length).toBeGreaterThan(0);
  });
});

describe("escaping", () => {
  it("escapes HTML and keeps data from closing its script element", () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe("&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
    const j = jsonForScript({ s: "</script><script>alert(1)</script>\u2028" });
    expect(j).not.toContain("<");
    expect(JSON.parse(j)).toEqual({ s: "</script><script>alert(1)</script>\u2028" });
  });

  it("a hostile lock name, title, story and note come out as text, never markup", () => {
    const f = runFixture(hostileScenario());
    const html = renderRunReport(f.record, f.history);
    expect(html.includes("<img")).toBe(false);
    expect(html.includes("<b onmouseover")).toBe(false);
    expect(html.includes("window.__pwned = 1</script>")).toBe(false);
    expect(html).toContain("&lt;img src=x onerror=alert(1)&gt;");
    // Exactly the page's own script elements: the JSON block and the bundled script.
    expect(html.match(/<script/g)).toHaveLength(2);
    const data = unpack(embedded(html)) as ReturnType<typeof buildRunView>;
    expect(data.locks).toContain(HOSTILE);
    expect(data.faults[0]!.note).toBe(`${HOSTILE} note`);
  });
});
