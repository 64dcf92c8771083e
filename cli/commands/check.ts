/**
 * `lockstep check <history>`: run the checkers that apply to a history recorded
 * elsewhere (our JSONL, or a Jepsen EDN history) and print each verdict with its
 * witness. The model (--model, else inferred from the ops) decides which apply: a
 * register history gets linearizability alone; an op the model has no rule for is
 * refused by name. Exit codes as for `run`: 3 safety violation, 4 liveness, 5
 * undecided, 2 bad input (an InputError, printed by main without a stack).
 */
import type { Command } from "commander";
import { verdictMark } from "../verdict-mark.js";
import { colourVerdicts, colourWanted } from "../colour.js";
import { existsSync, readFileSync, statSync } from "node:fs";
import { extname, join } from "node:path";
import { runCheckers, type Verdicts } from "../../checkers/run-all.js";
import type { CheckContext } from "../../checkers/types.js";
import { parseJsonlHistoryWithLines } from "../../checkers/import/jsonl.js";
import { KNOSSOS_REFUSED, MODEL_NAMES, isModelName, type ModelName } from "../../checkers/linearizability/models/index.js";
import { ednValue } from "../../checkers/import/edn-values.js";
import { familyOf, modelForHistory, notApplicable, unsupportedOp } from "../../checkers/applicable.js";
import { DEFAULT_BUDGET, modelNameFor } from "../../checkers/linearizability/index.js";
import { STEPS_MAX_DEFAULT } from "../../checkers/budget.js";
import { InputError } from "../../sim/errors.js";
import { recordsBeliefs } from "../../checkers/holds.js";
import { NUMBER_MAGNITUDE_MAX } from "../../sim/validate.js";
import type { HistoryEvent } from "../../sim/history.js";
import { EXIT } from "../../harness/exit-codes.js";
import { setExitCode } from "../exit-state.js";
import { stdoutIsTerminal, writeErr, writeOut } from "../stdio.js";

export interface CheckOptions {
  model?: string;
  initialValue?: string;
  format?: string;
  ttlMs?: string;
  driftPpm?: string;
  statesMax?: string;
  memoryMbMax?: string;
  stepsMax?: string;
  json?: boolean;
  out?: string;
  independent?: boolean;
}

export function registerCheck(program: Command): void {
  program
    .command("check")
    .description("check a history recorded elsewhere (lockstep JSONL or Jepsen EDN) with the checkers that apply to it")
    .argument("<history>", "path to a .jsonl or .edn history")
    .option("--model <name>", `linearizability model: ${MODEL_NAMES.join(" | ")} (default: lease-lock with --ttl-ms, else mutex)`)
    .option("--format <fmt>", "jsonl | edn (default: by the file's extension)")
    .option("--ttl-ms <n>", "the lease TTL the clients asked for, ms")
    .option("--drift-ppm <n>", "bound on clock rate error the lease-lock model allows, ppm (default: 0)")
    .option("--states-max <n>", `search budget of the linearizability checker, in states (default: ${DEFAULT_BUDGET.statesMax})`)
    .option("--memory-mb-max <n>", `memory budget of the linearizability search, estimated MB (default: ${DEFAULT_BUDGET.memoryMbMax})`)
    .option("--steps-max <n>", `work budget of every checker, in counted steps; past it a checker says unknown (default: ${STEPS_MAX_DEFAULT})`)
    .option("--initial-value <edn>", "register models: the value before the first write, in EDN or JSON, e.g. 0 (default: nil, as Knossos)")
    .option("--independent", "EDN from jepsen.independent: each :value is a [key value] tuple and each key is checked on its own")
    .option("--json", "print the verdicts as JSON")
    .option("--out <dir>", "also write DIR/report.html: the run report's timeline of this history, violations marked")
    .action(async (file: string, opts: CheckOptions) => {
      const c = await checkHistoryFile(file, opts);
      let wrote: string | undefined;
      if (opts.out !== undefined) {
        // Loaded only for --out, so a plain check does not pay for the report code and d3.
        const { recordForImported, renderImportedReport, writeImportedReport } = await import("../check-report.js");
        // Rendered whole before anything is written: a failure leaves no half-written file.
        const record = recordForImported(file, c.format, c.model, c.history, c.ctx, c.verdicts, recheckCommand(file, opts), c.notes);
        const html = renderImportedReport(record, c.history);
        wrote = writeImportedReport(opts.out, html);
      }
      if (opts.json) {
        writeOut(
          JSON.stringify(
            {
              file,
              format: c.format,
              model: c.model,
              context: c.ctx,
              events: c.history.length,
              ...(c.notes.length > 0 ? { notes: c.notes } : {}),
              ...(wrote ? { report: wrote } : {}),
              ...c.verdicts,
            },
            null,
            2,
          ) + "\n",
        );
      } else {
        for (const n of c.notes) writeErr(`lockstep: note: ${n}\n`);
        writeOut(
          colourVerdicts(formatCheck(file, c.history.length, c.verdicts, c.model), colourWanted({ isTTY: stdoutIsTerminal() })) +
            (wrote ? `wrote ${wrote}\n` : ""),
        );
      }
      setExitCode(exitCodeForVerdicts(c.verdicts));
    });
}

