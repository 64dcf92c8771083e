import { fstatSync, statSync, writeSync } from "node:fs";

/**
 * Where the CLI's own output goes. In-process (tests, the API) it is process.stdout /
 * process.stderr, looked up at each write so a test's spy sees it. A fresh `lockstep`
 * process (bin/load-bundle.js calls useDirectStdio) writes straight to fds 1 and 2 with
 * writeSync: it never builds the process.stdout stream (a few ms of start-up for the
 * net/tty/stream modules behind it), and nothing is left queued when the process exits.
 */
let direct = false;
let streamed = false;

export function useDirectStdio(): void {
  direct = true;
}

/** Whether any output went through a stream (queued writes the process must wait for before exiting). */
export const wroteToStream = (): boolean => streamed;

export const writeOut = (text: string): void => write(1, text);

/**
 * Whether the CLI's output goes to a terminal (for colour). Writing straight to fd 1, a
 * pipe, a file or /dev/null is told apart with fstat, so the process.stdout stream is not
 * built just to ask (as bin/load-bundle.js does); anything else asks the stream.
 */
export function stdoutIsTerminal(): boolean {
  if (direct) {
    try {
      const st = fstatSync(1);
      if (!st.isCharacterDevice() || st.rdev === statSync("/dev/null").rdev) return false;
    } catch {
      // No fd 1, or no /dev/null: the stream decides.
    }
  }
  return process.stdout.isTTY === true;
}
export const writeErr = (text: string): void => write(2, text);

// A pipe left non-blocking by the parent can refuse a write (EAGAIN); past this many refusals
// in a row the rest goes through the stream, which waits for the pipe.
const AGAIN_RETRIES_MAX = 1000;

function write(fd: 1 | 2, text: string): void {
  if (!direct) {
    streamed = true;
    (fd === 1 ? process.stdout : process.stderr).write(text);
    return;
  }
  let buf = Buffer.from(text, "utf8");
  for (let again = 0; buf.length > 0;) {
    try {
      buf = buf.subarray(writeSync(fd, buf));
      again = 0;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      // The reader went away (`lockstep check h.jsonl | head -1`): the rest has nowhere to go.
      if (code === "EPIPE") return;
      if (code !== "EAGAIN" || ++again > AGAIN_RETRIES_MAX) {
        streamed = true;
        (fd === 1 ? process.stdout : process.stderr).write(buf);
        return;
      }
    }
  }
}
