/**
 * Benchmark of the linearizability checker on generated lock histories.
 *
 * 1. 1k, 10k and 100k ops; 5 and 50 clients; 0% and 20% of ops with unknown outcome
 *    (info); under mutex and lease-lock; in two styles: lockstep's own (acquire-oks
 *    name their grant, later ops carry its id) and the JSONL/EDN style with no grant
 *    ids, where the process stands for its grant, so every info acquire's grant is
 *    later acted under and the search has to keep it. Prints verdict, time, ops/s,
 *    heap, the search's memory estimate and states, and the time-per-op ratio of 100k
 *    vs 1k (near 1 means near-linear).
 * 2. A 1M-op adversarial history (no grant ids, 50 clients, 20% info, a double grant
 *    planted near the end, so the search backtracks over a long history full of info
 *    acquires it must keep): it must end, with a verdict or `unknown`, within the
 *    default budget. Prints verdict, time, states, heap.
 * 3. Double grants hidden behind unknown-outcome acquires (20% info): an outsider's grant,
 *    and a write under an acquire that never answered, at 1k and 10k ops, 5 and 50
 *    clients, both styles, both lock models: verdict, time, states.
 * Wall-clock figures are reported, never judged.
 *
 * Run: npx tsx bench/checker.ts, or npm run build && node --expose-gc dist/bench/checker.js
 * (BENCH_CHECKER_1M=0 skips part 2).
 */
import { pathToFileURL } from "node:url";
import seedrandom from "seedrandom";
import { linearizability } from "../checkers/linearizability/index.js";
import type { CheckResult } from "../checkers/types.js";
import type { HistoryEvent } from "../sim/history.js";

export interface LockHistoryOptions {
  /** Invoke events to generate (the history's op count). */
  ops: number;
  clients: number;
  /** Fraction of ops whose reply is lost (outcome info), 0..1. */
  infoFraction: number;
  seed: string;
  lock?: string;
  ttlMs?: number;
  waitMs?: number;
  /** Record grant ids (lockstep's style, the default); false: none, the process stands for its grant. */
  grantIds?: boolean;
}

type TimedAction = { t: number; s: number; run: () => void };

/** A min-heap of timed actions ordered by (time, sequence), so the server sees arrivals in time order. */
class TimerHeap {
  private readonly heap: TimedAction[] = [];
  constructor(private readonly nextSeq: () => number) {}

  private less(a: number, b: number): boolean {
    const h = this.heap;
    return h[a].t < h[b].t || (h[a].t === h[b].t && h[a].s < h[b].s);
  }

  private swap(a: number, b: number): void {
    [this.heap[a], this.heap[b]] = [this.heap[b], this.heap[a]];
  }

  at(t: number, run: () => void): void {
    const heap = this.heap;
    heap.push({ t, s: this.nextSeq(), run });
    let i = heap.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (this.less(p, i)) break;
      this.swap(p, i);
      i = p;
    }
  }

  pop(): TimedAction | undefined {
    const heap = this.heap;
    const top = heap[0];
    const last = heap.pop();
    if (heap.length === 0 || !last) return top;
    heap[0] = last;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < heap.length && this.less(l, m)) m = l;
      if (r < heap.length && this.less(r, m)) m = r;
      if (m === i) break;
      this.swap(m, i);
      i = m;
    }
    return top;
  }
}

type GeneratedEvent = Omit<HistoryEvent, "index"> & { seq: number };
type Waiter = { client: string; deadlineUs: number; granted: boolean };
const REPLY_TIMEOUT_US = 20_000;

/** One run of the generator: a FIFO lock server and its clients, driven by a timer heap. */
class LockHistoryGenerator {
  private readonly rnd: () => number;
  private readonly lock: string;
  private readonly ttlMs: number;
  private readonly waitUs: number;
  private readonly withIds: boolean;
  readonly out: GeneratedEvent[] = [];
  private seq = 0;
  private invokes = 0;
  private readonly timers = new TimerHeap(() => this.seq++);
  private holder: string | null = null;
  private grants = 0;
  private readonly waiting: Waiter[] = [];
  private readonly grantCount = new Map<string, number>();
  private nowUs = 0;

  constructor(private readonly o: LockHistoryOptions) {
    this.rnd = seedrandom(o.seed);
    this.lock = o.lock ?? "lock";
    this.ttlMs = o.ttlMs ?? 10_000;
    this.waitUs = (o.waitMs ?? 200) * 1000;
    this.withIds = o.grantIds ?? true;
  }

