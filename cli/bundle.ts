/**
 * Build step (`npm run build` runs it after tsc): writes dist/cli/bundle/ for start-up.
 *
 * - cli.js: dist/cli/main.js with commander, `check` and everything `check` loads, as one
 *   CommonJS file. bin/load-bundle.js runs it through vm.Script with cli.js.cache, V8 code
 *   cache recorded here by running a tiny check and `help` once: no ES module loader (resolve, read,
 *   link per file: a check loaded about forty) and almost no compiling.
 * - manifest.json: the canned answers (cli/canned.ts: --help and --version text), the
 *   command names (so the loader knows which argv the bundle can serve), and the size of
 *   every file the bundle was made from, so a bundle older than dist/ is not used.
 *
 * - sweep.js and sweep-worker.js, the same for `sweep`: main with only the sweep command, and
 *   the sweep's worker thread (harness/sweep/worker.js), each with its code cache, recorded by a
 *   small sweep on two workers. threads.ts starts the worker through the loader
 *   (import.meta.lockstepSweepWorker), since its own file is not beside the bundle.
 *
 * The other commands are stubs in the bundle and are never run from it: bin/load-bundle.js
 * sends them (and check --out, whose report code needs d3, an ES module) to dist/cli/main.js,
 * where the code that finds files by its own location (`import.meta.url`: real mode's child)
 * runs from where tsc put it. Packages stay external except commander and edn-data (small,
 * pure JavaScript).
 */
import { build, type Metafile, type Plugin } from "esbuild";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { packageRoot } from "../sim/paths.js";
import { recordCanned } from "./canned.js";
import { COMMANDS } from "./commands/index.js";

const BUNDLED_PACKAGES = new Set(["commander", "edn-data"]);
/** Commands cli.js runs; the rest are stubs (see above). */
const BUNDLED_COMMANDS = new Set(["check"]);
/** The sweep's own pair: sweep.js is main with only `sweep` real, sweep-worker.js is the worker thread (harness/sweep/worker.ts). */
const SWEEP_COMMANDS = new Set(["sweep"]);
export const MANIFEST_FORMAT = 1;

/** A module that is in the bundle only as a name: the loader must never route to it. */
function stubs(commands: ReadonlySet<string>): Plugin {
  const stubbed = (path: string, importer: string): boolean =>
    (/[\\/]cli[\\/]commands[\\/]index\.js$/.test(importer) && !commands.has(path.replace(/^\.\/|\.js$/g, ""))) ||
    (/[\\/]cli[\\/]commands[\\/]check\.js$/.test(importer) && path === "../check-report.js");
  return {
    name: "lockstep-stubs",
    setup(b) {
      b.onResolve({ filter: /^\.\.?\/[\w-]+\.js$/ }, (a) => (stubbed(a.path, a.importer) ? { path: a.path, namespace: "lockstep-stub" } : undefined));
      b.onLoad({ filter: /.*/, namespace: "lockstep-stub" }, (a) => ({
        contents: `throw new Error(${JSON.stringify(`lockstep: ${a.path} is not in the start-up bundle; bin/load-bundle.js should have run dist/cli/main.js`)});`,
        loader: "js",
      }));
    },
  };
}

/**
 * commander requires node:child_process at load (for executable subcommands, which lockstep has
 * none of), and with it net, stream and dgram: milliseconds of start-up. In the bundle it is a
 * proxy that requires the real module at first use.
 */
function lazyChildProcess(): Plugin {
  return {
    name: "lockstep-lazy-child-process",
    setup(b) {
      b.onResolve({ filter: /^node:child_process$/ }, (a) =>
        a.namespace === "lockstep-lazy" ? { path: a.path, external: true } : { path: a.path, namespace: "lockstep-lazy" },
      );
      b.onLoad({ filter: /.*/, namespace: "lockstep-lazy" }, () => ({
        contents: 'module.exports = new Proxy({}, { get: (_target, key) => require("node:child_process")[key] });',
        loader: "js",
      }));
    },
  };
}

/**
 * The version, read from package.json at build: the bundle need not find and parse package.json
 * at each start (the loader already refuses the bundle if package.json changed since).
 */
function versionAtBuild(version: string): Plugin {
  return {
    name: "lockstep-version",
    setup(b) {
      b.onLoad({ filter: /[\\/]dist[\\/]cli[\\/]version\.js$/ }, () => ({
        contents: `export function lockstepVersion() { return ${JSON.stringify(version)}; }`,
        loader: "js",
      }));
    },
  };
}

/** One CommonJS bundle of `entry` (under dist/) at dist/cli/bundle/`out`; returns the files it was made from. */
async function bundleOne(root: string, entry: string, out: string, commands: ReadonlySet<string>, version: string, external: string[]): Promise<string[]> {
  const result = await build({
    absWorkingDir: root,
    entryPoints: [join(root, "dist", ...entry.split("/"))],
    outfile: join(root, "dist", "cli", "bundle", out),
    bundle: true,
    format: "cjs",
    platform: "node",
    target: "node20",
    external,
    // The bundle's code runs as if from dist/cli/main.js (packageRoot() walks up from it); the loader passes that URL.
    // The sweep's threads.ts starts its worker through the loader's hook (undefined outside a bundle).
    define: { "import.meta.url": "__lockstepMetaUrl", "import.meta.lockstepSweepWorker": "__lockstepSweepWorker" },
    plugins: [stubs(commands), lazyChildProcess(), versionAtBuild(version)],
    // node_modules may be a symlink (a worktree's is): inputs are recorded under node_modules/ as the loader will find them.
    preserveSymlinks: true,
    metafile: true,
    logLevel: "warning",
  });
  refuseDynamicImports(result.metafile);
  return Object.keys(result.metafile.inputs).filter((path) => !path.startsWith("lockstep-"));
}

