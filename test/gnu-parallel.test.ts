import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { resultFields, type SweepSummary } from "../harness/sweep/summary.js";

const root = fileURLToPath(new URL("..", import.meta.url));
const SEEDS = 400;

/** The README's recipe for spreading a sweep: its two command lines, as printed there. */
function readmeRecipe(): { parallel: string; merge: string } {
  const readme = readFileSync(join(root, "README.md"), "utf8");
  const parallel = readme.split("\n").find((l) => l.startsWith("parallel -j4 "));
  const merge = readme.split("\n").find((l) => l.startsWith("node bin/lockstep.js merge "));
  if (!parallel || !merge) throw new Error("README.md no longer has the GNU parallel recipe");
  return { parallel, merge };
}

/** The README's recipe for spreading an audit. */
function readmeAuditRecipe(): { parallel: string; merge: string } {
  const lines = readFileSync(join(root, "README.md"), "utf8").split("\n");
  const parallel = lines.find((l) => l.startsWith("parallel -j4 ") && l.includes(" audit "));
  const merge = lines.find((l) => l.startsWith("node bin/lockstep.js merge audit/"));
  if (!parallel || !merge) throw new Error("README.md no longer has the GNU parallel recipe for audits");
  return { parallel, merge };
}

/** The recipe made to run here: this checkout's CLI, fewer seeds (the same shape), a temp folder. */
const localised = (line: string): string => line.replace("node bin/lockstep.js", `node ${join(root, "bin", "lockstep.js")}`).replace("1..10000", `1..${SEEDS}`);

const sh = (cmd: string, cwd: string) => spawnSync("bash", ["-c", cmd], { cwd, encoding: "utf8" });

describe("the README's GNU parallel recipe (Debian's parallel)", () => {
  it(`4 shards on GNU parallel, merged, give the unsharded sweep's summary (${SEEDS} seeds)`, () => {
    const { parallel, merge } = readmeRecipe();
    expect(parallel).toContain("--shard {}/4");
    const dir = mkdtempSync(join(tmpdir(), "lockstep-parallel-"));
    const shards = sh(localised(parallel), dir);
    // naive-gc-pause is unsafe on every seed: each shard exits 3 and parallel reports failures.
    expect(shards.error).toBeUndefined();
    expect(shards.stderr).not.toMatch(/command not found|Error:/);
    const merged = sh(`${localised(merge)} --json`, dir);
    expect(merged.status, merged.stderr).toBe(3);
    const mergedSummary = JSON.parse(merged.stdout) as SweepSummary;
    const whole = sh(`node ${join(root, "bin", "lockstep.js")} sweep naive-gc-pause --seeds 1..${SEEDS} --workers 1 --out whole`, dir);
    expect(whole.status, whole.stderr).toBe(3);
    const wholeSummary = JSON.parse(readFileSync(join(dir, "whole", "summary.json"), "utf8")) as SweepSummary;
    expect(wholeSummary.runs).toBe(SEEDS);
    expect(JSON.stringify(resultFields(mergedSummary))).toBe(JSON.stringify(resultFields(wholeSummary)));
  });

  it("an audit's 4 shards on GNU parallel, merged, give the unsharded audit's rows", () => {
    const { parallel, merge } = readmeAuditRecipe();
    expect(parallel).toContain("--shard {}/4");
    const adapter = join(root, "examples", "my-lock", "adapter.ts");
    const here = (line: string): string => localised(line).replace("examples/my-lock/adapter.ts", adapter).replace("--seeds 50", "--seeds 2");
    const dir = mkdtempSync(join(tmpdir(), "lockstep-parallel-audit-"));
    const shards = sh(here(parallel), dir);
    expect(shards.status, shards.stderr).toBe(0);
    const merged = sh(here(merge), dir);
    expect(merged.status, merged.stderr).toBe(0);
    expect(merged.stdout).toContain("no finding attributed to your code");
    const whole = sh(`node ${join(root, "bin", "lockstep.js")} audit --lock ${adapter} --seeds 2 --workers 1 --out whole`, dir);
    expect(whole.status, whole.stderr).toBe(0);
    // Counterexample files sit under each run's own --out (so do their replay lines); everything else is the same.
    const rowsOf = (file: string) =>
      (JSON.parse(readFileSync(join(dir, file), "utf8")) as { rows: Array<Record<string, unknown>> }).rows.map((r) => {
        const cx = r.counterexample as { replay: string } | undefined;
        return { ...r, ...(cx ? { counterexample: cx.replay.replace(/ (whole|audit\/\d)\//, " <out>/") } : {}) };
      });
    expect(rowsOf("audit/audit.json")).toEqual(rowsOf("whole/audit.json"));
    expect(readFileSync(join(dir, "audit", "audit.html"), "utf8")).toContain("counterexamples/");
  });
});