export interface CheckedHistory {
  format: "jsonl" | "edn";
  history: HistoryEvent[];
  model: ModelName;
  ctx: CheckContext;
  verdicts: Verdicts;
  /** What the reader changed or assumed that the user should know (e.g. raised :time values). */
  notes: string[];
}

/** Read, validate and judge one history file with the checkers that apply to it. */
export async function checkHistoryFile(file: string, opts: CheckOptions): Promise<CheckedHistory> {
  const { text, format } = readHistory(file, opts.format);
  if (opts.independent && format !== "edn") throw new InputError("<arg>", "--independent", "an EDN history (jepsen.independent tuples), got a JSONL one");
  // The EDN reader (and edn-data behind it) is loaded only for an EDN file: start-up of a JSONL check does not pay for it.
  const notes: string[] = [];
  let parsed: { events: HistoryEvent[]; lines: number[] };
  let timeIsOrder = false;
  if (format === "edn") {
    const edn = await import("../../checkers/import/edn.js");
    const r = edn.parseEdnHistoryWithLines(text, file, { independent: opts.independent ?? false });
    const note = edn.raisedTimesNote(r.raised);
    if (note !== undefined) notes.push(note);
    if (!r.timed && r.events.length > 0) {
      timeIsOrder = true;
      notes.push("the history has no :time: its events are judged in file order, and times are their positions in the file (#n), not µs");
    }
    parsed = r;
  } else parsed = parseJsonlHistoryWithLines(text, file);
  const { events: history, lines } = parsed;
  if (format === "edn" && !opts.independent) {
    // A read invoked with [k nil] is jepsen.independent's: judged whole, every key would be one register.
    const tupleRead = history.find((e) => e.type === "invoke" && e.f === "read" && e.process !== "nemesis" && Array.isArray(e.value) && e.value.length === 2);
    if (tupleRead !== undefined)
      throw new InputError(
        file,
        `line ${lines[tupleRead.index]}: :value`,
        "nil for a read's invoke; a [key nil] tuple is jepsen.independent's: pass --independent to check each key on its own",
      );
  }
  const ctx = contextFrom(opts);
  if (timeIsOrder) ctx.timeIsOrder = true;
  // lockstep's own history: every acquire invoke carries the scenario's ttlMs, which `run` judges with.
  if (ctx.model === undefined && ctx.ttlMs === undefined) {
    const ttlMs = acquireTtlMs(history);
    if (ttlMs !== undefined) ctx.ttlMs = ttlMs;
  }
  const model = modelForHistory(history, ctx);
  ctx.model = model;
  // A history from elsewhere records no beliefs: its holds end at their leases at the latest.
  if (!recordsBeliefs(history)) ctx.holdsEndAtLease = true;
  const bad = unsupportedOp(history, model);
  if (bad !== undefined) {
    const show = format === "edn" ? `:${bad.f}` : JSON.stringify(bad.f);
    throw new InputError(file, `line ${lines[bad.index]}: ${format === "edn" ? ":f" : "f"}`, `${bad.expected}, got ${show}`);
  }
  const family = familyOf(model);
  const verdicts = runCheckers(history, ctx, { notApplicable: (name) => notApplicable(name, family, history, ctx) });
  return { format, history, model, ctx, verdicts, notes };
}

