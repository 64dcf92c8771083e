import { describe, expect, it } from "vitest";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseScenario } from "../../scenarios/schema.js";
import { loadScenario, loadScenarioFile, allScenarios } from "../../scenarios/index.js";
import { runScenario } from "../../harness/runner.js";
import { expectScenarioError, MINIMAL_SCENARIO, scenarioErrorOf } from "../helpers/input-error.js";

const good = MINIMAL_SCENARIO;

const errorOf = scenarioErrorOf;

describe("scenario validation", () => {
  it("accepts a minimal file and fills defaults", () => {
    const s = parseScenario(good, "good.json");
    expect(s.clients.map((c) => c.id)).toEqual(["c1", "c2"]);
    expect(s.workload.locks).toEqual(["order:123"]);
    expect(s.network.latencyUsBase).toBe(500);
  });

  it.each([
    [{ ...good, durationMs: "ten" }, "durationMs", /expected a number from 1 to 86398000, got "ten"/],
    [{ ...good, expect: "fine" }, "expect", /expected one of "safe", "unsafe"/],
    [{ ...good, story: undefined }, "story", /expected a non-empty string/],
    [{ ...good, workload: { ttlMs: -5 } }, "workload.ttlMs", /expected an integer >= 1/],
    [{ ...good, workload: { ttlMs: 10, tllMs: 5 } }, "workload.tllMs", /unknown field/],
    [{ ...good, faults: [{ kind: "pause", atMs: 1, target: "c1" }] }, "faults[0].durationMs", /expected a number/],
    [{ ...good, faults: [{ kind: "explode", atMs: 1 }] }, "faults[0].kind", /expected one of/],
    [{ ...good, faults: [{ kind: "heal" }] }, "faults[0].atMs", /exactly one of atMs/],
    [{ ...good, faults: [{ kind: "partition", atMs: 1, groups: [["a"]] }] }, "faults[0].groups", /two or more/],
    [{ ...good, clients: [{ id: "c1" }, { id: "c1" }] }, "clients[1].id", /unique/],
    [{ ...good, name: "Has Spaces" }, "name", /lower-case/],
  ])("rejects a bad field with its path (%#)", (raw, field, message) => {
    expectScenarioError(errorOf(raw), field, message);
  });

  it("names unknown designs and processes at run time", () => {
    expect(() => runScenario(parseScenario({ ...good, design: "paxos-magic" }, "x.json"), 1)).toThrow(
      /x.json: design: unknown design "paxos-magic"; expected one of: redis-setnx/,
    );
    const badTarget = parseScenario({ ...good, faults: [{ kind: "crash", atMs: 1, target: "redis-9" }] }, "y.json");
    expect(() => runScenario(badTarget, 1)).toThrow(/y.json: faults\[0\].target: unknown process "redis-9"/);
    const noTokens = parseScenario({ ...good, workload: { ttlMs: 1000, fencing: true } }, "z.json");
    expect(() => runScenario(noTokens, 1)).toThrow(/z.json: workload.fencing: design "redis-setnx" issues no fencing token/);
  });

  it("reports malformed JSON and unknown scenario names clearly", () => {
    const dir = mkdtempSync(join(tmpdir(), "lockstep-"));
    const f = join(dir, "broken.json");
    writeFileSync(f, "{ not json");
    expect(() => loadScenarioFile(f)).toThrow(/broken.json: \(file\): expected valid JSON/);
    expect(() => loadScenario("no-such-scenario")).toThrow(/unknown scenario "no-such-scenario"; did you mean .*`lockstep list` names all \d+$/);
  });

  it("every shipped scenario file is valid and named after its file", () => {
    const all = allScenarios();
    expect(all.length).toBeGreaterThanOrEqual(3);
  });
});
