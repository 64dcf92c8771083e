/**
 * The escape corpus: small modules that each try one way for library code to read the
 * host's world (its clock, zone, locale, files, process, install folder, or the host realm
 * itself through a constructor chain or a value host code hands it), or to hang. Each
 * must either give byte-identical histories across two runs and across two installs —
 * time zone, locale, the adapter's folder and lockstep's own folder all different — or
 * stop the run naming the call. The corpus runs in child processes (corpus-runner.ts) so
 * the host's TZ and LANG really differ; the second runs lockstep from a symlink of
 * another name (--preserve-symlinks keeps that path in every host frame).
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { packageRoot } from "../../sim/paths.js";
import type { CorpusLine } from "./corpus-runner.js";
import { hangBoundMs } from "../helpers/hang-bound.js";

const ROOT = packageRoot();
const TSX = join(ROOT, "node_modules", ".bin", "tsx");
const temp = mkdtempSync(join(tmpdir(), "lockstep-corpus-"));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

function runIn(env: Record<string, string>, install: string, aliasOfRoot?: string): CorpusLine[] {
  const root = aliasOfRoot ?? ROOT;
  const runner = join(root, "test", "sandbox", "corpus-runner.ts");
  const [cmd, args] = aliasOfRoot
    ? [process.execPath, ["--preserve-symlinks", "--preserve-symlinks-main", "--import", "tsx", runner, install]]
    : [TSX, [runner, install]];
  const out = execFileSync(cmd, args, { cwd: root, env: { ...process.env, ...env }, encoding: "utf8", maxBuffer: 1 << 24 });
  return out
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as CorpusLine);
}

describe("escape corpus", () => {
  it(
    "every module is byte-identical across runs, zones, locales and install folders, or stops naming the call",
    () => {
      const a = runIn({ TZ: "America/Los_Angeles", LANG: "de_DE.UTF-8", LC_ALL: "de_DE.UTF-8" }, join(temp, "install-a"));
      const alias = join(temp, "lockstep-elsewhere");
      symlinkSync(ROOT, alias);
      const b = runIn({ TZ: "Asia/Kolkata", LANG: "ja_JP.UTF-8", LC_ALL: "ja_JP.UTF-8" }, join(temp, "another", "folder-b"), alias);
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
              expect(["SimulationEscapeError", "LibraryBoundError", "LibraryHangError"]).toContain(r.error);
            }
          }
          stopped++;
          rows.push(`  stops   ${la.module.padEnd(28)} ${call}`);
        }
      });
      console.log(
        `escape corpus: ${a.length} modules, ${same} byte-identical over 2 runs x 2 installs (zone, locale, folders), ${stopped} stopped naming the call\n${rows.join("\n")}`,
      );
      expect(same + stopped).toBe(a.length);
    },
    hangBoundMs(600_000),
  );
});
