/**
 * Canned answers: what `lockstep --help`, `-h`, `--version` and `-V` print, recorded at build
 * time (cli/bundle.ts) by running the real CLI, so bin/load-bundle.js can print them without
 * loading commander or anything else. Recorded with stdout and stderr piped: commander wraps
 * help to a terminal's width, so the loader uses them only when stdout is not a terminal
 * (and no FORCE_COLOR/CLICOLOR_FORCE asks for styling); a terminal gets the CLI itself.
 * test/cli-bundle.test.ts holds them byte-identical to what commander prints.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

export const CANNED_ARGVS: readonly (readonly string[])[] = [["--help"], ["-h"], ["--version"], ["-V"]];

export interface CannedAnswer {
  stdout: string;
  stderr: string;
  status: number;
}

/** The key an argv is canned under (bin/load-bundle.js builds the same). */
export const cannedKey = (argv: readonly string[]): string => argv.join("\u0000");

/** Runs dist/cli/main.js (unbundled, piped) once per canned argv and keeps what it printed. */
export function recordCanned(root: string): Record<string, CannedAnswer> {
  const entry = pathToFileURL(join(root, "dist", "cli", "main.js")).href;
  const env = { ...process.env };
  delete env.FORCE_COLOR;
  delete env.CLICOLOR_FORCE;
  const out: Record<string, CannedAnswer> = {};
  for (const argv of CANNED_ARGVS) {
    const r = spawnSync(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `const { main } = await import(${JSON.stringify(entry)}); process.exitCode = await main(process.argv.slice(1));`,
        "--",
        ...argv,
      ],
      { cwd: root, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: 60_000 },
    );
    if (r.status === null) throw new Error(`recording \`lockstep ${argv.join(" ")}\` failed: ${r.error?.message ?? r.signal}`);
    out[cannedKey(argv)] = { stdout: r.stdout, stderr: r.stderr, status: r.status };
  }
  return out;
}
