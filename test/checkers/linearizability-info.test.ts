/**
 * Ops whose outcome is unknown (info) in the lock models.
 *
 * 1. The repro of issue 10: with no grant ids (the process stands for its grant), an
 *    acquire with no reply followed by the same process's release -> released:true is
 *    linearizable (the acquire took effect); with a double grant injected it is not.
 * 2. A property over histories made from a real sequential lock execution: 1–8 (lease-lock: 1–4)
 *    clients run acquire / try-acquire / release / extend / write one after another;
 *    each op takes effect at a point inside its [invoke, return] interval, and the
 *    outcomes come from running the lock at those points, in point order (so ops that
 *    overlap are reordered at random). Then random ops lose their reply (info). Such a
 *    history is always linearizable. With a double grant injected (an outsider's
 *    acquire-ok, with a lease that never lapses, inside a tenure that ends with a
 *    completed release -> released:true invoked after the outsider's acquire returned)
 *    it never is. On small ones, the search and the brute-force oracle agree.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bruteForceLinearizable } from "../../checkers/linearizability/brute-force.js";
import { linearizability } from "../../checkers/linearizability/index.js";
import { makeModel, type ModelName } from "../../checkers/linearizability/models/index.js";
import { searchLinearization } from "../../checkers/linearizability/search.js";
import { pairOperations, type HistoryEvent } from "../../sim/history.js";

type Ev = Omit<HistoryEvent, "index">;
const indexed = (es: readonly Ev[]): HistoryEvent[] => es.map((e, index) => ({ index, ...e }));

describe("info acquire whose grant is later used (issue 10 repro)", () => {
  const withInfoEvent: Ev[] = [
    { timeUs: 0, process: "c1", type: "invoke", f: "acquire", lock: "L" },
    { timeUs: 5, process: "c1", type: "info", f: "acquire", lock: "L" },
    { timeUs: 10, process: "c1", type: "invoke", f: "release", lock: "L" },
    { timeUs: 20, process: "c1", type: "ok", f: "release", lock: "L", value: { released: true } },
  ];
  // The same with no completion at all: c1's next invoke leaves the acquire info.
  const noCompletion = withInfoEvent.filter((e) => e.type !== "info");
  // c2 is granted the lock (and its lease cannot lapse this soon) after c1's acquire was
  // invoked and before c1's release was: c1's release -> released:true cannot follow.
  const doubleGrant = (es: Ev[]): Ev[] => [
    ...es.slice(0, -2),
    { timeUs: 6, process: "c2", type: "invoke", f: "acquire", lock: "L" },
    { timeUs: 7, process: "c2", type: "ok", f: "acquire", lock: "L" },
    ...es.slice(-2),
  ];
  for (const model of ["mutex", "lease-lock"] as const) {
    const ctx = { model, ttlMs: 1000 };
    it(`${model}: linearizable, with an info event or with no completion`, () => {
      expect(linearizability(indexed(withInfoEvent), ctx).valid).toBe(true);
      expect(linearizability(indexed(noCompletion), ctx).valid).toBe(true);
    });
    it(`${model}: not linearizable with a double grant injected`, () => {
      expect(linearizability(indexed(doubleGrant(withInfoEvent)), ctx).valid).toBe(false);
      expect(linearizability(indexed(doubleGrant(noCompletion)), ctx).valid).toBe(false);
    });
  }
  it("lockstep's own style (ids in the acquire-ok) is unaffected: the lost acquire's grant is never used", () => {
    const es: Ev[] = [
      { timeUs: 0, process: "c1", type: "invoke", f: "acquire", lock: "L" },
      { timeUs: 5, process: "c1", type: "info", f: "acquire", lock: "L", value: { reason: "timeout" } },
      { timeUs: 10, process: "c1", type: "invoke", f: "release", lock: "L", value: { grantId: "c1#1" } },
      { timeUs: 20, process: "c1", type: "ok", f: "release", lock: "L", value: { released: true } },
    ];
    expect(linearizability(indexed(es), { model: "mutex" }).valid).toBe(false);
  });
});

// ---- Histories from a real sequential execution.

type Kind = "acquire" | "try-acquire" | "release" | "extend" | "write";
type Style = "ok-ids" | "invoke-ids" | "no-ids";

interface Plan {
  kind: Kind;
  gapUs: number;
  durUs: number;
  /** Where in its interval the op takes effect, 0..1. */
  at: number;
  /** The reply is lost: the op becomes info. */
  lost: boolean;
  /** A lost reply is recorded as an `info` event (else there is no completion). */
  infoEvent: boolean;
  ttlUs: number;
}