const shellWord = (w: string): string => (/^[\w./:=@-]+$/.test(w) ? w : `'${w.replace(/'/g, "'\\''")}'`);

/** The command that checks this history again with the same flags (for the report's box). */
export function recheckCommand(file: string, opts: CheckOptions): string {
  const flags: Array<[string, string | undefined]> = [
    ["--model", opts.model],
    ["--format", opts.format],
    ["--ttl-ms", opts.ttlMs],
    ["--drift-ppm", opts.driftPpm],
    ["--states-max", opts.statesMax],
    ["--memory-mb-max", opts.memoryMbMax],
    ["--steps-max", opts.stepsMax],
    ["--initial-value", opts.initialValue],
  ];
  return [
    "npx lockstep check",
    shellWord(file),
    ...flags.filter(([, v]) => v !== undefined).map(([k, v]) => `${k} ${shellWord(v!)}`),
    ...(opts.independent ? ["--independent"] : []),
  ].join(" ");
}

/** A folder given as the history is refused naming it (not --format), with the run's history.jsonl if it has one. */
function refuseFolder(file: string): void {
  let folder: boolean;
  try {
    folder = statSync(file).isDirectory();
  } catch {
    return; // missing or unreadable: readHistory says so
  }
  if (!folder) return;
  const inside = join(file, "history.jsonl");
  const hint = existsSync(inside) ? `; a run's folder: its history is ${inside}` : "";
  throw new InputError(file, "<history>", `a history file (lockstep JSONL or Jepsen EDN), got a folder${hint}`);
}

