/**
 * `lockstep check` beside Porcupine, both as processes (start-up included), on register
 * histories of 1k, 10k and 100k ops (5 clients): valid with 5% writes of unknown outcome;
 * the same with one stale read planted; and a stale read with every outcome known (which
 * Porcupine decides too). Porcupine is not in this repository: give a copy of its source
 * (a clone of anishathalye/porcupine) as PORCUPINE_SRC or `--src <dir>`;
 * bench/porcupine/main.go is built against it with Debian's Go (golang-go) in a
 * temporary folder, offline (GOPROXY=off).
 *
 *   npm run bench:porcupine -- --src ../porcupine
 *
 * The two run in alternate rounds, so the machine's load falls on both alike. A first line
 * sets Node's own start-up (`node -e 0`) beside Porcupine's whole 1k-op check. Where the
 * environment sets NODE_EXTRA_CA_CERTS (which Node reads at every start-up), the floor and
 * the 1k and 10k valid rows are measured again without it (rows "valid/no-CA").
 * Each history's verdicts are asserted: lockstep's must be the generator's truth, and
 * Porcupine's, where it decides in PORCUPINE_TIMEOUT_S (default 60 s), must equal
 * lockstep's; any difference is printed and the exit code is 1. Prints the median wall
 * time and CPU time of each over the rounds with their spread (min-max), their ratios,
 * and the load average before and after. Without a source or `go`: under `npm run bench`
 * (no --src, no PORCUPINE_SRC) it says so and skips; given --src, it says what is
 * missing and exits 2.
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { loadAverage } from "./rounds.js";

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, "..", "..");

/** A register history: each client's ops in turn, each taking effect at a random point of its interval. */
export function registerHistory(ops: number, clients: number, infoFraction: number, stale: boolean, seed: number): string {
  let s = seed >>> 0 || 1;
  const rnd = (): number => (s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 4294967296;
  const clock = new Array<number>(clients).fill(0);
  const list = Array.from({ length: ops }, (_, i) => {
    const c = i % clients;
    const start = clock[c]! + 1 + Math.floor(rnd() * 5);
    const end = start + 1 + Math.floor(rnd() * 30);
    clock[c] = end;
    const write = i === 0 || rnd() < 0.5;
    return { c, start, end, point: start + rnd() * (end - start), write, info: write && rnd() < infoFraction, v: i, read: null as number | null };
  });
  let value: number | null = null;
  for (const o of [...list].sort((a, b) => a.point - b.point))
    if (o.write) value = o.v;
    else o.read = value;
  if (stale) {
    const reads = list.filter((o) => !o.write && o.read !== null);
    reads[Math.floor(reads.length * 0.9)]!.read = -1;
  }
  const events = list.flatMap((o) => [
    { t: o.start, k: 0, o },
    { t: o.end, k: 1, o },
  ]);
  events.sort((a, b) => a.t - b.t || b.k - a.k || a.o.c - b.o.c);
  return (
    events
      .map(({ t, k, o }) => {
        const e: Record<string, unknown> = {
          timeUs: t,
          process: `c${o.c}`,
          type: k === 0 ? "invoke" : o.info ? "info" : "ok",
          f: o.write ? "write" : "read",
          lock: "x",
        };
        if (k === 0 && o.write) e.value = { value: o.v };
        if (k === 1 && !o.write) e.value = { value: o.read };
        return JSON.stringify(e);
      })
      .join("\n") + "\n"
  );
}

/** Where Porcupine's source is, and whether the caller asked for this bench by name (then a missing part is an error). */
function sourceFromArgs(argv: readonly string[]): { src: string | undefined; required: boolean } {
  const i = argv.indexOf("--src");
  if (i >= 0) return { src: argv[i + 1], required: true };
  return { src: process.env.PORCUPINE_SRC, required: argv.includes("--required") };
}

/** The built driver's path, or why it could not be built (a sentence naming what is missing). */
function buildPorcupine(dir: string, src: string | undefined): string | { missing: string } {
  if (!src) return { missing: "no Porcupine source: pass --src <dir> (or set PORCUPINE_SRC) to a clone of anishathalye/porcupine" };
  if (!existsSync(join(src, "go.mod")) || !existsSync(join(src, "porcupine.go")))
    return { missing: `--src ${src}: not a Porcupine source folder (expected go.mod and porcupine.go in it; a clone of anishathalye/porcupine)` };
  if (spawnSync("go", ["version"]).status !== 0) return { missing: "no `go` on PATH: install Debian's Go (apt-get install golang-go)" };
  writeFileSync(
    join(dir, "go.mod"),
    `module lockstepbench\n\ngo 1.19\n\nrequire github.com/anishathalye/porcupine v0.0.0\n\nreplace github.com/anishathalye/porcupine => ${resolve(src)}\n`,
  );
  copyFileSync(join(ROOT, "bench", "porcupine", "main.go"), join(dir, "main.go"));
  const env = { ...process.env, GOPROXY: "off", GOFLAGS: "-mod=mod", GOCACHE: join(dir, "cache") };
  const built = spawnSync("go", ["build", "-o", "porcupine-check", "."], { cwd: dir, env, encoding: "utf8" });
  if (built.status !== 0)
    return { missing: `go build of bench/porcupine/main.go against ${src} failed:\n${(built.stderr || built.error?.message || "").trim()}` };
  return join(dir, "porcupine-check");
}

interface Timed {
  verdict: string;
  ms: number[];
  /** CPU time (user + system) of each round, where GNU time is installed: a figure the machine's load changes less than wall time. */
  cpuMs: number[];
}

const GNU_TIME = "/usr/bin/time";

interface Command {
  cmd: string;
  args: string[];
  verdictOf: (status: number | null, out: string) => string;
  /** The command's environment, when not this process's. */
  env?: NodeJS.ProcessEnv;
}

/**
 * This process's environment without NODE_EXTRA_CA_CERTS, or undefined when it is not set.
 * Node 20 reads that certificate bundle at every start-up, before any script runs (~50 ms
 * CPU for Debian's bundle on the development machine); a machine behind a proxy may set it
 * for every process. Rows measured without it say how much of a ratio is that.
 */
function withoutExtraCaCerts(): NodeJS.ProcessEnv | undefined {
  if (process.env.NODE_EXTRA_CA_CERTS === undefined) return undefined;
  const env = { ...process.env };
  delete env.NODE_EXTRA_CA_CERTS;
  return env;
}

/**
 * Runs a command once and adds its round to `t`. The time limit is coreutils' timeout around
 * the command (exit 124), inside GNU time, so a command cut short is killed with its measurer,
 * never orphaned; --foreground keeps it in this process group, so Ctrl-C reaches it at once.
 */
function timeOnce(c: Command, t: Timed, timeoutS: number, dir: string): void {
  const cpuFile = join(dir, "cpu.txt");
  const measured = existsSync(GNU_TIME);
  const limited = ["--foreground", "--kill-after=5", String(timeoutS), c.cmd, ...c.args];
  const t0 = process.hrtime.bigint();
  const options = { encoding: "utf8", maxBuffer: 1 << 26, env: c.env } as const;
  const r = measured ? spawnSync(GNU_TIME, ["-f", "%U %S", "-o", cpuFile, "timeout", ...limited], options) : spawnSync("timeout", limited, options);
  t.ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
  if (r.signal === "SIGINT" || r.status === 130) throw new Error("interrupted (Ctrl-C)");
  t.verdict = r.status === 124 || r.status === 137 || r.error || r.signal ? `undecided in ${timeoutS} s` : c.verdictOf(r.status, r.stdout);
  if (measured && !t.verdict.startsWith("undecided")) {
    const [user, system] = readFileSync(cpuFile, "utf8").trim().split("\n").at(-1)!.split(" ").map(Number);
    t.cpuMs.push(((user ?? NaN) + (system ?? NaN)) * 1000);
  }
}

/** Porcupine's check of one history file: it prints its verdict ("true", "false") on stdout. */
const porcupineCommand = (porcupine: string, file: string): Command => ({ cmd: porcupine, args: [file], verdictOf: (_st, out) => out.trim() });

/**
 * Both commands `rounds` times, in alternate rounds, so a change in the machine's load
 * (shared, it moves within a minute) falls on both alike. One that is undecided in the
 * time limit is not run again.
 */
function timeAlternating(a: Command, b: Command, rounds: number, timeoutS: number, dir: string): [Timed, Timed] {
  const ta: Timed = { verdict: "", ms: [], cpuMs: [] };
  const tb: Timed = { verdict: "", ms: [], cpuMs: [] };
  for (let i = 0; i < rounds; i++) {
    if (!ta.verdict.startsWith("undecided")) timeOnce(a, ta, timeoutS, dir);
    if (!tb.verdict.startsWith("undecided")) timeOnce(b, tb, timeoutS, dir);
  }
  return [ta, tb];
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const spread = (xs: number[]): string => `${Math.round(Math.min(...xs))}-${Math.round(Math.max(...xs))}`;

/** The histories at each size: name, whether it is linearizable (the generator's truth), and how it is made. */
interface Row {
  name: string;
  truth: boolean;
  infoFraction: number;
  stale: boolean;
  /** lockstep's environment for this row, when not this process's. */
  env?: NodeJS.ProcessEnv;
}

const HISTORIES: readonly Row[] = [
  { name: "valid", truth: true, infoFraction: 0.05, stale: false },
  { name: "stale", truth: false, infoFraction: 0.05, stale: true },
  { name: "stale/no-info", truth: false, infoFraction: 0, stale: true },
];

const ROUNDS = 7;
const ROUNDS_100K = 3;

/** One history through both; the row printed, and the disagreements found (empty when the verdicts are right). */
function compare(porcupine: string, dir: string, ops: number, h: Row, timeoutS: number): string[] {
  const file = join(dir, `register-${ops}-${h.name.replace("/", "-")}.jsonl`);
  writeFileSync(file, registerHistory(ops, 5, h.infoFraction, h.stale, ops));
  const rounds = ops >= 100_000 ? ROUNDS_100K : ROUNDS;
  const lockstep: Command = {
    cmd: process.execPath,
    args: [join(ROOT, "bin", "lockstep.js"), "check", file, "--model", "register"],
    verdictOf: (st) => (st === 0 ? "true" : st === 3 ? "false" : st === 5 ? "unknown" : `exit ${st}`),
    env: h.env,
  };
  const [l, p] = timeAlternating(lockstep, porcupineCommand(porcupine, file), rounds, timeoutS, dir);
  const decided = !p.verdict.startsWith("undecided");
  const both = decided && !l.verdict.startsWith("undecided");
  // GNU time counts CPU in 10 ms ticks: a run under one tick has no ratio.
  const ratio = (of: (t: Timed) => number[]): string => (both && of(p).length > 0 && median(of(p)) > 0 ? (median(of(l)) / median(of(p))).toFixed(2) : "-");
  const cell = (t: Timed, xs: number[]): string => (t.verdict.startsWith("undecided") || xs.length === 0 ? "-" : `${Math.round(median(xs))} (${spread(xs)})`);
  console.log(
    `${String(ops).padEnd(7)} ${h.name.padEnd(14)} ${l.verdict.padEnd(9)} ${p.verdict.padEnd(18)} ` +
      `${cell(l, l.ms).padEnd(18)} ${cell(p, p.ms).padEnd(18)} ${ratio((t) => t.ms).padEnd(6)} ` +
      `${cell(l, l.cpuMs).padEnd(18)} ${cell(p, p.cpuMs).padEnd(18)} ${ratio((t) => t.cpuMs)}`,
  );
  const wrong: string[] = [];
  if (l.verdict !== String(h.truth)) wrong.push(`${ops} ${h.name}: lockstep said ${l.verdict}, the history is ${h.truth ? "" : "not "}linearizable`);
  if (decided && p.verdict !== l.verdict) wrong.push(`${ops} ${h.name}: Porcupine said ${p.verdict}, lockstep ${l.verdict}`);
  return wrong;
}

const FLOOR_ROUNDS = 11;

/**
 * Node's own start-up (`node -e 0`, nothing of lockstep's) beside Porcupine's whole check of
 * the 1k-op valid history, alternated: where the first exceeds the second, no `check` run as
 * a Node process can match Porcupine at that size, whatever lockstep does.
 */
function startUpFloor(porcupine: string, dir: string, timeoutS: number): void {
  const file = join(dir, "register-1000-floor.jsonl");
  writeFileSync(file, registerHistory(1_000, 5, HISTORIES[0]!.infoFraction, false, 1_000));
  const node: Command = { cmd: process.execPath, args: ["-e", "0"], verdictOf: () => "-" };
  const [n, p] = timeAlternating(node, porcupineCommand(porcupine, file), FLOOR_ROUNDS, timeoutS, dir);
  const both = (t: Timed): string => `${Math.round(median(t.ms))} ms wall (${spread(t.ms)}), ${Math.round(median(t.cpuMs))} ms CPU (${spread(t.cpuMs)})`;
  console.log(`start-up floor, medians of ${FLOOR_ROUNDS} alternate rounds: node -e 0 ${both(n)}; Porcupine's whole 1k-op check ${both(p)}`);
  const noCa = withoutExtraCaCerts();
  if (noCa === undefined) return;
  const [m] = timeAlternating({ ...node, env: noCa }, porcupineCommand(porcupine, file), FLOOR_ROUNDS, timeoutS, dir);
  console.log(`  node -e 0 without NODE_EXTRA_CA_CERTS (${process.env.NODE_EXTRA_CA_CERTS}, read at every Node start-up): ${both(m)}`);
}

function main(): void {
  const { src, required } = sourceFromArgs(process.argv.slice(2));
  const dir = mkdtempSync(join(tmpdir(), "lockstep-porcupine-"));
  // Ctrl-C reaches the measured command too (one process group): time() sees it end by
  // SIGINT and throws, so the finally below removes the histories and the build.
  process.once("SIGINT", () => undefined);
  try {
    const porcupine = buildPorcupine(dir, src);
    if (typeof porcupine !== "string") {
      console.log(`checker-vs-porcupine: ${porcupine.missing}${required ? "" : " (skipped)"}`);
      if (required) process.exitCode = 2;
      return;
    }
    const timeoutS = Number(process.env.PORCUPINE_TIMEOUT_S ?? 60);
    console.log(`load average before: ${loadAverage()}`);
    startUpFloor(porcupine, dir, timeoutS);
    console.log(`medians of ${ROUNDS} alternate rounds (${ROUNDS_100K} at 100k ops), spread min-max; CPU is user + system, from GNU time`);
    console.log("ops     history        lockstep  porcupine          lockstep wall ms   porcupine wall ms  ratio  lockstep CPU ms    porcupine CPU ms   ratio");
    const wrong: string[] = [];
    for (const ops of [1_000, 10_000, 100_000]) for (const h of HISTORIES) wrong.push(...compare(porcupine, dir, ops, h, timeoutS));
    const noCa = withoutExtraCaCerts();
    if (noCa !== undefined) {
      console.log("valid/no-CA: the same valid history, lockstep started without NODE_EXTRA_CA_CERTS (set here; see the start-up floor)");
      for (const ops of [1_000, 10_000]) wrong.push(...compare(porcupine, dir, ops, { ...HISTORIES[0]!, name: "valid/no-CA", env: noCa }, timeoutS));
    }
    console.log(`load average after: ${loadAverage()}`);
    if (wrong.length > 0) {
      console.error(`verdicts differ:\n  ${wrong.join("\n  ")}`);
      process.exitCode = 1;
    } else console.log("verdicts: lockstep right on every history; Porcupine equal wherever it decided");
  } catch (e) {
    if (!(e instanceof Error) || !e.message.startsWith("interrupted")) throw e;
    console.error(`checker-vs-porcupine: ${e.message}`);
    process.exitCode = 130;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main();
