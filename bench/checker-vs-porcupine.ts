/**
 * `lockstep check` beside Porcupine, both as processes (start-up included), on register
 * histories of 1k, 10k and 100k ops (5 clients, 5% writes of unknown outcome; valid, and
 * with one stale read planted, which Porcupine must exhaust). Porcupine is not in this
 * repository: set PORCUPINE_SRC to a copy of its source (a clone of
 * anishathalye/porcupine); bench/porcupine/main.go is built against it with Debian's Go
 * (golang-go) in a temporary folder, offline (GOPROXY=off). Without it, or without `go`,
 * the bench says so and skips. Prints, per history: both verdicts (which must agree), the
 * median wall time of each over the rounds with its spread (min-max), their ratio, and
 * the load average before and after. Run after `npm run build`:
 *
 *   PORCUPINE_SRC=../porcupine node dist/bench/checker-vs-porcupine.js
 *
 * A history Porcupine does not decide in PORCUPINE_TIMEOUT_S (default 120 s) is reported
 * as such, with lockstep's verdict and time.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

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

function buildPorcupine(dir: string): string | undefined {
  const src = process.env.PORCUPINE_SRC;
  if (!src || !existsSync(join(src, "go.mod"))) return (console.log("PORCUPINE_SRC is not a Porcupine source folder: skipped"), undefined);
  if (spawnSync("go", ["version"]).status !== 0) return (console.log("no `go` (apt-get install golang-go): skipped"), undefined);
  writeFileSync(
    join(dir, "go.mod"),
    `module lockstepbench\n\ngo 1.19\n\nrequire github.com/anishathalye/porcupine v0.0.0\n\nreplace github.com/anishathalye/porcupine => ${src}\n`,
  );
  execFileSync("cp", [join(ROOT, "bench", "porcupine", "main.go"), dir]);
  const env = { ...process.env, GOPROXY: "off", GOFLAGS: "-mod=mod", GOCACHE: join(dir, "cache") };
  execFileSync("go", ["build", "-o", "porcupine-check", "."], { cwd: dir, env, stdio: "inherit" });
  return join(dir, "porcupine-check");
}

interface Timed {
  verdict: string;
  ms: number[];
}

function time(cmd: string, args: string[], verdictOf: (status: number | null, out: string) => string, rounds: number, timeoutS: number): Timed {
  const ms: number[] = [];
  let verdict = "";
  for (let i = 0; i < rounds; i++) {
    const t0 = process.hrtime.bigint();
    const r = spawnSync(cmd, args, { encoding: "utf8", timeout: timeoutS * 1000, maxBuffer: 1 << 26 });
    ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
    verdict = r.error || r.signal ? `undecided in ${timeoutS} s` : verdictOf(r.status, r.stdout);
    if (verdict.startsWith("undecided")) break;
  }
  return { verdict, ms };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const spread = (xs: number[]): string => `${Math.round(Math.min(...xs))}-${Math.round(Math.max(...xs))}`;

function main(): void {
  const dir = mkdtempSync(join(tmpdir(), "lockstep-porcupine-"));
  try {
    const porcupine = buildPorcupine(dir);
    if (!porcupine) return;
    const timeoutS = Number(process.env.PORCUPINE_TIMEOUT_S ?? 120);
    console.log(
      `load average before: ${loadavg()
        .map((x) => x.toFixed(1))
        .join(" ")}`,
    );
    console.log("ops     history  lockstep verdict  porcupine verdict  lockstep ms (spread)  porcupine ms (spread)  ratio");
    for (const ops of [1_000, 10_000, 100_000])
      for (const stale of [false, true]) {
        const file = join(dir, `register-${ops}-${stale ? "stale" : "ok"}.jsonl`);
        writeFileSync(file, registerHistory(ops, 5, 0.05, stale, ops));
        const rounds = ops >= 100_000 ? 3 : 7;
        const l = time(
          process.execPath,
          [join(ROOT, "bin", "lockstep.js"), "check", file, "--model", "register"],
          (st) => (st === 0 ? "true" : st === 3 ? "false" : `exit ${st}`),
          rounds,
          timeoutS,
        );
        const p = time(porcupine, [file], (_st, out) => out.trim(), rounds, timeoutS);
        const ratio = p.verdict.startsWith("undecided") ? "-" : (median(l.ms) / median(p.ms)).toFixed(2);
        console.log(
          `${String(ops).padEnd(7)} ${(stale ? "stale" : "valid").padEnd(8)} ${l.verdict.padEnd(17)} ${p.verdict.padEnd(18)} ${`${Math.round(median(l.ms))} (${spread(l.ms)})`.padEnd(21)} ${`${Math.round(median(p.ms))} (${spread(p.ms)})`.padEnd(22)} ${ratio}`,
        );
      }
    console.log(
      `load average after: ${loadavg()
        .map((x) => x.toFixed(1))
        .join(" ")}`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main();
