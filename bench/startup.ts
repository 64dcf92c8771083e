/**
 * Start-up: the wall time of whole fresh processes, `lockstep --help` and `lockstep check`
 * on a tiny history, beside a bare `node -e 0` measured in the same run (interleaved, so
 * machine load falls on all three alike). Printed as ratios; nothing passes or fails.
 *
 * Run: npm run bench (all benches) or node dist/bench/startup.js after npm run build
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { packageRoot } from "../sim/paths.js";

const ROUNDS = 15;

function wallMsOf(args: string[]): number {
  const start = performance.now();
  spawnSync(process.execPath, args, { stdio: "ignore", cwd: packageRoot() });
  return performance.now() - start;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function main(): Promise<void> {
  const root = packageRoot();
  const bin = join(root, "bin", "lockstep.js");
  const history = join(root, "test", "fixtures", "histories", "lease-lapse-ok.jsonl");
  const legs: Record<string, string[]> = {
    "node -e 0": ["-e", "0"],
    "lockstep --help": [bin, "--help"],
    "lockstep check (tiny)": [bin, "check", history, "--ttl-ms", "100"],
  };
  const times: Record<string, number[]> = Object.fromEntries(Object.keys(legs).map((k) => [k, []]));
  for (let round = 0; round < ROUNDS; round++) for (const [name, args] of Object.entries(legs)) times[name]!.push(wallMsOf(args));
  const base = median(times["node -e 0"]!);
  console.log(`== start-up: median wall ms of ${ROUNDS} fresh processes each, interleaved ==`);
  for (const [name, xs] of Object.entries(times)) {
    console.log(`${name.padEnd(24)} ${median(xs).toFixed(1).padStart(7)} ms   ${(median(xs) / base).toFixed(2)}x node -e 0`);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((e: unknown) => {
    console.error(e);
    process.exitCode = 1;
  });
}
