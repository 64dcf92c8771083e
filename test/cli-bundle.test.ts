import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// bin/lockstep.js runs `check` from the esbuild bundle (cli/bundle.ts) and every other command
// from dist/cli/main.js: both must print, exit and write alike. Needs `npm run build` (npm test's pretest).
const root = fileURLToPath(new URL("..", import.meta.url));
const bundle = join(root, "dist", "cli", "bundle", "main.js");
const unbundled = ["--input-type=module", "-e", `const { main } = await import(${JSON.stringify(new URL("../dist/cli/main.js", import.meta.url).href)}); process.exitCode = await main(process.argv.slice(1));`];
const fixture = (p: string): string => join(root, "test", "fixtures", p);

function lockstep(args: string[], viaBundle: boolean): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, viaBundle ? [join(root, "bin", "lockstep.js"), ...args] : [...unbundled, ...args], { cwd: root, encoding: "utf8" });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe.skipIf(!existsSync(bundle))("the bundled check", () => {
  it.each([
    ["a JSONL history with an overlap", ["histories/lease-lapse-ok.jsonl", "--ttl-ms", "100"], 3],
    ["a valid mutex history", ["histories/mutex-ok.jsonl", "--model", "mutex"], 0],
    ["a Jepsen EDN register history (edn-data is bundled)", ["jepsen/cas-register-bad.edn"], 3],
  ])("%s: the same output and exit code as the unbundled CLI", (_what, args, code) => {
    const a = [`check`, fixture(args[0]!), ...args.slice(1), "--json"];
    const viaBin = lockstep(a, true);
    expect(viaBin.status).toBe(code);
    expect(viaBin.stdout).toBe(lockstep(a, false).stdout);
    expect(JSON.parse(viaBin.stdout).results.length).toBeGreaterThan(0);
  });

  it("bad input is one line and exit 2, as unbundled", () => {
    const r = lockstep(["check", join(root, "no-such-history.jsonl")], true);
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toBe(lockstep(["check", join(root, "no-such-history.jsonl")], false).stderr);
  });

  it("--out writes the same report.html", () => {
    const dir = mkdtempSync(join(tmpdir(), "lockstep-bundle-"));
    try {
      const args = (out: string) => ["check", fixture("histories/lease-lapse-ok.jsonl"), "--ttl-ms", "100", "--out", join(dir, out)];
      expect(lockstep(args("a"), true).status).toBe(3);
      expect(lockstep(args("b"), false).status).toBe(3);
      expect(readFileSync(join(dir, "a", "report.html"), "utf8")).toBe(readFileSync(join(dir, "b", "report.html"), "utf8"));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
