// One lock driver process (docs/lock-protocol.md), started by a real client process: the
// user's command run by /bin/sh in a session of its own, so its process group is the
// driver and every child it starts — a pause stops the whole group (real/servers'
// ServerProcess stops it with the client process), a crash or the run's end kills it.
//
// A watcher (/bin/sh, in a session of its own) reads a pipe whose only writer is this
// process: when this process dies, however (the run's end, a SIGKILL of the whole run), it
// reads EOF and SIGKILLs the driver's group — even a driver stopped in a pause, which could
// not notice anything by itself. Real mode only: host processes and pipes are the point.
import { spawn, type ChildProcess } from "node:child_process";
import { DriverProtocolError, parseReplyLine, type DriverOp, type DriverReply } from "./driver-protocol.js";

const WATCHER_SCRIPT = 'read -r pg; while read -r _; do :; done; kill -s KILL -- -"$pg" 2>/dev/null';
/** Longest stderr line kept for a failure message. */
const STDERR_LINE_CHARS_MAX = 300;
/** A garbage line is quoted up to this many characters. */
const QUOTE_CHARS_MAX = 120;
/** After its stdout ends, how long its exit may take to be seen before the closed stdout is the failure, ms. */
const EXIT_AFTER_EOF_MS = 1_000;
/** Longest line accepted from the driver; a longer one is not the protocol (never an unbounded buffer). */
const LINE_CHARS_MAX = 1 << 20;

/** Splits a stream into lines; push() returns the bound when the unfinished line passes it (the rest is dropped). */
class Lines {
  private buf = "";
  constructor(private readonly onLine: (line: string) => void) {}

  push(chunk: string): number | undefined {
    this.buf += chunk;
    for (let nl = this.buf.indexOf("\n"); nl >= 0; nl = this.buf.indexOf("\n")) {
      const line = this.buf.slice(0, nl);
      this.buf = this.buf.slice(nl + 1);
      if (line.trim().length > 0) this.onLine(line);
    }
    if (this.buf.length <= LINE_CHARS_MAX) return undefined;
    this.buf = "";
    return LINE_CHARS_MAX;
  }
}

interface Pending {
  op: DriverOp;
  resolve: (r: DriverReply) => void;
  reject: (e: Error) => void;
}

/** The driver failed as a process (died, printed what is not the protocol, closed its stdout): one line saying so. */
export class DriverFailedError extends Error {}

function quote(line: string): string {
  return JSON.stringify(line.length > QUOTE_CHARS_MAX ? `${line.slice(0, QUOTE_CHARS_MAX)}…` : line);
}

export class DriverProcess {
  readonly pid: number;
  private readonly child: ChildProcess;
  private readonly watcher: ChildProcess;
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  private stdoutLines = 0;
  private lastStderr = "";
  private failure: DriverFailedError | undefined;
  private exited = false;
  /** Killed by us (the run's end): its exit is no failure. */
  private closing = false;
  /** Told once, the first time the driver fails (the run stops on it). */
  onFailure?: (err: DriverFailedError) => void;

  constructor(
    /** The user's command, for messages. */
    readonly command: string,
    cwd: string,
    env: NodeJS.ProcessEnv,
  ) {
    this.child = spawn("/bin/sh", ["-c", command], { cwd, env, detached: true, stdio: ["pipe", "pipe", "pipe"] });
    if (this.child.pid === undefined) throw new DriverFailedError(`its lock driver \`${command}\` could not be started (/bin/sh in ${cwd})`);
    this.pid = this.child.pid;
    this.watcher = spawn("/bin/sh", ["-c", WATCHER_SCRIPT, "lockstep-driver-watcher"], { detached: true, stdio: ["pipe", "ignore", "ignore"] });
    this.watcher.stdin!.on("error", () => {});
    this.watcher.stdin!.write(`${this.pid}\n`);
    this.watcher.unref();
    this.wire();
  }

