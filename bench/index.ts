/**
 * `npm run bench`: every bench module in bench/, one after another, each in a fresh node
 * process with this process's flags (--expose-gc). A module run after others in one process
 * measured code whose call sites had already seen every other module's designs: raft-zk
 * read 399 sim s / wall s there against ~700 on its own, as a user's `lockstep run` or
 * sweep of one scenario has it. Figures are printed, never judged (speed is not a test).
 * A missing module is skipped, so one absent does not stop the rest. The target lines the
 * modules print (bench/targets.ts) are printed again together at the end.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { TARGET_PREFIX } from "./targets.js";

const MODULES = [
  "kernel",
  "sweep",
  "designs",
  "libraries",
  "audit",
  "checker",
  "checker-vs-porcupine",
  "raft",
  "raft-zk",
  "scale",
  "duration",
  "report-page",
  "startup",
  "memory",
  "allocation",
  "playground",
  "soak",
];

/** Runs one module's file as its own process, its output passed through line by line; the exit code, and its target lines. */
async function runModule(file: string): Promise<{ code: number; targets: string[] }> {
  const child = spawn(process.execPath, [...process.execArgv, file], { stdio: ["ignore", "pipe", "inherit"] });
  const targets: string[] = [];
  const lines = createInterface({ input: child.stdout });
  lines.on("line", (line) => {
    console.log(line);
    if (line.startsWith(TARGET_PREFIX)) targets.push(line);
  });
  const code = await new Promise<number>((resolve) => child.on("close", (c, signal) => resolve(c ?? (signal ? 128 : 1))));
  return { code, targets };
}

async function runAll(): Promise<void> {
  const ext = import.meta.url.endsWith(".ts") ? "ts" : "js";
  const failed: string[] = [];
  const targets: string[] = [];
  for (const name of MODULES) {
    const file = fileURLToPath(new URL(`./${name}.${ext}`, import.meta.url));
    if (!existsSync(file)) {
      console.log(`(bench/${name}: not there, skipped)\n`);
      continue;
    }
    const started = performance.now();
    const r = await runModule(file);
    targets.push(...r.targets);
    if (r.code !== 0) {
      failed.push(name);
      console.error(`bench/${name} failed: exit ${r.code}`);
    }
    console.log(`(bench/${name}: ${((performance.now() - started) / 1000).toFixed(1)} s, its own process)\n`);
  }
  console.log("== targets, as measured in this run ==");
  for (const line of targets) console.log(line);
  if (failed.length > 0) {
    console.error(`bench modules that failed: ${failed.join(", ")}`);
    process.exitCode = 1;
  }
}

await runAll();