  private lat(): number {
    return 100 + Math.floor(this.rnd() * 1900);
  }

  private think(): number {
    return Math.floor(this.rnd() * 3000);
  }

  private lost(): boolean {
    return this.rnd() < this.o.infoFraction;
  }

  private emit(timeUs: number, process: string, type: HistoryEvent["type"], f: string, value?: unknown): void {
    if (type === "invoke") this.invokes++;
    if (!this.withIds && value !== null && typeof value === "object" && "grantId" in value) {
      const { grantId: _g, ...rest } = value as Record<string, unknown>;
      value = rest;
    }
    this.out.push({ timeUs, process, type, f, lock: this.lock, ...(value !== undefined ? { value } : {}), seq: this.seq++ });
  }

  private at(t: number, run: () => void): void {
    this.timers.at(t, run);
  }

  private startAcquire(c: string, t: number): void {
    if (this.invokes >= this.o.ops) return;
    this.emit(t, c, "invoke", "acquire", { ttlMs: this.ttlMs, waitMs: this.waitUs / 1000 });
    if (this.lost()) {
      this.at(t + this.waitUs, () => {
        this.emit(t + this.waitUs, c, "info", "acquire");
        this.startAcquire(c, t + this.waitUs + this.think());
      });
      return;
    }
    const w: Waiter = { client: c, deadlineUs: t + this.waitUs, granted: false };
    this.at(t + this.lat(), () => {
      this.waiting.push(w);
      if (this.holder === null) this.grantNext();
    });
    this.at(w.deadlineUs, () => {
      if (w.granted) return;
      this.waiting.splice(this.waiting.indexOf(w), 1);
      this.emit(w.deadlineUs, c, "fail", "acquire");
      this.startAcquire(c, w.deadlineUs + this.think());
    });
  }

  private grantNext(): void {
    const w = this.waiting.shift();
    if (!w) return;
    w.granted = true;
    const k = (this.grantCount.get(w.client) ?? 0) + 1;
    this.grantCount.set(w.client, k);
    const grantId = `${w.client}#${k}`;
    this.holder = grantId;
    this.grants++;
    const token = this.grants;
    const okUs = this.nowUs + this.lat();
    this.at(okUs, () => {
      this.emit(okUs, w.client, "ok", "acquire", { grantId, token, validityMs: this.ttlMs, ttlMs: this.ttlMs });
      this.criticalSection(w.client, grantId, token, okUs);
    });
  }

  private criticalSection(c: string, grantId: string, token: number, t0: number): void {
    const readEnd = t0 + 1 + this.lat();
    this.emit(t0 + 1, c, "invoke", "read", { grantId, token });
    this.emit(readEnd, c, "ok", "read", { counter: this.grants });
    const wStart = readEnd + 1;
    this.emit(wStart, c, "invoke", "write", { grantId, token, counter: this.grants });
    const wLost = this.lost();
    const wEnd = wLost ? wStart + REPLY_TIMEOUT_US : wStart + this.lat();
    this.emit(wEnd, c, wLost ? "info" : "ok", "write", wLost ? undefined : {});
    this.release(c, grantId, wEnd + 1);
  }

  /** A lost release reply still frees the lock: the effect lands before the reply is lost. */
  private release(c: string, grantId: string, rStart: number): void {
    this.emit(rStart, c, "invoke", "release", { grantId });
    const effectUs = rStart + this.lat();
    const rLost = this.lost();
    this.at(effectUs, () => {
      this.holder = null;
      this.grantNext();
    });
    const rEnd = rLost ? rStart + REPLY_TIMEOUT_US : effectUs + this.lat();
    this.at(rEnd, () => {
      this.emit(rEnd, c, rLost ? "info" : "ok", "release", rLost ? undefined : { released: true });
      this.startAcquire(c, rEnd + this.think());
    });
  }

  run(): HistoryEvent[] {
    for (let i = 1; i <= this.o.clients; i++) this.startAcquire(`c${i}`, Math.floor(this.rnd() * 1000));
    for (let e = this.timers.pop(); e; e = this.timers.pop()) {
      this.nowUs = e.t;
      e.run();
    }
    this.out.sort((a, b) => a.timeUs - b.timeUs || a.seq - b.seq);
    return this.out.map(({ seq: _seq, ...e }, index) => ({ index, ...e }));
  }
}

