// Design `library` in a real client process: the same adapter module the simulator runs
// (designs/library/adapter.ts has the contract), loaded here with this process's own
// `require` and compiled as the simulator compiles it (real-loader.ts), so
// `require("ioredis")`, `require("redis")` and the lock library are the real npm packages
// and Date, timers and randomness are the host's. The outcomes are mapped
// exactly as designs/library/client.ts maps them:
//   acquire: resolves null/undefined/false → fail; resolves { handle, validityMs?, … } → ok,
//            the library believing it holds for validityMs from now, or, with no validityMs,
//            until its holds() says no (polled); neither is an error; rejects → unknown.
//   release: resolves false → ok, not released; anything else → ok, released; rejects → unknown.
//   extend:  no extend() → fail; null/undefined/false → fail; rejects → unknown; else ok.
//   holds:   the adapter's holds(handle) (true only if it returns true), else the reported validity.
import { createRequire, Module } from "node:module";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { LibraryRecipeConfig } from "./real-plan.js";
import { readAcquired, readExtended, type AdapterInstance, type AdapterModule } from "./adapter.js";
import { InputError } from "../../sim/errors.js";
import { AdapterRefusedError, adapterRefusal, installSourceHooks } from "./real-loader.js";
import { errorText, type RealGrant, type RealLockClient, type RealClientFactory } from "../real-client.js";
import type { AcquireResult, ExtendResult, ReleaseResult } from "../types.js";

type LibraryConfig = LibraryRecipeConfig;

const require = createRequire(import.meta.url);

/** The package a module file belongs to (its folder under the last node_modules), if any. */
function packageNameOf(file: string): string | undefined {
  const m = /.*node_modules[/\\]((?:@[^/\\]+[/\\])?[^/\\]+)/.exec(file);
  return m ? m[1]!.replace(/\\/g, "/") : undefined;
}

/** The version in the package's own package.json, walking up from one of its files (bounded: a package is never that deep). */
function packageVersionAt(file: string, name: string): string | undefined {
  let dir = dirname(file);
  for (let i = 0; i < 8; i++) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name?: string; version?: string };
      if (pkg.name === name && typeof pkg.version === "string") return pkg.version;
      // An npm alias (redis-v4 → redis@4): the folder has the alias's name, package.json the real one.
      if (typeof pkg.version === "string" && typeof pkg.name === "string" && dir.endsWith(`node_modules/${name}`)) return `${pkg.version} (${pkg.name})`;
    } catch {
      /* no package.json here: go up */
    }
    dir = dirname(dir);
  }
  return undefined;
}

/** name → version of the npm packages the adapter's own files require (the adapter and the files of the user's it imports). */
function adapterPackages(adapterFile: string): Record<string, string> {
  const out: Record<string, string> = {};
  const seen = new Set<string>();
  const own = [require.cache[adapterFile]];
  for (let mod = own.pop(); mod; mod = own.pop()) {
    if (seen.has(mod.filename)) continue;
    seen.add(mod.filename);
    for (const child of mod.children) {
      const name = packageNameOf(child.filename);
      if (name === undefined) own.push(child);
      else if (!(name in out)) {
        const v = packageVersionAt(child.filename, name);
        if (v !== undefined) out[name] = v;
      }
    }
  }
  return out;
}

/**
 * The adapter file's own `require(request)` gets the aliased package (designs/library/real-plan.ts says
 * why: redis-lock needs node-redis 4). Only requires made by the adapter module itself are
 * redirected; the libraries' own requires resolve as usual. Module._resolveFilename is the one
 * place CommonJS resolution can be redirected for a single parent module (no public API).
 */
function aliasAdapterRequires(adapterFile: string, aliases: Readonly<Record<string, string>>): void {
  type Resolve = (request: string, parent: { filename?: string } | undefined, ...rest: unknown[]) => string;
  const M = Module as unknown as { _resolveFilename: Resolve };
  const original = M._resolveFilename;
  M._resolveFilename = function (request, parent, ...rest) {
    const to = parent?.filename === adapterFile ? aliases[request] : undefined;
    return original.call(this, to ?? request, parent, ...rest);
  };
}

const notAcquired = (v: unknown): boolean => v === null || v === undefined || v === false;

/** A belief with no reported end: far past any run (JSON has no Infinity); a poll of holds() ends it. */
const UNTIL_HOLDS_SAYS_NO_US = Number.MAX_SAFE_INTEGER;
/** How often a belief without a reported validity asks holds(), ms. */
const HOLDS_POLL_MS = 1;

export class LibraryRecipe implements RealLockClient {
  private adapter: AdapterInstance | undefined;
  private readonly polls = new Map<RealGrant, NodeJS.Timeout>();

  constructor(
    private readonly cfg: LibraryConfig,
    private readonly nowUs: () => number,
    private readonly processId: string,
  ) {}

  /** Loads the adapter and calls its create(); the library connects its own clients as it would in an application. */
  async connect(): Promise<void> {
    installSourceHooks();
    if (this.cfg.requireAliases) aliasAdapterRequires(this.cfg.adapterFile, this.cfg.requireAliases);
    try {
      this.adapter = await this.createAdapter();
    } catch (err) {
      throw new AdapterRefusedError(adapterRefusal(err, this.cfg.adapter, this.processId));
    }
  }

