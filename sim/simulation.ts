import { EventQueue } from "./event-queue.js";
import { Rng } from "./rng.js";
import { Network, DEFAULT_NETWORK, type NetworkOptions } from "./network.js";
import { SimProcess, type ProcessOptions } from "./process.js";
import { runFiber, suspend, type Fiber } from "./fiber.js";
import type { EventType, HistoryEvent } from "./history.js";
import { SimLimitError } from "./errors.js";
import { DEFAULT_LIMITS, PROJECTION_MARGIN, type SimLimits } from "./limits.js";

/** A message between processes. `rpcId` marks a request; `inReplyTo` its reply. */
export interface Message {
  type: string;
  rpcId?: number;
  inReplyTo?: number;
  [field: string]: unknown;
}

export type RpcResult<T = Message> = { ok: true; reply: T } | { ok: false; error: "timeout" };

export interface ProcessBehavior {
  /** A message that is not the reply to one of this process's pending calls. */
  onMessage?(from: string, msg: Message): void;
  /**
   * The process is about to crash: what its operating system still does for it, at the
   * instant of the crash (a kernel closes a dead process's sockets, so its peers get a
   * reset). Messages sent here leave normally; nothing after it runs.
   */
  onCrash?(): void;
}

/** Builds a process's behaviour on start and on every restart (volatile state is new). */
export type BehaviorFactory = (ctx: ProcessContext, restarted: boolean) => ProcessBehavior;

export interface TimerHandle {
  cancelled: boolean;
}

export { DEFAULT_LIMITS, type SimLimits } from "./limits.js";

/**
 * What a process's code may touch: its own clocks, its own random stream, the
 * network, timers on its own (monotonic) clock, its durable disk, and the history.
 * Nothing here reads the host's clock or randomness.
 */
export class ProcessContext {
  /** Survives crashes: what the process persisted (fsync'd). */
  readonly disk = new Map<string, unknown>();
  readonly rng: Rng;
  private nextRpcId = 1;
  private pending = new Map<number, (r: RpcResult) => void>();
  behavior: ProcessBehavior = {};

  constructor(
    readonly sim: Simulation,
    readonly proc: SimProcess,
  ) {
    this.rng = sim.rng.fork(`process:${proc.id}`);
  }

  get id(): string {
    return this.proc.id;
  }

  /** Wall-clock reading (what the host's system clock would say), µs. */
  wallUs(): number {
    return this.proc.wall.read(this.sim.nowUs);
  }
  /** Wall-clock reading in whole ms, as a system clock call returns it. */
  wallMs(): number {
    return Math.floor(this.wallUs() / 1000);
  }
  /** Monotonic clock (drift only, never jumps), µs. */
  monoUs(): number {
    return this.proc.mono.read(this.sim.nowUs);
  }
  monoMs(): number {
    return Math.floor(this.monoUs() / 1000);
  }

  send(to: string, msg: Message): void {
    this.sim.send(this.id, to, msg);
  }

  /** Reply to a request, echoing its rpcId. */
  reply(to: string, request: Message, body: Message): void {
    this.send(to, { ...body, inReplyTo: request.rpcId });
  }

  /** A timer on this process's monotonic clock; fires through the process lifecycle. */
  setTimer(delayMs: number, fn: () => void): TimerHandle {
    return this.setTimerUs(Math.round(delayMs * 1000), fn);
  }

  setTimerUs(delayUs: number, fn: () => void): TimerHandle {
    const h: TimerHandle = { cancelled: false };
    const trueDelayUs = this.proc.mono.trueDurationFor(Math.max(0, delayUs));
    const inc = this.proc.incarnation;
    this.sim.schedule(this.sim.nowUs + trueDelayUs, () => {
      this.proc.deliver(() => {
        if (!h.cancelled) {
          h.cancelled = true;
          fn();
        }
      }, inc);
    });
    return h;
  }

  cancelTimer(h: TimerHandle | undefined): void {
    if (h) h.cancelled = true;
  }

  /** Record a history event at the current true time. */
  record(type: EventType, f: string, lock?: string, value?: unknown): HistoryEvent {
    return this.sim.record({ process: this.id, type, f, lock, value });
  }