function readHistory(file: string, formatFlag: string | undefined): { text: string; format: "jsonl" | "edn" } {
  refuseFolder(file);
  let format: "jsonl" | "edn";
  if (formatFlag !== undefined) {
    if (formatFlag !== "jsonl" && formatFlag !== "edn") throw new InputError("<arg>", "--format", `jsonl or edn, got "${formatFlag}"`);
    format = formatFlag;
  } else {
    const ext = extname(file).toLowerCase();
    if (ext === ".edn") format = "edn";
    else if (ext === ".jsonl" || ext === ".json") format = "jsonl";
    else throw new InputError("<arg>", "--format", `jsonl or edn: cannot tell from the extension of "${file}"`);
  }
  try {
    return { text: readFileSync(file, "utf8"), format };
  } catch (e) {
    throw new InputError(file, "file", `a readable history file (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
}

/** The ttlMs every client acquire invoke carries, when they all carry the same one; else undefined. */
export function acquireTtlMs(history: readonly HistoryEvent[]): number | undefined {
  let ttlMs: number | undefined;
  for (const e of history) {
    if (e.f !== "acquire" || e.type !== "invoke" || e.process === "nemesis") continue;
    const t = (e.value as { ttlMs?: unknown } | null | undefined)?.ttlMs;
    if (typeof t !== "number" || !(t > 0) || (ttlMs !== undefined && t !== ttlMs)) return undefined;
    ttlMs = t;
  }
  return ttlMs;
}

function nonNegative(text: string | undefined, flag: string): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+(\.\d+)?$/.test(text)) throw new InputError("<arg>", flag, `a non-negative number, got "${text}"`);
  const n = Number(text);
  if (n > NUMBER_MAGNITUDE_MAX) throw new InputError("<arg>", flag, `a number no greater than ${NUMBER_MAGNITUDE_MAX}, got "${text.slice(0, 40)}"`);
  return n;
}

/** --initial-value as the importers read values: EDN (0, :a, "s", 9007199254740993) exactly. */
function initialValueOf(text: string): unknown {
  try {
    return ednValue(text);
  } catch (e) {
    throw new InputError("<arg>", "--initial-value", `one EDN or JSON value such as 0, nil or :a (${(e as Error).message})`);
  }
}

function contextFrom(opts: CheckOptions): CheckContext {
  // A Knossos model lockstep does not check is refused by name (modelNameFor says why).
  if (opts.model !== undefined && KNOSSOS_REFUSED[opts.model] !== undefined) modelNameFor({ model: opts.model });
  if (opts.model !== undefined && !isModelName(opts.model)) throw new InputError("<arg>", "--model", `one of ${MODEL_NAMES.join(", ")}, got "${opts.model}"`);
  const statesMax = nonNegative(opts.statesMax, "--states-max");
  const ctx: CheckContext = {};
  if (opts.model !== undefined) ctx.model = opts.model;
  const ttlMs = nonNegative(opts.ttlMs, "--ttl-ms");
  if (ttlMs !== undefined) ctx.ttlMs = ttlMs;
  const drift = nonNegative(opts.driftPpm, "--drift-ppm");
  if (drift !== undefined) ctx.clockDriftPpmMax = drift;
  const memoryMbMax = nonNegative(opts.memoryMbMax, "--memory-mb-max");
  if (statesMax !== undefined || memoryMbMax !== undefined)
    ctx.searchBudget = {
      ...(statesMax !== undefined ? { statesMax: Math.max(1, Math.floor(statesMax)) } : {}),
      ...(memoryMbMax !== undefined ? { memoryMbMax: Math.max(1, memoryMbMax) } : {}),
    };
  const stepsMax = nonNegative(opts.stepsMax, "--steps-max");
  if (stepsMax !== undefined) ctx.stepsMax = Math.max(1, Math.floor(stepsMax));
  if (opts.initialValue !== undefined) ctx.initialValue = initialValueOf(opts.initialValue);
  return ctx;
}

/**
 * By the checkers only: a history recorded elsewhere comes without the scenario that says
 * what would challenge it, so "not challenged" (printed, by the default rule) is not exit 8.
 */
export function exitCodeForVerdicts(v: Verdicts): number {
  if (v.safety === false) return EXIT.safetyViolation;
  if (v.liveness === false) return EXIT.livenessViolation;
  if (v.valid === "unknown") return EXIT.unknown;
  return EXIT.ok;
}

export function formatCheck(file: string, events: number, v: Verdicts, model?: string): string {
  const lines = [`lockstep check ${file} — ${events} events${model !== undefined ? `, model ${model}` : ""}`];
  for (const r of v.results) {
    lines.push(`  ${verdictMark(r)} ${r.checker.padEnd(18)} ${r.summary}`);
    if (r.valid !== true && r.witness !== undefined) lines.push(...formatWitness(r.witness).map((l) => `         ${l}`));
  }
  const rule = v.challenge.derived
    ? `by the rule derived from its faults, ${v.challenge.derived.rule}: ${v.challenge.derived.why}`
    : `by the rule ${v.challenge.kind}`;
  lines.push(v.challenge.challenged ? `challenged (${rule}): ${v.challenge.why}` : `not challenged (${rule}): ${v.challenge.why}`);
  lines.push(`outcome: ${v.outcome} (safety ${String(v.safety)}, liveness ${String(v.liveness)})`);
  return lines.join("\n") + "\n";
}

const WITNESS_LINES_MAX = 40;

/** Linearizability witnesses as a timeline, overlaps as sentences; others as indented JSON, cut to a screenful. */
function formatWitness(w: unknown): string[] {
  const o = w as { prefixLength?: number; prefixTail?: { text: string }[]; state?: string; cannotFollow?: { text: string }[] };
  if (Array.isArray(o.prefixTail) && Array.isArray(o.cannotFollow)) {
    const out = [`longest linearizable prefix: ${o.prefixLength} ops${o.prefixLength! > o.prefixTail.length ? `, last ${o.prefixTail.length}:` : ":"}`];
    for (const op of o.prefixTail) out.push(`  ${op.text}`);
    out.push(`state after it: ${o.state}`);
    out.push("cannot take effect next:");
    for (const op of o.cannotFollow) out.push(`  ${op.text}`);
    return out;
  }
  // Witnesses that explain themselves (mutual-exclusion overlaps) print as their sentences.
  if (Array.isArray(w) && w.length > 0 && w.every((x) => typeof (x as { sentence?: unknown })?.sentence === "string")) {
    return w.map((x) => `- ${(x as { sentence: string }).sentence}`);
  }
  const lines = JSON.stringify(w, null, 2).split("\n");
  return lines.length > WITNESS_LINES_MAX ? [...lines.slice(0, WITNESS_LINES_MAX), `… (${lines.length - WITNESS_LINES_MAX} more lines; use --json)`] : lines;
}
