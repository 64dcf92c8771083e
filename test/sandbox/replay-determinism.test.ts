/**
 * The replay line reruns a scenario file on the user's adapter (--lock) to the same
 * history; a run stopped by library code exits 7 naming the call, with its replay line;
 * --check-determinism on run and sweep reruns each seed and names the first differing
 * event.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { main } from "../../cli/main.js";
import { EXIT } from "../../harness/exit-codes.js";
import { packageRoot } from "../../sim/paths.js";
import { loadScenario } from "../../scenarios/index.js";
import { runScenario } from "../../harness/runner.js";
import { checkDeterminism, firstDifference, NondeterminismError } from "../../harness/determinism.js";
import { captureStdio } from "../helpers/capture-stdio.js";
import { corpusScenario } from "./corpus-runner.js";

const io = captureStdio();
const root = packageRoot();
const adapter = join(root, "examples", "my-lock", "adapter.ts");

function tmp(): string {
  mkdirSync(join(root, "test-output"), { recursive: true });
  return mkdtempSync(join(root, "test-output", "replay-"));
}

/** Run a printed replay line in-process, into `out`. */
async function runReplay(line: string, out: string): Promise<number> {
  const words = line.split(" ");
  expect(words.slice(0, 2)).toEqual(["npx", "lockstep"]);
  return main([...words.slice(2), "--out", out]);
}

describe("replay line", () => {
  it("reruns a scenario file run with --lock <adapter file> to the same history", async () => {
    const dir = tmp();
    const file = join(dir, "my-scenario.json");
    copyFileSync(join(root, "scenarios", "naive-gc-pause.json"), file);
    const code = await main(["run", file, "--lock", adapter, "--seed", "3", "--out", join(dir, "a")]);
    const replay = (JSON.parse(readFileSync(join(dir, "a", "results.json"), "utf8")) as { replay: string }).replay;
    expect(replay).toBe(`npx lockstep run ${file} --lock ${adapter} --seed 3`);
    expect(io.out).toContain(`replay: ${replay}`);
    expect(await runReplay(replay, join(dir, "b"))).toBe(code);
    const first = readFileSync(join(dir, "a", "history.jsonl"));
    expect(readFileSync(join(dir, "b", "history.jsonl")).equals(first)).toBe(true);
    // Without the adapter the same file runs the built-in model: another history.
    await main(["run", file, "--seed", "3", "--out", join(dir, "c")]);
    expect(readFileSync(join(dir, "c", "history.jsonl")).equals(first)).toBe(false);
  });

  it("a run that library code stops exits 7, naming the call, with a replay line that stops the same way", async () => {
    const dir = tmp();
    const file = join(dir, "escape.json");
    writeFileSync(file, JSON.stringify(corpusScenario("./corpus/require-net.cjs")));
    expect(await main(["run", file, "--seed", "2", "--out", join(dir, "a")])).toBe(EXIT.stopped);
    expect(io.err).toContain('tried require("net").connect');
    const line = /replay: (.*)/.exec(io.err)?.[1] ?? "";
    expect(line).toBe(`npx lockstep run ${file} --seed 2`);
    io.err = "";
    expect(await runReplay(line, join(dir, "b"))).toBe(EXIT.stopped);
    expect(io.err).toContain('tried require("net").connect');
  });
});

describe("--check-determinism", () => {
  it("firstDifference names the first differing line, or nothing for the same bytes", () => {
    expect(firstDifference("a\nb\nc", "a\nb\nc")).toBeUndefined();
    expect(firstDifference("a\nb\nc", "a\nx\nc")).toEqual({ index: 1, first: "b", second: "x" });
    expect(firstDifference("a\nb", "a\nb\nc")).toEqual({ index: 2, first: "(no event: the history ended)", second: "c" });
  });

  it("passes a library run's seed (its rerun is the same bytes) and names the first event a changed history differs at", () => {
    const s = loadScenario("library-redis-semaphore-baseline");
    const run = runScenario(s, 2);
    expect(() => checkDeterminism(s, 2, run.history)).not.toThrow();
    const changed = run.history.map((e, i) => (i === 7 ? { ...e, timeUs: e.timeUs + 1 } : e));
    let thrown: unknown;
    try {
      checkDeterminism(s, 2, changed);
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(NondeterminismError);
    expect((thrown as NondeterminismError).eventIndex).toBe(7);
    expect((thrown as Error).message).toContain("first difference at event 7");
    expect((thrown as NondeterminismError).replay?.command).toBe("npx lockstep run library-redis-semaphore-baseline --seed 2");
  });

  it("run and sweep accept the flag and pass deterministic seeds", async () => {
    const dir = tmp();
    expect(await main(["run", "library-redis-semaphore-baseline", "--seed", "2", "--check-determinism", "--out", join(dir, "a")])).toBe(EXIT.ok);
    expect(await main(["sweep", "redlock-baseline@redlock-v5", "--seeds", "1..2", "--workers", "1", "--check-determinism", "--out", join(dir, "s")])).toBe(
      EXIT.ok,
    );
    expect((JSON.parse(readFileSync(join(dir, "s", "summary.json"), "utf8")) as { runs: number }).runs).toBe(2);
  });
});
