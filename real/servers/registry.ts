// The run-owned record of a real run's temp dir and processes, and the sweep that removes
// what dead runs left. Each ServerGroup writes owner.json in its dir (the driver's pid and
// start time, every pid it spawned); a run whose owner is gone (a SIGKILLed driver never
// reaches its own clean-up) is swept by the next group made in the same parent dir and by
// `lockstep real --clean`: its processes (any whose cwd lies in its dir) SIGKILLed, its dir removed.
import { readdirSync, readFileSync, readlinkSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const RUN_DIR_PREFIX = "lockstep-real-";
export const OWNER_FILE = "owner.json";
/** mkdtemp's names for RUN_DIR_PREFIX (six random characters): not a test's "lockstep-real-mode-test-…" scratch dir. */
const RUN_DIR_NAME = /^lockstep-real-[A-Za-z0-9]{6}$/;
/** A dir without owner.json younger than this may be a group still writing it: left alone. */
const UNOWNED_GRACE_MS = 10 * 60_000;

export interface OwnerRecord {
  ownerPid: number;
  /** The owner's start time in clock ticks since boot (/proc/<pid>/stat field 22): a reused pid is not the owner. */
  ownerStart: string;
  createdAt: string;
  pids: number[];
}

export interface SweepResult {
  removedDirs: string[];
  killedPids: number[];
}

/** Field 22 of /proc/<pid>/stat (start time), or undefined when the process is gone. */
export function procStartTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
  } catch {
    return undefined;
  }
}

export function newOwnerRecord(): OwnerRecord {
  return { ownerPid: process.pid, ownerStart: procStartTime(process.pid) ?? "", createdAt: new Date().toISOString(), pids: [] };
}

/** Write owner.json atomically (a sweep never reads half a record). */
export function writeOwnerRecord(dir: string, rec: OwnerRecord): void {
  const tmp = join(dir, `${OWNER_FILE}.tmp`);
  writeFileSync(tmp, JSON.stringify(rec) + "\n");
  renameSync(tmp, join(dir, OWNER_FILE));
}

function readOwnerRecord(dir: string): OwnerRecord | undefined {
  try {
    const r = JSON.parse(readFileSync(join(dir, OWNER_FILE), "utf8")) as OwnerRecord;
    return Number.isInteger(r.ownerPid) && Array.isArray(r.pids) ? r : undefined;
  } catch {
    return undefined;
  }
}

/** Is the run that made `dir` still alive (its owner pid runs, and is the same process)? */
function ownerAlive(dir: string): boolean {
  const rec = readOwnerRecord(dir);
  if (!rec) {
    try {
      return Date.now() - statSync(dir).mtimeMs < UNOWNED_GRACE_MS;
    } catch {
      return false;
    }
  }
  const start = procStartTime(rec.ownerPid);
  return start !== undefined && (rec.ownerStart === "" || start === rec.ownerStart);
}

/** Pids of live processes whose working directory lies in `dir` (servers, clients, watchdogs all run there). */
export function processesIn(dir: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cwd = readlinkSync(`/proc/${entry}/cwd`);
      if (cwd === dir || cwd.startsWith(dir + "/")) pids.push(Number(entry));
    } catch {
      /* gone, or not ours to read */
    }
  }
  return pids;
}

/** Remove every dead run's processes and dir under `parentDir`. Never touches a live run's. */
export function sweepDeadRuns(parentDir: string): SweepResult {
  const result: SweepResult = { removedDirs: [], killedPids: [] };
  let entries: string[];
  try {
    entries = readdirSync(parentDir).filter((e) => RUN_DIR_NAME.test(e));
  } catch {
    return result;
  }
  for (const e of entries) {
    const dir = join(parentDir, e);
    if (ownerAlive(dir)) continue;
    for (const pid of processesIn(dir)) {
      try {
        process.kill(pid, "SIGKILL");
        result.killedPids.push(pid);
      } catch {
        /* already gone */
      }
    }
    rmSync(dir, { recursive: true, force: true });
    result.removedDirs.push(dir);
  }
  return result;
}
