/**
 * Start-up: the wall time of whole fresh processes, `lockstep --help`, `lockstep --version` and
 * `lockstep check` on a tiny history, beside a bare `node -e 0`, measured in one run: the legs
 * alternate round by round (machine load falls on all alike) and each prints its median wall ms,
 * its ratio to `node -e 0`, and its mean CPU ms (user + system, from /proc: a loaded machine
 * stretches wall time more than CPU time). `check` from the unbundled dist/cli/main.js (what
 * bin/lockstep.js ran before cli/bundle.ts) is the baseline beside it. Output goes to /dev/null,
 * so --help and --version are the canned text (bin/load-bundle.js); `lockstep help` prints the
 * same help through commander from the bundle, what a terminal gets. Nothing passes or fails.
 *
 * NODE_EXTRA_CA_CERTS is removed from the environment: Node 20 reads and parses that
 * certificate file in every process before any JavaScript runs (node -e 0 too; ~30-40 ms for
 * a system CA bundle of ~140 certificates), which adds the same milliseconds to every leg and
 * so hides start-up ratios. Where it is set, the last lines repeat node -e 0 and check with it.
 *
 * Run: npm run bench (all benches) or node dist/bench/startup.js after npm run build
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { packageRoot } from "../sim/paths.js";
import { reportTarget } from "./targets.js";

const ROUNDS = 21;
// Linux's USER_HZ: /proc reports CPU time in these ticks.
const TICKS_PER_S = 100;

/** CPU ms used by this process's waited-for children so far (Linux /proc), or undefined elsewhere. */
function childrenCpuMs(): number | undefined {
  try {
    const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1]!.split(" ");
    // After "pid (comm) " the fields start at the third: cutime is the 16th, cstime the 17th.
    return ((Number(fields[13]) + Number(fields[14])) * 1000) / TICKS_PER_S;
  } catch {
    return undefined;
  }
}

interface Leg {
  wallMs: number[];
  cpuMs: number;
}

function runOnce(args: string[], env: NodeJS.ProcessEnv, leg: Leg): void {
  const cpuBefore = childrenCpuMs();
  const start = performance.now();
  const r = spawnSync(process.execPath, args, { stdio: "ignore", cwd: packageRoot(), env });
  leg.wallMs.push(performance.now() - start);
  leg.cpuMs += (childrenCpuMs() ?? NaN) - (cpuBefore ?? NaN);
  // check exits 3 on this history (it has an overlap); anything else means the leg measured a failure.
  if (r.status !== 0 && r.status !== 3) throw new Error(`bench: ${args.join(" ")} exited ${r.status}`);
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const load = (): string =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");

function measure(legs: Record<string, string[]>, env: NodeJS.ProcessEnv): Record<string, { wallMs: number; cpuMs: number }> {
  const acc: Record<string, Leg> = Object.fromEntries(Object.keys(legs).map((k) => [k, { wallMs: [], cpuMs: 0 }]));
  for (let round = 0; round < ROUNDS; round++) for (const [name, args] of Object.entries(legs)) runOnce(args, env, acc[name]!);
  return Object.fromEntries(Object.entries(acc).map(([k, l]) => [k, { wallMs: median(l.wallMs), cpuMs: l.cpuMs / ROUNDS }]));
}

function print(t: Record<string, { wallMs: number; cpuMs: number }>): void {
  const base = t["node -e 0"]!;
  for (const [name, { wallMs, cpuMs }] of Object.entries(t))
    console.log(
      `${name.padEnd(24)} ${wallMs.toFixed(1).padStart(7)} ms   ${(wallMs / base.wallMs).toFixed(2)}x node -e 0   cpu ${Number.isNaN(cpuMs) ? "n/a" : `${cpuMs.toFixed(1)} ms (${(cpuMs / base.cpuMs).toFixed(2)}x)`}`,
    );
}

export async function main(): Promise<void> {
  const root = packageRoot();
  const bin = join(root, "bin", "lockstep.js");
  // The unbundled CLI, run as bin/lockstep.js did before the bundle: the baseline.
  const unbundled = [
    "--input-type=module",
    "-e",
    `const { main } = await import(${JSON.stringify(pathToFileURL(join(root, "dist", "cli", "main.js")).href)}); process.exitCode = await main(process.argv.slice(1));`,
    "--",
  ];
  const history = join(root, "test", "fixtures", "histories", "lease-lapse-ok.jsonl");
  const check = ["check", history, "--ttl-ms", "100"];
  const legs: Record<string, string[]> = {
    "node -e 0": ["-e", "0"],
    "lockstep --help": [bin, "--help"],
    "lockstep --version": [bin, "--version"],
    "lockstep help (bundle)": [bin, "help"],
    "lockstep check (tiny)": [bin, ...check],
    "unbundled check (tiny)": [...unbundled, ...check],
  };
  const env = { ...process.env };
  delete env.NODE_EXTRA_CA_CERTS;
  const loadBefore = load();
  const t = measure(legs, env);
  console.log(
    `== start-up: median wall ms of ${ROUNDS} fresh processes each, alternating, NODE_EXTRA_CA_CERTS unset; load average ${loadBefore} before, ${load()} after (2+ on 2 cores: figures unreliable) ==`,
  );
  print(t);
  const ratio = (name: string): string => (t[name]!.wallMs / t["node -e 0"]!.wallMs).toFixed(2);
  reportTarget(
    `: start-up <= 1.3x node -e 0: --help ${ratio("lockstep --help")}x, --version ${ratio("lockstep --version")}x, check ${ratio("lockstep check (tiny)")}x (unbundled ${ratio("unbundled check (tiny)")}x)`,
  );
  if (process.env.NODE_EXTRA_CA_CERTS !== undefined) {
    console.log(`with NODE_EXTRA_CA_CERTS=${process.env.NODE_EXTRA_CA_CERTS} as set here (every process reads it first, so ratios shrink):`);
    print(measure({ "node -e 0": legs["node -e 0"]!, "lockstep check (tiny)": legs["lockstep check (tiny)"]! }, process.env));
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((e: unknown) => {
    console.error(e);
    process.exitCode = 1;
  });
}