export async function bundleCli(root = packageRoot()): Promise<string> {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string } & Record<string, Record<string, string> | undefined>;
  const external = Object.keys({ ...pkg.dependencies, ...pkg.devDependencies }).filter((name) => !BUNDLED_PACKAGES.has(name));
  const outdir = join(root, "dist", "cli", "bundle");
  rmSync(outdir, { recursive: true, force: true });
  const built = await Promise.all([
    bundleOne(root, "cli/main.js", "cli.js", BUNDLED_COMMANDS, pkg.version, external),
    bundleOne(root, "cli/main.js", "sweep.js", SWEEP_COMMANDS, pkg.version, external),
    bundleOne(root, "harness/sweep/worker.js", "sweep-worker.js", SWEEP_COMMANDS, pkg.version, external),
  ]);
  // Each route checks only its own bundles' inputs: check's start stats no sweep files.
  const inputsOf = (paths: string[]): Record<string, number> => {
    const inputs: Record<string, number> = { "package.json": statSync(join(root, "package.json")).size };
    for (const path of paths) {
      // A bundled package is watched through its package.json (an install or upgrade rewrites it): fewer files to stat at start.
      const pkgDir = /^node_modules\/(@[^/]+\/)?[^/]+\//.exec(path)?.[0];
      const watched = pkgDir !== undefined ? `${pkgDir}package.json` : path;
      inputs[watched] ??= statSync(join(root, watched)).size;
    }
    return inputs;
  };
  const manifest = {
    format: MANIFEST_FORMAT,
    bundle: "cli.js",
    cache: "cli.js.cache",
    commands: COMMANDS.map((c) => c.name),
    bundledCommands: [...BUNDLED_COMMANDS],
    sweep: {
      bundle: "sweep.js",
      cache: "sweep.js.cache",
      worker: "sweep-worker.js",
      workerCache: "sweep-worker.js.cache",
      inputs: inputsOf([...built[1]!, ...built[2]!]),
    },
    canned: recordCanned(root),
    inputs: inputsOf(built[0]!),
  };
  writeFileSync(join(outdir, "manifest.json"), JSON.stringify(manifest, null, 1) + "\n");
  recordCodeCache(root, outdir);
  return outdir;
}

// vm.Script runs the bundle without a module loader behind it: an import() left in it would fail at run time.
function refuseDynamicImports(meta: Metafile): void {
  for (const [file, out] of Object.entries(meta.outputs))
    for (const imp of out.imports)
      if (imp.kind === "dynamic-import" && imp.external) throw new Error(`${file} imports ${imp.path} at run time; bundle it or stub it (cli/bundle.ts)`);
}

const TINY_HISTORY =
  [
    { index: 0, timeUs: 0, process: "c1", type: "invoke", f: "acquire", lock: "L", value: { ttlMs: 100, waitMs: 500 } },
    { index: 1, timeUs: 1000, process: "c1", type: "ok", f: "acquire", lock: "L", value: { grantId: "c1#1", validityMs: 100, ttlMs: 100 } },
    { index: 2, timeUs: 2000, process: "c1", type: "invoke", f: "release", lock: "L", value: { grantId: "c1#1" } },
    { index: 3, timeUs: 3000, process: "c1", type: "ok", f: "release", lock: "L", value: null },
  ]
    .map((e) => JSON.stringify(e))
    .join("\n") + "\n";

/** Runs a tiny check through the loader once so the code cache holds the functions start-up runs, compiled. */
function recordCodeCache(root: string, outdir: string): void {
  const dir = mkdtempSync(join(tmpdir(), "lockstep-bundle-"));
  try {
    const history = join(dir, "tiny.jsonl");
    writeFileSync(history, TINY_HISTORY);
    const loader = join(root, "bin", "load-bundle.js");
    const r = spawnSync(
      process.execPath,
      ["-e", `require(${JSON.stringify(loader)}).recordCodeCache(process.argv.slice(1))`, "check", history, "--ttl-ms", "100"],
      {
        cwd: root,
        stdio: ["ignore", "ignore", "pipe"],
        encoding: "utf8",
        timeout: 60_000,
      },
    );
    if (r.status === null || r.stderr !== "") throw new Error(`recording the code cache failed: ${r.stderr || r.error?.message || r.signal}`);
    statSync(join(outdir, "cli.js.cache"));
    // A small sweep on two workers: the main thread and the worker thread each record their bundle's cache. Seeds
    // are taken by whichever thread is free, so there are enough that the worker, loading meanwhile, runs some too.
    const sweep = ["sweep", "naive-gc-pause", "--seeds", "1..100", "--workers", "2", "--reports", "0", "--out", join(dir, "sweep")];
    const s = spawnSync(process.execPath, ["-e", `require(${JSON.stringify(loader)}).recordSweepCodeCache(process.argv.slice(1))`, ...sweep], {
      cwd: root,
      stdio: ["ignore", "ignore", "pipe"],
      encoding: "utf8",
      timeout: 60_000,
    });
    // The sweep prints its one-line tally to stderr; 3 is naive-gc-pause's verdict (unsafe), anything but 0 or 3 a failure.
    if (s.status !== 0 && s.status !== 3) throw new Error(`recording the sweep's code cache failed: ${s.stderr || s.error?.message || s.signal}`);
    statSync(join(outdir, "sweep.js.cache"));
    statSync(join(outdir, "sweep-worker.js.cache"));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  bundleCli().catch((e: unknown) => {
    process.stderr.write(`lockstep: bundling the CLI failed: ${String((e as Error)?.message ?? e)}\n`);
    process.exitCode = 1;
  });
}
