// One real server process under the watchdog: start (spawn + ready check), pause/resume
// (SIGSTOP/SIGCONT), kill, restart on the same data dir, stop. Every wait is bounded.
import { spawn, type ChildProcess } from "node:child_process";
import { appendFileSync, closeSync, fstatSync, openSync, readFileSync, readSync } from "node:fs";
import { ServerExitedError, ServerStartTimeoutError, ServerStopTimeoutError } from "./errors.js";
import { sleepMs, waitUntil } from "./probes.js";
import { WATCHDOG_ARGV0, WATCHDOG_SCRIPT } from "./watchdog.js";

export interface ServerSpec {
  /** Unique in its group, e.g. "redis1", "etcd2", "zk3". */
  name: string;
  /** What it is, for messages: "redis-server", "etcd", "zookeeper". */
  kind: string;
  command: string;
  args: readonly string[];
  env?: Readonly<Record<string, string>>;
  cwd: string;
  logFile: string;
  /** One bounded probe: is it serving? */
  ready: () => Promise<boolean>;
  readyTimeoutMs: number;
  /** After SIGTERM, how long stop() waits before SIGKILL of the process group. */
  stopGraceMs: number;
}

export type ServerState = "stopped" | "running" | "paused" | "exited";

export interface ExitInfo {
  code: number | null;
  signal: string | null;
}

const PID_LINE_TIMEOUT_MS = 5_000;
const KILL_WAIT_MS = 3_000;
const PAUSE_CONFIRM_MS = 1_000;
const LOG_TAIL_BYTES = 16 * 1024;

function describeExit(e: ExitInfo): string {
  if (e.signal) return `signal ${e.signal}`;
  if (e.code !== null && e.code > 128) return `signal ${e.code - 128} (status ${e.code})`;
  return `code ${e.code}`;
}

function signalSafely(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined || pid <= 1) return;
  try {
    process.kill(pid, signal);
  } catch {
    /* already gone */
  }
}

function procState(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
  } catch {
    return undefined;
  }
}

export class ServerProcess {
  private child: ChildProcess | undefined;
  private serverPid: number | undefined;
  private exitInfo: ExitInfo | undefined;
  private exitedPromise: Promise<ExitInfo> = Promise.resolve({ code: null, signal: null });
  private starts = 0;
  private _state: ServerState = "stopped";
  /** Every pid this handle ever spawned (wrappers and servers), for leak checks. */
  readonly pidsEver: number[] = [];

  constructor(readonly spec: ServerSpec) {}

  get name(): string {
    return this.spec.name;
  }
  get state(): ServerState {
    return this._state;
  }
  /** The server's own pid (not the wrapper's) while it runs. */
  get pid(): number | undefined {
    return this.isLive() ? this.serverPid : undefined;
  }
  get lastExit(): ExitInfo | undefined {
    return this.exitInfo;
  }
  isLive(): boolean {
    return this._state === "running" || this._state === "paused";
  }

  private label(): string {
    return `${this.spec.name} (${this.spec.kind})`;
  }