const planArb: fc.Arbitrary<Plan> = fc.record({
  kind: fc.constantFrom<Kind>("acquire", "try-acquire", "acquire", "release", "release", "extend", "write"),
  gapUs: fc.integer({ min: 3, max: 12 }),
  durUs: fc.integer({ min: 0, max: 25 }),
  at: fc.double({ min: 0, max: 1, noNaN: true }),
  lost: fc.boolean(),
  infoEvent: fc.boolean(),
  ttlUs: fc.constantFrom(15, 30, 60),
});

/**
 * A client's plan: sessions of an acquire (blocking or try), then maybe extends and
 * writes, then usually a release; now and then a stray op outside any session. The
 * plan does not depend on outcomes: a release by a client that does not hold the lock
 * says released:false, an extend or write fails.
 */
const sessionArb: fc.Arbitrary<Plan[]> = fc
  .record({
    acquire: planArb.map((p) => ({ ...p, kind: p.kind === "try-acquire" ? ("try-acquire" as const) : ("acquire" as const) })),
    body: fc.array(
      planArb.map((p) => ({ ...p, kind: p.kind === "extend" ? ("extend" as const) : ("write" as const) })),
      { maxLength: 2 },
    ),
    release: fc.option(
      planArb.map((p) => ({ ...p, kind: "release" as const })),
      { freq: 6 },
    ),
    stray: fc.option(planArb, { freq: 3 }),
  })
  .map(({ acquire, body, release, stray }) => [...(stray ? [stray] : []), acquire, ...body, ...(release ? [release] : [])]);

/** 1–clientsMax clients, each with its own plan (1–sessionsMax sessions) and start offset. */
const executionArb = (clientsMax: number, sessionsMax: number) =>
  fc.array(
    fc.record({ offsetUs: fc.integer({ min: 0, max: 20 }), plans: fc.array(sessionArb, { minLength: 1, maxLength: sessionsMax }).map((ss) => ss.flat()) }),
    { minLength: 1, maxLength: clientsMax },
  );

interface Done {
  client: string;
  f: string;
  startUs: number;
  endUs: number;
  outcome: "ok" | "fail";
  invokeValue: Record<string, unknown>;
  okValue: Record<string, unknown>;
  plan: Plan;
  grant: string;
}

/**
 * Run the lock at each op's point, in point order. Leases (when `lease`) expire `ttl`
 * after the acquire's (or extend's) point; a mutex never expires. Returns each op with
 * its true outcome.
 */
function execute(clients: { offsetUs: number; plans: Plan[] }[], lease: boolean): Done[] {
  interface Pending {
    client: string;
    seq: number;
    plan: Plan;
    startUs: number;
    endUs: number;
    pointUs: number;
  }
  const all: Pending[] = [];
  clients.forEach((c, ci) => {
    let t = c.offsetUs;
    c.plans.forEach((plan, seq) => {
      const dur = plan.kind === "acquire" ? plan.durUs + 5 : plan.durUs; // a blocking acquire waits
      const startUs = t + plan.gapUs;
      const endUs = startUs + dur;
      all.push({ client: `c${ci + 1}`, seq, plan, startUs, endUs, pointUs: startUs + plan.at * dur });
      t = endUs;
    });
  });
  all.sort((a, b) => a.pointUs - b.pointUs || a.client.localeCompare(b.client) || a.seq - b.seq);
  let holder: string | null = null;
  let expiresUs = Infinity;
  const attempts = new Map<string, number>();
  const current = new Map<string, string>(); // client -> grant it believes it holds, or last had
  const out: Done[] = [];
  for (const p of all) {
    const now = p.pointUs;
    if (holder !== null && lease && expiresUs <= now) holder = null; // lapsed
    const ttlMs = p.plan.ttlUs / 1000;
    let outcome: "ok" | "fail" = "fail";
    let grant = current.get(p.client) ?? `${p.client}#0`;
    const okValue: Record<string, unknown> = {};
    const invokeValue: Record<string, unknown> = {};
    switch (p.plan.kind) {
      case "acquire":
      case "try-acquire": {
        const k = (attempts.get(p.client) ?? 0) + 1;
        attempts.set(p.client, k);
        grant = `${p.client}#${k}`;
        invokeValue.ttlMs = ttlMs;
        if (holder === null) {
          outcome = "ok";
          holder = grant;
          expiresUs = lease ? now + p.plan.ttlUs : Infinity;
          current.set(p.client, grant);
        }
        break;
      }
      case "release":
        okValue.released = holder === grant;
        if (holder === grant) holder = null;
        outcome = "ok";
        break;
      case "extend":
        invokeValue.ttlMs = ttlMs;
        if (holder === grant) {
          outcome = "ok";
          expiresUs = lease ? now + p.plan.ttlUs : Infinity;
        }
        break;
      case "write":
        if (holder === grant) outcome = "ok";
        break;
    }
    out.push({
      client: p.client,
      f: p.plan.kind === "try-acquire" ? "acquire" : p.plan.kind,
      startUs: p.startUs,
      endUs: p.endUs,
      outcome,
      invokeValue,
      okValue,
      plan: p.plan,
      grant,
    });
  }
  return out;
}