  /** Start a concurrent fiber on this process; it dies with the process. */
  spawn<T>(fiber: Fiber<T>, onDone?: (r: { value?: T; error?: unknown }) => void): void {
    const inc = this.proc.incarnation;
    runFiber(fiber, () => this.proc.incarnation === inc && this.proc.state !== "crashed", onDone);
  }

  /** Sleep on the monotonic clock. */
  *sleep(ms: number): Fiber<void> {
    yield* suspend<void>((resume) => {
      this.setTimer(ms, () => resume());
    });
  }

  /** Send a request and wait for its reply or `timeoutMs` on this process's clock. */
  *call<T extends Message = Message>(to: string, msg: Message, timeoutMs: number): Fiber<RpcResult<T>> {
    const rpcId = this.nextRpcId++;
    return yield* suspend<RpcResult<T>>((resume) => {
      const timer = this.setTimer(timeoutMs, () => {
        this.pending.delete(rpcId);
        resume({ ok: false, error: "timeout" });
      });
      this.pending.set(rpcId, (r) => {
        this.cancelTimer(timer);
        resume(r as RpcResult<T>);
      });
      this.send(to, { ...msg, rpcId });
    });
  }

  /** Called by the simulation when a message arrives (process is running). */
  handle(from: string, msg: Message): void {
    if (msg.inReplyTo !== undefined) {
      const waiter = this.pending.get(msg.inReplyTo);
      if (waiter) {
        this.pending.delete(msg.inReplyTo);
        waiter({ ok: true, reply: msg });
        return;
      }
      // A late or duplicate reply: the caller has timed out already.
      if (!this.behavior.onMessage) return;
    }
    this.behavior.onMessage?.(from, msg);
  }

  /** Volatile state is lost on crash. */
  resetVolatile(): void {
    this.pending = new Map();
  }
}

export interface SimulationOptions {
  seed: string;
  network?: Partial<NetworkOptions>;
  limits?: Partial<SimLimits>;
}

/** The world: true time, the event queue, processes, network and history. */
export class Simulation {
  nowUs = 0;
  readonly rng: Rng;
  readonly network: Network;
  readonly limits: SimLimits;
  readonly processes = new Map<string, SimProcess>();
  readonly contexts = new Map<string, ProcessContext>();
  private readonly factories = new Map<string, BehaviorFactory>();
  private readonly queue = new EventQueue();
  readonly history: HistoryEvent[] = [];
  private readonly listeners: Array<(e: HistoryEvent) => void> = [];
  eventsRun = 0;

  constructor(opts: SimulationOptions) {
    this.rng = new Rng(opts.seed);
    this.network = new Network({ ...DEFAULT_NETWORK, ...opts.network }, this.rng.fork("network"));
    this.limits = { ...DEFAULT_LIMITS, ...opts.limits };
  }

  schedule(atUs: number, run: () => void): void {
    if (!Number.isFinite(atUs)) throw new Error(`schedule: time ${atUs} is not finite`);
    const t = Math.max(Math.round(atUs), this.nowUs);
    if (this.queue.length >= this.limits.queueLengthMax) {
      throw new SimLimitError("queueLengthMax", this.limits.queueLengthMax, `at t=${this.nowUs}µs`);
    }
    this.queue.push(t, run);
  }

  addProcess(id: string, role: SimProcess["role"], opts: ProcessOptions, factory: BehaviorFactory): ProcessContext {
    if (this.processes.has(id)) throw new Error(`duplicate process id ${id}`);
    const proc = new SimProcess(id, role, opts);
    const ctx = new ProcessContext(this, proc);
    this.processes.set(id, proc);
    this.contexts.set(id, ctx);
    this.factories.set(id, factory);
    ctx.behavior = factory(ctx, false);
    return ctx;
  }

  process(id: string): SimProcess {
    const p = this.processes.get(id);
    if (!p) throw new Error(`no process ${id}`);
    return p;
  }

  context(id: string): ProcessContext {
    const c = this.contexts.get(id);
    if (!c) throw new Error(`no process ${id}`);
    return c;
  }

