/**
 * Knossos' own known-answer histories, judged as Knossos' tests judge them
 * (knossos core_test.clj `test-examples`: cas-register starting at 0, multi-register at
 * {:x 0 :y 0}; data/<model>/good must be valid, data/<model>/bad invalid) and the mutex
 * histories, which Knossos' tests keep as bad examples. The histories are Knossos' (EPL),
 * not ours, so they are not in this repository: pass the folder of a copy of Knossos'
 * `data/` (a clone of jepsen-io/knossos) as the argument or KNOSSOS_DATA.
 *
 *   npm run build && node dist/bench/knossos-data.js ../knossos/data
 *
 * Prints one line per folder (agreed / disagreed / undecided) and each disagreement.
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { checkHistoryFile, exitCodeForVerdicts } from "../cli/commands/check.js";

/** The model and initial value each of Knossos' data folders is checked with in its tests. */
const FOLDERS: ReadonlyArray<{ dir: string; model: string; initialValue?: string }> = [
  { dir: "cas-register", model: "cas-register", initialValue: "0" },
  { dir: "multi-register", model: "multi-register", initialValue: "{:x 0 :y 0}" },
  { dir: "mutex", model: "mutex" },
];

async function judgeFolder(root: string, f: (typeof FOLDERS)[number]): Promise<void> {
  for (const expected of ["good", "bad"] as const) {
    const dir = join(root, f.dir, expected);
    if (!existsSync(dir)) continue;
    const files = readdirSync(dir)
      .filter((n) => n.endsWith(".edn"))
      .sort();
    let agreed = 0;
    let undecided = 0;
    const disagreed: string[] = [];
    for (const name of files) {
      const c = await checkHistoryFile(join(dir, name), { model: f.model, ...(f.initialValue ? { initialValue: f.initialValue } : {}) });
      const code = exitCodeForVerdicts(c.verdicts);
      const lin = c.verdicts.results.find((r) => r.checker === "linearizability");
      if (lin?.valid === "unknown") undecided++;
      else if ((lin?.valid === true) === (expected === "good")) agreed++;
      else disagreed.push(`${name}: exit ${code}, ${lin?.summary ?? "no verdict"}`);
    }
    console.log(
      `${f.dir}/${expected} (${f.model}${f.initialValue ? `, initial ${f.initialValue}` : ""}): ${files.length} histories, ${agreed} agreed, ${disagreed.length} disagreed, ${undecided} undecided`,
    );
    for (const d of disagreed) console.log(`  disagreed: ${d}`);
  }
}

async function main(): Promise<void> {
  const root = process.argv[2] ?? process.env.KNOSSOS_DATA;
  if (root === undefined || !existsSync(root)) {
    console.log("knossos-data: pass the path of Knossos' data/ folder (a clone of jepsen-io/knossos), or set KNOSSOS_DATA; skipped");
    return;
  }
  for (const f of FOLDERS) await judgeFolder(root, f);
}

await main();
