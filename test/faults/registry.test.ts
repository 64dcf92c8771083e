// The fault registry: every kind is one complete entry, and everything that used to switch
// on the kind string reads it from there.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { FAULT_DEFS, FAULT_FIELDS, FAULT_KINDS, faultDef } from "../../faults/index.js";
import { FAULT_KINDS as SCHEMA_KINDS } from "../../scenarios/schema.js";
import { scenarioErrorOf, MINIMAL_SCENARIO } from "../helpers/input-error.js";

describe("the fault registry", () => {
  it("lists each kind once, under its own name, with a docs line and a report line", () => {
    expect(new Set(FAULT_KINDS).size).toBe(FAULT_DEFS.length);
    expect(SCHEMA_KINDS).toEqual(FAULT_KINDS);
    for (const d of FAULT_DEFS) {
      expect(faultDef(d.name)).toBe(d);
      expect(d.doc.length, d.name).toBeGreaterThan(10);
      expect(typeof d.describe, d.name).toBe("function");
    }
  });

  it("every kind says how real mode performs it or why it refuses it", () => {
    for (const d of FAULT_DEFS) {
      const real = d.real as { mechanism?: string; refused?: string };
      expect(Boolean(real.mechanism) !== Boolean(real.refused), d.name).toBe(true);
      if (real.refused) expect(real.refused.length, d.name).toBeGreaterThan(20);
    }
  });

  it("explore's ranks are distinct (they fix the order a seed draws kinds in)", () => {
    const ranks = FAULT_DEFS.flatMap((d) => (d.explore ? [d.explore.rank] : []));
    expect(new Set(ranks).size).toBe(ranks.length);
  });

  it("an unknown kind is refused by the schema naming the field and listing the registry", () => {
    const e = scenarioErrorOf({ ...MINIMAL_SCENARIO, faults: [{ kind: "meteor", atMs: 0 }] });
    expect(e.message).toContain("faults[0].kind");
    for (const k of FAULT_KINDS) expect(e.message).toContain(k);
  });

  it("the fields a step may have are the common ones plus each kind's own", () => {
    for (const d of FAULT_DEFS) for (const f of d.fields) expect(FAULT_FIELDS).toContain(f);
    expect(FAULT_FIELDS.slice(0, 6)).toEqual(["kind", "atMs", "on", "delayMs", "target", "durationMs"]);
    expect(FAULT_FIELDS.at(-1)).toBe("note");
    expect(() => faultDef("meteor")).toThrow(/unknown fault kind "meteor"/);
  });

  it("docs/scenarios.md's fault table has a row for every kind, and no row for a kind the registry lacks", () => {
    const doc = readFileSync(new URL("../../docs/scenarios.md", import.meta.url), "utf8");
    const table = doc.slice(doc.indexOf("## Faults"), doc.indexOf("## Random nemesis"));
    const rows = [...table.matchAll(/^\| `([a-z-]+)` \|/gm)].map((m) => m[1]);
    expect(rows).toEqual([...FAULT_KINDS]);
  });
});
