/**
 * A CommonJS loader for a sandbox realm: `require` inside library code resolves files
 * as Node does (node_modules lookup, package "main"/"exports"), but runs each module in
 * the realm, gives builtins from builtins.ts, and gives the simulated client modules
 * (e.g. "ioredis", "redis") a design registers under their package names.
 *
 * Compiled scripts are shared between realms (a vm.Script is context-independent), so
 * a sweep compiles a library once per worker, not once per simulated process.
 *
 * Library code sees one virtual install (virtual-install.ts): its modules are compiled
 * under virtual file names, and __filename, module.filename, require.resolve and a missing
 * module's error name virtual paths only.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, extname, isAbsolute, posix } from "node:path";
import vm from "node:vm";
import type { transformSync as TransformSync } from "esbuild";
import { InputError } from "../errors.js";
import { builtinModule, isBuiltin, isUnprovidedBuiltin } from "./builtins.js";
import type { Realm } from "./realm.js";
import { VIRTUAL_ROOT, VirtualInstall } from "./virtual-install.js";

/** A loaded module: the realm's module object (its exports read through the prelude), or a built module's exports. */
type Module = { realmModule: unknown } | { exports: unknown };

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

/** The module at real path `file`, compiled under its virtual name (what stack frames show). */
function compiled(file: string, virtualName: string): vm.Script {
  const key = `${file}\0${virtualName}`;
  let s = scriptCache.get(key);
  if (!s) {
    const src = commonJsSource(file).source;
    s = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${src}\n})`, { filename: virtualName });
    scriptCache.set(key, s);
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
function compiledJson(file: string, virtualName: string): vm.Script {
  const key = `json:${file}\0${virtualName}`;
  let s = scriptCache.get(key);
  if (!s) {
    s = new vm.Script(`(${readFileSync(file, "utf8")})`, { filename: virtualName });
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
  /** The virtual install library code sees; it also says which files library code may read (fs). */
  readonly install: VirtualInstall;
  /** require.cache as library code sees it (an object of its realm). */
  private readonly requireCache: unknown;

  /**
   * @param overrides modules by bare name that replace packages (the simulated clients),
   *   built of realm values; each gets `require` for the builtins it builds on
   * @param adapterDir the adapter's folder: the virtual install's root
   */
  constructor(
    private readonly realm: Realm,
    private readonly overrides: ReadonlyMap<string, (require: (spec: string) => unknown) => unknown>,
    adapterDir: string,
  ) {
    eventsEntry ??= createRequire(import.meta.url).resolve("events/");
    this.install = new VirtualInstall(adapterDir, dirname(eventsEntry));
    this.requireCache = realm.modules.freshObject();
  }

  /** require(spec) as code in real file `fromFile` would call it; `spec` is what library code passed. */
  require(spec: unknown, fromFile: string): unknown {
    if (typeof spec !== "string") throw new TypeError(`The "id" argument must be of type string. Received ${spec === null ? "null" : typeof spec}`);
    const override = this.overrides.get(spec);
    if (override) return this.cached(`override:${spec}`, () => this.realm.membrane.toRealm(override((s) => this.require(s, fromFile))));
    if (isBuiltin(spec)) {
      const key = `builtin:${spec.replace(/^node:/, "")}`;
      return this.cached(key, () => this.realm.membrane.toRealm(builtinModule(this.realm, spec, () => this.load(eventsEntry!), this.install)));
    }
    if (isUnprovidedBuiltin(spec)) this.realm.escape(`require("${spec}")`, "a Node builtin the sandbox does not provide");
    const file = this.resolve(spec, fromFile);
    if (!file) throw unresolvedModule(fromFile, spec);
    return this.load(file);
  }

  /** A built module, made once per realm. */
  private cached(key: string, build: () => unknown): unknown {
    const hit = this.cache.get(key);
    if (hit) return "exports" in hit ? hit.exports : this.realm.modules.exportsOf(hit.realmModule);
    const m = { exports: undefined as unknown };
    this.cache.set(key, m);
    m.exports = build();
    return m.exports;
  }

  /** The real file `spec` names from `fromFile`: an absolute virtual path is read back through the install. */
  private resolve(spec: string, fromFile: string): string | undefined {
    const real = spec.startsWith(VIRTUAL_ROOT) || spec === "/app" ? this.install.realOf(spec) : isAbsolute(spec) ? undefined : spec;
    return real === undefined ? undefined : resolveFrom(fromFile, real);
  }

  /** require.resolve(spec) for library code: a virtual path, a builtin's name, or Node's MODULE_NOT_FOUND naming virtual paths. */
  resolveForLibrary(spec: unknown, fromFile: string): string {
    if (typeof spec !== "string") throw new TypeError(`The "request" argument must be of type string. Received ${spec === null ? "null" : typeof spec}`);
    if (this.overrides.has(spec) || isBuiltin(spec)) return spec;
    const file = this.resolve(spec, fromFile);
    if (file) return this.install.virtualOf(file);
    const e = new Error(`Cannot find module '${spec}'\nRequire stack:\n- ${this.install.virtualOf(fromFile)}`) as Error & { code: string };
    e.code = "MODULE_NOT_FOUND";
    throw e;
  }

  /** Load a file as a module (cached). */
  load(file: string): unknown {
    const hit = this.cache.get(file);
    if (hit) return "exports" in hit ? hit.exports : this.realm.modules.exportsOf(hit.realmModule);
    const virtualName = this.install.virtualOf(file);
    if (extname(file) === ".json") {
      const m = { exports: this.realm.runScript(compiledJson(file, virtualName)) };
      this.cache.set(file, m);
      return m.exports;
    }
    if (extname(file) === ".node") {
      throw new InputError(file, "(module)", "a JavaScript module (native addons cannot run in the simulator)");
    }
    const { membrane, modules } = this.realm;
    const virtualDir = posix.dirname(virtualName);
    // module, exports and require are the realm's: a host function here would hand
    // library code the host's Function through its constructor.
    const realmModule = modules.makeModule(virtualName, virtualDir);
    this.cache.set(file, { realmModule });
    const fn = this.realm.runScript(compiled(file, virtualName));
    const req = modules.makeRequire(
      membrane.fnId((s: unknown) => this.require(s, file)),
      membrane.fnId((s: unknown) => this.resolveForLibrary(s, file)),
      this.requireCache,
    );
    modules.runModule(fn, realmModule, req, virtualName, virtualDir);
    return modules.exportsOf(realmModule);
  }
}