/** The client-observed history, in the given grant style, with lost replies as info. */
function toHistory(done: readonly Done[], style: Style): Ev[] {
  const es: (Ev & { order: number })[] = [];
  let order = 0;
  for (const d of done) {
    const invokeValue = { ...d.invokeValue };
    const okValue = { ...d.okValue };
    if (d.f === "acquire") {
      if (style === "invoke-ids") invokeValue.grantId = d.grant;
      if (style !== "no-ids" && d.outcome === "ok") okValue.grantId = d.grant;
    } else if (style !== "no-ids") invokeValue.grantId = d.grant;
    // In lockstep's own style the acquire-ok is where the grant id is learnt: losing it
    // would orphan the ops under the grant, so those keep their reply.
    const lost = d.plan.lost && !(style === "ok-ids" && d.f === "acquire" && d.outcome === "ok");
    es.push({ timeUs: d.startUs, process: d.client, type: "invoke", f: d.f, lock: "L", value: invokeValue, order: order++ });
    if (!lost) es.push({ timeUs: d.endUs, process: d.client, type: d.outcome, f: d.f, lock: "L", value: okValue, order: order++ });
    else if (d.plan.infoEvent) es.push({ timeUs: d.endUs, process: d.client, type: "info", f: d.f, lock: "L", order: order++ });
  }
  es.sort((a, b) => a.timeUs - b.timeUs || a.order - b.order);
  return es.map(({ order: _o, ...e }) => e);
}

/**
 * Inject a double grant: an outsider acquire-ok whose lease never lapses, strictly
 * between some tenure's acquire-ok return and its completed release -> released:true
 * invoke. That release can then never be legal: after the outsider's grant the lock is
 * the outsider's for good. If the history has no such tenure, one is appended at the end.
 */
function injectDoubleGrant(done: readonly Done[], style: Style): { events: Ev[]; inExisting: boolean } {
  const events = toHistory(done, style);
  const { ops } = pairOperations(indexed(events));
  let window: [number, number] | undefined;
  for (const rel of ops) {
    if (rel.f !== "release" || rel.outcome !== "ok" || (rel.complete?.value as { released?: boolean }).released !== true) continue;
    const acq = ops.filter((o) => o.process === rel.process && o.f === "acquire" && o.outcome === "ok" && o.endUs < rel.startUs).pop();
    if (acq && rel.startUs - acq.endUs >= 2) {
      window = [acq.endUs + 1, rel.startUs - 1];
      break;
    }
  }
  const outsider = (from: number, to: number): Ev[] => [
    { timeUs: from, process: "intruder", type: "invoke", f: "acquire", lock: "L", value: { ttlMs: 1e9 } },
    { timeUs: to, process: "intruder", type: "ok", f: "acquire", lock: "L", value: style === "no-ids" ? {} : { grantId: "intruder#1" } },
  ];
  let extra: Ev[];
  if (window) extra = outsider(window[0], window[1]);
  else {
    const t = Math.max(0, ...events.map((e) => e.timeUs)) + 10;
    const rel = style === "no-ids" ? {} : { grantId: "z#1" };
    extra = [
      { timeUs: t, process: "z", type: "invoke", f: "acquire", lock: "L", value: style === "invoke-ids" ? { grantId: "z#1" } : {} },
      { timeUs: t + 1, process: "z", type: "ok", f: "acquire", lock: "L", value: style === "no-ids" ? {} : { grantId: "z#1" } },
      ...outsider(t + 3, t + 4),
      { timeUs: t + 6, process: "z", type: "invoke", f: "release", lock: "L", value: rel },
      { timeUs: t + 7, process: "z", type: "ok", f: "release", lock: "L", value: { released: true } },
    ];
  }
  const merged = [...events.map((e, i) => ({ e, k: i })), ...extra.map((e, i) => ({ e, k: events.length + i }))];
  merged.sort((a, b) => a.e.timeUs - b.e.timeUs || a.k - b.k);
  return { events: merged.map((x) => x.e), inExisting: window !== undefined };
}

