// A host crash of a redis-server, emulated. SIGKILL alone loses nothing a host crash loses:
// the AOF's unsynced tail sits in the page cache, which outlives the process. So for
// `appendfsync everysec` the server runs with `appendfsync no` and the driver plays the
// fsync: every FSYNC_TICK_MS it notes the length of the AOF's incr file (Redis 7's
// multi-part AOF: appendonlydir/<name>.<seq>.incr.aof, named by the manifest) — the length
// an fsync at that tick would have made durable. On a crash the server is SIGKILLed and the
// file cut back to the last noted length, at a command boundary (Redis writes whole commands
// per write(), and a cut mid-command would otherwise need aof-load-truncated), then restarted.
// With `appendfsync always` every write is on disk before its reply: nothing is cut.
//
// The ticks are the driver's, not Redis's own fsync cron: the phase differs, the cadence
// (1 s of real time, whatever --time-scale says, as redis-server's) is the same.
import { existsSync, readFileSync, statSync, truncateSync } from "node:fs";
import { join } from "node:path";
import { hrNowNs } from "./clock.js";

export const FSYNC_TICK_MS = 1000;
export const HOST_CRASH_NOTE = "host crash emulated: AOF cut back to its last fsync tick";

/** The incr AOF file Redis appends to now, from appendonlydir's manifest (undefined before one exists). */
export function incrAofPath(dataDir: string): string | undefined {
  const dir = join(dataDir, "appendonlydir");
  if (!existsSync(dir)) return undefined;
  const manifest = ["appendonly.aof.manifest"].map((m) => join(dir, m)).find((m) => existsSync(m));
  if (!manifest) return undefined;
  let last: string | undefined;
  for (const line of readFileSync(manifest, "utf8").split("\n")) {
    const m = /^file (\S+) seq \d+ type i\b/.exec(line);
    if (m) last = m[1];
  }
  return last ? join(dir, last) : undefined;
}

/**
 * The largest command boundary at or before `len` in a RESP AOF: each command is
 * `*N\r\n` then N × `$L\r\n<L bytes>\r\n`. Bounded: every step moves forward.
 */
export function commandBoundary(aof: Buffer, len: number): number {
  const end = Math.min(len, aof.length);
  let pos = 0;
  let good = 0;
  const line = (from: number): { text: string; next: number } | undefined => {
    const nl = aof.indexOf("\r\n", from, "latin1");
    if (nl < 0 || nl + 2 > end) return undefined;
    return { text: aof.toString("latin1", from, nl), next: nl + 2 };
  };
  while (pos < end) {
    const head = line(pos);
    if (!head || head.text[0] !== "*") break;
    const n = Number(head.text.slice(1));
    if (!Number.isInteger(n) || n < 0) break;
    let p = head.next;
    let ok = true;
    for (let i = 0; i < n; i++) {
      const bulk = line(p);
      if (!bulk || bulk.text[0] !== "$") {
        ok = false;
        break;
      }
      const l = Number(bulk.text.slice(1));
      if (!Number.isInteger(l) || l < 0 || bulk.next + l + 2 > end) {
        ok = false;
        break;
      }
      p = bulk.next + l + 2;
    }
    if (!ok) break;
    pos = p;
    good = p;
  }
  return good;
}

export interface AofCut {
  file: string;
  fromBytes: number;
  toBytes: number;
  /** When the tick it was cut back to was taken (hrtime ns; the driver turns it into run time). */
  tickNs?: bigint;
}

/** Cut `file` back to the last command boundary at or before `toBytes`; nothing if it is no longer. */
export function cutAof(file: string, toBytes: number): AofCut {
  const fromBytes = statSync(file).size;
  if (fromBytes <= toBytes) return { file, fromBytes, toBytes: fromBytes };
  const at = commandBoundary(readFileSync(file), toBytes);
  truncateSync(file, at);
  return { file, fromBytes, toBytes: at };
}

/** The driver's fsync ticks for one redis-server's AOF (everysec). */
export class AofFsyncTicks {
  private timer: NodeJS.Timeout | undefined;
  /** The incr file and its length at the last tick (what a host crash would keep). */
  private synced: { file: string; bytes: number; atNs: bigint } | undefined;
  /** The host is down (from the crash's start until the cut): a dead host syncs nothing. */
  private hostIsDown = false;
  ticks = 0;

  constructor(private readonly dataDir: string) {}

  start(): void {
    this.tick();
    this.timer = setInterval(() => this.tick(), FSYNC_TICK_MS);
  }

  /** One fsync tick: note the incr file's length now. */
  tick(): void {
    if (this.hostIsDown) return;
    const file = incrAofPath(this.dataDir);
    if (!file || !existsSync(file)) return;
    this.ticks++;
    this.synced = { file, bytes: statSync(file).size, atNs: hrNowNs() };
  }

  /** The crash begins: no tick counts from here (the kill itself takes a few ms). */
  hostDown(): void {
    this.hostIsDown = true;
  }

  /** After SIGKILL, before the restart: cut the incr file back to the last tick's length. */
  cut(): AofCut | undefined {
    this.hostIsDown = false;
    const file = incrAofPath(this.dataDir);
    if (!file || !existsSync(file)) return undefined;
    // A file the last tick did not see (a rewrite since) had nothing synced.
    const same = this.synced?.file === file ? this.synced : undefined;
    const c = cutAof(file, same?.bytes ?? 0);
    // What survives is on disk now: the next crash cannot lose it again.
    this.synced = { file, bytes: c.toBytes, atNs: hrNowNs() };
    return same ? { ...c, tickNs: same.atNs } : c;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
