// One real server process under the watchdog: start (spawn + ready check), pause/resume
// (SIGSTOP/SIGCONT), kill, restart on the same data dir, stop. Every wait is bounded.
import { spawn, type ChildProcess } from "node:child_process";
import { appendFileSync, closeSync, fstatSync, openSync, readdirSync, readFileSync, readSync } from "node:fs";
import { ServerExitedError, ServerStartTimeoutError, ServerStopTimeoutError } from "./errors.js";
import { LoadTolerantDeadline, loadNote } from "./deadlines.js";
import { pidListensOn } from "./ports.js";
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
  /** Base bound of the ready wait, stretched by the machine's load (deadlines.ts). */
  readyTimeoutMs: number;
  /** What the ready check waits for, for the message when it runs out (e.g. "PING answered +PONG"). */
  readyWhat?: string;
  /** Ports the server must itself be listening on before it counts as ready (not a foreign process on them). */
  listenPorts?: readonly number[];
  /**
   * The server could not bind its port (a process took it after lockstep chose it): give the
   * spec's port-dependent parts for a fresh port, and start() tries again (at most BIND_ATTEMPTS times).
   */
  rebind?: () => Promise<Pick<ServerSpec, "kind" | "args" | "ready" | "listenPorts">>;
  /** After SIGTERM, how long stop() waits before SIGKILL of the process group. */
  stopGraceMs: number;
}

export type ServerState = "stopped" | "running" | "paused" | "exited";

/** A start that found its port taken by another process (between lockstep's choice and the bind) and took a fresh one. */
export interface PortMove {
  fromPorts: number[];
  toPorts: number[];
}

export interface ExitInfo {
  code: number | null;
  signal: string | null;
}

/** Base bound for the watchdog's pid line: one fork of /bin/sh, slow only on a loaded machine. */
const PID_LINE_TIMEOUT_MS = 10_000;
const BIND_ATTEMPTS = 4;
/** How redis-server, etcd (Go) and ZooKeeper (Java) say their port was taken. */
const BIND_FAILURE = /address already in use|EADDRINUSE|BindException/i;
const KILL_WAIT_MS = 3_000;
const PAUSE_CONFIRM_MS = 1_000;
const LOG_TAIL_BYTES = 16 * 1024;

function describeExit(e: ExitInfo): string {
  if (e.signal) return `signal ${e.signal}`;
  if (e.code !== null && e.code > 128) return `signal ${e.code - 128} (status ${e.code})`;
  return `code ${e.code}`;
}

/** Signal a pid, or a process group by its negated id; never 0, 1 or -1 (this group, init, everyone). */
function signalSafely(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined || Math.abs(pid) <= 1) return;
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

/** Signal a whole process group (its leader's pid is its id). */
function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  signalSafely(-pgid, signal);
}

/** Stopped by a signal, or gone or a zombie (nothing left to run). */
const stoppedOrGone = (pid: number): boolean => {
  const s = procState(pid);
  return s === undefined || s === "T" || s === "t" || s === "Z" || s === "X";
};