const BUDGET = { statesMax: 1_000_000, memoryMbMax: 512 };
const BRUTE_MAX_OPS = 8;

function sequentialProperty(modelName: ModelName, lease: boolean, numRuns: number, clientsMax: number, sessionsMax: number): void {
  const ctx = { model: modelName };
  const model = makeModel(modelName, ctx);
  it(`${modelName}: a real execution with lost replies is always linearizable; with a double grant injected, never`, () => {
    const seen = { valid: 0, invalid: 0, injectedInExisting: 0, brute: 0, infoOps: 0, infoAcquires: 0 };
    fc.assert(
      fc.property(executionArb(clientsMax, sessionsMax), fc.constantFrom<Style>("ok-ids", "invoke-ids", "no-ids"), (clients, style) => {
        const done = execute(clients, lease);
        const good = indexed(toHistory(done, style));
        const r = linearizability(good, ctx);
        if (r.valid !== true) return false;
        seen.valid++;
        const { ops } = pairOperations(good);
        const info = ops.filter((o) => o.outcome === "info");
        seen.infoOps += info.length;
        seen.infoAcquires += info.filter((o) => o.f === "acquire").length;

        const bad = injectDoubleGrant(done, style);
        const rb = linearizability(indexed(bad.events), ctx);
        if (rb.valid !== false) return false;
        seen.invalid++;
        if (bad.inExisting) seen.injectedInExisting++;

        // Small ones: the search and the oracle agree, on both.
        for (const h of [good, indexed(bad.events)]) {
          const admitted = pairOperations(h).ops.filter((o) => model.admits!(o));
          if (admitted.length > BRUTE_MAX_OPS) continue;
          seen.brute++;
          if (bruteForceLinearizable(model, admitted) !== searchLinearization(model, admitted, BUDGET).valid) return false;
        }
        return true;
      }),
      // A fixed seed: the population counts asserted below vary from seed to seed (the
      // brute-forced count hovers near its bound), and a test must not flake.
      { numRuns, seed: 1 },
    );
    console.log(
      `${modelName} from real executions: ${seen.valid} valid, ${seen.invalid} invalid with a double grant ` +
        `(${seen.injectedInExisting} inside a real tenure), ${seen.brute} checked against brute force; ` +
        `${seen.infoOps} info ops, ${seen.infoAcquires} of them acquires`,
    );
    expect(seen.valid).toBe(numRuns);
    expect(seen.invalid).toBe(numRuns);
    expect(seen.injectedInExisting).toBeGreaterThan(numRuns / 10);
    expect(seen.brute).toBeGreaterThan(numRuns / 5);
    expect(seen.infoAcquires).toBeGreaterThan(numRuns / 5);
  });
}

describe("linearizability property: histories from a real sequential execution", () => {
  sequentialProperty("mutex", false, 700, 8, 3);
  // Lease-lock histories stay smaller: with 8 clients × 3 sessions and half the replies
  // lost, some valid ones take the search minutes (lapse points multiply the states);
  // that is a search-speed limit, recorded in docs/checkers.md, not a wrong verdict.
  sequentialProperty("lease-lock", true, 300, 4, 2);
});
