import type { RedisCommand, RedisReply } from "./commands.js";

/**
 * The Redis keyspace: string values with absolute expiry times on the node's wall
 * clock (ms), as real Redis keeps them. A key is expired when the wall clock has
 * passed its expiry — checked on every access (lazy expiry) and by `sweep` (active
 * expiry). So a wall-clock jump on the node expires keys early: the fact Kleppmann's
 * Redlock scenario rests on.
 */
export interface Entry {
  value: string;
  /** Absolute expiry on the node's wall clock, ms; undefined = no expiry. */
  expireAtMs?: number;
}

/** One key's state after a write: what the AOF logs and the primary streams to replicas. */
export interface Effect {
  key: string;
  entry: Entry | null;
}

const NO_KEYS: readonly string[] = Object.freeze([]);

export class RedisStore {
  private data = new Map<string, Entry>();

  /** Number of keys expired so far (lazy + active). */
  expiredCount = 0;

  /** Told of every key expired, on access ("lazy") or by the sweep ("active"): the server notes it in the history. */
  onExpire: ((key: string, expireAtMs: number, nowMs: number, how: "lazy" | "active") => void) | undefined;

  get size(): number {
    return this.data.size;
  }

  private live(key: string, nowMs: number): Entry | undefined {
    const e = this.data.get(key);
    if (!e) return undefined;
    if (e.expireAtMs !== undefined && e.expireAtMs <= nowMs) {
      this.data.delete(key);
      this.expiredCount++;
      this.onExpire?.(key, e.expireAtMs, nowMs, "lazy");
      return undefined;
    }
    return e;
  }

  /** The live entry of `key` at wall time `nowMs` (expiring it if its time has passed). */
  read(key: string, nowMs: number): Entry | undefined {
    return this.live(key, nowMs);
  }

  /** Set (or, with null, delete) one key's raw entry: the generic command path (argv.ts). */
  write(key: string, entry: Entry | null): void {
    if (entry) this.data.set(key, entry);
    else this.data.delete(key);
  }

  /** Keys live at `nowMs`, in insertion order (KEYS/SCAN-free designs never need this; DBSIZE does). */
  liveCount(nowMs: number): number {
    let n = 0;
    for (const k of [...this.data.keys()]) if (this.live(k, nowMs)) n++;
    return n;
  }

  /** Execute one command atomically at wall time `nowMs`. */
  execute(c: RedisCommand, nowMs: number): RedisReply {
    switch (c.cmd) {
      case "SET": {
        if (c.pxMs !== undefined && (!Number.isInteger(c.pxMs) || c.pxMs <= 0)) {
          return { error: "ERR invalid expire time in 'set' command" };
        }
        if (c.nx && this.live(c.key, nowMs)) return null;
        this.data.set(c.key, { value: c.value, expireAtMs: c.pxMs !== undefined ? nowMs + c.pxMs : undefined });
        return "OK";
      }
      case "GET":
        return this.live(c.key, nowMs)?.value ?? null;
      case "DEL":
        return this.live(c.key, nowMs) ? (this.data.delete(c.key), 1) : 0;
      case "PEXPIRE": {
        const e = this.live(c.key, nowMs);
        if (!e) return 0;
        if (c.ms <= 0) {
          this.data.delete(c.key);
          return 1;
        }
        e.expireAtMs = nowMs + c.ms;
        return 1;
      }
      case "PTTL": {
        const e = this.live(c.key, nowMs);
        if (!e) return -2;
        if (e.expireAtMs === undefined) return -1;
        return e.expireAtMs - nowMs;
      }
      case "INCR": {
        const e = this.live(c.key, nowMs);
        const n = e ? Number(e.value) : 0;
        if (!Number.isInteger(n)) return { error: "ERR value is not an integer or out of range" };
        const v = n + 1;
        // INCR keeps an existing TTL, as Redis does.
        this.data.set(c.key, { value: String(v), expireAtMs: e?.expireAtMs });
        return v;
      }
      case "CAD": {
        const e = this.live(c.key, nowMs);
        if (e && e.value === c.value) {
          this.data.delete(c.key);
          return 1;
        }
        return 0;
      }
      case "CAPEXPIRE": {
        const e = this.live(c.key, nowMs);
        if (e && e.value === c.value) {
          e.expireAtMs = nowMs + c.ms;
          return 1;
        }
        return 0;
      }
    }
  }

  /** Active expiry: remove every key whose time has passed. Returns how many. */
  sweep(nowMs: number): number {
    let n = 0;
    for (const [k, e] of this.data) {
      if (e.expireAtMs !== undefined && e.expireAtMs <= nowMs) {
        this.data.delete(k);
        n++;
      }
    }
    this.expiredCount += n;
    return n;
  }

  /**
   * The raw state of one key after a command, as an effect for the AOF and the
   * replication stream (null: the key is gone). Expiry stays absolute, as Redis 7
   * propagates PXAT (redis/redis#8474): a replica expires by the primary's timestamp
   * read on its own clock.
   */
  effectOf(key: string): Effect {
    const e = this.data.get(key);
    return { key, entry: e ? { ...e } : null };
  }

  /** Apply an effect from the AOF or the replication stream. */
  applyEffect(x: Effect): void {
    if (x.entry) this.data.set(x.key, { ...x.entry });
    else this.data.delete(x.key);
  }

  /** Active expiry, returning the keys removed (the primary propagates them as DELs). */
  sweepKeys(nowMs: number): readonly string[] {
    // Runs every 100 ms of a node's clock: no [key, entry] pair per key, no array when nothing expired.
    let keys: string[] | undefined;
    for (const k of this.data.keys()) {
      const e = this.data.get(k)!;
      if (e.expireAtMs !== undefined && e.expireAtMs <= nowMs) {
        (keys ??= []).push(k);
        this.onExpire?.(k, e.expireAtMs, nowMs, "active");
      }
    }
    if (keys === undefined) return NO_KEYS;
    for (const k of keys) this.data.delete(k);
    this.expiredCount += keys.length;
    return keys;
  }

  /** The raw entry of `key`, expired or not, without a copy (no lazy expiry: a look, not an access). */
  rawEntry(key: string): Entry | undefined {
    return this.data.get(key);
  }

  /** A copy of the raw entries (replication full sync, AOF rewrite, tests). */
  snapshot(): Array<[string, { value: string; expireAtMs?: number }]> {
    return [...this.data].map(([k, e]) => [k, { ...e }]);
  }

  load(entries: Array<[string, { value: string; expireAtMs?: number }]>): void {
    this.data = new Map(entries.map(([k, e]) => [k, { ...e }]));
  }
}