  /** The last `lines` lines of this server's log (all its runs, newest last). */
  logTail(lines = 20): string {
    let fd: number | undefined;
    try {
      fd = openSync(this.spec.logFile, "r");
      const size = fstatSync(fd).size;
      const len = Math.min(size, LOG_TAIL_BYTES);
      const buf = Buffer.alloc(len);
      readSync(fd, buf, 0, len, size - len);
      return buf.toString("utf8").split("\n").filter((l) => l.length > 0).slice(-lines).join("\n");
    } catch {
      return "";
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  }

  /** Spawn under the watchdog and wait for its ready check. Throws named errors, bounded. */
  async start(): Promise<void> {
    await this.spawnProcess();
    await this.waitReady();
  }

  /** Spawn only; resolves once the server's pid is known. */
  async spawnProcess(): Promise<void> {
    if (this.isLive()) throw new Error(`${this.label()} is already running`);
    this.starts += 1;
    appendFileSync(this.spec.logFile, `--- lockstep: start #${this.starts} of ${this.spec.name} ---\n`);
    const child = spawn("/bin/sh", ["-c", WATCHDOG_SCRIPT, WATCHDOG_ARGV0, this.spec.logFile, this.spec.command, ...this.spec.args], {
      cwd: this.spec.cwd,
      env: { ...process.env, ...this.spec.env },
      detached: true,
      stdio: ["pipe", "pipe", "ignore"],
    });
    this.child = child;
    this.exitInfo = undefined;
    if (child.pid !== undefined) this.pidsEver.push(child.pid);
    this.exitedPromise = new Promise<ExitInfo>((resolve) => {
      child.once("exit", (code, signal) => {
        const info: ExitInfo = { code, signal };
        this.exitInfo = info;
        this._state = "exited";
        child.stdin?.destroy(); // closes the watchdog pipe: the watcher kills anything left
        signalSafely(child.pid === undefined ? undefined : -child.pid, "SIGKILL");
        resolve(info);
      });
    });
    child.once("error", () => {
      /* reported through 'exit' or the pid-line timeout */
    });
    // Unref'd: a forgotten server never keeps the driver alive; the 'exit' hook kills it.
    child.unref();
    (child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
    (child.stdout as unknown as { unref?: () => void } | null)?.unref?.();

    const pid = await new Promise<number>((resolve, reject) => {
      let text = "";
      const timer = setTimeout(() => fail(new ServerStartTimeoutError(this.label(), PID_LINE_TIMEOUT_MS, this.logTail())), PID_LINE_TIMEOUT_MS);
      const onData = (chunk: Buffer) => {
        text += chunk.toString("utf8");
        const nl = text.indexOf("\n");
        if (nl >= 0) {
          cleanup();
          const n = Number(text.slice(0, nl).trim());
          if (Number.isInteger(n) && n > 1) resolve(n);
          else reject(new Error(`${this.label()}: watchdog printed no pid (${JSON.stringify(text)})`));
        }
      };
      const onExit = () => fail(new ServerExitedError(this.label(), describeExit(this.exitInfo ?? { code: null, signal: null }), this.logTail()));
      const cleanup = () => {
        clearTimeout(timer);
        child.stdout?.off("data", onData);
        child.off("exit", onExit);
      };
      const fail = (err: Error) => {
        cleanup();
        this.killGroupSync();
        reject(err);
      };
      child.stdout?.on("data", onData);
      child.once("exit", onExit);
    });
    this.serverPid = pid;
    this.pidsEver.push(pid);
    if (this.exitInfo === undefined) this._state = "running";
  }

  /** Bounded wait for the ready check; a server that exits meanwhile fails at once. */
  async waitReady(timeoutMs = this.spec.readyTimeoutMs): Promise<void> {
    try {
      await waitUntil({
        probe: this.spec.ready,
        timeoutMs,
        check: () => {
          if (!this.isLive()) {
            throw new ServerExitedError(this.label(), describeExit(this.exitInfo ?? { code: null, signal: null }), this.logTail());
          }
        },
        onTimeout: () => new ServerStartTimeoutError(this.label(), timeoutMs, this.logTail()),
      });
    } catch (err) {
      this.killGroupSync();
      throw err;
    }
  }

  /** SIGSTOP the server (a process pause); resolves once the kernel reports it stopped. */
  async pause(): Promise<void> {
    if (!this.isLive() || this.serverPid === undefined) throw new Error(`${this.label()} is not running`);
    process.kill(this.serverPid, "SIGSTOP");
    this._state = "paused";
    const deadline = Date.now() + PAUSE_CONFIRM_MS;
    while (Date.now() < deadline) {
      const s = procState(this.serverPid);
      if (s === undefined || s === "T" || s === "t") return;
      await sleepMs(5);
    }
  }

  /** SIGCONT the server. */
  resume(): void {
    if (!this.isLive() || this.serverPid === undefined) throw new Error(`${this.label()} is not running`);
    process.kill(this.serverPid, "SIGCONT");
    this._state = "running";
  }

  /**
   * Send `signal` to the server (default SIGKILL: a crash) and wait for it to exit. Non-KILL
   * signals escalate to SIGKILL of the process group after the grace period. Data dir stays.
   */
  async kill(signal: NodeJS.Signals = "SIGKILL"): Promise<ExitInfo> {
    if (!this.isLive()) return this.exitInfo ?? { code: null, signal: null };
    signalSafely(this.serverPid, signal);
    if (signal !== "SIGKILL" && this._state === "paused") signalSafely(this.serverPid, "SIGCONT");
    // Let the wrapper reap the server (and its watcher) itself; SIGKILL the group only if not.
    const first = await this.exitWithin(signal === "SIGKILL" ? KILL_WAIT_MS : this.spec.stopGraceMs);
    if (first) return first;
    this.killGroupSync();
    const done = await this.exitWithin(KILL_WAIT_MS);
    if (!done) throw new ServerStopTimeoutError(this.label(), KILL_WAIT_MS);
    return done;
  }

  /** Kill (SIGKILL) if running, then start again with the same command, ports and data dir. */
  async restart(): Promise<void> {
    await this.kill("SIGKILL");
    await this.start();
  }

  /** Graceful stop: SIGTERM, then SIGKILL of the process group after stopGraceMs. */
  async stop(): Promise<void> {
    await this.kill("SIGTERM");
  }

  /** Last resort, synchronous (for process 'exit'): SIGKILL the server and its wrapper group. */
  killGroupSync(): void {
    if (this.child === undefined || this.exitInfo !== undefined) return;
    signalSafely(this.serverPid, "SIGKILL");
    signalSafely(this.child.pid === undefined ? undefined : -this.child.pid, "SIGKILL");
    this.child.stdin?.destroy();
  }

  private async exitWithin(ms: number): Promise<ExitInfo | undefined> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<undefined>((r) => (timer = setTimeout(() => r(undefined), ms)));
    try {
      return await Promise.race([this.exitedPromise, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }
}
