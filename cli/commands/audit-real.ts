/**
 * `lockstep audit --real`: the audit on real servers (real/audit.ts), with the simulated
 * audit's table, audit.json, audit.html and exit codes (0, or 9 when a finding is your
 * code). Progress: a line per finished run and per attack. A run that fails (a server that
 * will not start, a lock driver that dies) stops the audit with its one line (exit 1, 2
 * for a missing server binary); SIGINT/SIGTERM stop it (exit 130/143). Either way the
 * attacks that finished are written and printed, saying where it stopped.
 */
import type { Command } from "commander";
import { InputError } from "../../sim/errors.js";
import { EXIT } from "../../harness/exit-codes.js";
import { setExitCode } from "../exit-state.js";
import { parsePositiveInt } from "../args.js";
import { checkOutputDir } from "../../harness/safe-write.js";
import { StepProgress } from "../../harness/sweep/progress.js";
import { library } from "../../designs/library/design.js";
import type { Attack, LockUnderTest } from "../../attacks/index.js";
import { RealAudit } from "../../real/audit.js";
import { parseTimeScale } from "../../real/time-scale.js";
import { hooksInstalled, stoppedBySignal } from "../../real/servers/index.js";
import { formatAudit } from "../../terminal/audit.js";
import { printable } from "../../terminal/printable.js";
import { realFailureCode } from "./real.js";

export interface RealAuditFlags {
  real?: boolean;
  lockCmd?: string;
  runs?: string;
  timeScale?: string;
  nodes?: string;
  out?: string;
}

/** Real runs per attack (and as many on the reference) unless --runs says. */
const RUNS_DEFAULT = 5;
/** More than this is a batch for `lockstep real --runs`, one attack at a time. */
const RUNS_MAX = 100;
const LABEL = "lockstep audit --real";

/** Flags a simulated audit takes and a real one does not, and the reverse: one line naming the flag. */
export function checkRealFlags(cmd: Command, o: RealAuditFlags & { lock?: string; design?: string }): void {
  const given = (name: string): boolean => cmd.getOptionValueSource(name) === "cli";
  if (o.real) {
    for (const [flag, name, why] of [
      ["--seeds", "seeds", "a real audit counts real runs: --runs"],
      ["--workers", "workers", "real runs go one at a time, each on its own servers"],
      ["--shard", "shard", "a real audit is not sharded"],
      ["--confirm-real", "confirmReal", "a real audit's findings are real runs already"],
      ["--explore", "explore", "generated schedules are judged on paired seeds, which real runs do not have"],
    ] as const)
      if (given(name)) throw new InputError("<arg>", flag, `not with --real (${why})`);
    if (o.lockCmd !== undefined && (o.lock !== undefined || o.design !== undefined))
      throw new InputError("<arg>", "--lock-cmd", "exactly one of --lock <adapter>, --design <name> or --lock-cmd <command>");
    return;
  }
  for (const [flag, name] of [
    ["--lock-cmd", "lockCmd"],
    ["--runs", "runs"],
    ["--time-scale", "timeScale"],
  ] as const)
    if (given(name)) throw new InputError("<arg>", flag, "only with --real (a lock driver and real runs run on real servers)");
}

/** The lock of --lock-cmd: design library on a lock driver, run where the command was typed. */
export function lockCmdLock(o: RealAuditFlags, options: Record<string, unknown> | undefined): LockUnderTest {
  const cmd = o.lockCmd!;
  if (cmd.trim().length === 0 || /[\r\n\0]/.test(cmd)) throw new InputError("<arg>", "--lock-cmd", 'a command on one line, e.g. "python3 driver.py"');
  const nodes = o.nodes !== undefined ? parsePositiveInt(o.nodes, "--nodes") : 1;
  return { design: library.name, designOptions: { ...options, lockCmd: cmd, lockCmdCwd: process.cwd(), nodes }, label: cmd };
}

export async function auditReal(o: RealAuditFlags, lock: LockUnderTest, attacks: readonly Attack[]): Promise<void> {
  const runs = o.runs !== undefined ? parsePositiveInt(o.runs, "--runs") : RUNS_DEFAULT;
  if (runs > RUNS_MAX) throw new InputError("<arg>", "--runs", `expected at most ${RUNS_MAX}, got ${runs}`);
  const timeScale = parseTimeScale(o.timeScale ?? "1");
  if (o.out) checkOutputDir(o.out);
  const ticker = new StepProgress(LABEL);
  const audit = new RealAudit(lock, {
    runs,
    attacks,
    timeScale,
    ...(o.out ? { out: o.out } : {}),
    progress: (line) => {
      ticker.done();
      process.stderr.write(`${LABEL}: ${printable(line)}\n`);
    },
    onTick: (t) => ticker.step(t),
  });
  let stopped = false;
  const stop = (reason: string): void => {
    if (stopped) return;
    stopped = true;
    ticker.done();
    const partial = audit.result({ attack: audit.current ?? "", reason });
    process.stdout.write(formatAudit(partial) + (o.out ? `wrote ${o.out}/audit.json and audit.html (the attacks that finished)\n` : ""));
  };
  // Before the server groups' own handler (installed with the first run): the finished attacks are written, then they stop the servers and exit.
  const onSignal = (signal: NodeJS.Signals): void => {
    stop(`stopped by ${signal}`);
    if (!hooksInstalled()) process.exit(signal === "SIGINT" ? 130 : 143);
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  try {
    const result = await audit.run();
    ticker.done();
    process.stdout.write(formatAudit(result) + (o.out ? `wrote ${o.out}/audit.json and audit.html\n` : ""));
    setExitCode(result.yourCode.length > 0 ? EXIT.auditYourCode : EXIT.ok);
  } catch (err) {
    const signal = stoppedBySignal();
    if (signal) return stop(`stopped by ${signal}`);
    const code = realFailureCode(err, LABEL);
    if (code === undefined) throw err;
    stop(`failed: ${(err as Error).message.split("\n")[0]}`);
    setExitCode(code);
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}
