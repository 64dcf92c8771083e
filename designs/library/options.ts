/** The library design's options: an adapter or a lock driver, its nodes and their settings. */
import { existsSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { Fields } from "../../sim/validate.js";
import { InputError } from "../../sim/errors.js";
import { PERSISTENCE_MODES, type PersistenceMode } from "../../services/redis/aof.js";
import { BUILTIN_ADAPTERS, adapterPath } from "./adapter.js";

export interface LibraryDesignOptions {
  /** The adapter's name or path; for a lock driver, its command (what messages call the lock). */
  adapter: string;
  /** The adapter module ("" for a lock driver). */
  adapterFile: string;
  /** A lock driver instead of an adapter (real mode only): its command, the folder it runs in, the file that named it. */
  lockCmd?: { command: string; cwd: string; file: string };
  nodes: number;
  basePort: number;
  options: Record<string, unknown>;
  persistence: PersistenceMode;
  fsyncIntervalMs: number;
  sweepIntervalMs: number;
}

const FIELDS = ["adapter", "lockCmd", "lockCmdCwd", "nodes", "basePort", "options", "persistence", "fsyncIntervalMs", "sweepIntervalMs"];

export const libraryNodeId = (i: number): string => `redis-${i}`;

/** A lock driver's command and folder: a command of one line, run in an existing folder. */
function parseLockCmd(f: Fields, file: string): LibraryDesignOptions["lockCmd"] {
  const command = f.string("lockCmd");
  if (/[\r\n\0]/.test(command)) f.fail("lockCmd", "expected a command on one line");
  const base = existsSync(file) ? dirname(resolve(file)) : process.cwd();
  const cwd = resolve(base, f.optString("lockCmdCwd") ?? ".");
  if (!existsSync(cwd) || !statSync(cwd).isDirectory()) f.fail("lockCmdCwd", "expected the folder the lock driver runs in (an existing directory)");
  return { command, cwd, file };
}

export function parseLibraryOptions(raw: unknown, file: string, prefix: string): LibraryDesignOptions {
  const f = Fields.root(file, raw ?? {}, prefix).only(FIELDS);
  if (f.has("adapter") === f.has("lockCmd"))
    f.fail(f.has("adapter") ? "lockCmd" : "adapter", "expected exactly one of adapter (a module) and lockCmd (a lock driver's command)");
  const lockCmd = f.has("lockCmd") ? parseLockCmd(f, file) : undefined;
  if (!lockCmd && f.has("lockCmdCwd")) f.fail("lockCmdCwd", "expected only with lockCmd");
  const adapter = lockCmd ? lockCmd.command : f.string("adapter");
  const adapterFile = lockCmd ? "" : adapterPath(adapter, file, f.field("adapter"));
  const nodes = f.number("nodes", { integer: true, min: 1, max: 15, dflt: BUILTIN_ADAPTERS[adapter]?.nodesDefault ?? 1 });
  const basePort = f.number("basePort", { integer: true, min: 1, max: 65535 - 15, dflt: 6379 });
  const options = (raw as Record<string, unknown> | undefined)?.options ?? {};
  if (options === null || typeof options !== "object" || Array.isArray(options)) {
    throw new InputError(file, f.field("options"), "an object (settings handed to the adapter)");
  }
  return {
    adapter,
    adapterFile,
    ...(lockCmd ? { lockCmd } : {}),
    nodes,
    basePort,
    options: options as Record<string, unknown>,
    persistence: f.oneOf("persistence", PERSISTENCE_MODES, "none"),
    fsyncIntervalMs: f.number("fsyncIntervalMs", { min: 1, dflt: 1000 }),
    sweepIntervalMs: f.number("sweepIntervalMs", { min: 1, dflt: 100 }),
  };
}
