/**
 * A realm's timers, kept on the host side: setTimeout and its kin are called often
 * (a library's retry loop arms one per attempt), and host code is shared by every realm
 * and optimized, where the prelude's own functions start cold in each new realm. The
 * realm's Timeout objects hold only the id (prelude.ts). A callback and its arguments are
 * realm values the host only holds: the realm calls them (membrane.ts invokeWith).
 */
export const TIMEOUT = 0;
export const INTERVAL = 1;
export const IMMEDIATE = 2;
const WHAT = ["a setTimeout callback", "a setInterval callback", "a setImmediate callback"];

interface Entry {
  readonly fn: unknown;
  readonly args: unknown;
  readonly delayUs: number;
  readonly kind: number;
  handle: { cancel(): void } | undefined;
}

/** Node: a delay that is not a number in [1, 2^31-1] becomes 1 ms. */
function delayUsOf(ms: unknown): number {
  const n = typeof ms === "number" ? ms : NaN;
  return (Number.isFinite(n) && n >= 1 && n <= 0x7fffffff ? Math.trunc(n) : 1) * 1000;
}

export class RealmTimers {
  private readonly table = new Map<number, Entry>();
  private nextId = 1;

  constructor(
    /** A simulated timer on the process's monotonic clock. */
    private readonly setTimer: (delayUs: number, fn: () => void) => { cancel(): void },
    /** Run a callback as one turn of the realm. */
    private readonly turn: (what: string, fn: unknown, args: unknown) => void,
    /** Told of each callback about to run, by kind (the endless-chain and flood bounds). */
    private readonly onFire: (kind: number) => void,
  ) {}

  /** Arm a timer for realm function `fn` (the prelude checked it is one); its id. */
  arm(fn: unknown, ms: unknown, args: unknown, kind: number): number {
    const id = this.nextId++;
    const e: Entry = { fn, args, delayUs: kind === IMMEDIATE ? 0 : delayUsOf(ms), kind, handle: undefined };
    this.table.set(id, e);
    this.schedule(id, e);
    return id;
  }

  clear(id: unknown): void {
    const key = typeof id === "number" ? id : typeof id === "string" ? Number(id) : NaN;
    const e = this.table.get(key);
    if (!e) return;
    this.table.delete(key);
    e.handle?.cancel();
  }

  refresh(id: number): void {
    const e = this.table.get(id);
    if (!e) return;
    e.handle?.cancel();
    this.schedule(id, e);
  }

  private schedule(id: number, e: Entry): void {
    e.handle = this.setTimer(e.delayUs, () => this.fire(id, e));
  }

  private fire(id: number, e: Entry): void {
    if (this.table.get(id) !== e) return;
    if (e.kind === INTERVAL) this.schedule(id, e);
    else this.table.delete(id);
    this.onFire(e.kind);
    this.turn(WHAT[e.kind]!, e.fn, e.args);
  }
}
