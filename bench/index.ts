/**
 * `npm run bench`: every bench module in bench/, one after another in one process.
 * Figures are printed, never judged (speed is not a test). Modules written by others
 * are loaded if they are there, so a missing one does not stop the rest. The target lines
 * the modules report (bench/targets.ts) are printed again together at the end.
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const MODULES = ["kernel", "sweep", "designs", "libraries", "checker", "raft", "raft-zk", "startup", "memory", "allocation"];

async function runAll(): Promise<void> {
  const ext = import.meta.url.endsWith(".ts") ? "ts" : "js";
  let failed = 0;
  for (const name of MODULES) {
    const url = new URL(`./${name}.${ext}`, import.meta.url);
    if (!existsSync(fileURLToPath(url))) {
      console.log(`(bench/${name}: not there, skipped)\n`);
      continue;
    }
    const started = performance.now();
    try {
      const mod = (await import(url.href)) as { main?: () => Promise<unknown> };
      if (typeof mod.main !== "function") {
        console.log(`(bench/${name}: exports no main(), skipped)\n`);
        continue;
      }
      await mod.main();
    } catch (e) {
      failed++;
      console.error(`bench/${name} failed:`, e);
    }
    console.log(`(bench/${name}: ${((performance.now() - started) / 1000).toFixed(1)} s)\n`);
  }
  // The modules are loaded by URL above; the summary reads the same module instance they reported to.
  const { reportedTargets } = (await import(new URL(`./targets.${ext}`, import.meta.url).href)) as typeof import("./targets.js");
  console.log("== issue 17 targets, as measured in this run ==");
  for (const line of reportedTargets()) console.log(line);
  if (failed > 0) process.exitCode = 1;
}

await runAll();
