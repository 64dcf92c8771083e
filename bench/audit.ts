/**
 * The audit of examples/my-lock (every attack x 50 seeds, with shrinking and files
 * written) timed beside a sweep of as many runs (naive-gc-pause on the same adapter),
 * each as a `lockstep` process of its own. Figures are printed, never judged.
 *
 * Run: npm run build && node dist/bench/audit.js (or via npm run bench)
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ATTACKS } from "../attacks/index.js";
import { packageRoot } from "../sim/paths.js";
import { reportTarget } from "./targets.js";

const SEEDS = 50;
const TARGET_S = 60;

function timed(args: string[]): { seconds: number; code: number | null } {
  const started = performance.now();
  const r = spawnSync(process.execPath, [join(packageRoot(), "bin", "lockstep.js"), ...args], { stdio: ["ignore", "ignore", "inherit"] });
  return { seconds: (performance.now() - started) / 1000, code: r.status };
}

function main(): void {
  const dir = mkdtempSync(join(tmpdir(), "bench-audit-"));
  const adapter = join(packageRoot(), "examples", "my-lock", "adapter.ts");
  const runs = ATTACKS.length * SEEDS;
  try {
    const single = timed(["audit", "--lock", adapter, "--seeds", String(SEEDS), "--workers", "1", "--out", join(dir, "audit1")]);
    const audit = timed(["audit", "--lock", adapter, "--seeds", String(SEEDS), "--out", join(dir, "audit")]);
    const sweep = timed(["sweep", "naive-gc-pause", "--lock", adapter, "--seeds", `1..${runs}`, "--out", join(dir, "sweep")]);
    console.log(
      `audit examples/my-lock: ${ATTACKS.length} attacks x ${SEEDS} seeds (+ reference runs, shrinking): ${audit.seconds.toFixed(1)} s (exit ${audit.code}); one worker ${single.seconds.toFixed(1)} s, ratio ${(single.seconds / audit.seconds).toFixed(2)}`,
    );
    console.log(`sweep naive-gc-pause --lock examples/my-lock, ${runs} runs:               ${sweep.seconds.toFixed(1)} s (exit ${sweep.code})`);
    reportTarget(
      `: audit of examples/my-lock, all attacks x ${SEEDS} seeds: ${audit.seconds.toFixed(1)} s (target <= ${TARGET_S} s); a sweep of ${runs} runs: ${sweep.seconds.toFixed(1)} s`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main();
