import type { ProcessContext, TimerHandle } from "../../sim/simulation.js";
import type { Effect, Entry } from "./store.js";

/**
 * Redis persistence as the lock designs meet it: the append-only file.
 *
 *  - "none": `appendonly no` (and no RDB snapshot in time to matter): a crash loses the
 *    whole data set; an immediate restart comes back empty — the Redlock page's
 *    "restart without persistence re-grants" case.
 *  - "everysec": `appendfsync everysec`, Redis's default when AOF is on. Writes go to
 *    the AOF buffer; an fsync every `fsyncIntervalMs` (1 s) on the node's own clock
 *    makes them durable. A crash loses the unsynced tail: up to the last second.
 *  - "always": `appendfsync always`: the write is durable before the reply leaves.
 *
 * A crash here is a host crash (power loss, kernel panic, VM killed): the page cache
 * goes with it. (A mere process kill under everysec would lose nothing already
 * written to the kernel; the Redlock page's worry is the host crash.)
 *
 * The durable file lives in `ctx.disk`, which survives crashes. Replaying an AOF
 * leaves each key in the state of its last logged effect, so we keep that form (what
 * BGREWRITEAOF would write) instead of an ever-growing log.
 */
export const PERSISTENCE_MODES = ["none", "everysec", "always"] as const;
export type PersistenceMode = (typeof PERSISTENCE_MODES)[number];

const AOF_KEY = "redis:aof";

export class AppendOnlyFile {
  private pending: Effect[] = [];
  private timer?: TimerHandle;
  /** fsyncs done and effects lost at the last crash are visible to tests through the disk. */
  fsyncs = 0;

  constructor(
    private readonly ctx: ProcessContext,
    readonly mode: PersistenceMode,
    private readonly fsyncIntervalMs: number,
  ) {
    if (mode === "everysec") this.scheduleFsync();
  }

  /** What survived on disk (empty for "none"). */
  load(): Array<[string, Entry]> {
    const file = this.ctx.disk.get(AOF_KEY) as Map<string, Entry> | undefined;
    if (this.mode === "none" || !file) return [];
    return [...file].map(([k, e]) => [k, { ...e }]);
  }

  /** Log one effect of a write command (before its reply is sent). */
  append(x: Effect): void {
    if (this.mode === "none") return;
    if (this.mode === "always") this.write([x]);
    else this.pending.push({ key: x.key, entry: x.entry ? { ...x.entry } : null });
  }

  /** Replace the file with a full data set (a replica's full resync rewrites its AOF). */
  rewrite(entries: Array<[string, Entry]>): void {
    if (this.mode === "none") return;
    this.pending = [];
    this.ctx.disk.set(AOF_KEY, new Map(entries.map(([k, e]) => [k, { ...e }])));
  }

  /** Effects not yet fsynced: what a crash now would lose. */
  get unsynced(): number {
    return this.pending.length;
  }

  private scheduleFsync(): void {
    this.timer = this.ctx.setTimer(this.fsyncIntervalMs, () => {
      // A note per fsync that wrote something: what a crash before it would have lost.
      if (this.pending.length > 0) this.ctx.record("info", "aof-fsync", undefined, { writes: this.pending.length, intervalMs: this.fsyncIntervalMs });
      this.write(this.pending);
      this.pending = [];
      this.scheduleFsync();
    });
  }

  private write(effects: Effect[]): void {
    if (effects.length === 0) return;
    let file = this.ctx.disk.get(AOF_KEY) as Map<string, Entry> | undefined;
    if (!file) {
      file = new Map();
      this.ctx.disk.set(AOF_KEY, file);
    }
    for (const x of effects) {
      if (x.entry) file.set(x.key, { ...x.entry });
      else file.delete(x.key);
    }
    this.fsyncs++;
  }

  stop(): void {
    this.ctx.cancelTimer(this.timer);
  }
}
