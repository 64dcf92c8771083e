import { describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { runAudit } from "../../harness/audit/run.js";
import { ATTACKS, attackByName, type LockUnderTest } from "../../attacks/index.js";
import { loadScenarioFile } from "../../scenarios/index.js";

const SEEDS = 3;
const adapter = (file: string): LockUnderTest => ({ design: "library", designOptions: { adapter: resolve(file), nodes: 1 }, label: file });

/** Each bug class: its fixture, the attack made for it, and the cause the audit must name. */
const BUGS: Array<[string, string, string]> = [
  ["test/fixtures/adapters/bugs/plain-del.cjs", "late-release", "release-deletes-others-key"],
  ["test/fixtures/adapters/bugs/tokenless-extend.cjs", "extend-after-lapse", "extend-renews-others-key"],
  ["test/fixtures/adapters/bugs/proceed-at-deadline.cjs", "waiter-deadline", "acquire-granted-without-the-key"],
  ["test/fixtures/adapters/bugs/no-validity-after-slow-acquire.cjs", "slow-acquire", "lease-counted-from-reply"],
  ["test/fixtures/adapters/bugs/trust-past-validity.cjs", "slow-acquire", "holds-ignores-validity"],
  ["test/fixtures/adapters/bugs/refused-retry-granted.cjs", "lost-acquire-reply", "acquire-granted-without-the-key"],
  ["test/fixtures/adapters/bugs/wall-clock-validity.cjs", "client-clock-jump", "lease-on-wall-clock"],
  ["test/fixtures/adapters/bugs/get-then-del.cjs", "holder-pause-during-release", "release-checks-then-deletes"],
  ["test/fixtures/adapters/bugs/validity-from-reply.cjs", "slow-holder-link", "lease-counted-from-reply"],
  ["test/fixtures/adapters/bugs/renew-unconfirmed.cjs", "long-hold-renewal", "extend-unconfirmed"],
  ["test/fixtures/adapters/bugs/validity-from-retry.cjs", "acquire-reply-delayed", "lease-counted-from-reply"],
  ["test/fixtures/adapters/bugs/timestamp-expiry.cjs", "waiter-clock-jump", "acquire-overwrites-live-lock"],
];

describe("the audit on adapters with one bug each", () => {
  for (const [file, attack, cause] of BUGS) {
    it(`${file}: "your code" on ${attack}, by one cause (${cause}), with a replayable counterexample titled by it`, () => {
      const out = mkdtempSync(join(tmpdir(), "audit-bug-"));
      const r = runAudit(adapter(file), { seeds: SEEDS, attacks: [attackByName(attack)!], out });
      expect(r.yourCode).toEqual([attack]);
      expect(r.causes.map((c) => c.id)).toEqual([cause]);
      expect(r.unexplained).toEqual([]);
      expect(r.rows[0]!.causes).toEqual([cause]);
      const c = r.causes[0]!;
      expect(c.attacks.map((a) => [a.attack, a.referenceUnsafeRate])).toEqual([[attack, 0]]);
      const cx = c.counterexample!;
      expect(cx.file).toContain(join("counterexamples", cause));
      const s = loadScenarioFile(cx.file);
      expect(s.expect).toBe("unsafe");
      expect(s.title.startsWith(`${c.title}: `)).toBe(true);
      // Titled by the faults the shrunk scenario kept, and no other.
      expect(cx.faults).toHaveLength(s.faults.length);
      const report = readFileSync(join(out, "counterexamples", cause, "run", "report.html"), "utf8");
      expect(report).toContain(`href="../../../audit.html#cause-${cause}"`);
    });
  }

  it("the two-bug lock: two causes, each with the attacks that exposed it", () => {
    const r = runAudit(adapter("test/fixtures/adapters/bugs/two-bugs.cjs"), {
      seeds: SEEDS,
      attacks: ["late-release", "extend-after-lapse", "long-hold-renewal"].map((a) => attackByName(a)!),
    });
    expect(r.causes.map((c) => [c.id, c.attacks.map((a) => a.attack)])).toEqual([
      ["release-deletes-others-key", ["late-release"]],
      ["extend-renews-others-key", ["extend-after-lapse", "long-hold-renewal"]],
    ]);
  });

  it("examples/my-lock: no finding in its code; its unsafe attacks are backend limits", () => {
    const r = runAudit(adapter("examples/my-lock/adapter.ts"), { seeds: SEEDS, attacks: ATTACKS });
    const counts = { yourCode: r.yourCode.length, limits: r.rows.filter((x) => x.finding === "known limit of this backend").map((x) => x.attack) };
    expect(counts).toEqual({ yourCode: 0, limits: ["holder-pause-before-write", "server-clock-jump", "crash-restart-no-fsync", "client-clock-slow"] });
  });
});
