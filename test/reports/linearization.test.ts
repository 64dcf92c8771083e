import { describe, expect, it } from "vitest";
import { loadScenario } from "../../scenarios/index.js";
import { linearizationOf, linearizationSentence, opWords, renderLinearization } from "../../reports/linearization.js";
import { renderRunReport } from "../../reports/run-report.js";
import { HOSTILE, hostileScenario, runFixture } from "./fixtures.js";

describe("the linearizability failure, drawn", () => {
  const gc = runFixture(loadScenario("naive-gc-pause"));

  it("naive-gc-pause: the prefix numbered in order, the state after it, and c1's stale write as the op that cannot follow", () => {
    const v = linearizationOf(gc.record)!;
    expect(v).toBeDefined();
    const w = v.witness;
    const html = renderLinearization(v);
    expect((html.match(/<g class="lin-op"/g) ?? []).length).toBe(w.prefixTail.length);
    expect((html.match(/<g class="lin-op stuck"/g) ?? []).length).toBe(w.cannotFollow.length);
    expect(w.cannotFollow[0]!.process).toBe("c1");
    expect(w.cannotFollow[0]!.f).toBe("write");
    expect(html).toContain(`after them the lock is <b>${w.state}</b>`);
    expect(html).toContain("<b>cannot follow:</b> c1 write counter = 1 under c1#1 → ok");
    // Numbered 1..prefixLength when the whole prefix is shown.
    expect(w.prefixLength).toBe(w.prefixTail.length);
    for (let n = 1; n <= w.prefixLength; n++) expect(html).toContain(`>${n}. `);
    // The show-on-the-timeline window covers the stuck op.
    const stuck = w.cannotFollow[0]!;
    expect(v.spanUs[0]).toBeLessThanOrEqual(stuck.startUs);
    expect(v.spanUs[1]).toBeGreaterThanOrEqual(stuck.endUs!);
    expect(linearizationSentence(v)).toMatch(
      /^lock order:123 is not linearizable under the lease-lock model: .* 6 operations and leaves the lock free; c1 write counter = 1 under c1#1 → ok cannot follow it\.$/,
    );
  });

  it("says operations in words, never JSON", () => {
    expect(
      opWords({ index: 0, process: "c1", f: "acquire", outcome: "ok", startUs: 0, endUs: 5, input: { ttlMs: 100 }, output: { grantId: "c1#1", token: 3 } }),
    ).toBe("c1 acquire (TTL 100 ms) → granted c1#1, token 3");
    expect(
      opWords({ index: 1, process: "c2", f: "release", outcome: "ok", startUs: 0, endUs: 5, input: { grantId: "c2#1" }, output: { released: false } }),
    ).toBe("c2 release c2#1 → not released (key already gone)");
    expect(opWords({ index: 2, process: "c2", f: "acquire", outcome: "info", startUs: 0, endUs: null })).toBe("c2 acquire → outcome unknown");
  });

  it("the report has the section and a words-only finding with its links; a safe run has none", () => {
    const html = renderRunReport(gc.record, gc.history);
    expect(html).toContain('<section class="linearization" id="linearization">');
    const finding = /<li><span class="ck">linearizability<\/span>([^]*?)<\/li>/.exec(html)![1]!;
    expect(finding).not.toMatch(/\{|&quot;/);
    expect(finding).toContain('data-show="span:');
    expect(finding).toContain('href="#linearization"');
    const safe = runFixture(loadScenario("naive-baseline"));
    expect(renderRunReport(safe.record, safe.history)).not.toContain('id="linearization"');
  });

  it("escapes a hostile lock name", () => {
    const f = runFixture(hostileScenario());
    const v = linearizationOf(f.record);
    expect(v).toBeDefined();
    const html = renderLinearization(v!);
    expect(html.includes(HOSTILE)).toBe(false);
    expect(html).toContain("&lt;img src=x onerror=alert(1)&gt;");
  });
});
