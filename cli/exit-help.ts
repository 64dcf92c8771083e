/**
 * Each command's exit codes, as its `--help` ends with them: the codes the command's own
 * code sets (harness/exit-codes.ts), in the order a user meets them, plus 2 (bad input)
 * and 1 (a lockstep bug), which every command can exit with.
 */
import { EXIT } from "../harness/exit-codes.js";
import { wrapEntry } from "../terminal/columns.js";

type Codes = ReadonlyArray<readonly [number, string]>;

const VERDICTS: Codes = [
  [EXIT.safetyViolation, "a safety checker found a violation (two holders, a lost update, a stale write, a non-linearizable history)"],
  [EXIT.livenessViolation, "safe, but a liveness checker found a lock not granted in time"],
  [EXIT.unknown, "no violation, but a checker could not decide (its budget ran out)"],
];
const EXPECTED: Codes = [[EXIT.unexpected, "with --ok-if-expected: an outcome other than the scenario's expect"]];
const STOPPED: Codes = [[EXIT.stopped, "a run was stopped: library code left the simulation or used what it does not model (seed and replay printed)"]];
const UNCHALLENGED: Codes = [[EXIT.notChallenged, "no checker failed, but no run challenged the lock: safe would mean nothing"]];
const COMMON: Codes = [
  [EXIT.badInput, "bad input: flags, names or files (one line says which)"],
  [EXIT.internal, "a lockstep bug (the message says so)"],
];

export const EXIT_CODES: Readonly<Record<string, Codes>> = {
  run: [[EXIT.ok, "safe and challenged (with --ok-if-expected: the outcome the scenario expects)"], ...VERDICTS, ...EXPECTED, ...STOPPED, ...UNCHALLENGED],
  real: [
    [EXIT.ok, "every run safe and challenged (with --ok-if-expected: as the scenario expects)"],
    ...VERDICTS,
    ...EXPECTED,
    [EXIT.stopped, "the adapter's own code threw while loading or in create()"],
    ...UNCHALLENGED,
    [EXIT.internal, "a run's own checks failed (it is no evidence), or a server or client died; or a lockstep bug"],
    [EXIT.badInput, "input real mode cannot run, a bad adapter, a missing server binary (the apt-get line), bad flags"],
    [EXIT.interrupted, "interrupted (SIGINT); the finished runs' summary.json is written"],
  ],
  list: [[EXIT.ok, "listed"]],
  check: [[EXIT.ok, "every checker that applies passed"], ...VERDICTS],
  sweep: [
    [EXIT.ok, "no seed violated anything (with --ok-if-expected: every seed as the scenario expects)"],
    ...VERDICTS,
    ...EXPECTED,
    ...STOPPED,
    ...UNCHALLENGED,
    [EXIT.interrupted, "interrupted (Ctrl-C): a partial summary is written; --resume finishes it"],
  ],
  audit: [
    [EXIT.ok, "no finding is your code's: every attack was safe, or unsafe on the backend's reference recipe too"],
    [EXIT.auditYourCode, "some attack was unsafe on the lock under test and safe on its backend's reference recipe: your code"],
    ...STOPPED,
    [EXIT.internal, "with --real: a real run failed (a server, a client or a lock driver died or hung; one line says which), or a lockstep bug"],
    [EXIT.interrupted, "with --real: interrupted (SIGINT); audit.json holds the attacks that finished"],
  ],
  merge: [
    [EXIT.ok, "sweep shards: as `sweep` would exit on the merged summary; audit shards: as `audit`"],
    ...VERDICTS,
    ...EXPECTED,
    ...UNCHALLENGED,
    [EXIT.auditYourCode, "audit shards: some finding is your code's"],
  ],
  explore: [[EXIT.safetyViolation, "a counterexample was found (written to --out)"], [EXIT.ok, "none within --runs"], ...STOPPED],
  shrink: [[EXIT.safetyViolation, "the shrunk scenario still violates safety (written to --out)"], ...STOPPED],
  compare: [
    [EXIT.ok, "the pages are written (whatever the cells found, unless --fail-on-violation)"],
    [EXIT.safetyViolation, "with --fail-on-violation: some cell had a safety violation"],
    [EXIT.livenessViolation, "with --fail-on-violation: no safety violation, but some cell lost liveness"],
    ...STOPPED,
    [EXIT.badInput, "bad input, or nothing to compare (every cell skipped, with the reasons)"],
  ],
  debate: [
    [EXIT.ok, "every claim's runs came out as the claim says"],
    [EXIT.unexpected, "some claim's run did not come out as expected"],
  ],
  playground: [[EXIT.ok, "the page is written"]],
};

/** "Exit codes:" and one line per code, for the end of `lockstep <command> --help`. */
export function exitCodesHelp(command: string): string {
  const own = EXIT_CODES[command];
  if (!own) return "";
  const codes = [...own, ...COMMON.filter(([c]) => !own.some(([o]) => o === c))];
  // Wrapped to 80 columns, as commander wraps the options above to a piped terminal.
  return `\nExit codes:\n${codes.flatMap(([c, what]) => wrapEntry(String(c).padStart(3), 3, what, 80)).join("\n")}\n`;
}