  private wire(): void {
    const c = this.child;
    c.stdin!.on("error", () => {}); // a dead driver's pipe: its exit is reported instead
    const lines = new Lines((line) => this.onLine(line));
    c.stdout!.setEncoding("utf8");
    c.stdout!.on("data", (chunk: string) => {
      const tooLong = lines.push(chunk);
      if (tooLong) this.fail(`printed a line longer than ${tooLong} characters on its stdout (line ${this.stdoutLines + 1})`);
    });
    // Its exit usually follows at once, and says more (a code, a signal): wait a moment for it.
    c.stdout!.on("end", () => {
      setTimeout(() => {
        if (!this.exited) this.fail("closed its stdout and kept running");
      }, EXIT_AFTER_EOF_MS).unref();
    });
    const errLines = new Lines((line) => {
      if (line.trim()) this.lastStderr = line.slice(0, STDERR_LINE_CHARS_MAX);
      process.stderr.write(`[lock driver] ${line}\n`);
    });
    c.stderr!.setEncoding("utf8");
    c.stderr!.on("data", (chunk: string) => void errLines.push(chunk));
    c.on("error", (err) => this.fail(`could not be run: ${err.message}`));
    c.on("exit", (code, signal) => {
      this.exited = true;
      this.watcher.kill("SIGKILL"); // the group is gone: nothing left for it to kill, and its pid must not be signalled later
      this.fail(signal ? `was killed by ${signal}` : `exited with code ${code}`);
    });
  }

  private onLine(line: string): void {
    this.stdoutLines++;
    let reply: DriverReply;
    try {
      reply = parseReplyLine(line);
    } catch (err) {
      return this.fail(this.notProtocol(line, (err as Error).message));
    }
    const p = this.pending.get(reply.id);
    if (!p) return this.fail(this.notProtocol(line, "it answers no request lockstep is waiting on (an unknown id, or one answered before)"));
    this.pending.delete(reply.id);
    p.resolve(reply);
  }

  private notProtocol(line: string, why: string): string {
    return `printed a line that is not the protocol's (line ${this.stdoutLines} of its stdout: ${quote(line)}): ${why}`;
  }

  /** The driver failed: the run stops on the first failure; every outstanding request rejects with it. */
  private fail(what: string): void {
    if (this.failure || this.closing) return;
    const tail = this.lastStderr ? `; its last stderr line: ${quote(this.lastStderr)}` : "";
    this.failure = new DriverFailedError(`its lock driver \`${this.command}\` ${what}${tail}`);
    for (const p of this.pending.values()) p.reject(this.failure);
    this.pending.clear();
    this.onFailure?.(this.failure);
  }

  /** Whether it has failed (then every request rejects at once). */
  get failed(): DriverFailedError | undefined {
    return this.failure;
  }

  /** A failure made by the caller (a reply with the wrong fields, an init not answered). */
  failWith(what: string): DriverFailedError {
    this.fail(what);
    return this.failure ?? new DriverFailedError(`its lock driver \`${this.command}\` ${what}`);
  }

  /** Send one request; resolves with its reply line (which may carry an `error`). */
  request(op: DriverOp, args: Record<string, unknown>): Promise<DriverReply> {
    if (this.failure) return Promise.reject(this.failure);
    const id = ++this.nextId;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { op, resolve, reject });
      this.child.stdin!.write(JSON.stringify({ id, op, ...args }) + "\n");
    });
  }

  /** Read a reply's fields by `read`; a reply without them is not the protocol, and fails the driver. */
  check<T>(reply: DriverReply, op: DriverOp, read: (body: Record<string, unknown>) => T): T {
    try {
      return read(reply.body);
    } catch (err) {
      if (!(err instanceof DriverProtocolError)) throw err;
      throw this.failWith(this.notProtocol(JSON.stringify(reply.body), `as the reply to ${op}: ${err.message}`));
    }
  }

  /** SIGKILL the driver's whole group (the run's end; its watcher would do it too). */
  kill(): void {
    this.closing = true;
    try {
      process.kill(-this.pid, "SIGKILL");
    } catch {
      /* already gone */
    }
    this.watcher.kill("SIGKILL");
  }
}
