import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync, type Dirent } from "node:fs";
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
const unbundled = [
  "--input-type=module",
  "-e",
  `const { main } = await import(${JSON.stringify(new URL("../dist/cli/main.js", import.meta.url).href)}); process.exitCode = await main(process.argv.slice(1));`,
];
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
type Loader = { routeOf(argv: string[]): "canned" | "bundle" | "sweep-bundle" | "unbundled" };
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
    [["sweep", "naive-gc-pause"], "sweep-bundle"],
    [["help", "sweep"], "unbundled"],
    [["real", "redis-setnx-basic"], "unbundled"],
  ])("%j goes to the %s CLI", (argv, route) => {
    expect(loader.routeOf(argv)).toBe(route);
  });

  it("every command but check is a stub in the bundle (real mode's child finds its files from dist/); sweep has a bundle pair of its own", () => {
    const m = JSON.parse(readFileSync(manifestPath, "utf8")) as {
      bundledCommands: string[];
      sweep: { bundle: string; cache: string; worker: string; workerCache: string };
    };
    expect(m.bundledCommands).toEqual(["check"]);
    expect(readFileSync(join(root, "dist", "cli", "bundle", "cli.js"), "utf8")).toContain("is not in the start-up bundle");
    for (const f of [m.sweep.bundle, m.sweep.cache, m.sweep.worker, m.sweep.workerCache]) expect(existsSync(join(root, "dist", "cli", "bundle", f))).toBe(true);
  });
});

// The sweep from its bundle pair (main thread sweep.js, worker threads sweep-worker.js) against dist/cli/main.js.
// The unbundled run is a file, not `node -e`: a worker thread inherits the parent's execArgv, and `--input-type` refuses a file.
describe.skipIf(!existsSync(manifestPath))("the bundled sweep", () => {
  const tmp = mkdtempSync(join(tmpdir(), "lockstep-bundle-sweep-"));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));
  const unbundledMain = join(tmp, "unbundled.mjs");
  writeFileSync(
    unbundledMain,
    `const { main } = await import(${JSON.stringify(new URL("../dist/cli/main.js", import.meta.url).href)}); process.exitCode = await main(process.argv.slice(2));`,
  );
  const sweep = (entry: string, cwd: string, out: string, extra: string[] = []) =>
    spawnSync(
      process.execPath,
      [entry, "sweep", join(root, "scenarios", "naive-gc-pause.json"), "--seeds", "1..24", "--workers", "2", "--out", out, "--json", ...extra],
      { cwd, encoding: "utf8" },
    );
  // summary.json's execution times, and the --out it names, are all that may differ.
  const untimed = (json: string, out: string): unknown => {
    const s = JSON.parse(json.replaceAll(out, "OUT")) as { execution: Record<string, unknown> };
    const { wallMs: _w, ...rest } = s.execution;
    return { ...s, execution: rest };
  };
  const filesUnder = (dir: string): string[] =>
    (readdirSync(dir, { recursive: true, withFileTypes: true }) as Dirent[])
      .filter((d) => d.isFile())
      .map((d) => join(d.parentPath, d.name).slice(dir.length))
      .sort();

  it.each([
    ["sweep --help", ["sweep", "--help"], 0],
    ["an unknown scenario", ["sweep", "no-such-scenario", "--seeds", "1..3"], 2],
    ["a backwards seed range", ["sweep", "naive-gc-pause", "--seeds", "3..1"], 2],
  ])("%s: the same output and exit code as unbundled", (_what, args, code) => {
    const run = (entry: string) => spawnSync(process.execPath, [entry, ...args], { cwd: tmp, encoding: "utf8" });
    const [a, b] = [run(join(root, "bin", "lockstep.js")), run(unbundledMain)];
    expect(a.status).toBe(code);
    expect([a.status, a.stdout, a.stderr]).toEqual([b.status, b.stdout, b.stderr]);
  });

  it("prints and writes what the unbundled sweep does: seed order, verdicts, summary.json and every failing seed's files", () => {
    const a = sweep(join(root, "bin", "lockstep.js"), root, join(tmp, "a"));
    const b = sweep(unbundledMain, root, join(tmp, "b"));
    expect(a.status).toBe(3);
    const untimedTally = (t: string): string => t.replace(/ in [\d.]+ s \(\d+ seeds\/s\)/, " in T");
    expect([b.status, untimedTally(b.stderr)]).toEqual([a.status, untimedTally(a.stderr)]);
    expect(untimedTally(a.stderr)).toContain("24/24 seeds in T");
    expect(untimed(a.stdout, join(tmp, "a"))).toEqual(untimed(b.stdout, join(tmp, "b")));
    const files = filesUnder(join(tmp, "a"));
    expect(files).toEqual(filesUnder(join(tmp, "b")));
    expect(files.filter((f) => f.endsWith("report.html")).length).toBeGreaterThan(0);
    for (const f of files) {
      const [x, y] = [readFileSync(join(tmp, "a", f), "utf8"), readFileSync(join(tmp, "b", f), "utf8")];
      if (f.endsWith("summary.json")) expect(untimed(x, join(tmp, "a"))).toEqual(untimed(y, join(tmp, "b")));
      else expect(x, f).toBe(y);
    }
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
    const file = join(dir, "dist", "terminal", "printable.js");
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

  const sweepIn = (dir: string): { status: number | null; stderr: string; route: string; runs: number } => {
    const args = [
      "sweep",
      join(root, "scenarios", "naive-gc-pause.json"),
      "--seeds",
      "1..12",
      "--workers",
      "2",
      "--reports",
      "0",
      "--out",
      join(dir, "out"),
      "--json",
    ];
    const r = spawnSync(process.execPath, [join(dir, "bin", "lockstep.js"), ...args], { cwd: dir, encoding: "utf8" });
    const route = (requireCjs(join(dir, "bin", "load-bundle.js")) as Loader).routeOf(args);
    return { status: r.status, stderr: r.stderr, route, runs: r.status === 3 ? (JSON.parse(r.stdout) as { runs: number }).runs : -1 };
  };

  it("a sweep's worker threads run the worker's bundle, not dist/harness/sweep/worker.js", () => {
    const dir = copyPackage();
    const marker = join(dir, "worker-ran-the-bundle");
    const file = join(dir, "dist", "cli", "bundle", "sweep-worker.js");
    // Written later than every input, so the bundle stays fresh; its code cache no longer matches (only compiling).
    writeFileSync(file, `require("node:fs").writeFileSync(${JSON.stringify(marker)}, "");\n` + readFileSync(file, "latin1"), "latin1");
    const r = sweepIn(dir);
    expect([r.route, r.status, r.runs]).toEqual(["sweep-bundle", 3, 12]);
    expect(existsSync(marker)).toBe(true);
  });

  it("a stale sweep bundle, or a spoilt worker bundle, falls back to dist/ and gives the same sweep", () => {
    const stale = copyPackage();
    const file = join(stale, "dist", "harness", "sweep", "pool.js");
    writeFileSync(file, readFileSync(file, "utf8") + "\n");
    const spoilt = copyPackage();
    writeFileSync(join(spoilt, "dist", "cli", "bundle", "sweep-worker.js"), "this is not JavaScript");
    expect(sweepIn(stale)).toMatchObject({ route: "unbundled", status: 3, runs: 12 });
    // pool.js is none of check's inputs: check still runs from its bundle.
    expect(check(stale).route).toBe("bundle");
    expect(sweepIn(spoilt)).toMatchObject({ route: "sweep-bundle", status: 3, runs: 12 });
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
