import type { Command } from "commander";
import { setExitCode } from "../exit-state.js";
import { EXIT } from "../../harness/exit-codes.js";
import { parsePositiveInt } from "../args.js";
import { InputError } from "../../sim/errors.js";
import { ATTACKS, attackByName, type Attack, type LockUnderTest } from "../../attacks/index.js";
import { designByName, DESIGNS } from "../../designs/index.js";
import { adapterPath, BUILTIN_ADAPTERS } from "../../designs/library/adapter.js";
import { library } from "../../designs/library/design.js";
import { runAuditOnThreads, writeAuditFiles } from "../../harness/audit/run.js";
import { formatAudit } from "../../terminal/audit.js";
import { defaultWorkers } from "../../harness/sweep/pool.js";
import { parseShard } from "../../harness/sweep/range.js";
import { checkOutputDir } from "../../harness/safe-write.js";
import { isAbsolute, join, resolve } from "node:path";
import type { Scenario } from "../../scenarios/schema.js";
import { planRealRun } from "../../real/nemesis.js";
import { confirmCauses } from "../../real/confirm.js";

interface AuditFlags {
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
}

/** Real runs per cause (and as many of the reference recipe) when --confirm-real is given without a number. */
const CONFIRM_REAL_RUNS_DEFAULT = 5;

/** Whether real mode can run a scenario (its faults have real mechanisms): a cause's counterexample is chosen among those. */
function realRunnable(s: Scenario): boolean {
  try {
    planRealRun(s, 1, s.seed);
    return true;
  } catch (e) {
    if (e instanceof InputError) return false;
    throw e;
  }
}

function lockOf(o: AuditFlags): LockUnderTest {
  if ((o.lock === undefined) === (o.design === undefined))
    throw new InputError("<arg>", "--lock/--design", "exactly one of --lock <adapter> or --design <name>");
  let options: Record<string, unknown> | undefined;
  if (o.designOptions !== undefined) {
    try {
      options = JSON.parse(o.designOptions) as Record<string, unknown>;
    } catch {
      options = undefined;
    }
    if (options === null || typeof options !== "object" || Array.isArray(options)) throw new InputError("<arg>", "--design-options", "a JSON object");
  }
  if (o.design !== undefined) {
    if (!designByName(o.design)) throw new InputError("<arg>", "--design", `one of: ${DESIGNS.map((d) => d.name).join(", ")}`);
    return { design: o.design, ...(options ? { designOptions: options } : {}), label: o.design };
  }
  const builtin = BUILTIN_ADAPTERS[o.lock!];
  // A bare word that is no built-in, or a path to nothing: one line naming --lock, before any run.
  if (!builtin) adapterPath(o.lock!, "<arg>", "--lock");
  const nodes = o.nodes !== undefined ? parsePositiveInt(o.nodes, "--nodes") : (builtin?.nodesDefault ?? 1);
  const adapter = builtin || isAbsolute(o.lock!) ? o.lock! : resolve(o.lock!);
  return { design: library.name, designOptions: { ...options, adapter, nodes }, label: o.lock! };
}

function attacksOf(list: string | undefined): readonly Attack[] {
  if (list === undefined) return ATTACKS;
  return list.split(",").map((n) => {
    const a = attackByName(n.trim());
    if (!a) throw new InputError("<arg>", "--attacks", `attack names from: ${ATTACKS.map((x) => x.name).join(", ")}; got "${n}"`);
    return a;
  });
}

export function registerAudit(program: Command): void {
  program
    .command("audit")
    .description("run every attack that applies to a lock over many seeds, beside its backend's reference recipe; say which findings are your code")
    .option("--lock <adapter>", "a built-in adapter (see `lockstep list`) or a path to your own adapter module")
    .option("--design <name>", "a built-in design instead of an adapter")
    .option("--design-options <json>", "the design's (or library design's) options, as in a scenario file")
    .option("--nodes <n>", "Redis nodes the adapter talks to (default: the adapter's, else 1)")
    .option("--seeds <n>", "seeds per attack", "50")
    .option("--attacks <names>", "comma-separated attack names (default: the whole catalogue)")
    .option("--out <dir>", "write audit.html, audit.json and the counterexamples here")
    .option("--workers <n>", `runs in parallel: this thread and n-1 worker threads (default: ${defaultWorkers()}, this machine's cores)`)
    .option("--shard <i/n>", "run only the i-th of n slices of the attacks, dealt in turn (combine the audit.json files with `lockstep merge`)")
    .option(
      "--confirm-real [n]",
      `replay each cause's counterexample n times against real redis-server, and the reference recipe beside it (default ${CONFIRM_REAL_RUNS_DEFAULT}; needs --out)`,
    )
    .action(async (o: AuditFlags) => {
      const lock = lockOf(o);
      const seeds = parsePositiveInt(o.seeds, "--seeds");
      const attacks = attacksOf(o.attacks);
      if (o.out) checkOutputDir(o.out);
      const workers = o.workers !== undefined ? parsePositiveInt(o.workers, "--workers") : defaultWorkers();
      const shard = o.shard !== undefined ? parseShard(o.shard, "--shard") : undefined;
      const confirmRuns =
        o.confirmReal === undefined
          ? undefined
          : o.confirmReal === true
            ? CONFIRM_REAL_RUNS_DEFAULT
            : parsePositiveInt(String(o.confirmReal), "--confirm-real");
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
      });
      if (confirmRuns !== undefined && o.out) {
        await confirmCauses(result, lock, { runs: confirmRuns, progress: (line) => process.stderr.write(`${line}\n`) });
        writeAuditFiles(result, join(o.out, "audit.json"), { force: true });
      }
      process.stdout.write(formatAudit(result));
      setExitCode(result.yourCode.length > 0 ? EXIT.auditYourCode : EXIT.ok);
    });
}
