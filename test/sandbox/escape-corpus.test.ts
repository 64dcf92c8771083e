/**
 * The escape corpus: small modules that each try one way for library code to read the
 * host's world (its clock, zone, locale, files, process, or the host realm itself through
 * a constructor chain). Each must either give byte-identical histories across two runs
 * and across two time zones/locales (two child processes), or stop the run naming the
 * call. The corpus runs in child processes (corpus-runner.ts) so the host's TZ and LANG
 * really differ.
 */
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { CorpusLine } from "./corpus-runner.js";

const RUNNER = join(__dirname, "corpus-runner.ts");
const TSX = join(__dirname, "..", "..", "node_modules", ".bin", "tsx");

function runIn(env: Record<string, string>): CorpusLine[] {
  const out = execFileSync(TSX, [RUNNER], { env: { ...process.env, ...env }, encoding: "utf8", maxBuffer: 1 << 24 });
  return out
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as CorpusLine);
}

describe("escape corpus", () => {
  it("every module is byte-identical across runs, zones and locales, or stops naming the call", () => {
    const a = runIn({ TZ: "America/Los_Angeles", LANG: "de_DE.UTF-8", LC_ALL: "de_DE.UTF-8" });
    const b = runIn({ TZ: "Asia/Kolkata", LANG: "ja_JP.UTF-8", LC_ALL: "ja_JP.UTF-8" });
    expect(a.map((l) => l.module)).toEqual(b.map((l) => l.module));
    expect(a.length).toBeGreaterThanOrEqual(25);
    let same = 0;
    let stopped = 0;
    const rows: string[] = [];
    a.forEach((la, i) => {
      const runs = [...la.runs, ...b[i].runs];
      if (la.expect === "same") {
        for (const r of runs) expect(r, la.module).toHaveProperty("digest");
        const digests = new Set(runs.map((r) => ("digest" in r ? r.digest : "")));
        expect(digests.size, `${la.module}: ${runs.map((r) => ("sample" in r ? r.sample : "")).join("\n")}`).toBe(1);
        same++;
        rows.push(`  same    ${la.module.padEnd(28)} ${"sample" in runs[0] ? runs[0].sample.replace(/.*"reason":/, "").slice(0, 90) : ""}`);
      } else {
        const call = la.expect.stop;
        for (const r of runs) {
          expect(r, la.module).toHaveProperty("stop");
          if ("stop" in r) {
            expect(r.stop, la.module).toContain(call);
            expect(["SimulationEscapeError", "LibraryBoundError"]).toContain(r.error);
          }
        }
        stopped++;
        rows.push(`  stops   ${la.module.padEnd(28)} ${call}`);
      }
    });
    console.log(
      `escape corpus: ${a.length} modules, ${same} byte-identical over 2 runs x 2 zones/locales, ${stopped} stopped naming the call\n${rows.join("\n")}`,
    );
    expect(same + stopped).toBe(a.length);
  }, 120_000);
});
