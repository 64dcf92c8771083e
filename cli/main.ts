import { Command, CommanderError } from "commander";
import { InputError, SimLimitError } from "../sim/errors.js";
import { EXIT } from "./exit-codes.js";
import { takeExitCode } from "./exit-state.js";
import { lockstepVersion } from "./artifacts.js";
import { registerRun } from "./commands/run.js";
import { registerList } from "./commands/list.js";
import { registerCheck } from "./commands/check.js";
import { registerSweep } from "./commands/sweep.js";
import { registerMerge } from "./commands/merge.js";
import { registerExplore } from "./commands/explore.js";
import { registerShrink } from "./commands/shrink.js";
import { registerCompare } from "./commands/compare.js";
import { registerDebate } from "./commands/debate.js";

/**
 * The `lockstep` command. Each subcommand lives in cli/commands/<name>.ts and is
 * registered here. User errors (bad flags, unknown names, malformed files) print
 * one clear line and exit 2; nothing prints a stack trace unless it is a bug.
 */
export function buildProgram(): Command {
  const program = new Command();
  program
    .name("lockstep")
    .description("deterministic simulator and Jepsen-style checker for distributed locks")
    .version(lockstepVersion())
    .exitOverride()
    .showHelpAfterError("(run `lockstep --help` for usage)");
  registerRun(program);
  registerList(program);
  registerCheck(program);
  // further commands register below (one line each)
  registerSweep(program);
  registerMerge(program);
  registerExplore(program);
  registerShrink(program);
  registerCompare(program);
  registerDebate(program);
  return program;
}

export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    takeExitCode();
    await program.parseAsync(argv, { from: "user" });
    return takeExitCode();
  } catch (err) {
    if (err instanceof CommanderError) {
      // commander already printed its message (unknown option, missing argument, --help).
      return err.exitCode === 0 ? EXIT.ok : EXIT.badInput;
    }
    if (err instanceof InputError) {
      process.stderr.write(`lockstep: ${err.message}\n`);
      return EXIT.badInput;
    }
    const io = err as NodeJS.ErrnoException;
    if (typeof io?.code === "string" && typeof io.syscall === "string") {
      // The file system refused (an --out under a file, a read-only disk, no space): the user's to fix.
      process.stderr.write(`lockstep: cannot ${io.syscall} ${io.path ?? ""}: ${io.code}${io.path ? "" : ` (${io.message})`}; check --out and the disk\n`);
      return EXIT.badInput;
    }
    if (err instanceof SimLimitError) {
      process.stderr.write(`lockstep: ${err.message}; raise the bound or shorten the scenario\n`);
      return EXIT.badInput;
    }
    process.stderr.write(`lockstep: internal error (a bug in lockstep, please report it):\n${(err as Error).stack ?? err}\n`);
    return EXIT.internal;
  }
}
