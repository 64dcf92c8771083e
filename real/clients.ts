// Client processes of a real run: one Node process per scenario client, so a pause can
// freeze one client whole (its timers, its sockets, its reply handling) with SIGSTOP.
// They are members of the run's ServerGroup, so everything that stops servers stops them
// too: group.stop(), the SIGINT/SIGTERM handlers, the process-exit hook, and the
// stdin-pipe watchdog that SIGKILLs them if the driver itself is SIGKILLed (a stopped
// client could not notice its driver's death on its own).
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { ServerGroup, ServerProcess } from "./servers/index.js";

const require = createRequire(import.meta.url);

/** node arguments that run real/child/main: the compiled file from dist/, or the TypeScript source through tsx. */
export function childEntryArgs(): string[] {
  const fromSources = import.meta.url.endsWith(".ts");
  const entry = fileURLToPath(new URL(fromSources ? "./child/main.ts" : "./child/main.js", import.meta.url));
  if (!fromSources) return [entry];
  return ["--import", pathToFileURL(require.resolve("tsx/esm")).href, entry];
}

export const CLIENT_READY_TIMEOUT_MS = 30_000;

/** A client's own dir in the run's temp dir (its log; its libfaketime file). */
export function clientDir(group: ServerGroup, index: number): string {
  return group.serverDir(`client-${index + 1}`);
}

export function addClientProcess(
  group: ServerGroup,
  index: number,
  clientId: string,
  control: { port: number; secret: string },
  isReady: () => boolean,
  /** More environment (libfaketime's, for a client with a faked clock). */
  env?: Readonly<Record<string, string>>,
): ServerProcess {
  // Directory names come from an index, not from the scenario's client id (any string).
  const name = `client-${index + 1}`;
  const dir = clientDir(group, index);
  return group.add({
    name,
    kind: `lockstep client ${clientId}`,
    command: process.execPath,
    args: [...childEntryArgs(), String(control.port), clientId, control.secret],
    cwd: dir,
    logFile: join(dir, "client.log"),
    ready: () => Promise.resolve(isReady()),
    readyWhat: "its hello on the control connection, its config (sent once the servers are up) and its ready with the packages it loaded",
    readyTimeoutMs: CLIENT_READY_TIMEOUT_MS,
    stopGraceMs: 500,
    ...(env ? { env } : {}),
  });
}
