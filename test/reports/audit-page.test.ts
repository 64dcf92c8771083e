import { describe, expect, it } from "vitest";
import { renderAuditPage, type AuditCardRow, type AuditPageCause } from "../../reports/audit-page.js";
import { causeByName } from "../../causes/index.js";
import { HOSTILE } from "./fixtures.js";

const row = (attack: string, finding: string, extra: Partial<AuditCardRow> = {}): AuditCardRow => ({
  attack,
  runs: 50,
  unsafeRate: finding === "your code" || finding.startsWith("known") ? 1 : 0,
  unsafeCi95: [0.93, 1],
  challengedShare: finding === "not challenged" ? 0 : 1,
  reference: "setnx-reference (reference)",
  referenceUnsafe: finding.startsWith("known") ? 50 : 0,
  finding,
  ...extra,
});

function cause(id: string, extra: Partial<AuditPageCause> = {}): AuditPageCause {
  const c = causeByName(id)!;
  return {
    id,
    title: c.title,
    meaning: c.meaning,
    fix: c.fix,
    fixCode: c.fixCode,
    source: c.source,
    sentence: "c1's DEL deleted c2's key lock:order:123 on redis-1 at 1.305 s.",
    attacks: [{ attack: "delayed-release", runs: 50, unsafeRate: 1, unsafeCi95: [0.93, 1], referenceUnsafeRate: 0, explained: 5, diagnosed: 5 }],
    ...extra,
  };
}

const page = (causes: AuditPageCause[], rows: AuditCardRow[], unexplained: Parameters<typeof renderAuditPage>[0]["unexplained"] = []) =>
  renderAuditPage({ lock: "two-bugs.cjs", reference: "setnx-reference (reference)", seeds: 50, rows, causes, unexplained });

describe("audit.html", () => {
  const rows = [
    row("delayed-release", "your code", { causes: ["release-deletes-others-key"] }),
    row("holder-pause-before-write", "known limit of this backend", { reportHref: "counterexamples/holder-pause-before-write/run/report.html" }),
    row("waiter-deadline", "safe"),
    row("slow-acquire", "not challenged"),
    row("leader-crash", "refused", { refused: "no elected leader" }),
  ];

  it("counts the bugs by cause and gives each its story, fix, attacks with both rates, counterexample and real result", () => {
    const html = page(
      [
        cause("release-deletes-others-key", {
          counterexample: {
            attack: "delayed-release",
            seed: 4,
            title: "Your release deletes the key whoever holds it: delay c1->redis-1 by 800 ms",
            faults: ["delay c1->redis-1 by 800 ms for 1000 ms"],
            evidence: "an acknowledged update lost",
            replay: "npx lockstep run x.json --seed 4",
          },
          reportHref: "counterexamples/release-deletes-others-key/run/report.html",
          real: { runs: 5, unsafe: 5, reference: { runs: 5, unsafe: 0 } },
        }),
        cause("extend-renews-others-key"),
      ],
      rows,
    );
    expect(html).toContain("2 bugs in your code");
    expect(html).toContain('<section class="cause" id="cause-release-deletes-others-key">');
    expect(html).toContain("What happened");
    expect(html).toContain("c1&#39;s DEL deleted c2&#39;s key");
    expect(html).toContain("if redis.call(&quot;get&quot;, KEYS[1]) == ARGV[1]");
    expect(html).toMatch(/<td>delayed-release<\/td><td class="num">100% \[93%, 100%\] of 50<\/td><td class="num">0%<\/td>/);
    expect(html).toContain('href="counterexamples/release-deletes-others-key/run/report.html"');
    expect(html).toContain("Reproduced 5/5 on a real redis-server; the reference recipe: unsafe 0/5.");
    // A cause not confirmed says how to confirm it.
    expect(html).toMatch(/id="cause-extend-renews-others-key"[\s\S]*Not run: <code>lockstep audit … --confirm-real 5<\/code>/);
    // The attack table links a "your code" row to its cause.
    expect(html).toContain('<a href="#cause-release-deletes-others-key">bug 1</a> <span class="about cause-id">release-deletes-others-key</span>');
  });

  it("draws 'not challenged' apart from 'safe', and says what each finding means", () => {
    const html = page([], rows);
    expect(html).toContain('<tr class="safe">');
    expect(html).toContain('<tr class="not-challenged">');
    expect(html).toMatch(/tr\.not-challenged td\.finding\{[^}]*repeating-linear-gradient/);
    expect(html).toMatch(/tr\.safe td\.finding\{background:#e3f6e3/);
    expect(html).toContain("not challenged: no run tested the lock, so this is no evidence of safety");
    expect(html).toContain("No bug found in your code");
    // Each attack says what it does.
    expect(html).toContain("The holder pauses past its lease between its read and its write");
  });

  it("lists a finding no cause explains, with its decisive moment", () => {
    const html = page(
      [],
      [row("lossy-network", "your code")],
      [{ attack: "lossy-network", seed: 3, atUs: 1_234_567, sentence: "mutual-exclusion: c1 held …" }],
    );
    expect(html).toContain("0 bugs in your code, and 1 finding no cause explains");
    expect(html).toContain('id="unexplained-lossy-network"');
    expect(html).toContain("seed 3, 1.235 s");
  });

  it("escapes everything a lock or scenario author controls", () => {
    const html = renderAuditPage({
      lock: HOSTILE,
      reference: HOSTILE,
      seeds: 1,
      rows: [row(HOSTILE, "safe")],
      causes: [{ ...cause("release-deletes-others-key"), sentence: HOSTILE }],
      unexplained: [],
    });
    expect(html).not.toContain("<img src=x");
  });
});
