/**
 * `--lock <adapter>`: run a Redis scenario on a real lock library instead of its design,
 * as `<scenario>@<adapter>` does (scenarios/with-library.ts). A built-in adapter name
 * (lockstep list) or a path to the user's own adapter module.
 */
export const LOCK_FLAG = [
  "--lock <adapter>",
  "run on a real lock library: a built-in adapter (see `lockstep list`) or a path to your own adapter module",
] as const;

export function withLockFlag(scenario: string, lock: string | undefined): string {
  return lock === undefined ? scenario : `${scenario}@${lock}`;
}

/** `--lock-cmd <command>`: run on a lock driver of any language (docs/lock-protocol.md); real mode only. */
export const LOCK_CMD_FLAG = [
  "--lock-cmd <command>",
  "run on a lock driver of any language: a command speaking lockstep's line protocol (docs/lock-protocol.md), one process per client; real mode only",
] as const;
