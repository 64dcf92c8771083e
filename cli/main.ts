import { Command, CommanderError } from "commander";
import { InputError, SimLimitError, SimulationStopError } from "../sim/errors.js";
import { EXIT } from "../harness/exit-codes.js";
import { takeExitCode } from "./exit-state.js";
import { lockstepVersion } from "../harness/version.js";
import { COMMANDS } from "./commands/index.js";
import { printable, printableLines } from "../terminal/printable.js";
import { writeErr, writeOut } from "./stdio.js";
import { exitCodesHelp } from "./exit-help.js";

export { useDirectStdio, wroteToStream } from "./stdio.js";

/**
 * The `lockstep` command. Each subcommand lives in cli/commands/<name>.ts, listed in
 * cli/commands/index.ts, and is loaded only when it is the one asked for (`lockstep run
 * ...`, `lockstep help run`); otherwise (the top-level help, an unknown name) every
 * command is registered as a summary that loads nothing. User errors (bad flags,
 * unknown names, malformed files) print one clear line and exit 2; nothing prints a
 * stack trace unless it is a bug.
 */
/**
 * Defaults in --help as a user types them (20, runs/compare), not as JSON strings ("20",
 * "runs/compare"); and a required option says so, since commander's help does not.
 */
function showDefaultsPlain(cmd: Command): void {
  for (const o of cmd.options) {
    if (typeof o.defaultValue === "string" && o.defaultValueDescription === undefined) o.defaultValueDescription = o.defaultValue;
    if (o.mandatory && !o.description.includes("(required)")) o.description += " (required)";
  }
}

export async function buildProgram(argv: readonly string[] = []): Promise<Command> {
  const program = new Command();
  program
    .name("lockstep")
    .description("deterministic simulator and Jepsen-style checker for distributed locks")
    .version(lockstepVersion())
    .exitOverride()
    .configureOutput({ writeOut, writeErr })
    .showHelpAfterError("(run `lockstep --help` for usage)");
  const asked = argv[0] === "help" ? argv[1] : argv[0];
  const wanted = COMMANDS.find((c) => c.name === asked);
  for (const spec of COMMANDS) {
    if (spec === wanted) {
      (await spec.load())(program);
      const cmd = program.commands.find((c) => c.name() === spec.name)!;
      cmd.addHelpText("after", exitCodesHelp(spec.name));
      showDefaultsPlain(cmd);
    } else {
      const summary = program.command(spec.name).description(spec.summary);
      if (spec.args) summary.argument(spec.args);
    }
  }
  return program;
}

export async function main(argv: string[]): Promise<number> {
  const program = await buildProgram(argv);
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
      writeErr(`lockstep: ${printable(err.message)}\n`);
      return EXIT.badInput;
    }
    const io = err as NodeJS.ErrnoException;
    if (typeof io?.code === "string" && typeof io.syscall === "string") {
      // The file system refused (an --out under a file, a read-only disk, no space): the user's to fix.
      writeErr(printable(`lockstep: cannot ${io.syscall} ${io.path ?? ""}: ${io.code}${io.path ? "" : ` (${io.message})`}; check --out and the disk`) + "\n");
      return EXIT.badInput;
    }
    if (err instanceof SimulationStopError) {
      const r = err.replay;
      writeErr(
        `lockstep: run stopped: ${printable(err.message)}\n` +
          (r ? `seed: ${r.seed}\nreplay: ${printable(r.command ?? `npx lockstep run ${r.scenario} --seed ${r.seed}`)}\n` : ""),
      );
      return EXIT.stopped;
    }
    if (err instanceof SimLimitError) {
      writeErr(`lockstep: ${printable(err.message)}; shorten the scenario, or raise the bound with its "limits" field (docs/scenarios.md#limits)\n`);
      return EXIT.badInput;
    }
    writeErr(`lockstep: internal error (a bug in lockstep, please report it):\n${printableLines(String((err as Error)?.stack ?? err))}\n`);
    return EXIT.internal;
  }
}
