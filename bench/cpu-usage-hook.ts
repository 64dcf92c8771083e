/**
 * Preloaded into a measured process (`node --import <this> ...`, bench/sweep.ts): at exit it
 * writes the process's CPU time, every thread's together, to the file named by
 * LOCKSTEP_BENCH_CPU_FILE. The parent cannot read a child's CPU time from Node once it
 * has exited; the child can. Not a bench itself (bench/index.ts does not list it).
 */
import { writeFileSync } from "node:fs";

const file = process.env.LOCKSTEP_BENCH_CPU_FILE;
if (file) {
  process.on("exit", () => {
    const { user, system } = process.cpuUsage();
    writeFileSync(file, JSON.stringify({ userUs: user, systemUs: system }));
  });
}
