import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ATTACKS, type LockUnderTest } from "../../attacks/index.js";
import { DESIGNS } from "../../designs/index.js";
import type { DesignEntry } from "../../designs/types.js";
import { BUILTIN_ADAPTERS } from "../../designs/library/adapter.js";
import { referenceOf } from "../../harness/audit/audit.js";
import { allScenarios } from "../../scenarios/index.js";
import { parseScenario, type Scenario } from "../../scenarios/schema.js";
import { withLibrary } from "../../scenarios/with-library.js";
import { planReal } from "../../real/plan.js";
import { runScenario } from "../../harness/runner.js";
import { historyToJsonl } from "../../sim/history.js";

/**
 * A renamed copy of each design (the same entry under "<name>-twin") is treated as its
 * original by every layer above: every attack compiles to the same scenario, the audit
 * picks the same reference, a library runs its scenarios the same way, real mode plans
 * them the same, and a run gives the same history. Names aside: the twin's name in what
 * it gets is read as the original's.
 */
const ORIGINALS: ReadonlyArray<DesignEntry<unknown>> = [...DESIGNS];
const twinOf = (name: string): string => `${name}-twin`;

/** The locks each design is tried with: its defaults and options that change what attacks ask of it. */
function locksOf(design: string): LockUnderTest[] {
  const lock = (designOptions?: Record<string, unknown>): LockUnderTest => ({ design, ...(designOptions ? { designOptions } : {}), label: design });
  if (design === "library") return Object.entries(BUILTIN_ADAPTERS).map(([adapter, a]) => lock({ adapter, nodes: a.nodesDefault }));
  const variants: Record<string, Array<Record<string, unknown>>> = {
    "redis-setnx": [{ requestTimeoutMs: 30, release: "del" }, { persistence: "always" }],
    "redis-failover": [{ fencing: true, replicas: 2 }],
    redlock: [{ nodes: 3, using: true, variant: "node-redlock-v5" }],
    "raft-zk": [{ nodes: 3, sessionTimeoutMs: 3000 }],
    "etcd-lease": [{ nodes: 7, sessionTimeoutMs: 2000, requestTimeoutMs: 70 }],
  };
  return [lock(), ...(variants[design] ?? []).map(lock)];
}

/** What the twin got, with its name read as the original's. */
const asOriginal = (x: unknown, name: string): string => JSON.stringify(x).split(twinOf(name)).join(name);
const on = (lock: LockUnderTest, design: string): LockUnderTest => ({ ...lock, design, label: design === lock.design ? lock.label : twinOf(lock.label) });
const scenariosOf = (design: string): Scenario[] => allScenarios().filter((s) => s.design === design);

/** A real plan as data: its recipe evaluated on fixed endpoints, or the refusal. */
function realPlanOf(s: Scenario): unknown {
  try {
    const p = planReal(s);
    const d = p.design;
    const servers = d.cluster ? d.cluster.ids.length : d.redis.length + (d.failover?.sentinels.length ?? 0);
    const eps = Array.from({ length: servers }, (_, i) => ({ id: `s${i}`, host: "127.0.0.1", port: 7000 + i }));
    return { ...p, design: { ...d, recipe: d.recipe(eps) } };
  } catch (e) {
    return { refused: (e as Error).message };
  }
}

describe("twins: a renamed copy of each design is treated as the original", () => {
  beforeAll(() => {
    for (const d of ORIGINALS) DESIGNS.push({ ...d, name: twinOf(d.name) });
  });
  afterAll(() => {
    DESIGNS.splice(ORIGINALS.length);
  });

  for (const d of ORIGINALS) {
    it(`${d.name}: every attack compiles to the same scenario, with the same audit reference`, () => {
      for (const lock of locksOf(d.name)) {
        expect(asOriginal(referenceOf(on(lock, twinOf(d.name))), d.name)).toBe(JSON.stringify(referenceOf(lock)));
        for (const a of ATTACKS) {
          const mine = a.compile(on(lock, twinOf(d.name)));
          expect(asOriginal(mine, d.name), `${a.name} on ${JSON.stringify(lock)}`).toBe(JSON.stringify(a.compile(lock)));
        }
      }
    });

    it(`${d.name}: its scenarios run on a library and plan for real mode the same`, () => {
      const scenarios = scenariosOf(d.name);
      for (const s of scenarios) {
        const twin = { ...s, design: twinOf(d.name) };
        for (const adapter of ["redis-semaphore", "redlock-v4"]) {
          const lib = (x: Scenario): unknown => {
            try {
              return withLibrary(x, adapter);
            } catch (e) {
              return { refused: (e as Error).message };
            }
          };
          // The twin's own name in the refusal's list of designs aside.
          expect(asOriginal(lib(twin), d.name), `${s.name}@${adapter}`).toBe(JSON.stringify(lib(s)));
        }
        expect(asOriginal(realPlanOf(twin), d.name), `${s.name} in real mode`).toBe(JSON.stringify(realPlanOf(s)));
      }
    });
  }

  it("a run of the twin gives the original's history, event for event", () => {
    for (const d of ORIGINALS) {
      const lock = locksOf(d.name)[0]!;
      const compiled = ATTACKS.find((a) => a.name === "holder-pause-before-write")!.compile(lock);
      if (!compiled.ok) throw new Error(compiled.refusal);
      const s = parseScenario(JSON.parse(JSON.stringify(compiled.scenario)), "<twin>");
      const twin = { ...s, design: twinOf(d.name) };
      expect(historyToJsonl(runScenario(twin, 1).history), d.name).toBe(historyToJsonl(runScenario(s, 1).history));
    }
  });
});
