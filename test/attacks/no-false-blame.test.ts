/**
 * No false blame: a correct lock stays blameless whichever optional part of the adapter
 * contract it leaves out (designs/library/adapter.ts; docs/your-own-lock.md says what
 * lockstep assumes for each). The reference recipe and examples/my-lock, each without its
 * validityMs, holds(), extend() or secret in turn, audited over the whole catalogue: no
 * finding is "your code". An adapter with neither validityMs nor holds() is an input
 * error naming the field, never a whole TTL assumed from the reply.
 */
import { describe, expect, it } from "vitest";
import { dirname, join, relative, resolve } from "node:path";
import { runAudit } from "../../harness/audit/run.js";
import { ATTACKS, attackByName, type LockUnderTest } from "../../attacks/index.js";
import { adapterPath } from "../../designs/library/adapter.js";
import { packageRoot } from "../../sim/paths.js";
import { parseScenario } from "../../scenarios/schema.js";
import { runScenario } from "../../harness/runner.js";
import { InputError } from "../../sim/errors.js";
import type { HistoryEvent } from "../../sim/history.js";

const SEEDS = 4;
const WRAPPER = resolve("test/fixtures/adapters/without-field.cjs");
// Relative to the wrapper: library code sees a virtual install, where a host's absolute path names nothing.
const LOCKS: Record<string, string> = {
  "setnx-reference": relative(dirname(WRAPPER), adapterPath("setnx-reference", "<test>", "adapter")),
  "examples/my-lock": relative(dirname(WRAPPER), join(packageRoot(), "examples", "my-lock", "adapter.ts")),
};
const FIELDS = ["validityMs", "holds", "extend", "secret"];

function without(lock: string, fields: string[]): LockUnderTest {
  return {
    design: "library",
    designOptions: { adapter: WRAPPER, nodes: 1, options: { adapter: LOCKS[lock], without: fields } },
    label: `${lock} without ${fields.join(", ")}`,
  };
}

/** The history of one attack's run on a lock. */
function historyOf(attack: string, lock: LockUnderTest, seed = 1): HistoryEvent[] {
  const compiled = attackByName(attack)!.compile(lock);
  if (!compiled.ok) throw new Error(compiled.refusal);
  return runScenario(parseScenario(JSON.parse(JSON.stringify(compiled.scenario)), "<test>"), seed).history;
}

const lapseOf = (h: readonly HistoryEvent[], process: string): HistoryEvent | undefined => h.find((e) => e.f === "lapse" && e.process === process);

describe("a correct lock without an optional field of the adapter contract", () => {
  for (const lock of Object.keys(LOCKS)) {
    for (const field of FIELDS) {
      it(`${lock} without ${field}: no finding in its code`, () => {
        const r = runAudit(without(lock, [field]), { seeds: SEEDS, attacks: ATTACKS });
        expect(r.rows.filter((x) => x.finding === "your code").map((x) => `${x.attack} ${x.unsafeRate}`)).toEqual([]);
        // The catalogue did challenge it: a wholesale refusal would also find nothing.
        expect(r.rows.filter((x) => x.finding === "safe").length).toBeGreaterThan(5);
      });
    }
  }

  it("with no validity reported, the belief is holds(): recorded without validityMs, lapsing within a poll of the reported one", () => {
    const full = historyOf("slow-holder-link", without("setnx-reference", []));
    const bare = historyOf("slow-holder-link", without("setnx-reference", ["validityMs"]));
    const grant = bare.find((e) => e.f === "acquire" && e.type === "ok" && e.process === "c1")!;
    expect(grant.value).not.toHaveProperty("validityMs");
    const a = lapseOf(full, "c1")!;
    const b = lapseOf(bare, "c1")!;
    expect(Math.abs(b.timeUs - a.timeUs)).toBeLessThanOrEqual(1000);
    // The waiter's grant comes after the holder's belief ended, in the history's order.
    const waiter = bare.find((e) => e.f === "acquire" && e.type === "ok" && e.process === "c2")!;
    expect(b.index).toBeLessThan(waiter.index);
  });

  it("neither validityMs nor holds(): an input error naming the adapter and the field", () => {
    let err: unknown;
    try {
      historyOf("slow-holder-link", without("setnx-reference", ["validityMs", "holds"]));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).message).toContain(WRAPPER);
    expect((err as InputError).message).toContain("acquire() result");
    expect((err as InputError).message).toContain("holds(handle)");
  });
});
