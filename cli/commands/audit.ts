import type { Command } from "commander";
import { setExitCode } from "../exit-state.js";
import { EXIT } from "../../harness/exit-codes.js";
import { parsePositiveInt, parseSeed } from "../args.js";
import { InputError } from "../../sim/errors.js";
import { runAuditOnThreads, writeAuditFiles } from "../../harness/audit/run.js";
import { formatAudit } from "../../terminal/audit.js";
import { defaultWorkers } from "../../harness/sweep/pool.js";
import { parseShard } from "../../harness/sweep/range.js";
import { checkOutputDir } from "../../harness/safe-write.js";
import { confirmCauses } from "../../real/confirm.js";
import { realRunnable } from "../../real/runnable.js";
import { attacksNamed, lockUnderAudit } from "../../harness/audit/lock.js";
import type { LockUnderTest } from "../../attacks/index.js";
import { join } from "node:path";
import { auditReal, checkRealFlags, lockCmdLock, type RealAuditFlags } from "./audit-real.js";
import { LOCK_CMD_FLAG } from "../lock-flag.js";

interface AuditFlags extends RealAuditFlags {
  lock?: string;
  design?: string;
  designOptions?: string;
  nodes?: string;
  seeds: string;
  attacks?: string;
  out?: string;
  workers?: string;
  shard?: string;
  confirmReal?: string | boolean;
  explore?: string;
  exploreSeed: string;
}

/** Real runs per cause (and as many of the reference recipe) when --confirm-real is given without a number. */
const CONFIRM_REAL_RUNS_DEFAULT = 5;

function lockOf(o: AuditFlags): LockUnderTest {
  let options: Record<string, unknown> | undefined;
  if (o.designOptions !== undefined) {
    try {
      options = JSON.parse(o.designOptions) as Record<string, unknown>;
    } catch {
      options = undefined;
    }
    if (options === null || typeof options !== "object" || Array.isArray(options)) throw new InputError("<arg>", "--design-options", "a JSON object");
  }
  if (o.real && o.lockCmd !== undefined) return lockCmdLock(o, options);
  return lockUnderAudit({
    ...(o.lock !== undefined ? { lock: o.lock } : {}),
    ...(o.design !== undefined ? { design: o.design } : {}),
    ...(options ? { designOptions: options } : {}),
    ...(o.nodes !== undefined ? { nodes: parsePositiveInt(o.nodes, "--nodes") } : {}),
  });
}

/** `audit`: the attacks on the simulator (or, with --real, on real servers), then the report. */
async function auditAction(o: AuditFlags, cmd: Command): Promise<void> {
  checkRealFlags(cmd, o);
  const lock = lockOf(o);
  if (o.real) return auditReal(o, lock, attacksNamed(o.attacks?.split(",")));
  const seeds = parsePositiveInt(o.seeds, "--seeds");
  const attacks = attacksNamed(o.attacks?.split(","));
  if (o.out) checkOutputDir(o.out);
  const workers = o.workers !== undefined ? parsePositiveInt(o.workers, "--workers") : defaultWorkers();
  const shard = o.shard !== undefined ? parseShard(o.shard, "--shard") : undefined;
  const explore = o.explore !== undefined ? { draws: parsePositiveInt(o.explore, "--explore"), seed: parseSeed(o.exploreSeed, "--explore-seed") } : undefined;
  if (explore && shard) throw new InputError("<arg>", "--explore", "no --shard: the generated schedules are one search, run it in one audit");
  const confirmRuns =
    o.confirmReal === undefined ? undefined : o.confirmReal === true ? CONFIRM_REAL_RUNS_DEFAULT : parsePositiveInt(String(o.confirmReal), "--confirm-real");
  if (confirmRuns !== undefined && !o.out)
    throw new InputError("<arg>", "--confirm-real", "--out <dir> too: the counterexamples real mode replays are written there");
  const result = await runAuditOnThreads(lock, {
    seeds,
    attacks,
    workers,
    ...(shard ? { shard } : {}),
    ...(o.out ? { out: o.out } : {}),
    progress: (done, of, row) => process.stderr.write(`[${done}/${of}] ${row.attack}: ${row.refused !== undefined ? "refused" : row.finding}\n`),
    note: (line) => process.stderr.write(`${line}\n`),
    runnable: realRunnable,
    ...(explore ? { explore } : {}),
  });
  if (confirmRuns !== undefined && o.out) {
    await confirmCauses(result, lock, { runs: confirmRuns, progress: (line) => process.stderr.write(`${line}\n`) });
    writeAuditFiles(result, join(o.out, "audit.json"), { force: true });
  }
  process.stdout.write(formatAudit(result));
  setExitCode(result.yourCode.length > 0 ? EXIT.auditYourCode : EXIT.ok);
}

export function registerAudit(program: Command): void {
  program
    .command("audit")
    .description(
      "run every attack that applies to a lock over many seeds (or, with --real, real runs on real servers), beside its backend's reference recipe; say which findings are your code",
    )
    .option("--lock <adapter>", "a built-in adapter (see `lockstep list`) or a path to your own adapter module")
    .option("--design <name>", "a built-in design instead of an adapter")
    .option("--design-options <json>", "the design's (or library design's) options, as in a scenario file")
    .option("--nodes <n>", "Redis nodes the adapter talks to (default: the adapter's, else 1)")
    .option("--seeds <n>", "seeds per attack", "50")
    .option("--attacks <names>", "comma-separated attack names (default: the whole catalogue)")
    .option("--out <dir>", "write audit.html, audit.json and the counterexamples here")
    .option("--workers <n>", `runs in parallel: this thread and n-1 worker threads (default: ${defaultWorkers()}, this machine's cores)`)
    .option("--shard <i/n>", "run only the i-th of n slices of the attacks, dealt in turn (combine the audit.json files with `lockstep merge`)")
    .option("--explore <n>", "also n generated schedules over the lock's whole API and random faults, judged against the reference recipe on paired seeds")
    .option("--explore-seed <n>", "fast-check's seed for --explore (the same seed draws the same schedules)", "1")
    .option(
      "--confirm-real [n]",
      `replay each cause's counterexample n times against real redis-server, and the reference recipe beside it (default: ${CONFIRM_REAL_RUNS_DEFAULT}; needs --out)`,
    )
    .option("--real", "run the attacks on real servers instead of the simulator (docs/real-mode.md): --runs real runs each, not replayable")
    .option(...LOCK_CMD_FLAG)
    .option("--runs <n>", "with --real: real runs per attack, on the lock and on the reference each (default: 5)")
    .option("--time-scale <x>", "with --real: multiply the attacks' times by x (as `lockstep real --time-scale`) (default: 1)")
    .action(auditAction);
}
