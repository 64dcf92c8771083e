import { describe, expect, it } from "vitest";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { runAudit } from "../../harness/audit/run.js";
import { ATTACKS, attackByName, type LockUnderTest } from "../../attacks/index.js";
import { loadScenarioFile } from "../../scenarios/index.js";

const SEEDS = 3;
const adapter = (file: string): LockUnderTest => ({ design: "library", designOptions: { adapter: resolve(file), nodes: 1 }, label: file });

/** Each bug class, its fixture, and the attack made for it. */
const BUGS: Array<[string, string]> = [
  ["test/fixtures/adapters/bugs/plain-del.cjs", "late-release"],
  ["test/fixtures/adapters/bugs/tokenless-extend.cjs", "extend-after-lapse"],
  ["test/fixtures/adapters/bugs/proceed-at-deadline.cjs", "waiter-deadline"],
  ["test/fixtures/adapters/bugs/no-validity-after-slow-acquire.cjs", "slow-acquire"],
  ["test/fixtures/adapters/bugs/trust-past-validity.cjs", "slow-acquire"],
  ["test/fixtures/adapters/bugs/refused-retry-granted.cjs", "lost-acquire-reply"],
  ["test/fixtures/adapters/bugs/wall-clock-validity.cjs", "client-clock-jump"],
  ["test/fixtures/adapters/bugs/get-then-del.cjs", "holder-pause-during-release"],
  ["test/fixtures/adapters/bugs/validity-from-reply.cjs", "slow-holder-link"],
  ["test/fixtures/adapters/bugs/renew-unconfirmed.cjs", "long-hold-renewal"],
  ["test/fixtures/adapters/bugs/validity-from-retry.cjs", "acquire-reply-delayed"],
  ["test/fixtures/adapters/bugs/timestamp-expiry.cjs", "waiter-clock-jump"],
];

describe("the audit on adapters with one bug each", () => {
  for (const [file, attack] of BUGS) {
    it(`${file}: "your code" on ${attack}, with a replayable counterexample`, () => {
      const out = mkdtempSync(join(tmpdir(), "audit-bug-"));
      const r = runAudit(adapter(file), { seeds: SEEDS, attacks: [attackByName(attack)!], out });
      expect(r.yourCode).toEqual([attack]);
      const cx = r.rows[0]!.counterexample!;
      expect(loadScenarioFile(cx.file).expect).toBe("unsafe");
    });
  }

  it("examples/my-lock: no finding in its code; its unsafe attacks are backend limits", () => {
    const r = runAudit(adapter("examples/my-lock/adapter.ts"), { seeds: SEEDS, attacks: ATTACKS });
    const counts = { yourCode: r.yourCode.length, limits: r.rows.filter((x) => x.finding === "known limit of this backend").map((x) => x.attack) };
    expect(counts).toEqual({ yourCode: 0, limits: ["holder-pause-before-write", "server-clock-jump", "crash-restart-no-fsync", "client-clock-slow"] });
  });
});
