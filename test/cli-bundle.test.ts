import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it, vi } from "vitest";

// bin/lockstep.js runs `check` from the esbuild bundle (cli/bundle.ts), answers --help/--version
// from canned text, and runs every other command from dist/cli/main.js: all must print, exit and
// write alike. Needs `npm run build` (npm test's pretest).
const root = fileURLToPath(new URL("..", import.meta.url));
const bundle = join(root, "dist", "cli", "bundle", "cli.js");
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

// bin/load-bundle.js decides per argv: canned text, the bundle, or dist/cli/main.js.
const requireCjs = createRequire(import.meta.url);
type Loader = { routeOf(argv: string[]): "canned" | "bundle" | "unbundled" };
const manifestPath = join(root, "dist", "cli", "bundle", "manifest.json");

describe.skipIf(!existsSync(manifestPath))("start-up routes", () => {
  const loader = requireCjs(join(root, "bin", "load-bundle.js")) as Loader;

  it.each([["--help"], ["-h"], ["--version"], ["-V"]])("`lockstep %s` prints, byte for byte, what commander prints, and exits alike", (flag) => {
    const viaBin = lockstep([flag], true);
    const viaCommander = lockstep(["--", flag], false);
    expect(viaBin.stdout).toBe(viaCommander.stdout);
    expect(viaBin.stderr).toBe(viaCommander.stderr);
    expect(viaBin.status).toBe(viaCommander.status);
    expect(viaBin.stdout.length).toBeGreaterThan(0);
    // The canned text is what was printed (a piped stdout), not the CLI run again.
    const canned = (JSON.parse(readFileSync(manifestPath, "utf8")) as { canned: Record<string, { stdout: string }> }).canned;
    expect(canned[flag]!.stdout).toBe(viaCommander.stdout);
  });

  it.each<[string[], string]>([
    [["check", "h.jsonl"], "bundle"],
    [["check", "h.jsonl", "--out", "d"], "unbundled"],
    [["check", "h.jsonl", "--out=d"], "unbundled"],
    [["help", "check"], "bundle"],
    [["help", "run"], "unbundled"],
    [["help"], "bundle"],
    [[], "bundle"],
    [["no-such-command"], "bundle"],
    [["run", "naive-gc-pause"], "unbundled"],
    [["sweep", "naive-gc-pause"], "unbundled"],
    [["real", "redis-setnx-basic"], "unbundled"],
  ])("%j goes to the %s CLI", (argv, route) => {
    expect(loader.routeOf(argv)).toBe(route);
  });

  it("every command but check is a stub in the bundle (the sweep's worker and real mode's child find their files from dist/)", () => {
    const m = JSON.parse(readFileSync(manifestPath, "utf8")) as { bundledCommands: string[] };
    expect(m.bundledCommands).toEqual(["check"]);
    expect(readFileSync(join(root, "dist", "cli", "bundle", "cli.js"), "utf8")).toContain("is not in the start-up bundle");
  });
});

