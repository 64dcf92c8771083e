/**
 * A CommonJS loader for a sandbox realm: `require` inside library code resolves files
 * as Node does (node_modules lookup, package "main"/"exports"), but runs each module in
 * the realm, gives builtins from builtins.ts, and gives the simulated client modules
 * (e.g. "ioredis", "redis") a design registers under their package names.
 *
 * Compiled scripts are shared between realms (a vm.Script is context-independent), so
 * a sweep compiles a library once per worker, not once per simulated process.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, extname } from "node:path";
import vm from "node:vm";
import type { transformSync as TransformSync } from "esbuild";
import { InputError } from "../errors.js";
import { builtinModule, isBuiltin, isUnprovidedBuiltin } from "./builtins.js";
import type { Realm } from "./realm.js";

interface Module {
  exports: unknown;
  loaded: boolean;
}

const scriptCache = new Map<string, vm.Script>();

/** esbuild, loaded when a module first needs compiling: only some designs load user modules. */
let transformSync: typeof TransformSync | undefined;

/** ES modules and TypeScript are turned into CommonJS by esbuild (a user's own lock may be either). */
const TRANSFORM: Record<string, "ts" | "js"> = { ".mjs": "js", ".ts": "ts", ".mts": "ts", ".cts": "ts" };

/**
 * The module's source as CommonJS: TypeScript and ES modules compiled by esbuild, anything
 * else as written. Real mode loads a user's adapter through this too, so both modes accept
 * the same files and refuse the same ones with the same message.
 */
