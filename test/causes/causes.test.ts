/**
 * The cause catalogue, on runs where each cause must be recognised and runs where it
 * must not: every bug fixture under the attack written for it names its cause and no
 * other; the reference recipe under the same attacks, and under one that breaks every
 * lease lock (a pause past the lease), matches no cause at all; a violation no cause
 * explains is kept, with its decisive moment.
 */
import { describe, expect, it } from "vitest";
import { resolve } from "node:path";
import { attackByName, type LockUnderTest } from "../../attacks/index.js";
import { parseScenario } from "../../scenarios/schema.js";
import { runScenario } from "../../harness/runner.js";
import { runCheckers } from "../../checkers/run-all.js";
import { checkContextFor } from "../../harness/check-context.js";
import { CAUSES, diagnose, factsOfEvidence, type Diagnosis } from "../../causes/index.js";
import { adapterPath } from "../../designs/library/adapter.js";
import type { TraceRecord } from "../../sim/simulation.js";
import type { HistoryEvent } from "../../sim/history.js";

const bug = (file: string): LockUnderTest => ({
  design: "library",
  designOptions: { adapter: resolve("test/fixtures/adapters", file), nodes: 1 },
  label: file,
});
const REFERENCE: LockUnderTest = {
  design: "library",
  designOptions: { adapter: adapterPath("setnx-reference", "<test>", "adapter"), nodes: 1 },
  label: "setnx-reference",
};

interface Run {
  history: HistoryEvent[];
  trace: TraceRecord[];
  d: Diagnosis;
}

function run(attack: string, lock: LockUnderTest, seed: number): Run {
  const c = attackByName(attack)!.compile(lock);
  if (!c.ok) throw new Error(c.refusal);
  const s = parseScenario(JSON.parse(JSON.stringify(c.scenario)), `<${attack}>`);
  const trace: TraceRecord[] = [];
  const out = runScenario(s, seed, {}, { traceSink: (r) => trace.push(r) });
  const verdicts = runCheckers(out.history, checkContextFor(s));
  return { history: out.history, trace, d: diagnose({ history: out.history, trace, verdicts }) };
}

/** The causes a diagnosis names, alternatives collapsed to the first in catalogue order. */
function named(d: Diagnosis): string[] {
  const names = d.causes.map((x) => x.cause.name);
  return names.filter((n) => {
    const x = d.causes.find((c) => c.cause.name === n)!;
    return x.alternatives.every((a) => names.indexOf(a) > names.indexOf(n));
  });
}

/** Fixture, the attack written for it, the cause it must name. */
const BUGS: Array<[string, string, string]> = [
  ["bugs/plain-del.cjs", "late-release", "release-deletes-others-key"],
  ["bugs/get-then-del.cjs", "holder-pause-during-release", "release-checks-then-deletes"],
  ["bugs/tokenless-extend.cjs", "extend-after-lapse", "extend-renews-others-key"],
  ["bugs/timestamp-expiry.cjs", "waiter-clock-jump", "acquire-overwrites-live-lock"],
  ["bugs/proceed-at-deadline.cjs", "waiter-deadline", "acquire-granted-without-the-key"],
  ["bugs/refused-retry-granted.cjs", "lost-acquire-reply", "acquire-granted-without-the-key"],
  ["shared-token.cjs", "late-release", "grants-share-a-secret"],
  ["bugs/renew-unconfirmed.cjs", "long-hold-renewal", "extend-unconfirmed"],
  ["bugs/wall-clock-validity.cjs", "client-clock-jump", "lease-on-wall-clock"],
  ["bugs/trust-past-validity.cjs", "slow-acquire", "holds-ignores-validity"],
  ["bugs/validity-from-reply.cjs", "slow-holder-link", "lease-counted-from-reply"],
  ["bugs/no-validity-after-slow-acquire.cjs", "slow-acquire", "lease-counted-from-reply"],
  ["bugs/validity-from-retry.cjs", "acquire-reply-delayed", "lease-counted-from-reply"],
];

describe("causes: each bug names its cause", () => {
  for (const [file, attack, cause] of BUGS) {
    it(`${file} under ${attack}: ${cause}, and no other`, () => {
      for (const seed of [1, 2]) {
        const { d } = run(attack, bug(file), seed);
        expect(d.violations.length, `seed ${seed} must be unsafe`).toBeGreaterThan(0);
        expect(named(d), `seed ${seed}`).toEqual([cause]);
        expect(d.unexplained).toBeUndefined();
        for (const m of d.causes[0]!.matches) expect(m.sentence).toMatch(/ at \d+\.\d{3} s/);
      }
    });
  }

  it("the two-bug lock: its plain DEL under late-release, its tokenless PEXPIRE under extend-after-lapse", () => {
    expect(named(run("late-release", bug("bugs/two-bugs.cjs"), 1).d)).toEqual(["release-deletes-others-key"]);
    expect(named(run("extend-after-lapse", bug("bugs/two-bugs.cjs"), 1).d)).toEqual(["extend-renews-others-key"]);
  });

  it("says whose key, by which command, when", () => {
    const m = run("late-release", bug("bugs/plain-del.cjs"), 1).d.causes[0]!.matches[0]!;
    expect(m.sentence).toMatch(
      /^c1's DEL deleted c2's key lock:order:123 on redis-1 at \d\.\d{3} s, \d+ ms into c2's hold \(c2 had set it at \d\.\d{3} s\)\.$/,
    );
    expect(m.processes).toEqual(["c1", "c2"]);
  });

  it("a model design's plain DEL is recognised from its typed commands too", () => {
    const { d } = run("late-release", { design: "redis-setnx", designOptions: { release: "del" }, label: "redis-setnx" }, 1);
    expect(named(d)).toEqual(["release-deletes-others-key"]);
  });
});

describe("causes: a correct lock matches none", () => {
  const attacks = [...new Set([...BUGS.map(([, a]) => a), "holder-pause-before-write", "crash-restart-no-fsync", "client-clock-slow"])];
  for (const attack of attacks) {
    it(`the reference recipe under ${attack}: no cause matches anywhere in the run`, () => {
      for (const seed of [1, 2]) {
        const r = run(attack, REFERENCE, seed);
        const facts = factsOfEvidence(r);
        for (const c of CAUSES) expect(c.recognise(facts), `${c.name}, seed ${seed}`).toEqual([]);
      }
    });
  }

  it("a violation no cause explains is kept: the backend's limit, with its decisive moment", () => {
    const { d } = run("holder-pause-before-write", REFERENCE, 1);
    expect(d.violations.length).toBeGreaterThan(0);
    expect(d.causes).toEqual([]);
    expect(d.unexplained?.atUs).toBeGreaterThan(0);
    expect(d.unexplained?.sentence).toMatch(/decisive moment \d+\.\d{3} s/);
  });

  it("a safe run has no violation and no diagnosis", () => {
    const { d } = run("waiter-deadline", REFERENCE, 1);
    expect(d).toMatchObject({ violations: [], causes: [] });
    expect(d.unexplained).toBeUndefined();
  });

  it("without a command trace, no cause that reads commands claims anything", () => {
    const r = run("late-release", bug("bugs/plain-del.cjs"), 1);
    const facts = factsOfEvidence({ history: r.history, trace: [] });
    expect(CAUSES.flatMap((c) => c.recognise(facts))).toEqual([]);
  });
});
