"use strict";
/**
 * Start-up (cli/bundle.ts writes what this reads, under dist/cli/bundle/):
 *   1. --help, -h, --version, -V with stdout not a terminal: print the text recorded at build.
 *   2. `check` (without --out), `help`, no command or an unknown one: run cli.js, the CommonJS
 *      bundle of the CLI, through vm.Script with V8's code cache (cli.js.cache), so nothing is
 *      resolved, linked or (mostly) compiled.
 *   3. `sweep`: run sweep.js (main with the sweep command) the same way; its worker threads run
 *      bin/sweep-worker.js, which runs sweep-worker.js (harness/sweep/worker.ts bundled) likewise.
 *   4. Everything else: import dist/cli/main.js, as before the bundle.
 * A missing or unreadable manifest, a bundle older than any file it was made from (an edit
 * and a `tsc` without the bundle step), or a missing bundle all mean 4; a missing or rejected
 * code cache (another Node) only means compiling.
 */
const fs = require("node:fs");
const path = require("node:path");

const root = path.join(__dirname, "..");
const bundleDir = path.join(root, "dist", "cli", "bundle");
const mainJs = path.join(root, "dist", "cli", "main.js");
const MANIFEST_FORMAT = 1;

function readManifest() {
  try {
    const m = JSON.parse(fs.readFileSync(path.join(bundleDir, "manifest.json"), "utf8"));
    return m && m.format === MANIFEST_FORMAT ? m : undefined;
  } catch {
    return undefined;
  }
}

/** Every input (path: size) the same size as when bundled and not newer than the oldest of `bundles` (file names). */
function fresh(inputs, bundles) {
  try {
    const builtMs = Math.min(...bundles.map((b) => fs.statSync(path.join(bundleDir, b)).mtimeMs));
    for (const [rel, size] of Object.entries(inputs)) {
      const st = fs.statSync(path.join(root, rel));
      if (st.size !== size || st.mtimeMs > builtMs) return false;
    }
    return true;
  } catch {
    return false;
  }
}

// commander's help wraps to a terminal's width, and styling may be forced; canned text is neither.
const cannedApplies = () => !stdoutIsTerminal() && process.env.FORCE_COLOR === undefined && process.env.CLICOLOR_FORCE === undefined;

// node:tty costs milliseconds to load (net, stream); a pipe, a file or /dev/null is told apart without it.
function stdoutIsTerminal() {
  try {
    const st = fs.fstatSync(1);
    if (!st.isCharacterDevice() || st.rdev === fs.statSync("/dev/null").rdev) return false;
  } catch {
    // No fd 1, or no /dev/null: let node:tty decide.
  }
  return require("node:tty").isatty(1);
}

/** The argv the bundle can serve: it holds commander, main and `check`; other commands are stubs there. */
function servedByBundle(argv, manifest) {
  const served = (name) => name === undefined || manifest.bundledCommands.includes(name) || !manifest.commands.includes(name);
  if (argv[0] === "help") return served(argv[1]);
  if (argv[0] === "check") return !argv.some((a) => a === "--out" || a.startsWith("--out="));
  return served(argv[0]);
}

// As cli/stdio.ts: straight to the fd; a reader gone (EPIPE) ends it; a pipe that keeps refusing gets the stream.
function writeAll(fd, text) {
  let buf = Buffer.from(text, "utf8");
  for (let again = 0; buf.length > 0;) {
    try {
      buf = buf.subarray(fs.writeSync(fd, buf));
      again = 0;
    } catch (e) {
      if (e.code === "EPIPE") return;
      if (e.code !== "EAGAIN" || ++again > 1000) {
        (fd === 1 ? process.stdout : process.stderr).write(buf);
        return;
      }
    }
  }
}

/** Set while the build records the code caches: the sweep's worker then writes its own. */
let recordingSweep = false;

/**
 * Runs one bundle through vm.Script with its code cache; returns its exports and the script
 * (for recording its cache). `sweepWorker` is what the bundle's threads.ts calls to start a
 * worker thread (import.meta.lockstepSweepWorker there).
 */
function loadScript(name, cacheName, sweepWorker) {
  const vm = require("node:vm");
  const { createRequire } = require("node:module");
  const { pathToFileURL } = require("node:url");
  const file = path.join(bundleDir, name);
  // esbuild writes ASCII only (charset "ascii", its default): latin1 reads it exactly, without UTF-8 decoding.
  const source = fs.readFileSync(file, "latin1");
  let cachedData;
  try {
    cachedData = fs.readFileSync(path.join(bundleDir, cacheName));
  } catch {
    cachedData = undefined;
  }
  const wrapped = `(function (exports, require, module, __filename, __dirname, __lockstepMetaUrl, __lockstepSweepWorker) {${source}\n})`;
  const script = new vm.Script(wrapped, { filename: file, cachedData });
  const module = { exports: {} };
  script.runInThisContext()(module.exports, createRequire(mainJs), module, mainJs, path.dirname(mainJs), pathToFileURL(mainJs).href, sweepWorker);
  return { cli: module.exports, script };
}