/**
 * A mutex-correct history of one lock: a server grants the lock to waiters in arrival
 * order; clients acquire, read, write, release, and sometimes lose a reply. A lost
 * acquire request never reaches the server; a lost release reply still frees the lock.
 * Deterministic for a given seed.
 */
export function generateLockHistory(o: LockHistoryOptions): HistoryEvent[] {
  return new LockHistoryGenerator(o).run();
}

interface Row {
  ops: number;
  clients: number;
  infoPct: number;
  model: string;
  style: "ids" | "no-ids";
  verdict: string;
  ms: number;
  opsPerS: number;
  heapMb: number;
  /** The checker's own estimate of its memo + stack, MB. */
  estMb: number;
  states: number;
}

const TTL_MS = 10_000;

function measure(history: HistoryEvent[], model: string, reps: number): { r: CheckResult; ms: number; heapMb: number } {
  (globalThis as { gc?: () => void }).gc?.();
  const heapBefore = process.memoryUsage().heapUsed;
  const t0 = process.hrtime.bigint();
  let r = linearizability(history, { model, ttlMs: TTL_MS });
  for (let i = 1; i < reps; i++) r = linearizability(history, { model, ttlMs: TTL_MS });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6 / reps;
  const heapMb = Math.max(0, process.memoryUsage().heapUsed - heapBefore) / (1024 * 1024);
  return { r, ms, heapMb };
}

/** Plant a grant to an outsider right after the last acquire-ok in the final tenth: a double grant. */
export function plantDoubleGrant(h: readonly HistoryEvent[]): HistoryEvent[] {
  let at = -1;
  for (let i = h.length - 1; i > (h.length * 9) / 10; i--) {
    if (h[i].f === "acquire" && h[i].type === "ok") {
      at = i;
      break;
    }
  }
  if (at < 0) throw new Error("no acquire-ok to plant after");
  const t = h[at].timeUs;
  const lock = h[at].lock;
  const intruder: HistoryEvent[] = [
    { index: 0, timeUs: t, process: "intruder", type: "invoke", f: "acquire", lock },
    { index: 0, timeUs: t, process: "intruder", type: "ok", f: "acquire", lock },
  ];
  return [...h.slice(0, at + 1), ...intruder, ...h.slice(at + 1)].map((e, index) => ({ ...e, index }));
}

/**
 * Plant a double grant visible only through an unknown-outcome acquire: an intruder
 * whose acquire (invoked a stretch earlier) never answers, then writes under it in the
 * middle of someone else's hold. The write needs that acquire to have taken effect, and
 * the lock was never free for it. `at` is where the write goes, as a fraction of the history.
 */
export function plantHiddenWrite(h: readonly HistoryEvent[], at = 0.9): HistoryEvent[] {
  const w = h.findIndex((e, i) => i >= h.length * at && e.f === "read" && e.type === "invoke");
  if (w < 0) throw new Error("no read to plant beside");
  const early = Math.floor(w * 0.9);
  const lock = h[w].lock;
  const grant = (h[w].value as { grantId?: string } | undefined)?.grantId !== undefined ? { grantId: "intruder#1" } : {};
  const acquire: HistoryEvent = { index: 0, timeUs: h[early].timeUs, process: "intruder", type: "invoke", f: "acquire", lock };
  const write: HistoryEvent[] = [
    { index: 0, timeUs: h[w].timeUs, process: "intruder", type: "invoke", f: "write", lock, value: { ...grant, counter: 1 } },
    { index: 0, timeUs: h[w].timeUs, process: "intruder", type: "ok", f: "write", lock, value: {} },
  ];
  return [...h.slice(0, early), acquire, ...h.slice(early, w), ...write, ...h.slice(w)].map((e, index) => ({ ...e, index }));
}

export interface HiddenPairOptions {
  ops: number;
  clients: number;
  infoFraction: number;
  seed: string;
  grantIds: boolean;
  /** True: the two hidden grants overlap (a double grant, not linearizable); false: the twin where the first may have been released. */
  doubled: boolean;
}

/**
 * A double grant only unknown-outcome ops can hide: two clients, x1 and x2, invoke acquires
 * early (at a tenth and at three tenths of the first half) that never answer (info, with
 * leases that never lapse), while 50 others go on taking the lock. Between two halves of
 * generated traffic the lock falls quiet, and x1 and x2 write under their grants: x1, x2,
 * then x1 again, then both release: each grant alone could have been made, both at once
 * cannot, and the search must rule out every placing of every pending acquire to say so.
 * The twin (`doubled: false`) differs in one op: x1's second write is a release whose
 * reply was lost, which may have freed the lock for x2, so it is linearizable.
 */