  /** As designs/library/design.ts's setup: the same checks, the same lines. */
  private async createAdapter(): Promise<AdapterInstance> {
    const file = this.cfg.adapterFile;
    const loaded = require(file) as AdapterModule & { default?: AdapterModule };
    // An ES module's `export default { create }` arrives as exports.default.
    const mod = typeof loaded?.create === "function" ? loaded : (loaded?.default ?? loaded);
    if (!mod || typeof mod.create !== "function") throw new InputError(file, "module.exports.create", "a function create({ addresses, options, processId })");
    const instance = await mod.create({ addresses: [...this.cfg.addresses], options: structuredClone(this.cfg.options), processId: this.processId });
    if (!instance || typeof instance.acquire !== "function" || typeof instance.release !== "function")
      throw new InputError(file, "create()", "an object with acquire(lock, { ttlMs, waitMs }) and release(handle)");
    return instance;
  }

  private get a(): AdapterInstance {
    if (!this.adapter) throw new Error("library adapter used before connect()");
    return this.adapter;
  }

  async acquire(lock: string, o: { ttlMs: number; waitMs: number }): Promise<AcquireResult<RealGrant>> {
    let v: unknown;
    try {
      v = await this.a.acquire(lock, { ttlMs: o.ttlMs, waitMs: o.waitMs });
    } catch (err) {
      return { outcome: "unknown", reason: errorText(err) };
    }
    if (notAcquired(v)) return { outcome: "fail", reason: `${this.cfg.adapter} did not acquire the lock` };
    const got = readAcquired(v, this.cfg.adapter);
    const grant: RealGrant = { lock, secret: got.secret ?? "", ttlMs: o.ttlMs, validityMs: o.ttlMs, expiresAtUs: 0, data: got.handle };
    this.believe(grant, got.validityMs, "acquire() result");
    if (got.token !== undefined) grant.token = got.token;
    return { outcome: "ok", grant };
  }

  async release(grant: RealGrant): Promise<ReleaseResult> {
    clearInterval(this.polls.get(grant));
    this.polls.delete(grant);
    try {
      const v = await this.a.release(grant.data);
      return { outcome: "ok", released: v !== false };
    } catch (err) {
      return { outcome: "unknown", reason: errorText(err) };
    }
  }

  async extend(grant: RealGrant, ttlMs: number): Promise<ExtendResult> {
    const a = this.a;
    if (typeof a.extend !== "function") return { outcome: "fail", reason: `${this.cfg.adapter} has no extend` };
    let v: unknown;
    try {
      v = await a.extend(grant.data, ttlMs);
    } catch (err) {
      return { outcome: "unknown", reason: errorText(err) };
    }
    if (notAcquired(v)) return { outcome: "fail", reason: `${this.cfg.adapter} refused to extend` };
    const got = readExtended(v, this.cfg.adapter);
    grant.ttlMs = ttlMs;
    if (got.handle !== undefined) grant.data = got.handle;
    this.believe(grant, got.validityMs, "extend() result");
    return { outcome: "ok", validityMs: grant.validityMs };
  }

  /**
   * The belief, as the simulator's library client forms it (designs/library/client.ts):
   * a reported validity from now, else holds() alone, polled every HOLDS_POLL_MS and
   * reported to the driver (onRefresh) when it says no; neither is the adapter's error.
   */
  private believe(grant: RealGrant, validityMs: number | undefined, what: string): void {
    const hasHolds = typeof this.a.holds === "function";
    if (validityMs === undefined && !hasHolds) {
      throw new Error(
        `${this.cfg.adapterFile}: ${what}: expected a validityMs or a holds(handle) method: with neither, lockstep cannot know when your lock stops trusting the grant`,
      );
    }
    grant.validityMs = validityMs ?? grant.ttlMs;
    grant.expiresAtUs = validityMs !== undefined ? this.nowUs() + validityMs * 1000 : UNTIL_HOLDS_SAYS_NO_US;
    if (validityMs !== undefined || this.polls.has(grant)) return;
    const poll = setInterval(() => {
      if (this.holds(grant)) return;
      clearInterval(poll);
      this.polls.delete(grant);
      grant.expiresAtUs = this.nowUs();
      this.onRefresh?.(grant);
    }, HOLDS_POLL_MS);
    poll.unref();
    this.polls.set(grant, poll);
  }

  onRefresh?: (g: RealGrant) => void;

  holds(grant: RealGrant): boolean {
    const a = this.a;
    if (typeof a.holds === "function") return a.holds(grant.data) === true;
    return this.nowUs() < grant.expiresAtUs;
  }

  packages(): Record<string, string> {
    return adapterPackages(this.cfg.adapterFile);
  }

  /** The adapter contract has no close: the library's connections end with the process. */
  close(): void {}
}

/** The client process's entry to this recipe (real/child/main.ts loads this module by the recipe's `client`). */
export const createRealClient: RealClientFactory = (cfg, env) => new LibraryRecipe(cfg as LibraryConfig, env.nowUs, env.clientId);
