/**
 * Run a Redis-family scenario on a lock driver of any language (docs/lock-protocol.md):
 * `lockstep real naive-gc-pause --lock-cmd "python3 driver.py"`. As `--lock` does for an
 * adapter (with-library.ts): the scenario keeps its clients, workload, faults and `expect`;
 * its design becomes `library` with as many nodes as the original, under the same ids, and
 * the node settings the original's design declares carried over. The command runs in `cwd`
 * (where the user typed it). Real mode only: the simulator refuses a lock driver.
 */
import { InputError } from "../sim/errors.js";
import type { Scenario } from "./schema.js";
import { library } from "../designs/library/design.js";
import { DESIGNS, profileOf } from "../designs/index.js";

/** What a scenario's name gets when --lock-cmd puts it on a lock driver. */
export const LOCK_CMD_SUFFIX = "@lock-cmd";

export function withLockDriver(s: Scenario, command: string, cwd: string, field = "--lock-cmd"): Scenario {
  if (command.trim().length === 0 || /[\r\n\0]/.test(command)) throw new InputError("<arg>", field, 'a command on one line, e.g. "python3 driver.py"');
  const standIn = profileOf(s.design, s.designOptions, s.file).onLibrary;
  if (!standIn) {
    const redis = DESIGNS.filter((d) => d.family === "redis-nodes").map((d) => d.name);
    throw new InputError("<arg>", field, `a scenario of a Redis design (${redis.join(", ")}); "${s.name}" runs design ${s.design}`);
  }
  const { adapter: _adapter, lockCmd: _cmd, lockCmdCwd: _cwd, ...carried } = standIn.options((s.designOptions ?? {}) as Record<string, unknown>);
  const designOptions: Record<string, unknown> = { ...carried, lockCmd: command, lockCmdCwd: cwd, nodes: standIn.nodes };
  const { lock: _lock, ...rest } = s;
  return { ...rest, name: `${s.name}${LOCK_CMD_SUFFIX}`, title: `${s.title} [${command}]`, design: library.name, designOptions };
}
