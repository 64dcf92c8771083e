/**
 * Start-up: the wall time of whole fresh processes, `lockstep --help` and `lockstep check`
 * on a tiny history, beside a bare `node -e 0` measured in the same run (interleaved, so
 * machine load falls on all alike). The baseline beside `check` is the same command run
 * from the unbundled dist/cli/main.js (what bin/lockstep.js ran before cli/bundle.ts);
 * `--help` runs unbundled as before. Printed
 * as ratios with the load average; nothing passes or fails. The environment is inherited:
 * NODE_EXTRA_CA_CERTS, where set, makes every Node process (`node -e 0` too) read a
 * certificate bundle at start, so the last lines repeat the three without it.
 *
 * Run: npm run bench (all benches) or node dist/bench/startup.js after npm run build
 */
import { spawnSync } from "node:child_process";
import { loadavg } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { packageRoot } from "../sim/paths.js";

const ROUNDS = 15;

function wallMsOf(args: string[], env: NodeJS.ProcessEnv): number {
  const start = performance.now();
  const r = spawnSync(process.execPath, args, { stdio: "ignore", cwd: packageRoot(), env });
  // check exits 3 on this history (it has an overlap); anything else means the leg measured a failure.
  if (r.status !== 0 && r.status !== 3) throw new Error(`bench: ${args.join(" ")} exited ${r.status}`);
  return performance.now() - start;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const load = (): string => loadavg().map((l) => l.toFixed(2)).join(" ");

function measure(legs: Record<string, string[]>, env: NodeJS.ProcessEnv): Record<string, number> {
  const times: Record<string, number[]> = Object.fromEntries(Object.keys(legs).map((k) => [k, []]));
  for (let round = 0; round < ROUNDS; round++) for (const [name, args] of Object.entries(legs)) times[name]!.push(wallMsOf(args, env));
  return Object.fromEntries(Object.entries(times).map(([k, xs]) => [k, median(xs)]));
}

export async function main(): Promise<void> {
  const root = packageRoot();
  const bin = join(root, "bin", "lockstep.js");
  // The unbundled CLI, run as bin/lockstep.js did before the bundle: the baseline.
  const unbundled = ["--input-type=module", "-e", `const { main } = await import(${JSON.stringify(pathToFileURL(join(root, "dist", "cli", "main.js")).href)}); process.exitCode = await main(process.argv.slice(1));`];
  const history = join(root, "test", "fixtures", "histories", "lease-lapse-ok.jsonl");
  const check = ["check", history, "--ttl-ms", "100"];
  const legs: Record<string, string[]> = {
    "node -e 0": ["-e", "0"],
    "lockstep --help": [bin, "--help"],
    "lockstep check (tiny)": [bin, ...check],
    "unbundled check (tiny)": [...unbundled, ...check],
  };
  const loadBefore = load();
  const t = measure(legs, process.env);
  const base = t["node -e 0"]!;
  console.log(`== start-up: median wall ms of ${ROUNDS} fresh processes each, interleaved; load average ${loadBefore} before, ${load()} after (2+ on 2 cores: figures unreliable) ==`);
  const row = (name: string, ms: number, b: number): string => `${name.padEnd(24)} ${ms.toFixed(1).padStart(7)} ms   ${(ms / b).toFixed(2)}x node -e 0`;
  for (const [name, ms] of Object.entries(t)) console.log(row(name, ms, base));
  console.log(`target: --help ${(t["lockstep --help"]! / base).toFixed(2)}x (unbundled, as before), check ${(t["lockstep check (tiny)"]! / base).toFixed(2)}x (baseline ${(t["unbundled check (tiny)"]! / base).toFixed(2)}x); target <= 1.3x`);
  if (process.env.NODE_EXTRA_CA_CERTS !== undefined) {
    const env = { ...process.env };
    delete env.NODE_EXTRA_CA_CERTS;
    const c = measure({ "node -e 0": legs["node -e 0"]!, "lockstep --help": legs["lockstep --help"]!, "lockstep check (tiny)": legs["lockstep check (tiny)"]! }, env);
    console.log("without NODE_EXTRA_CA_CERTS (node itself starts faster, so the same milliseconds are a larger ratio):");
    for (const [name, ms] of Object.entries(c)) console.log(row(name, ms, c["node -e 0"]!));
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((e: unknown) => {
    console.error(e);
    process.exitCode = 1;
  });
}