export function commonJsSource(file: string): { source: string; compiled: boolean } {
  const src = readFileSync(file, "utf8").replace(/^#!.*/, "");
  const loader = TRANSFORM[extname(file)] ?? (/^\s*(import|export)\s/m.test(src) ? "js" : undefined);
  if (!loader) return { source: src, compiled: false };
  transformSync ??= (createRequire(import.meta.url)("esbuild") as { transformSync: typeof TransformSync }).transformSync;
  try {
    return { source: transformSync(src, { format: "cjs", loader, sourcefile: file, target: "node20" }).code, compiled: true };
  } catch (e) {
    throw compileError(file, e);
  }
}

/** esbuild's first error, at its line and column (its message's first line says only "Transform failed"). */
function compileError(file: string, e: unknown): InputError {
  const first = (e as { errors?: Array<{ text: string; location: { line: number; column: number } | null }> }).errors?.[0];
  if (!first) return new InputError(file, "(module)", `a module esbuild can compile (${(e as Error).message.split("\n")[0]})`);
  const where = first.location ? `line ${first.location.line}, column ${first.location.column + 1}` : "(module)";
  return new InputError(file, where, `a module esbuild can compile (${first.text})`);
}

function compiled(file: string): vm.Script {
  let s = scriptCache.get(file);
  if (!s) {
    const src = commonJsSource(file).source;
    s = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${src}\n})`, { filename: file });
    scriptCache.set(file, s);
  }
  return s;
}

/**
 * Resolutions by directory and specifier, per worker: Node's resolution of a specifier
 * depends only on the directory it is required from, and reading package.json files and
 * stat-ing candidates for every simulated process was a large part of a library run's set-up.
 */
const resolutionCache = new Map<string, string | undefined>();

/** A JSON module as an expression, compiled once per worker like code; evaluated per realm. */
function compiledJson(file: string): vm.Script {
  const key = `json:${file}`;
  let s = scriptCache.get(key);
  if (!s) {
    s = new vm.Script(`(${readFileSync(file, "utf8")})`, { filename: file });
    scriptCache.set(key, s);
  }
  return s;
}

/** Node's resolution, plus TypeScript's convention that "./x.js" names ./x.ts in source. */
function resolveFrom(fromFile: string, spec: string): string | undefined {
  const key = `${dirname(fromFile)}\0${spec}`;
  if (resolutionCache.has(key)) return resolutionCache.get(key);
  const file = resolveUncached(fromFile, spec);
  resolutionCache.set(key, file);
  return file;
}

/** The events package's entry (the sandbox's "events" builtin), resolved once. */
let eventsEntry: string | undefined;

/**
 * The spellings a specifier is tried in: itself, then for a relative "./x.js" (".mjs", ".cjs")
 * its TypeScript source "./x.ts" (".mts", ".cts"). Real mode resolves adapters' requires so too.
 */
export function specifierSpellings(spec: string): string[] {
  const candidates = [spec];
  if (/^\.\.?\//.test(spec) && /\.[cm]?js$/.test(spec)) candidates.push(spec.replace(/\.([cm]?)js$/, ".$1ts"));
  return candidates;
}

/** The one line for a require that resolves to nothing (real mode says the same). */
export function unresolvedModule(fromFile: string, spec: string): InputError {
  return new InputError(fromFile, `require("${spec}")`, "a module that can be found from this file (is the package installed?)");
}

function resolveUncached(fromFile: string, spec: string): string | undefined {
  const req = createRequire(fromFile);
  for (const c of specifierSpellings(spec)) {
    try {
      return req.resolve(c);
    } catch {
      // try the next spelling
    }
  }
  return undefined;
}

export class ModuleLoader {
  private readonly cache = new Map<string, Module>();
  /** Directories library code may read files in (fs): those of the modules loaded from outside node_modules. */
  private readonly roots: string[] = [];

  /**
   * @param overrides modules by bare name that replace packages (the simulated clients),
   *   built of realm values; each gets `require` for the builtins it builds on
   */
  constructor(
    private readonly realm: Realm,
    private readonly overrides: ReadonlyMap<string, (require: (spec: string) => unknown) => unknown>,
  ) {}

  /** require(spec) as code in `fromFile` would call it. */
  require(spec: string, fromFile: string): unknown {
    const override = this.overrides.get(spec);
    if (override) {
      const key = `override:${spec}`;
      const hit = this.cache.get(key);
      if (hit) return hit.exports;
      // Sealed like any value crossing in: a host object here would be refused or copied.
      const m: Module = { exports: this.realm.seal.toRealm(override((s) => this.require(s, fromFile))), loaded: true };
      this.cache.set(key, m);
      return m.exports;
    }
    if (isBuiltin(spec)) {
      const key = `builtin:${spec.replace(/^node:/, "")}`;
      const hit = this.cache.get(key);
      if (hit) return hit.exports;
      const m: Module = { exports: undefined, loaded: false };
      this.cache.set(key, m);
      m.exports = this.realm.seal.toRealm(
        builtinModule(this.realm, spec, () => this.require((eventsEntry ??= createRequire(import.meta.url).resolve("events/")), fromFile), this.roots),
      );
      m.loaded = true;
      return m.exports;
    }
    if (isUnprovidedBuiltin(spec)) this.realm.escape(`require("${spec}")`, "a Node builtin the sandbox does not provide");
    const file = resolveFrom(fromFile, spec);
    if (!file) throw unresolvedModule(fromFile, spec);
    return this.load(file);
  }

  /** Load a file as a module (cached). */
  load(file: string): unknown {
    const hit = this.cache.get(file);
    if (hit) return hit.exports;
    if (extname(file) === ".json") {
      const m: Module = { exports: this.realm.runScript(compiledJson(file)), loaded: true };
      this.cache.set(file, m);
      return m.exports;
    }
    if (extname(file) === ".node") {
      throw new InputError(file, "(module)", "a JavaScript module (native addons cannot run in the simulator)");
    }
    if (!file.split(/[\\/]/).includes("node_modules")) this.roots.push(dirname(file));
    // module, exports and require are the realm's: a host function here would hand
    // library code the host's Function through its constructor.
    const m = this.realm.prelude.makeModule(file);
    this.cache.set(file, m);
    const fn = this.realm.runScript(compiled(file)) as (...a: unknown[]) => void;
    const req = this.realm.prelude.makeRequire(
      (s: string) => this.require(s, file),
      (s: string) => createRequire(file).resolve(s),
    );
    fn.call(m.exports, m.exports, req, m, file, dirname(file));
    m.loaded = true;
    return m.exports;
  }
}