export function hiddenPairHistory(o: HiddenPairOptions): HistoryEvent[] {
  const half = (tag: string) =>
    generateLockHistory({ ops: Math.floor(o.ops / 2) - 4, clients: o.clients, infoFraction: o.infoFraction, grantIds: o.grantIds, seed: `${o.seed}/${tag}` });
  const first = half("a");
  const quietUs = first[first.length - 1]!.timeUs + 1_000_000;
  const second = half("b").map((e) => ({ ...e, timeUs: e.timeUs + quietUs + 1_000_000 }));
  const lock = first[0]!.lock;
  const grant = (x: string): Record<string, unknown> => (o.grantIds ? { grantId: `${x}#1` } : {});
  const ev = (timeUs: number, process: string, type: HistoryEvent["type"], f: string, value?: unknown): HistoryEvent => ({
    index: 0,
    timeUs,
    process,
    type,
    f,
    lock,
    ...(value !== undefined ? { value } : {}),
  });
  const acquire = (x: string, at: number): HistoryEvent[] => {
    const t = first[Math.floor(first.length * at)]!.timeUs;
    return [ev(t, x, "invoke", "acquire", { ttlMs: 1e9, ...grant(x) }), ev(t + 200_000, x, "info", "acquire")];
  };
  const op = (t: number, x: string, f: string, type: HistoryEvent["type"], value?: unknown): HistoryEvent[] =>
    f === "write"
      ? [ev(t, x, "invoke", "write", { ...grant(x), counter: t }), ev(t + 1, x, type, "write", {})]
      : [ev(t, x, "invoke", "release", grant(x)), type === "info" ? ev(t + 1, x, "info", "release") : ev(t + 1, x, "ok", "release", value)];
  const q = quietUs;
  const quiet = o.doubled
    ? [
        ...op(q, "x1", "write", "ok"),
        ...op(q + 3, "x2", "write", "ok"),
        ...op(q + 6, "x1", "write", "ok"),
        ...op(q + 9, "x1", "release", "ok", { released: true }),
      ]
    : [...op(q, "x1", "write", "ok"), ...op(q + 3, "x1", "release", "info"), ...op(q + 6, "x2", "write", "ok")];
  const merged = [...first, ...acquire("x1", 0.1), ...acquire("x2", 0.3), ...quiet, ...op(q + 12, "x2", "release", "ok", { released: true }), ...second];
  return merged
    .map((e, k) => ({ e, k }))
    .sort((a, b) => a.e.timeUs - b.e.timeUs || a.k - b.k)
    .map(({ e }, index) => ({ ...e, index }));
}

/** Part 3: double grants hidden behind unknown-outcome acquires (20% info), each style, size and model. */
export function hiddenDoubleGrants(): void {
  console.log("\nhidden double grants (20% info; default budget): verdict, time, states");
  for (const grantIds of [true, false])
    for (const clients of [5, 50])
      for (const ops of [1_000, 10_000])
        for (const [kind, plant] of [
          ["outsider grant", plantDoubleGrant],
          ["write under an unanswered acquire", plantHiddenWrite],
        ] as const) {
          const h = plant(generateLockHistory({ ops, clients, infoFraction: 0.2, grantIds, seed: `hidden-${clients}-${ops}` }));
          for (const model of ["mutex", "lease-lock"]) {
            const { r, ms } = measure(h, model, 1);
            const style = grantIds ? "ids" : "no-ids";
            console.log(
              `  ${style.padEnd(6)} ${String(clients).padStart(2)} clients ${String(ops).padStart(6)} ops  ${kind.padEnd(34)} ${model.padEnd(10)} ${String(r.valid).padEnd(7)} ${ms.toFixed(0).padStart(5)} ms ${r.stats?.statesExplored} states`,
            );
          }
        }
  for (const grantIds of [true, false])
    for (const ops of [1_000, 10_000])
      for (const doubled of [true, false]) {
        const h = hiddenPairHistory({ ops, clients: 50, infoFraction: 0.2, grantIds, doubled, seed: `pair-${ops}` });
        for (const model of ["mutex", "lease-lock"]) {
          const { r, ms } = measure(h, model, 1);
          const kind = doubled ? "two unanswered grants, overlapping" : "twin: a lost release between (valid)";
          console.log(
            `  ${(grantIds ? "ids" : "no-ids").padEnd(6)} 50 clients ${String(ops).padStart(6)} ops  ${kind.padEnd(36)} ${model.padEnd(10)} ${String(r.valid).padEnd(7)} ${ms.toFixed(0).padStart(5)} ms ${r.stats?.statesExplored} states`,
          );
        }
      }
}

