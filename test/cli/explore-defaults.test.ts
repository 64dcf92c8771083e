import { describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { main } from "../../cli/main.js";
import { EXIT } from "../../harness/exit-codes.js";
import { loadScenario, loadScenarioFile } from "../../scenarios/index.js";
import { captureStdio } from "../helpers/capture-stdio.js";

const io = captureStdio();
const tmp = () => mkdtempSync(join(tmpdir(), "lockstep-explore-help-"));

/** `lockstep help explore`, wrapped lines joined: what a user reads. */
async function helpText(): Promise<string> {
  expect(await main(["help", "explore"])).toBe(EXIT.ok);
  return io.out.replace(/\s+/g, " ");
}

/** Every `--flag <n> ... (default: N)` the help prints with a number. */
function printedDefaults(help: string): Map<string, string> {
  const m = new Map<string, string>();
  for (const x of help.matchAll(/(--[a-z-]+) <[a-z]+> (?:(?! --[a-z]).)*?\(default: (\d+)\)/g)) m.set(x[1]!, x[2]!);
  return m;
}

async function explore(args: string[]): Promise<{ code: number; out: string }> {
  io.out = "";
  const code = await main(["explore", ...args]);
  return { code, out: io.out };
}

describe("lockstep explore: every default --help prints is the one a run uses", () => {
  it("the printed numeric defaults, spelt out, give the same run as leaving them out; the run stays within each", async () => {
    const d = printedDefaults(await helpText());
    expect([...d.keys()].sort()).toEqual(["--duration-ms", "--faults-max", "--runs", "--seed", "--shrink-runs"]);
    const [a, b] = [tmp(), tmp()];
    const implicit = await explore(["--design", "redis-setnx", "--out", a]);
    const explicit = await explore(["--design", "redis-setnx", "--out", b, ...[...d].flat()]);
    expect(implicit.code).toBe(EXIT.safetyViolation);
    expect(explicit.out).toBe(implicit.out.split(a).join(b));
    const file = join(a, `explore-redis-setnx-seed${d.get("--seed")}.json`);
    expect(readFileSync(join(b, `explore-redis-setnx-seed${d.get("--seed")}.json`), "utf8")).toBe(readFileSync(file, "utf8"));

    // What each default bounds, read from the run itself.
    const found = /property violated after (\d+) run\(s\)/.exec(implicit.out)!;
    expect(Number(found[1])).toBeLessThanOrEqual(Number(d.get("--runs")));
    const shrunk = /\((\d+) runs\) from (\d+) to (\d+) fault step\(s\)/.exec(implicit.out)!;
    expect(Number(shrunk[1])).toBeLessThanOrEqual(Number(d.get("--shrink-runs")));
    expect(Number(shrunk[2])).toBeLessThanOrEqual(Number(d.get("--faults-max")));
    const cx = loadScenarioFile(file);
    // naive-baseline runs 30 s: cut to the printed 6000 ms, and the output says so.
    expect(loadScenario("naive-baseline").durationMs).toBeGreaterThan(Number(d.get("--duration-ms")));
    expect(cx.durationMs).toBe(Number(d.get("--duration-ms")));
    expect(implicit.out).toContain(`runs of ${d.get("--duration-ms")} ms (base naive-baseline cut from 30000 ms)`);
    expect(cx.story).toContain(`--seed ${d.get("--seed")}`);
  });

  it("--duration-ms is a cap: a shorter base keeps its length and the output says so; --runs is spent whole when nothing fails", async () => {
    const help = await helpText();
    expect(help).toMatch(/--duration-ms <n> longest run, ms: a longer base is cut to it, a shorter one keeps its own length/);
    const d = printedDefaults(help);
    // replica-agreement never applies to redis-fenced (no replicas), so nothing can fail.
    const r = await explore(["--design", "redis-fenced", "--checkers", "replica-agreement", "--out", tmp()]);
    expect(r.code).toBe(EXIT.ok);
    expect(r.out).toContain(`no safety violation in ${d.get("--runs")} runs`);
    expect(loadScenario("redis-fenced-baseline").durationMs).toBe(1000);
    expect(r.out).toContain(`runs of 1000 ms (base redis-fenced-baseline's own length; --duration-ms ${d.get("--duration-ms")} is the cap)`);
  });

  it("the help's described defaults: the design's baseline as base, the composed safety verdict as property", async () => {
    const help = await helpText();
    expect(help).toContain("--base <scenario> the scenario to vary (default: the design's baseline)");
    const r = await explore(["--design", "redis-setnx", "--out", tmp(), "--runs", "5", "--shrink-runs", "5"]);
    expect(r.out).toContain("base naive-baseline");
    expect(r.out).toMatch(/property: safety\)/);
  });

  it("--help, docs/sweeps.md and the runs agree on the exit codes: 3 when a counterexample is found, 0 when none", async () => {
    const help = await helpText();
    expect(help).toContain("Exit codes: 3 a counterexample was found (written to --out) 0 none within --runs");
    const docs = readFileSync(join(__dirname, "..", "..", "docs", "sweeps.md"), "utf8").replace(/\s+/g, " ");
    expect(docs).toContain("3 a counterexample was found and written, 0 none within `--runs`");
    expect(EXIT.safetyViolation).toBe(3);
  });
});