/** Loads cli.js (check), or with `sweep` set sweep.js, whose worker threads run sweep-worker.js. */
function loadBundle(manifest, sweep = false) {
  if (!sweep) return loadScript(manifest.bundle, manifest.cache, undefined);
  const { Worker } = require("node:worker_threads");
  const workerData = { bundle: manifest.sweep.worker, cache: manifest.sweep.workerCache, record: recordingSweep };
  const startWorker = () => new Worker(path.join(__dirname, "sweep-worker.js"), { workerData });
  return loadScript(manifest.sweep.bundle, manifest.sweep.cache, startWorker);
}

/**
 * In a sweep worker thread (bin/sweep-worker.js): run sweep-worker.js, the bundle of
 * dist/harness/sweep/worker.js; the main thread found the bundle fresh just before. A bundle that
 * will not load falls back to the unbundled worker, before any message is read.
 */
function runSweepWorker() {
  const { workerData, parentPort } = require("node:worker_threads");
  let script;
  try {
    script = loadScript(workerData.bundle, workerData.cache, undefined).script;
  } catch {
    const { pathToFileURL } = require("node:url");
    import(pathToFileURL(path.join(root, "dist", "harness", "sweep", "worker.js")).href);
    return;
  }
  if (!workerData.record) return;
  // Added after the worker's own listener: a claim's seeds have run (synchronously) by the time this is called.
  parentPort.on("message", (m) => {
    if (m.type === "claim") fs.writeFileSync(path.join(bundleDir, workerData.cache), script.createCachedData());
  });
}

/**
 * Sets the exit code main returns. With everything written synchronously (cli/stdio.ts) there is
 * nothing left to wait for, so `exitNow` exits at once: no tearing down of the heap the CLI built.
 */
function finish(promise, exitNow = () => false) {
  promise.then(
    (code) => {
      if (exitNow()) process.exit(code);
      process.exitCode = code;
    },
    (err) => {
      process.stderr.write(`lockstep: internal error (a bug in lockstep, please report it):\n${String((err && err.stack) || err)}\n`);
      process.exitCode = 1; // EXIT.internal (harness/exit-codes.ts)
    },
  );
}

function runUnbundled(argv) {
  if (!fs.existsSync(mainJs)) {
    process.stderr.write("lockstep: not built yet; run `npm run build` first\n");
    process.exitCode = 1;
    return;
  }
  // A reader gone (`lockstep audit --help | head -3`): the rest has nowhere to go, as in
  // cli/stdio.ts, rather than an unhandled 'error' event and its stack trace.
  for (const stream of [process.stdout, process.stderr])
    stream.on("error", (e) => {
      if (e.code !== "EPIPE") throw e;
    });
  const { pathToFileURL } = require("node:url");
  finish(import(pathToFileURL(mainJs).href).then((m) => m.main(argv)));
}

/** Which of the ways above serves this argv: "canned", "bundle", "sweep-bundle" or "unbundled" (tests use it). */
function routeOf(argv, manifest = readManifest()) {
  if (manifest === undefined) return "unbundled";
  const sweep = argv[0] === "sweep" && manifest.sweep !== undefined;
  if (!(sweep ? fresh(manifest.sweep.inputs, [manifest.sweep.bundle, manifest.sweep.worker]) : fresh(manifest.inputs, [manifest.bundle]))) return "unbundled";
  if (cannedApplies() && Object.hasOwn(manifest.canned, argv.join("\u0000"))) return "canned";
  if (sweep) return "sweep-bundle";
  return servedByBundle(argv, manifest) ? "bundle" : "unbundled";
}

function run(argv) {
  const manifest = readManifest();
  const route = routeOf(argv, manifest);
  if (route === "canned") {
    const a = manifest.canned[argv.join("\u0000")];
    writeAll(1, a.stdout);
    writeAll(2, a.stderr);
    process.exitCode = a.status;
  } else if (route === "bundle" || route === "sweep-bundle") {
    let cli;
    try {
      cli = loadBundle(manifest, route === "sweep-bundle").cli;
    } catch {
      // A damaged cli.js (cut short, overwritten) must not stop the CLI: nothing has run yet.
      cli = undefined;
    }
    if (cli === undefined || typeof cli.main !== "function") return runUnbundled(argv);
    cli.useDirectStdio();
    finish(cli.main(argv), () => !cli.wroteToStream());
  } else runUnbundled(argv);
}

/** Build time (cli/bundle.ts): run argv (a tiny check) and `help` through the bundle, then store the code cache they warmed. */
function recordCodeCache(argv) {
  const manifest = readManifest();
  if (manifest === undefined) throw new Error("no manifest.json to record a code cache for");
  const { cli, script } = loadBundle(manifest);
  return cli
    .main(argv)
    .then(() => cli.main(["help"]))
    .then(() => fs.writeFileSync(path.join(bundleDir, manifest.cache), script.createCachedData()));
}

/** Build time: run a small sweep through sweep.js (its worker records sweep-worker.js.cache), then store sweep.js.cache. */
function recordSweepCodeCache(argv) {
  const manifest = readManifest();
  if (manifest === undefined || manifest.sweep === undefined) throw new Error("no manifest.json with a sweep bundle to record a code cache for");
  recordingSweep = true;
  const { cli, script } = loadBundle(manifest, true);
  return cli.main(argv).then(() => fs.writeFileSync(path.join(bundleDir, manifest.sweep.cache), script.createCachedData()));
}

module.exports = { run, routeOf, recordCodeCache, recordSweepCodeCache, runSweepWorker };
