/**
 * Process checks shared by the real-mode tests: is a pid gone, what did a driver spawn,
 * wait (bounded) for a condition, start a driver script and wait until its run began, and
 * start the CLI with its output collected.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { LoadTolerantDeadline, loadNote, loadTolerantMs } from "../../real/servers/deadlines.js";

/** ESRCH, or a zombie waiting for a reaper that is not ours: either way not running. */
export function isGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ESRCH";
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) === "Z";
  } catch {
    return true;
  }
}

/** Every live descendant of `pid` (the watchdogs run in their own sessions but stay its children). */
export function descendants(pid: number): number[] {
  const rows = execFileSync("ps", ["-eo", "pid=,ppid="], { encoding: "utf8" })
    .trim()
    .split("\n")
    .map((l) => l.trim().split(/\s+/).map(Number) as [number, number]);
  const out: number[] = [];
  const queue = [pid];
  for (let i = 0; i < queue.length && i < 10_000; i++) {
    for (const [p, pp] of rows) {
      if (pp === queue[i] && !queue.includes(p)) {
        queue.push(p);
        out.push(p);
      }
    }
  }
  return out;
}

/** Wait for `cond`, polling every `pollMs`; throws naming `what` after base `timeoutMs`, stretched by the machine's load. */
export async function until(what: string, cond: () => boolean, timeoutMs: number, pollMs = 25): Promise<void> {
  const deadline = new LoadTolerantDeadline(timeoutMs);
  while (!cond()) {
    if (deadline.expired()) throw new Error(`${what}: not within ${deadline.elapsedMs()} ms (${loadNote()})`);
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

export interface StartedDriver {
  child: ChildProcess;
  /** The exit code, once it exits. */
  exited: Promise<number | null>;
  /** Its stderr so far. */
  stderr: () => string;
}

/**
 * Run `driver` (a .mts calling the CLI's main) under tsx with its own TMPDIR, and wait
 * until it prints "run 1/1 started"; rejects if it exits first or does not start in time.
 */
export async function startDriver(driver: string, cwd: string, tmp: string, startTimeoutMs: number): Promise<StartedDriver> {
  const child = spawn(process.execPath, ["--import", "tsx", driver], { cwd, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, TMPDIR: tmp } });
  let stderr = "";
  const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
  await new Promise<void>((started, reject) => {
    const boundMs = loadTolerantMs(startTimeoutMs);
    const timer = setTimeout(() => reject(new Error(`no start within ${boundMs} ms (${loadNote()}); stderr: ${stderr}`)), boundMs);
    child.stderr!.on("data", (c: Buffer) => {
      stderr += c.toString();
      if (/run 1\/1 started/.test(stderr)) {
        clearTimeout(timer);
        started();
      }
    });
    void exited.then((code) => reject(new Error(`driver exited early (${code}): ${stderr}`)));
  });
  return { child, exited, stderr: () => stderr };
}

/** The lockstep CLI from sources, started with its own TMPDIR; what it printed so far, and its exit code. */
export interface StartedCli {
  child: ChildProcess;
  printed: { stdout: string; stderr: string };
  exited: Promise<number | null>;
}

export function startCli(cliChild: string, args: string[], cwd: string, tmp: string): StartedCli {
  const child = spawn(process.execPath, ["--import", "tsx", cliChild, ...args], {
    cwd,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, TMPDIR: tmp },
  });
  const printed = { stdout: "", stderr: "" };
  child.stderr!.on("data", (c: Buffer) => (printed.stderr += c.toString()));
  child.stdout!.on("data", (c: Buffer) => (printed.stdout += c.toString()));
  const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
  return { child, printed, exited };
}