export async function main(): Promise<Row[]> {
  const sizes = [1_000, 10_000, 100_000];
  const configs = [
    { clients: 5, infoFraction: 0 },
    { clients: 5, infoFraction: 0.2 },
    { clients: 50, infoFraction: 0 },
    { clients: 50, infoFraction: 0.2 },
  ];
  const models = ["mutex", "lease-lock"];
  const styles = ["ids", "no-ids"] as const;
  const rows: Row[] = [];
  for (const style of styles) {
    for (const model of models) {
      for (const cfg of configs) {
        for (const ops of sizes) {
          const history = generateLockHistory({ ops, ...cfg, grantIds: style === "ids", seed: `bench-${ops}-${cfg.clients}-${cfg.infoFraction}` });
          // Small sizes are repeated so their per-op time is not timer noise.
          const { r, ms, heapMb } = measure(history, model, Math.max(1, Math.round(20_000 / ops)));
          rows.push({
            ops,
            clients: cfg.clients,
            infoPct: Math.round(cfg.infoFraction * 100),
            model,
            style,
            verdict: String(r.valid),
            ms: Math.round(ms * 10) / 10,
            opsPerS: Math.round(ops / (ms / 1000)),
            heapMb: Math.round(heapMb),
            estMb: r.stats?.memoryMbEstimate ?? 0,
            states: r.stats?.statesExplored ?? 0,
          });
        }
      }
    }
  }
  // heapMB is the heap still in use after the check (GC-dependent, noisy); estMB is the search's own estimate.
  console.log("style  model       clients info%      ops  verdict        ms      ops/s  heapMB  estMB    states");
  for (const r of rows) {
    console.log(
      `${r.style.padEnd(6)} ${r.model.padEnd(11)} ${String(r.clients).padStart(7)} ${String(r.infoPct).padStart(5)} ${String(r.ops).padStart(8)}  ` +
        `${r.verdict.padEnd(7)} ${String(r.ms).padStart(9)} ${String(r.opsPerS).padStart(10)} ${String(r.heapMb).padStart(7)} ${String(r.estMb).padStart(6)} ${String(r.states).padStart(9)}`,
    );
  }
  for (const style of styles) {
    for (const model of models) {
      for (const cfg of configs) {
        const pick = (ops: number): Row =>
          rows.find(
            (r) => r.style === style && r.model === model && r.clients === cfg.clients && r.infoPct === Math.round(cfg.infoFraction * 100) && r.ops === ops,
          )!;
        const small = pick(1_000);
        const big = pick(100_000);
        const ratio = big.ms / big.ops / (Math.max(small.ms, 0.1) / small.ops);
        console.log(`${style}, ${model}, ${cfg.clients} clients, ${Math.round(cfg.infoFraction * 100)}% info: time per op 100k vs 1k = ${ratio.toFixed(2)}`);
      }
    }
  }
  hiddenDoubleGrants();
  if (process.env.BENCH_CHECKER_1M !== "0") adversarial();
  return rows;
}

/** Part 2: the 1M-op adversarial history, once per lock model. */
export function adversarial(): void {
  const ops = 1_000_000;
  const gc = (globalThis as { gc?: () => void }).gc;
  const heapMbNow = (): number => process.memoryUsage().heapUsed / (1024 * 1024);
  gc?.();
  const heap0 = heapMbNow();
  const g0 = process.hrtime.bigint();
  const history = plantDoubleGrant(generateLockHistory({ ops, clients: 50, infoFraction: 0.2, grantIds: false, seed: "bench-adversarial" }));
  const genS = Number(process.hrtime.bigint() - g0) / 1e9;
  gc?.();
  const historyMb = heapMbNow() - heap0;
  console.log(`\nadversarial: ${ops} ops, 50 clients, 20% info, no grant ids, double grant planted near the end (generated in ${genS.toFixed(1)} s)`);
  // Where the memory above the search's estimate is: the input history itself, and heap the
  // GC had not yet reclaimed when the check returned (in use before a GC, minus after one).
  console.log(`  the history itself: ${Math.round(historyMb)} MB of heap${gc ? "" : " (no --expose-gc: not collected first, noisy)"}`);
  for (const model of ["mutex", "lease-lock"]) {
    const { r, ms, heapMb } = measure(history, model, 1);
    const rss = process.memoryUsage().rss / (1024 * 1024);
    const inUse = heapMbNow() - heap0 - historyMb;
    gc?.();
    const kept = heapMbNow() - heap0 - historyMb;
    console.log(
      `  ${model.padEnd(11)} verdict ${String(r.valid).padEnd(7)} ${(ms / 1000).toFixed(1)} s, ${r.stats?.statesExplored} states, ` +
        `${r.stats?.steps} steps, est ${r.stats?.memoryMbEstimate} MB, heap +${Math.round(heapMb)} MB, rss ${Math.round(rss)} MB`,
    );
    if (gc)
      console.log(
        `    heap above the history when the check returned: ${Math.round(inUse)} MB, of which ${Math.round(inUse - kept)} MB garbage a GC then reclaimed`,
      );
    console.log(`    ${r.summary}`);
  }
}

