// Errors of real mode's server lifecycle. Each names the server and, where it ran, ends with
// the last lines of its log so a failure is diagnosable from the message alone.

/** A binary or jar that real mode needs is not installed; the message is one line. */
export class MissingServerBinaryError extends Error {
  override readonly name = "MissingServerBinaryError";
  constructor(
    readonly binary: string,
    readonly aptPackage: string,
  ) {
    super(`${binary} not found; install it: apt-get install -y --no-install-recommends ${aptPackage}`);
  }
}

/** A server did not pass its ready check within its bound. */
export class ServerStartTimeoutError extends Error {
  override readonly name = "ServerStartTimeoutError";
  constructor(
    readonly server: string,
    readonly timeoutMs: number,
    readonly logTail: string,
    /** What the wait was for, e.g. "PING answered +PONG by pid 123 listening on :6379". */
    readonly waitedFor = "its ready check",
    /** The machine's load when the wait ran out, e.g. "load 14.20 on 2 cores". */
    readonly load = "",
  ) {
    super(`${server} not ready after ${timeoutMs} ms: waited for ${waitedFor}${load ? ` (${load})` : ""}; last log lines:\n${logTail || "(empty log)"}`);
  }
}

/** A server exited while it was expected to start (or to keep running). */
export class ServerExitedError extends Error {
  override readonly name = "ServerExitedError";
  constructor(
    readonly server: string,
    readonly exit: string,
    readonly logTail: string,
  ) {
    super(`${server} exited (${exit}) before it was ready; last log lines:\n${logTail || "(empty log)"}`);
  }
}

/** A stop/kill did not finish within its bound (the process group was SIGKILLed anyway). */
export class ServerStopTimeoutError extends Error {
  override readonly name = "ServerStopTimeoutError";
  constructor(
    readonly server: string,
    readonly timeoutMs: number,
  ) {
    super(`${server} did not exit within ${timeoutMs} ms of SIGKILL`);
  }
}