// A copy of the package (bin/, dist/, package.json; node_modules linked) to spoil the bundle in.
describe.skipIf(!existsSync(manifestPath))("a stale, missing or spoilt bundle", () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });
  function copyPackage(): string {
    const dir = mkdtempSync(join(tmpdir(), "lockstep-bundle-copy-"));
    dirs.push(dir);
    for (const p of ["bin", "dist", "package.json"]) cpSync(join(root, p), join(dir, p), { recursive: true, preserveTimestamps: true });
    symlinkSync(join(root, "node_modules"), join(dir, "node_modules"));
    return dir;
  }
  const check = (dir: string): { status: number | null; stdout: string; route: string } => {
    const args = ["check", fixture("histories/lease-lapse-ok.jsonl"), "--ttl-ms", "100"];
    const r = spawnSync(process.execPath, [join(dir, "bin", "lockstep.js"), ...args], { cwd: dir, encoding: "utf8" });
    const route = (requireCjs(join(dir, "bin", "load-bundle.js")) as Loader).routeOf(args);
    return { status: r.status, stdout: r.stdout, route };
  };
  const expected = () => lockstep(["check", fixture("histories/lease-lapse-ok.jsonl"), "--ttl-ms", "100"], false).stdout;
  const edit = (file: string): void => writeFileSync(file, readFileSync(file, "utf8").replace("`lockstep check ${file}", "`EDITED check ${file}"));

  it("an untouched copy runs check from the bundle", () => {
    const r = check(copyPackage());
    expect(r.route).toBe("bundle");
    expect([r.status, r.stdout]).toEqual([3, expected()]);
  });

  it("a compiled file edited after bundling is used (the bundle is stale), not the bundle's old copy", () => {
    const dir = copyPackage();
    edit(join(dir, "dist", "cli", "commands", "check.js"));
    const r = check(dir);
    expect(r.route).toBe("unbundled");
    expect(r.status).toBe(3);
    expect(r.stdout).toBe(expected().replace("lockstep check ", "EDITED check "));
  });

  it("a file rewritten later with the same size still marks the bundle stale", () => {
    const dir = copyPackage();
    const file = join(dir, "dist", "cli", "printable.js");
    writeFileSync(file, readFileSync(file));
    const later = new Date(Date.now() + 60_000);
    utimesSync(file, later, later);
    expect(check(dir).route).toBe("unbundled");
  });

  it("without the bundle, or with a manifest that is not JSON, check runs from dist/cli/main.js", () => {
    const a = copyPackage();
    rmSync(join(a, "dist", "cli", "bundle", "cli.js"));
    const b = copyPackage();
    writeFileSync(join(b, "dist", "cli", "bundle", "manifest.json"), "{ not json");
    for (const dir of [a, b]) {
      const r = check(dir);
      expect(r.route).toBe("unbundled");
      expect([r.status, r.stdout]).toEqual([3, expected()]);
    }
  });

  it("a bundle cut short (a build interrupted while writing it) falls back to dist/cli/main.js", () => {
    const dir = copyPackage();
    const file = join(dir, "dist", "cli", "bundle", "cli.js");
    writeFileSync(file, readFileSync(file, "utf8").slice(0, 5000));
    const r = check(dir);
    expect([r.status, r.stdout]).toEqual([3, expected()]);
  });

  it("a missing or garbled code cache only means compiling: the same output", () => {
    const a = copyPackage();
    rmSync(join(a, "dist", "cli", "bundle", "cli.js.cache"));
    const b = copyPackage();
    writeFileSync(join(b, "dist", "cli", "bundle", "cli.js.cache"), Buffer.alloc(4096, 7));
    for (const dir of [a, b]) {
      const r = check(dir);
      expect(r.route).toBe("bundle");
      expect([r.status, r.stdout]).toEqual([3, expected()]);
    }
  });

  it("without dist/ at all, one line says to build", () => {
    const dir = copyPackage();
    rmSync(join(dir, "dist"), { recursive: true });
    const r = spawnSync(process.execPath, [join(dir, "bin", "lockstep.js"), "--help"], { cwd: dir, encoding: "utf8" });
    expect(r.status).toBe(1);
    expect(r.stderr).toBe("lockstep: not built yet; run `npm run build` first\n");
  });
});

describe("direct output (cli/stdio.ts)", () => {
  it("what a fresh process writes is all there even when it exits at once after writing", () => {
    const stdio = new URL("../dist/cli/stdio.js", import.meta.url).href;
    const text = "x".repeat(199_999) + "\n"; // past a pipe's 64 KiB buffer: a write that must wait for the reader
    const script = `const s = await import(${JSON.stringify(stdio)}); s.useDirectStdio(); s.writeOut(${JSON.stringify("x")}.repeat(199_999) + "\\n"); s.writeErr("done\\n"); process.exit(s.wroteToStream() ? 9 : 0);`;
    const r = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8", maxBuffer: 1 << 22 });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(text);
    expect(r.stderr).toBe("done\n");
  });

  it("in-process (tests, the API) output goes through process.stdout, where a spy sees it", async () => {
    const { writeOut, wroteToStream } = await import("../cli/stdio.js");
    let seen = "";
    const spy = vi.spyOn(process.stdout, "write").mockImplementation((s: string | Uint8Array) => ((seen += String(s)), true));
    try {
      writeOut("hello\n");
    } finally {
      spy.mockRestore();
    }
    expect(seen).toBe("hello\n");
    expect(wroteToStream()).toBe(true);
  });
});
