// Failures of a real run that are not the user's input: a client process that died, a
// server that exited mid-run, a broken run invariant. The CLI prints them as one line
// (plus the process's last log lines) and exits 1; no stack trace.
export class RealRunError extends Error {
  override readonly name = "RealRunError";
  constructor(
    message: string,
    /** The last log lines of the process concerned, if any. */
    readonly logTail = "",
  ) {
    super(message);
  }
}
