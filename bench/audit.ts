/**
 * The audit's wall time, each as a `lockstep` process of its own: examples/my-lock (every
 * attack x 50 seeds, shrinking and files written) with one worker and with the machine's
 * cores, beside a sweep of as many runs; the two-bug lock (findings by cause: diagnosing,
 * shrinking per cause); and what `--confirm-real 5` adds (each cause's counterexample 5
 * times on real redis-server, and the reference recipe 5 times), timed on its own over the
 * two-bug audit's causes. The machine's load is printed beside: the figures are printed,
 * never judged.
 *
 * Run: npm run build && node dist/bench/audit.js (or via npm run bench)
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ATTACKS } from "../attacks/index.js";
import { packageRoot } from "../sim/paths.js";
import { reportTarget } from "./targets.js";
import { loadAverage } from "./rounds.js";
import { parseAuditFile } from "../harness/audit/merge.js";
import { lockUnderAudit } from "../harness/audit/lock.js";
import { confirmCauses } from "../real/confirm.js";

const SEEDS = 50;
const TARGET_S = 60;
const CONFIRM_RUNS = 5;
const CONFIRM_TARGET_S = 120;

function timed(args: string[]): { seconds: number; code: number | null } {
  const started = performance.now();
  const r = spawnSync(process.execPath, [join(packageRoot(), "bin", "lockstep.js"), ...args], { stdio: ["ignore", "ignore", "ignore"] });
  return { seconds: (performance.now() - started) / 1000, code: r.status };
}

/** `--confirm-real` alone: the real runs of every cause of an audit already written, timed in this process. */
async function confirmSeconds(auditDir: string, lock: string): Promise<{ seconds: number; causes: number; line: string }> {
  const result = parseAuditFile(JSON.parse(readFileSync(join(auditDir, "audit.json"), "utf8")), "audit.json");
  const started = performance.now();
  await confirmCauses(result, lockUnderAudit({ lock }), { runs: CONFIRM_RUNS });
  const line = result.causes
    .map((c) => `${c.id} ${c.real?.unsafe}/${c.real?.runs} (reference ${c.real?.reference.unsafe}/${c.real?.reference.runs})`)
    .join(", ");
  return { seconds: (performance.now() - started) / 1000, causes: result.causes.length, line };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "bench-audit-"));
  const mine = join(packageRoot(), "examples", "my-lock", "adapter.ts");
  const twoBugs = join(packageRoot(), "test", "fixtures", "adapters", "bugs", "two-bugs.cjs");
  const runs = ATTACKS.length * SEEDS;
  try {
    const before = loadAverage();
    const single = timed(["audit", "--lock", mine, "--seeds", String(SEEDS), "--workers", "1", "--out", join(dir, "audit1")]);
    const audit = timed(["audit", "--lock", mine, "--seeds", String(SEEDS), "--out", join(dir, "audit")]);
    const sweep = timed(["sweep", "naive-gc-pause", "--lock", mine, "--seeds", `1..${runs}`, "--out", join(dir, "sweep")]);
    const two = timed(["audit", "--lock", twoBugs, "--seeds", String(SEEDS), "--out", join(dir, "two")]);
    const confirm = await confirmSeconds(join(dir, "two"), twoBugs);
    const after = loadAverage();
    console.log(`load average (1, 5, 15 min) before: ${before}; after: ${after}; 2 cores`);
    console.log(
      `audit examples/my-lock: ${ATTACKS.length} attacks x ${SEEDS} seeds (+ reference runs, shrinking): ${audit.seconds.toFixed(1)} s (exit ${audit.code}); one worker ${single.seconds.toFixed(1)} s, ratio ${(single.seconds / audit.seconds).toFixed(2)}`,
    );
    console.log(`sweep naive-gc-pause --lock examples/my-lock, ${runs} runs:               ${sweep.seconds.toFixed(1)} s (exit ${sweep.code})`);
    console.log(`audit two-bugs.cjs, ${SEEDS} seeds (diagnosis by cause, a counterexample per cause): ${two.seconds.toFixed(1)} s (exit ${two.code})`);
    console.log(`--confirm-real ${CONFIRM_RUNS} on its ${confirm.causes} cause(s): ${confirm.seconds.toFixed(1)} s more: ${confirm.line}`);
    reportTarget(
      `: audit of examples/my-lock, all attacks x ${SEEDS} seeds: ${audit.seconds.toFixed(1)} s (target <= ${TARGET_S} s); a sweep of ${runs} runs: ${sweep.seconds.toFixed(1)} s; load ${before}`,
    );
    reportTarget(
      `: --confirm-real ${CONFIRM_RUNS} adds ${confirm.seconds.toFixed(1)} s for ${confirm.causes} cause(s) (target <= ${CONFIRM_TARGET_S} s); load ${after}`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
