/**
 * library in real mode: N redis-servers (the adapter's nodesDefault, or designOptions.nodes);
 * the same adapter module as the simulator's, loaded with plain require (real-client.ts).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { packageRoot } from "../../sim/paths.js";
import { commonJsSource } from "../../sim/sandbox/module-loader.js";
import { BUILTIN_ADAPTERS } from "./adapter.js";
import { libraryNodeId, type LibraryDesignOptions } from "./options.js";
import { packageVersion } from "../real-packages.js";
import { aofFor, given, noteSweep, refuse, type RealDesignPlan, type RealPlanInput } from "../real-plan.js";
import type { RecipeConfig } from "../real-recipe.js";
import { LOCK_PROTOCOL_VERSION } from "./driver-protocol.js";
import { driverClockRefusal } from "./driver-runtime.js";

/** The recipe config this design's real client runs (designs/real-recipe.ts). */
export interface LibraryRecipeConfig extends RecipeConfig {
  /** design `library`: an adapter module (designs/library/adapter.ts) driving a lock library (designs/library/real-client.ts). */
  kind: "library";
  /** Absolute path of the adapter module, loaded with the child's own require. */
  adapterFile: string;
  /** The adapter's name as the scenario gives it (a built-in name or a path), for reasons and reports. */
  adapter: string;
  /** The servers' (or their proxies') "127.0.0.1:port", in node order. */
  addresses: string[];
  /** designOptions.options, handed to the adapter's create(). */
  options: Record<string, unknown>;
  /** Packages the adapter's own `require` gets under another name (request → installed package). */
  requireAliases?: Record<string, string>;
}

/** The recipe config this design's real client runs (designs/real-recipe.ts). */
export interface DriverRecipeConfig extends RecipeConfig {
  /** design `library` with `lockCmd`: a lock driver process speaking docs/lock-protocol.md (designs/library/real-driver.ts). */
  kind: "driver";
  /** The user's command, run by /bin/sh. */
  command: string;
  /** Its working directory (where the user gave the command). */
  cwd: string;
  /** The servers' (or their proxies') "127.0.0.1:port", in node order. */
  addresses: string[];
  /** designOptions.options, handed to the driver in its init request. */
  options: Record<string, unknown>;
}

/**
 * Client packages a built-in adapter's library needs in another major version than the one
 * installed as itself. redis-lock@1.0.0 insists on `"v4" in client` (node-redis 4.x, its
 * devDependency); the project's `redis` is 6, whose clients carry no such marker, and the
 * simulator's `require("redis")` models node-redis 4's client (with the marker). So the real
 * run hands redis-lock's adapter node-redis 4 for `require("redis")`, installed as `redis-v4`.
 */
const LIBRARY_REQUIRE_ALIASES: Record<string, Record<string, { pkg: string; major: string }>> = {
  "redis-lock": { redis: { pkg: "redis-v4", major: "4." } },
};

function libraryRequireAliases(s: RealPlanInput, adapter: string, notApplied: string[]): Record<string, string> | undefined {
  const aliases = LIBRARY_REQUIRE_ALIASES[adapter];
  if (!aliases) return undefined;
  const out: Record<string, string> = {};
  for (const [request, { pkg, major }] of Object.entries(aliases)) {
    // An npm alias's package.json names the real package, so read it by the alias's folder.
    let v: string;
    try {
      v = (JSON.parse(readFileSync(join(packageRoot(), "node_modules", pkg, "package.json"), "utf8")) as { version: string }).version;
    } catch {
      return refuse(s, "designOptions.adapter", `${adapter} needs ${request}@${major}x, installed as ${pkg}; it is missing (npm ci installs it)`);
    }
    if (!v.startsWith(major)) refuse(s, "designOptions.adapter", `${adapter} needs ${request}@${major}x, and ${pkg} is ${v}`);
    out[request] = pkg;
    notApplied.push(
      `designOptions.adapter (${adapter}): its require("${request}") gets ${request}@${v} (installed as ${pkg}), the major version the library accepts; the project's own ${request} is ${packageVersion(request)}`,
    );
  }
  return out;
}

/** A lock driver (docs/lock-protocol.md): one process per client, given the servers' addresses in its init. */
function driverPlan(s: RealPlanInput, o: LibraryDesignOptions, lockCmd: NonNullable<LibraryDesignOptions["lockCmd"]>, notApplied: string[]): RealDesignPlan {
  noteSweep(s, notApplied);
  if (given(s).basePort !== undefined)
    notApplied.push(`designOptions.basePort (${o.basePort}): the lock driver is given the real servers' (or their proxies') loopback ports`);
  const aof = aofFor(s, o.persistence, o.fsyncIntervalMs);
  const ids = Array.from({ length: o.nodes }, (_, i) => libraryNodeId(i + 1));
  return {
    name: s.design,
    redis: ids.map((id) => ({ id, aof })),
    fencing: false,
    packages: [],
    clients: `running the workload, and beside each its lock driver \`${lockCmd.command}\` (a process group of its own, paused and killed with the client; line protocol ${LOCK_PROTOCOL_VERSION}), against ${o.nodes} redis-server${o.nodes === 1 ? "" : "s"}`,
    clientClocksWhy: (faketimeLib) => driverClockRefusal(lockCmd.command, lockCmd.cwd, faketimeLib),
    recipe: (eps): DriverRecipeConfig => ({
      client: "library/real-driver.js",
      kind: "driver",
      command: lockCmd.command,
      cwd: lockCmd.cwd,
      addresses: eps.map((e) => `${e.host}:${e.port}`),
      options: o.options,
    }),
  };
}

export function libraryPlan(s: RealPlanInput, o: LibraryDesignOptions, notApplied: string[]): RealDesignPlan {
  if (o.lockCmd) return driverPlan(s, o, o.lockCmd, notApplied);
  const requireAliases = libraryRequireAliases(s, o.adapter, notApplied);
  noteSweep(s, notApplied);
  if (given(s).basePort !== undefined)
    notApplied.push(`designOptions.basePort (${o.basePort}): the adapter is given the real servers' (or their proxies') loopback ports`);
  notApplied.push(
    `designOptions.adapter (${o.adapter}): loaded with the client process's own require, not in the simulator's sandbox: the library sees the host's clock, timers and randomness, and its own real ioredis/redis clients (a real run is not replayable anyway)`,
  );
  // Compiled now as well as in the client, so a module esbuild cannot compile is refused before anything starts.
  if (commonJsSource(o.adapterFile).compiled)
    notApplied.push(`designOptions.adapter (${o.adapter}): compiled to CommonJS by esbuild, as the simulator compiles it`);
  const aof = aofFor(s, o.persistence, o.fsyncIntervalMs);
  const ids = Array.from({ length: o.nodes }, (_, i) => libraryNodeId(i + 1));
  const what = BUILTIN_ADAPTERS[o.adapter]?.description ?? `the adapter ${o.adapterFile}`;
  return {
    name: s.design,
    redis: ids.map((id) => ({ id, aof })),
    fencing: false,
    packages: [],
    clients: `${what}, unmodified, against ${o.nodes} redis-server${o.nodes === 1 ? "" : "s"}`,
    recipe: (eps): LibraryRecipeConfig => ({
      client: "library/real-client.js",
      kind: "library",
      adapter: o.adapter,
      adapterFile: o.adapterFile,
      addresses: eps.map((e) => `${e.host}:${e.port}`),
      options: o.options,
      ...(requireAliases ? { requireAliases } : {}),
    }),
  };
}