/**
 * Register histories: one of 1M ops (10 clients, each op a write or a read of the last
 * value written, 5% unknown outcome, overlapping one another), and 1000 concurrent writes
 * of unknown outcome then reads, one of a value never written. Verdict, time, heap grown.
 */
export function registers(): void {
  console.log("\nregister histories (model register, default budget):");
  for (const [label, h] of [
    ["1M ops, 10 clients, 5% unknown", registerHistory(1_000_000)],
    ["1000 concurrent unknown writes, then reads (one of a value never written)", concurrentUnknownWrites(1000)],
  ] as const) {
    (globalThis as { gc?: () => void }).gc?.();
    const heapBefore = process.memoryUsage().heapUsed;
    const t0 = process.hrtime.bigint();
    const r = linearizability(h, { model: "register" });
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    const heapAfter = process.memoryUsage().heapUsed;
    console.log(
      `  ${label}: ${r.valid} in ${(ms / 1000).toFixed(2)} s, heap +${((heapAfter - heapBefore) / 2 ** 20).toFixed(0)} MB; ${r.summary.slice(0, 140)}`,
    );
  }
}

function registerHistory(ops: number): HistoryEvent[] {
  // The register starts nil: the first op writes 0.
  const h: HistoryEvent[] = [
    { index: 0, timeUs: 0, process: "c0", type: "invoke", f: "write", lock: "x", value: { value: 0 } },
    { index: 1, timeUs: 1, process: "c0", type: "ok", f: "write", lock: "x" },
  ];
  let value = 0;
  let seed = 7;
  const rnd = (): number => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % 1000) / 1000;
  for (let i = 0; i < ops; i++) {
    const process = `c${i % 10}`;
    const t = 10 + i * 10;
    const write = rnd() < 0.5;
    const info = rnd() < 0.05;
    if (write) value = i;
    h.push({ index: h.length, timeUs: t, process, type: "invoke", f: write ? "write" : "read", lock: "x", ...(write ? { value: { value } } : {}) });
    h.push({
      index: h.length,
      timeUs: t + 15,
      process,
      type: info ? "info" : "ok",
      f: write ? "write" : "read",
      lock: "x",
      ...(!write && !info ? { value: { value } } : {}),
    });
  }
  return h;
}

function concurrentUnknownWrites(n: number): HistoryEvent[] {
  const h: HistoryEvent[] = [];
  for (let i = 0; i < n; i++) h.push({ index: h.length, timeUs: i, process: `w${i}`, type: "invoke", f: "write", lock: "x", value: { value: i } });
  for (let i = 0; i < n; i++) h.push({ index: h.length, timeUs: n + i, process: `w${i}`, type: "info", f: "write", lock: "x" });
  for (let i = 0; i < 50; i++) {
    h.push({ index: h.length, timeUs: 3 * n + 2 * i, process: "r", type: "invoke", f: "read", lock: "x" });
    h.push({ index: h.length, timeUs: 3 * n + 2 * i + 1, process: "r", type: "ok", f: "read", lock: "x", value: { value: (i * 7919) % n } });
  }
  h.push({ index: h.length, timeUs: 5 * n, process: "r", type: "invoke", f: "read", lock: "x" });
  h.push({ index: h.length, timeUs: 5 * n + 1, process: "r", type: "ok", f: "read", lock: "x", value: { value: -1 } });
  return h;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  registers();
  main().catch((e: unknown) => {
    console.error(e);
    process.exitCode = 1;
  });
}