  send(from: string, to: string, msg: Message): void {
    const dest = this.processes.get(to);
    if (!dest) throw new Error(`send from ${from} to unknown process ${to}`);
    for (const atUs of this.network.route(from, to, this.nowUs)) {
      const inc = dest.incarnation;
      this.schedule(atUs, () => {
        // A partition that began while the message was in flight stops it too.
        if (this.network.isCut(from, to)) {
          this.network.stats.cutDropped++;
          return;
        }
        this.network.stats.delivered++;
        dest.deliver(() => this.context(to).handle(from, msg), inc);
      });
    }
  }

  record(e: Omit<HistoryEvent, "index" | "timeUs">): HistoryEvent {
    const ev: HistoryEvent = { index: this.history.length, timeUs: this.nowUs, ...e };
    if (ev.lock === undefined) delete ev.lock;
    if (ev.value === undefined) delete ev.value;
    this.history.push(ev);
    for (const l of this.listeners) l(ev);
    return ev;
  }

  onRecord(listener: (e: HistoryEvent) => void): void {
    this.listeners.push(listener);
  }

  private readonly runEndHooks: Array<() => void> = [];

  /** Run `fn` once the run is over (the runner calls `endRun`): a design records what its servers hold. */
  onRunEnd(fn: () => void): void {
    this.runEndHooks.push(fn);
  }

  endRun(): void {
    for (const fn of this.runEndHooks.splice(0)) fn();
  }

  // --- lifecycle faults (the fault schedule records them in the history) ---

  pause(id: string, durationUs: number): void {
    const p = this.process(id);
    if (p.state === "crashed") return;
    p.pause(this.nowUs + durationUs);
    this.schedule(this.nowUs + durationUs, () => {
      if (p.state === "paused" && this.nowUs >= p.pausedUntilUs) p.resume();
    });
  }

  crash(id: string): void {
    const p = this.process(id);
    if (p.state !== "crashed") this.context(id).behavior.onCrash?.();
    p.crash();
    this.context(id).resetVolatile();
  }

  restart(id: string): void {
    const p = this.process(id);
    if (p.state !== "crashed") this.crash(id);
    p.restart();
    const ctx = this.context(id);
    ctx.behavior = this.factories.get(id)!(ctx, true);
  }

  /**
   * Run events until the queue is empty or true time would pass `untilUs`.
   * `busyUntilUs`: where the steady work ends (the runner's drain after it is quiet), the
   * span the event projection (limits.projectAfterEvents) extrapolates over.
   */
  run(untilUs: number, busyUntilUs = untilUs): void {
    if (untilUs > this.limits.timeUsMax) {
      // Refused before any work: running to the bound first would only fail there.
      throw new SimLimitError("timeUsMax", this.limits.timeUsMax, `asked to run to ${untilUs}µs`);
    }
    let projectAt = this.limits.projectAfterEvents > 0 ? Math.max(this.limits.projectAfterEvents, this.eventsRun + 1) : Infinity;
    for (;;) {
      const next = this.queue.peek();
      if (!next || next.timeUs > untilUs) break;
      this.queue.pop();
      this.nowUs = next.timeUs;
      if (++this.eventsRun > this.limits.eventsMax) {
        throw new SimLimitError("eventsMax", this.limits.eventsMax, `at t=${this.nowUs}µs`);
      }
      if (this.eventsRun === projectAt) {
        projectAt *= 2;
        // Linear in true time: every workload here is a steady loop of operations. Only a
        // projection past twice the bound stops the run, so a busier start than average
        // is no false alarm; a run between the two still stops at eventsMax itself.
        const projected = this.nowUs > 0 ? Math.round((this.eventsRun * Math.max(busyUntilUs, this.nowUs)) / this.nowUs) : Infinity;
        if (projected > PROJECTION_MARGIN * this.limits.eventsMax) {
          throw new SimLimitError(
            "eventsMax",
            this.limits.eventsMax,
            `stopped early: ${this.eventsRun} events in the first ${(this.nowUs / 1e6).toFixed(1)} s project to ~${projected} over the run's ${(busyUntilUs / 1e6).toFixed(0)} s, more than twice the bound`,
          );
        }
      }
      next.run();
    }
    this.nowUs = Math.max(this.nowUs, untilUs);
  }

  get queueLength(): number {
    return this.queue.length;
  }
}
