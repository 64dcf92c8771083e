/**
 * A scenario file may name an attack and the lock it runs on; it loads as the scenario the
 * attack compiles to for that lock, so `lockstep run`, sweeps and compare take it as any file.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadScenario } from "../../scenarios/index.js";
import { attackByName } from "../../attacks/index.js";
import { parseScenario } from "../../scenarios/schema.js";
import { outcomeOf } from "../helpers/scenario-sweep.js";
import { historyToJsonl } from "../../sim/history.js";
import { runScenario } from "../../harness/runner.js";
import { inputErrorOf } from "../helpers/input-error.js";

const dir = mkdtempSync(join(tmpdir(), "attack-file-"));
const file = (name: string, body: unknown): string => {
  const p = join(dir, name);
  writeFileSync(p, JSON.stringify(body));
  return p;
};

describe("scenario files that name an attack", () => {
  it("load as the attack compiled for the lock: same history as the audit's scenario; name, seed and expect from the file", () => {
    const s = loadScenario(
      file("late.json", {
        attack: "late-release",
        design: "redis-setnx",
        designOptions: { release: "del" },
        name: "my-late-release",
        seed: 3,
        expect: "unsafe",
      }),
    );
    expect(s).toMatchObject({ name: "my-late-release", seed: 3, expect: "unsafe", design: "redis-setnx" });
    expect(outcomeOf(s, 3).outcome).toBe("unsafe");
    const c = attackByName("late-release")!.compile({ design: "redis-setnx", designOptions: { release: "del" }, label: "redis-setnx" });
    if (!c.ok) throw new Error(c.refusal);
    const direct = parseScenario({ ...JSON.parse(JSON.stringify(c.scenario)), name: "my-late-release" }, "x");
    expect(historyToJsonl(runScenario(s, 3).history)).toBe(historyToJsonl(runScenario(direct, 3).history));
  });

  it("an unknown attack, a refused one, or an unknown field is an input error naming the field", () => {
    expect(inputErrorOf(() => loadScenario(file("a.json", { attack: "nope", design: "redis-setnx" }))).message).toMatch(
      /attack: expected one of holder-pause-before-write, .*got "nope"/,
    );
    expect(inputErrorOf(() => loadScenario(file("b.json", { attack: "leader-crash", design: "redis-setnx" }))).message).toContain(
      "attack: expected an attack that applies to redis-setnx; leader-crash does not: no elected leader in redis-setnx",
    );
    expect(inputErrorOf(() => loadScenario(file("c.json", { attack: "late-release", design: "redis-setnx", faults: [] }))).message).toMatch(
      /faults: expected a field of an attack scenario/,
    );
  });
});
