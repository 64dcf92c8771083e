// ServerGroup: the servers of one run, under one temp dir, stopped together on every path.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { registerLive, unregisterLive, type StoppableGroup } from "./lifecycle.js";
import { newOwnerRecord, RUN_DIR_PREFIX, sweepDeadRuns, writeOwnerRecord, type OwnerRecord } from "./registry.js";
import { ServerProcess, type ServerSpec } from "./server-process.js";

/** Parent dirs already swept by this process: one sweep per parent is enough (dead runs do not come back). */
const swept = new Set<string>();

export interface ServerGroupOptions {
  /** Parent of the per-run temp dir (default: the OS temp dir). */
  parentDir?: string;
  /** Keep the temp dir after stop() (default: false, or env LOCKSTEP_KEEP_REAL_DIR=1). */
  keepDir?: boolean;
}

export class ServerGroup implements StoppableGroup {
  /** The per-run temp dir: one subdir per server (data, config, log). */
  readonly dir: string;
  private readonly members: ServerProcess[] = [];
  private stopped = false;
  private readonly keepDir: boolean;
  private readonly owner: OwnerRecord = newOwnerRecord();

  constructor(opts: ServerGroupOptions = {}) {
    const parent = opts.parentDir ?? tmpdir();
    if (!swept.has(parent)) {
      swept.add(parent);
      sweepDeadRuns(parent);
    }
    this.dir = mkdtempSync(join(parent, RUN_DIR_PREFIX));
    writeOwnerRecord(this.dir, this.owner);
    this.keepDir = opts.keepDir ?? process.env.LOCKSTEP_KEEP_REAL_DIR === "1";
    registerLive(this);
  }

  get servers(): readonly ServerProcess[] {
    return this.members;
  }

  /** A fresh directory for a server's data, config and log. */
  serverDir(name: string): string {
    if (this.members.some((m) => m.name === name)) throw new Error(`server name ${name} already used in this group`);
    const d = join(this.dir, name);
    mkdirSync(d, { recursive: true });
    return d;
  }

  /** Unique default names: redis1, redis2, … */
  nextName(prefix: string): string {
    for (let i = 1; ; i++) {
      const name = `${prefix}${i}`;
      if (!this.members.some((m) => m.name === name)) return name;
    }
  }

  /** Register a server (not started yet). The group stops it from now on. */
  add(spec: ServerSpec): ServerProcess {
    if (this.stopped) throw new Error("ServerGroup already stopped");
    const p = new ServerProcess(spec, (pid) => {
      this.owner.pids.push(pid);
      if (!this.stopped) writeOwnerRecord(this.dir, this.owner);
    });
    this.members.push(p);
    return p;
  }

  /** Every pid ever spawned by this group (wrappers and servers). */
  pidsEver(): number[] {
    return this.members.flatMap((m) => m.pidsEver);
  }

  /**
   * Stop every server and remove the temp dir. Idempotent. The data is deleted anyway, so by
   * default this is SIGKILL (fast: a gracefully stopping etcd leader waits ~2 s trying to hand
   * leadership to peers that are stopping too); graceful (SIGTERM, bounded, then SIGKILL) by
   * default only when the dir is kept.
   */
  async stop(opts: { graceful?: boolean } = {}): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    const graceful = opts.graceful ?? this.keepDir;
    try {
      const results = await Promise.allSettled(this.members.map((m) => (graceful ? m.stop() : m.kill("SIGKILL"))));
      this.killAllSync();
      const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
      if (failed) throw failed.reason;
    } finally {
      if (!this.keepDir) rmSync(this.dir, { recursive: true, force: true });
      unregisterLive(this);
    }
  }

  /** Synchronous SIGKILL of every server and watchdog (the process-'exit' path). */
  killAllSync(): void {
    for (const m of this.members) m.killGroupSync();
    if (!this.keepDir) rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Run `fn` with a fresh group; the group is stopped however `fn` ends (return or throw). */
export async function withServerGroup<T>(fn: (group: ServerGroup) => Promise<T>, opts?: ServerGroupOptions): Promise<T> {
  const group = new ServerGroup(opts);
  try {
    return await fn(group);
  } finally {
    await group.stop();
  }
}
