// Process-wide hooks that stop every live ServerGroup whatever way the driver ends:
// SIGINT/SIGTERM (stop all, bounded, then exit 130 / 143), and process 'exit' (synchronous
// SIGKILL of every server group as the last resort). Installed once, when the first group
// goes live; removed when the last one is stopped, so the default signal behaviour returns.

export interface StoppableGroup {
  stop(): Promise<void>;
  killAllSync(): void;
}

/** How long a signal-triggered stop may take before everything is SIGKILLed anyway. */
export const SIGNAL_STOP_BOUND_MS = 5_000;

const live = new Set<StoppableGroup>();
let installed = false;
let handlingSignal = false;
let signalled: NodeJS.Signals | undefined;

function killEverySync(): void {
  for (const g of live) g.killAllSync();
}

function onExit(): void {
  killEverySync();
}

function onSignal(signal: NodeJS.Signals): void {
  const code = signal === "SIGINT" ? 130 : 143;
  if (handlingSignal) {
    // A second signal: do not wait any longer.
    killEverySync();
    process.exit(code);
  }
  handlingSignal = true;
  signalled = signal;
  process.stderr.write(`lockstep: ${signal}: stopping ${live.size} server group(s)\n`);
  const hard = setTimeout(() => {
    killEverySync();
    process.exit(code);
  }, SIGNAL_STOP_BOUND_MS);
  void Promise.allSettled([...live].map((g) => g.stop())).finally(() => {
    clearTimeout(hard);
    killEverySync();
    process.exit(code);
  });
}

function install(): void {
  if (installed) return;
  installed = true;
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  process.on("exit", onExit);
}

function uninstall(): void {
  if (!installed || handlingSignal) return;
  installed = false;
  process.off("SIGINT", onSignal);
  process.off("SIGTERM", onSignal);
  process.off("exit", onExit);
}

export function registerLive(group: StoppableGroup): void {
  live.add(group);
  install();
}

export function unregisterLive(group: StoppableGroup): void {
  live.delete(group);
  if (live.size === 0) uninstall();
}

/** For tests: are the hooks in place? */
export function hooksInstalled(): boolean {
  return installed;
}

/** The signal (SIGINT/SIGTERM) that is stopping every group, if one is: a run that ends now was stopped, not crashed. */
export function stoppedBySignal(): NodeJS.Signals | undefined {
  return signalled;
}
