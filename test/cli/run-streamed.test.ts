import { describe, expect, it } from "vitest";
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { main } from "../../cli/main.js";
import { EXIT } from "../../harness/exit-codes.js";
import { loadScenario } from "../../scenarios/index.js";
import { runScenario } from "../../harness/runner.js";
import { historyToJsonl } from "../../sim/history.js";
import { runCheckers } from "../../checkers/run-all.js";
import { checkContextFor } from "../../harness/check-context.js";
import { captureStdio } from "../helpers/capture-stdio.js";

const io = captureStdio();
const tmp = () => mkdtempSync(join(tmpdir(), "lockstep-streamed-"));

describe("lockstep run writes history.jsonl as the run goes (harness/streamed-history.ts)", () => {
  it("the streamed file is the in-memory history's bytes, the verdicts the in-memory ones, and no temp is left", async () => {
    for (const [name, seed] of [
      ["naive-gc-pause", 2],
      ["naive-baseline", 1],
    ] as const) {
      const dir = join(tmp(), "run");
      const code = await main(["run", name, "--seed", String(seed), "--out", dir]);
      expect(code === EXIT.ok || code === EXIT.safetyViolation, io.err).toBe(true);
      const s = loadScenario(name);
      const memory = runScenario(s, seed).history;
      expect(readFileSync(join(dir, "history.jsonl"), "utf8")).toBe(historyToJsonl(memory));
      const results = JSON.parse(readFileSync(join(dir, "results.json"), "utf8")) as { verdicts: unknown };
      expect(results.verdicts).toEqual(JSON.parse(JSON.stringify(runCheckers(memory, checkContextFor(s)))));
      expect(readdirSync(dir).sort()).toEqual(["history.jsonl", "report.html", "results.json"]);
    }
  });

  it("a run stopped mid-way (its event bound) leaves no temp and no directory it made", async () => {
    const base = tmp();
    const file = join(base, "short.json");
    const s = JSON.parse(readFileSync(join("scenarios", "naive-baseline.json"), "utf8")) as Record<string, unknown>;
    writeFileSync(file, JSON.stringify({ ...s, name: "short", limits: { eventsMax: 2000 } }));
    const dir = join(base, "out", "run");
    const code = await main(["run", file, "--out", dir]);
    expect(code, io.err).not.toBe(EXIT.ok);
    expect(code).not.toBe(EXIT.internal);
    expect(existsSync(join(base, "out")), "the directory the streamed history made").toBe(false);
  });

  it("a second run into the same directory replaces the streamed history", async () => {
    const dir = join(tmp(), "run");
    expect(await main(["run", "naive-gc-pause", "--seed", "1", "--out", dir])).toBe(EXIT.safetyViolation);
    expect(await main(["run", "naive-gc-pause", "--seed", "3", "--out", dir])).toBe(EXIT.safetyViolation);
    expect(readFileSync(join(dir, "history.jsonl"), "utf8")).toBe(historyToJsonl(runScenario(loadScenario("naive-gc-pause"), 3).history));
    expect(readdirSync(dir).sort()).toEqual(["history.jsonl", "report.html", "results.json"]);
  });
});
