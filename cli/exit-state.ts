/**
 * The exit code a command's action decided. Actions (every command in cli/commands/) call `setExitCode` instead of
 * touching process.exitCode, so `main()` can run in-process (tests) and return it.
 */
let code = 0;

export function setExitCode(n: number): void {
  code = n;
}

export function takeExitCode(): number {
  const n = code;
  code = 0;
  return n;
}
