// Loading a library adapter in a real client process the way the simulator's loader
// (sim/sandbox/module-loader.ts) loads it, but with this process's own `require`, so the
// packages are the real npm ones: every module the adapter pulls in, at any depth, is turned
// into CommonJS by the same commonJsSource (TypeScript, ES modules), and "./x.js" finds the
// source ./x.ts. Node has no public API for either, so Module._extensions and
// Module._resolveFilename are extended, as ts-node and tsx extend them.
// Real mode only (the simulator never loads this file).
import { Module } from "node:module";
import { join } from "node:path";
import { InputError } from "../../sim/errors.js";
import { packageRoot } from "../../sim/paths.js";
import { LibraryError } from "../../sim/sandbox/errors.js";
import { commonJsSource, specifierSpellings, unresolvedModule } from "../../sim/sandbox/module-loader.js";

type NodeModule = InstanceType<typeof Module> & { _compile(src: string, file: string): void };
type Loader = (m: NodeModule, file: string) => void;
type Resolve = (request: string, parent: { filename?: string } | undefined, ...rest: unknown[]) => string;
const M = Module as unknown as { _extensions: Record<string, Loader>; _resolveFilename: Resolve; _initPaths?: () => void };

/** Why an adapter could not be used, as the driver needs it to say so: the simulator's one line. */
export type AdapterRefusal = { kind: "input"; file: string; field: string; expected: string } | { kind: "threw"; message: string };

/** Thrown by LibraryRecipe.connect for a bad adapter (the client reports it; the driver refuses the run). */
export class AdapterRefusedError extends Error {
  constructor(readonly refusal: AdapterRefusal) {
    super(refusal.kind === "input" ? new InputError(refusal.file, refusal.field, refusal.expected).message : refusal.message);
    this.name = "AdapterRefusedError";
  }
}

let installed = false;

/** Installs the hooks once per process: TypeScript/ESM compiled by commonJsSource, and the "./x.js" → ./x.ts spelling. */
export function installSourceHooks(): void {
  if (installed) return;
  installed = true;
  addPackageModulesToSearchPath();
  const plainJs = M._extensions[".js"]!;
  const compile: Loader = (m, file) => {
    const { source, compiled } = commonJsSource(file);
    if (compiled) m._compile(source, file);
    else plainJs(m, file);
  };
  for (const ext of [".js", ".mjs", ".ts", ".mts", ".cts"]) M._extensions[ext] = compile;
  const resolve = M._resolveFilename;
  M._resolveFilename = function (request, parent, ...rest) {
    const [first, ...others] = specifierSpellings(request);
    try {
      return resolve.call(this, first!, parent, ...rest);
    } catch (err) {
      for (const spelling of others) {
        try {
          return resolve.call(this, spelling, parent, ...rest);
        } catch {
          // try the next spelling
        }
      }
      throw err;
    }
  };
}

/** An adapter outside this package still finds our node_modules (as the simulator's loader serves them to any adapter). */
function addPackageModulesToSearchPath(): void {
  const modules = join(packageRoot(), "node_modules");
  const paths = (process.env.NODE_PATH ?? "").split(":").filter(Boolean);
  if (paths.includes(modules)) return;
  process.env.NODE_PATH = [...paths, modules].join(":");
  // NODE_PATH is read once at start-up; _initPaths re-reads it (no public API does this).
  M._initPaths?.();
}

/**
 * What went wrong loading or creating the adapter, said as the simulator says it: an input
 * error (a require that finds nothing, a compile error, a wrong shape) or library code that threw.
 */
export function adapterRefusal(err: unknown, adapter: string, processId: string): AdapterRefusal {
  if (err instanceof AdapterRefusedError) return err.refusal;
  if (err instanceof InputError) return { kind: "input", file: err.file, field: err.field, expected: err.expected };
  const e = err as { code?: unknown; message?: unknown; requireStack?: unknown };
  const missing = typeof e?.message === "string" ? /^Cannot find module '([^']+)'/.exec(e.message) : null;
  if (e?.code === "MODULE_NOT_FOUND" && missing && Array.isArray(e.requireStack) && typeof e.requireStack[0] === "string") {
    const u = unresolvedModule(e.requireStack[0], missing[1]!);
    return { kind: "input", file: u.file, field: u.field, expected: u.expected };
  }
  return { kind: "threw", message: new LibraryError(processId, `loading adapter ${adapter}`, err).message };
}