/** Live members of process group `pgid` (field 5 of /proc/<pid>/stat). */
export function groupMembers(pgid: number): number[] {
  const out: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]) === pgid) out.push(Number(entry));
    } catch {
      /* gone */
    }
  }
  return out;
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
  /** Each time start() found its port taken and moved on: the ports before and after (a run records them). */
  readonly portMoves: PortMove[] = [];
  /** Process groups this process started that are part of it (a lock driver's): paused, resumed and killed with it. */
  private readonly groups = new Set<number>();
  /** Their members when last stopped (a stopped group forks nothing new): what a pause waits to see stopped. */
  private groupPids: number[] = [];

  constructor(
    private _spec: ServerSpec,
    /** Told every pid this handle spawns (the group's owner record keeps them). */
    private readonly onPid: (pid: number) => void = () => {},
  ) {}

  get spec(): ServerSpec {
    return this._spec;
  }

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
      return buf
        .toString("utf8")
        .split("\n")
        .filter((l) => l.length > 0)
        .slice(-lines)
        .join("\n");
    } catch {
      return "";
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  }

  /** Spawn under the watchdog and wait for its ready check. Throws named errors, bounded. */
  async start(): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.spawnProcess();
        await this.waitReady();
        return;
      } catch (err) {
        if (!(err instanceof ServerExitedError) || !this._spec.rebind || attempt >= BIND_ATTEMPTS || !this.failedToBind()) throw err;
        appendFileSync(this._spec.logFile, `--- lockstep: ${this._spec.name} could not bind its port; trying a fresh one ---\n`);
        const fromPorts = [...(this._spec.listenPorts ?? [])];
        this._spec = { ...this._spec, ...(await this._spec.rebind()) };
        this.portMoves.push({ fromPorts, toPorts: [...(this._spec.listenPorts ?? [])] });
      }
    }
  }

  /** Did the latest start of this server fail to bind (its log since the start marker says so)? */
  private failedToBind(): boolean {
    const tail = this.logTail(60);
    const since = tail.lastIndexOf("--- lockstep: start #");
    return BIND_FAILURE.test(since >= 0 ? tail.slice(since) : tail);
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
    if (child.pid !== undefined) this.recordPid(child.pid);
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

    const pid = await this.readPidLine(child);
    this.serverPid = pid;
    this.recordPid(pid);
    if (this.exitInfo === undefined) this._state = "running";
  }

  /** The watchdog's first stdout line: the server's pid (bounded; the server exiting first fails it). */
  private readPidLine(child: ChildProcess): Promise<number> {
    return new Promise<number>((resolve, reject) => {
      let text = "";
      const deadline = new LoadTolerantDeadline(PID_LINE_TIMEOUT_MS);
      let timer: NodeJS.Timeout;
      const arm = () => {
        timer = setTimeout(() => {
          if (!deadline.expired()) return arm();
          fail(new ServerStartTimeoutError(this.label(), deadline.elapsedMs(), this.logTail(), "the pid line of its watchdog (/bin/sh)", loadNote()));
        }, deadline.remainingMs());
      };
      arm();
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
  }

  /** Bounded wait for the ready check; a server that exits meanwhile fails at once. */
  async waitReady(timeoutMs = this.spec.readyTimeoutMs): Promise<void> {
    const ports = this.spec.listenPorts ?? [];
    const what = `${this.spec.readyWhat ?? "its ready check"}${ports.length ? `, from pid ${this.serverPid} itself listening on ${ports.map((p) => `:${p}`).join(", ")}` : ""}`;
    try {
      await waitUntil({
        probe: async () => (await this.spec.ready()) && ports.every((p) => this.serverPid !== undefined && pidListensOn(this.serverPid, p)),
        timeoutMs,
        check: () => {
          if (!this.isLive()) {
            throw new ServerExitedError(this.label(), describeExit(this.exitInfo ?? { code: null, signal: null }), this.logTail());
          }
        },
        onTimeout: (waitedMs) => new ServerStartTimeoutError(this.label(), waitedMs, this.logTail(), what, loadNote()),
      });
    } catch (err) {
      this.killGroupSync();
      throw err;
    }
  }

  /**
   * A process group this process started (a lock driver and its children), its leader's pid
   * being the group id: from now on paused, resumed and killed with this process.
   */
  adoptGroup(pgid: number): void {
    if (pgid <= 1 || this.groups.has(pgid)) return;
    this.groups.add(pgid);
    this.recordPid(pgid);
  }

  /**
   * SIGSTOP the server and the groups it adopted (a process pause: the whole client, its lock
   * driver too); resolves once the kernel reports every one of them stopped, or after a bound.
   */
  async pause(): Promise<void> {
    if (!this.isLive() || this.serverPid === undefined) throw new Error(`${this.label()} is not running`);
    for (const g of this.groups) signalGroup(g, "SIGSTOP");
    process.kill(this.serverPid, "SIGSTOP");
    this._state = "paused";
    this.groupPids = [...this.groups].flatMap(groupMembers);
    const deadline = Date.now() + PAUSE_CONFIRM_MS;
    while (Date.now() < deadline && !this.isStopped()) await sleepMs(5);
  }

  /** Does the kernel show the server, and every member of each group it adopted, stopped? */
  isStopped(): boolean {
    if (this.serverPid === undefined || !this.isLive()) return false;
    const s = procState(this.serverPid);
    if (s !== "T" && s !== "t") return false;
    return this.groupPids.every(stoppedOrGone);
  }

  /** SIGCONT the server and the groups it adopted. */
  resume(): void {
    if (!this.isLive() || this.serverPid === undefined) throw new Error(`${this.label()} is not running`);
    for (const g of this.groups) signalGroup(g, "SIGCONT");
    process.kill(this.serverPid, "SIGCONT");
    this._state = "running";
  }

  /**
   * Send `signal` to the server (default SIGKILL: a crash) and wait for it to exit. Non-KILL
   * signals escalate to SIGKILL of the process group after the grace period. Data dir stays.
   */
  async kill(signal: NodeJS.Signals = "SIGKILL"): Promise<ExitInfo> {
    this.killGroups();
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
    this.killGroups();
    if (this.child === undefined || this.exitInfo !== undefined) return;
    signalSafely(this.serverPid, "SIGKILL");
    signalSafely(this.child.pid === undefined ? undefined : -this.child.pid, "SIGKILL");
    this.child.stdin?.destroy();
  }

  /** The adopted groups go with their process, whatever it is stopped for (their data is nobody's). */
  private killGroups(): void {
    for (const g of this.groups) signalGroup(g, "SIGKILL");
    this.groups.clear();
  }

  private recordPid(pid: number): void {
    this.pidsEver.push(pid);
    this.onPid(pid);
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
