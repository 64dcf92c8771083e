import { EventQueue, type EventHandler } from "./event-queue.js";
import { Rng } from "./rng.js";
import { Network, DEFAULT_NETWORK, type Link, type NetworkOptions } from "./network.js";
import { SimProcess, type ProcessOptions } from "./process.js";
import { runFiber, type Fiber, type FiberStep, type Wait } from "./fiber.js";
import { PendingCalls } from "./pending-calls.js";
import { CallFiber, SleepFiber } from "./wait-fibers.js";
import type { EventType, HistoryEvent } from "./history.js";
import { SimLimitError } from "./errors.js";
import { DEFAULT_LIMITS, PROJECTION_MARGIN, type SimLimits } from "./limits.js";

import type { Message, RpcResult } from "./message.js";
export type { Message, RpcResult } from "./message.js";

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

/**
 * A timer is its own event record: one object per timer, no closure. It
 * calls `fn(arg)`, so the kernel's own timers (a call's timeout, a sleep) pass a shared
 * function and their state instead of a closure.
 */
class Timer implements TimerHandle {
  cancelled = false;
  /** Its event's slot in the queue: cancelling takes the event out, so it costs no event when due. */
  slot = -1;
  constructor(
    readonly fn: (arg: any) => void,
    readonly arg: unknown,
    readonly incarnation: number,
  ) {}
}

/** Run a timer's function once, unless cancelled (checked when it runs: after a pause, too). */
function fireTimerNow(t: Timer): void {
  if (!t.cancelled) {
    t.cancelled = true;
    t.fn(t.arg);
  }
}

const TIMED_OUT: RpcResult = Object.freeze({ ok: false, error: "timeout" }) as RpcResult;

/**
 * The event of a call's timeout: (process, incarnation, rpcId), no object of its own
 *; through the process's lifecycle as a timer is. A reply that came first
 * cancelled it, or (while paused) took the call out, so it finds nothing to do.
 */
function callTimeoutEvent(ctx: ProcessContext, incarnation: number, _unused: undefined, rpcId: number): void {
  const proc = ctx.proc;
  if (incarnation !== proc.incarnation || proc.state === "crashed") return;
  if (proc.state === "paused") proc.deliverWith(callTimedOut, ctx, rpcId, undefined, incarnation);
  else callTimedOut(ctx, rpcId);
}

function callTimedOut(ctx: ProcessContext, rpcId: number): void {
  ctx.timeOutCall(rpcId);
}

function wake(run: FiberStep): void {
  run.step(undefined);
}

/**
 * The event of a sleep ending: a timer with no Timer object (a sleep is never
 * cancelled and has no handle), through the process's lifecycle as a timer is.
 */
function sleepEnded(ctx: ProcessContext, run: FiberStep, _unused: undefined, incarnation: number): void {
  const proc = ctx.proc;
  if (incarnation !== proc.incarnation || proc.state === "crashed") return;
  if (proc.state === "paused") proc.deliverWith(wake, run, undefined, undefined, incarnation);
  else wake(run);
}

/** The event of a timer coming due: through the process's lifecycle, like a message. */
function fireTimer(ctx: ProcessContext, t: Timer): void {
  const proc = ctx.proc;
  if (t.incarnation !== proc.incarnation || proc.state === "crashed") return;
  if (proc.state === "paused") proc.deliverWith(fireTimerNow, t, undefined, undefined, t.incarnation);
  else fireTimerNow(t);
}

function handleOn(ctx: ProcessContext, from: string, msg: Message): void {
  ctx.handle(from, msg);
}

/** The event of a message arriving: checked against partitions and the lifecycle, then handled. */
function deliverMessage(ctx: ProcessContext, from: string, msg: Message, incarnation: number): void {
  const sim = ctx.sim;
  // A partition that began while the message was in flight stops it too.
  if (sim.network.isCut(from, ctx.id)) {
    sim.network.stats.cutDropped++;
    return;
  }
  sim.network.stats.delivered++;
  const proc = ctx.proc;
  if (incarnation !== proc.incarnation || proc.state === "crashed") return;
  if (proc.state === "paused") proc.deliverWith(handleOn, ctx, from, msg, incarnation);
  else ctx.handle(from, msg);
}

/** Where a process's messages to one peer go: the peer and the link, found once. */
class Route {
  constructor(
    readonly dest: ProcessContext,
    readonly link: Link,
  ) {}
}

/** A plain scheduled function (Simulation.schedule): the one event kind that is a closure. */
function runThunk(run: () => void): void {
  run();
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
  private pending = new PendingCalls();
  /** The waits sleep and call yield, one each per process, filled in at each use (see SleepWait). */
  private readonly sleepWaitOne = new SleepWait(this);
  private readonly callWaitOne = new CallWait(this);
  /** By destination id: processes and links are never removed, so a route stays good. */
  private readonly routes = new Map<string, Route>();
  /** The last destination sent to and its route (see send). */
  private lastTo: string | undefined = undefined;
  private lastRoute: Route | undefined = undefined;
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
    // The destination sent to last, checked first: a follower answers its one leader, a
    // client asks its one server, and a compare is cheaper than the map's string hash lookup.
    if (to === this.lastTo) return this.sim.sendOn(this.id, this.lastRoute!.dest, this.lastRoute!.link, msg);
    let route = this.routes.get(to);
    if (route === undefined) {
      const dest = this.sim.contexts.get(to);
      // An unknown peer: the plain path says so, as it always did.
      if (dest === undefined) return this.sim.send(this.id, to, msg);
      route = new Route(dest, this.sim.network.link(this.id, to));
      this.routes.set(to, route);
    }
    this.lastTo = to;
    this.lastRoute = route;
    this.sim.sendOn(this.id, route.dest, route.link, msg);
  }

  /**
   * Reply to a request, echoing its rpcId. `body` is sent as it is, with `inReplyTo`
   * added (a copy per reply was a megamorphic spread on every message); a body that
   * already carries one (an object replied with twice) is copied, so a message in
   * flight never changes.
   */
  reply(to: string, request: Message, body: Message): void {
    // A body may carry an `inReplyTo: undefined` slot (set in place, no property added).
    const out = body.inReplyTo === undefined ? body : { ...body };
    out.inReplyTo = request.rpcId;
    this.send(to, out);
  }

  /** A timer on this process's monotonic clock; fires through the process lifecycle. */
  setTimer(delayMs: number, fn: () => void): TimerHandle {
    return this.setTimerUs(Math.round(delayMs * 1000), fn);
  }

  setTimerUs(delayUs: number, fn: () => void): TimerHandle {
    return this.setTimerUsWith(delayUs, fn, undefined);
  }

  /** A timer that calls `fn(arg)`: no closure for the kernel's own timers. */
  private setTimerUsWith<A>(delayUs: number, fn: (arg: A) => void, arg: A): TimerHandle {
    return this.armTimer(new Timer(fn, arg, this.proc.incarnation), delayUs);
  }

  private armTimer(t: Timer, delayUs: number): Timer {
    const trueDelayUs = this.proc.mono.trueDurationFor(Math.max(0, delayUs));
    t.slot = this.sim.scheduleEvent(this.sim.nowUs + trueDelayUs, fireTimer, this, t);
    return t;
  }

  cancelTimer(h: TimerHandle | undefined): void {
    if (h === undefined || h.cancelled) return;
    h.cancelled = true;
    // A handle set cancelled by hand still works: its event finds it so and does nothing.
    if (h instanceof Timer) this.sim.cancelEvent(h.slot, h);
  }

  /** Record a history event at the current true time. */
  record(type: EventType, f: string, lock?: string, value?: unknown): HistoryEvent {
    return this.sim.recordEvent(this.proc.id, type, f, lock, value);
  }

  /** Whether trace records are wanted: check before building one. */
  get tracing(): boolean {
    return this.sim.traceSink !== undefined;
  }

  /** A trace record (not part of the history; see SimulationOptions.traceSink). */
  trace(kind: string, data: unknown): void {
    this.sim.traceSink?.({ timeUs: this.sim.nowUs, process: this.proc.id, kind, data });
  }

  /** Start a concurrent fiber on this process; it dies with the process. */
  spawn<T>(fiber: Fiber<T>, onDone?: (r: { value?: T; error?: unknown }) => void): void {
    const inc = this.proc.incarnation;
    runFiber(fiber, () => this.proc.incarnation === inc && this.proc.state !== "crashed", onDone);
  }

  /** Sleep on the monotonic clock. */
  sleep(ms: number): Fiber<void> {
    return new SleepFiber(this, ms);
  }

  /** What `sleep` yields, for a fiber that yields it itself (`yield ctx.sleepWait(ms)`: no generator per sleep). */
  sleepWait(ms: number): Wait {
    const w = this.sleepWaitOne;
    w.delayUs = Math.round(ms * 1000);
    return w;
  }

  /** A sleep's wait begins: its timer resumes the fiber. */
  beginSleep(delayUs: number, run: FiberStep): void {
    const trueDelayUs = this.proc.mono.trueDurationFor(Math.max(0, delayUs));
    this.sim.scheduleEvent(this.sim.nowUs + trueDelayUs, sleepEnded, this, run, undefined, this.proc.incarnation);
  }

  /**
   * Send a request and wait for its reply or `timeoutMs` on this process's clock.
   * `msg` gets its `rpcId` in place (no copy per call); a message that already has one
   * (a retry of the same object) is copied, so the copy in flight keeps its own id.
   */
  call<T extends Message = Message>(to: string, msg: Message, timeoutMs: number): Fiber<RpcResult<T>> {
    return new CallFiber<RpcResult<T>>(this, to, msg, timeoutMs, undefined);
  }

  /** `call`, its result passed through `map` as it finishes (no generator of the caller's own to wrap it). */
  callAs<R>(to: string, msg: Message, timeoutMs: number, map: (r: RpcResult) => R): Fiber<R> {
    return new CallFiber<R>(this, to, msg, timeoutMs, map);
  }

  /**
   * What `call` yields, for a fiber that yields it itself: `(yield ctx.callWait(...)) as
   * RpcResult` is `yield* ctx.call(...)` without a generator per call.
   */
  callWait(to: string, msg: Message, timeoutMs: number): Wait {
    const w = this.callWaitOne;
    w.to = to;
    w.msg = msg;
    w.timeoutMs = timeoutMs;
    return w;
  }

  /** A call's wait begins: the rpcId is drawn here, at the yield, as it always was. */
  beginCall(to: string, msg: Message, timeoutMs: number, run: FiberStep): void {
    const rpcId = this.nextRpcId++;
    // Timer first, then the message: the order their events were always scheduled in.
    const trueDelayUs = this.proc.mono.trueDurationFor(Math.max(0, Math.round(timeoutMs * 1000)));
    const timerSlot = this.sim.scheduleEvent(this.sim.nowUs + trueDelayUs, callTimeoutEvent, this, this.proc.incarnation, undefined, rpcId);
    this.pending.set(rpcId, run, timerSlot);
    // A message may carry an `rpcId: undefined` slot (set in place, no property added).
    const out = msg.rpcId === undefined ? msg : { ...msg };
    out.rpcId = rpcId;
    this.send(to, out);
  }

  /** A call's timeout fired: the call is over, and its fiber resumes with a timeout (if it is still pending). */
  timeOutCall(rpcId: number): void {
    const run = this.pending.take(rpcId);
    if (run !== undefined) run.step(TIMED_OUT);
  }

  /** Called by the simulation when a message arrives (process is running). */
  handle(from: string, msg: Message): void {
    // No call waits (a server's usual state): whatever the message, onMessage has it, as a
    // late reply would; and its inReplyTo, a load over every message shape there is, goes unread.
    if (this.pending.count === 0) {
      this.behavior.onMessage?.(from, msg);
      return;
    }
    if (msg.inReplyTo !== undefined) {
      const run = this.pending.take(msg.inReplyTo);
      if (run !== undefined) {
        // The timeout costs no event now; one already fired during a pause finds the call gone.
        this.sim.cancelEventWith(this.pending.takenTimerSlot, callTimeoutEvent, this, msg.inReplyTo);
        run.step({ ok: true, reply: msg });
        return;
      }
      // A late or duplicate reply: the caller has timed out already.
      if (!this.behavior.onMessage) return;
    }
    this.behavior.onMessage?.(from, msg);
  }

  /** Volatile state is lost on crash. */
  resetVolatile(): void {
    this.pending = new PendingCalls();
  }
}

/**
 * The wait `sleep` yields. One per process, filled in when yielded: the fiber's run
 * reads it at once (FiberRun.step calls `begin` right after the yield), so no two
 * sleeps ever share it while it matters.
 */
class SleepWait implements Wait {
  delayUs = 0;
  constructor(private readonly ctx: ProcessContext) {}
  begin(run: FiberStep): void {
    this.ctx.beginSleep(this.delayUs, run);
  }
}

/** The wait `call` yields; one per process, as SleepWait. It lets go of the message once begun. */
class CallWait implements Wait {
  to = "";
  msg: Message | undefined = undefined;
  timeoutMs = 0;
  constructor(private readonly ctx: ProcessContext) {}
  begin(run: FiberStep): void {
    const msg = this.msg!;
    this.msg = undefined;
    this.ctx.beginCall(this.to, msg, this.timeoutMs, run);
  }
}

export interface SimulationOptions {
  seed: string;
  network?: Partial<NetworkOptions>;
  limits?: Partial<SimLimits>;
  /**
   * Where each history event goes as it is recorded, before any listener sees it (e.g. a
   * JSONL stream to a file). With `retainHistory: false` it is the only record: the run
   * then keeps no event, and its memory does not grow with its length.
   */
  historySink?: (e: HistoryEvent) => void;
  /** Keep every event in `history` (default true), none (false), or those the function keeps (what the checkers read, say). */
  retainHistory?: boolean | ((e: HistoryEvent) => boolean);
  /**
   * Where processes' trace records go (ProcessContext.trace): detail kept out of the
   * history, such as every command a server executes. Unset, tracing is off and free.
   */
  traceSink?: (r: TraceRecord) => void;
}

/** One trace record: what a process noted about its own work, at true time. */
export interface TraceRecord {
  timeUs: number;
  process: string;
  kind: string;
  data: unknown;
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
  /** Every event recorded (or those `retainHistory` keeps), in order; their indexes are the full history's. */
  readonly history: HistoryEvent[] = [];
  /** Events recorded so far (the next event's index), retained or not. */
  historyLength = 0;
  private readonly retainAll: boolean;
  private readonly retainIf: ((e: HistoryEvent) => boolean) | undefined;
  private readonly historySink: ((e: HistoryEvent) => void) | undefined;
  readonly traceSink: ((r: TraceRecord) => void) | undefined;
  private readonly listeners: Array<(e: HistoryEvent) => void> = [];
  eventsRun = 0;

  constructor(opts: SimulationOptions) {
    this.rng = new Rng(opts.seed);
    this.network = new Network({ ...DEFAULT_NETWORK, ...opts.network }, this.rng.fork("network"));
    this.limits = { ...DEFAULT_LIMITS, ...opts.limits };
    const retain = opts.retainHistory ?? true;
    this.retainAll = retain === true;
    this.retainIf = typeof retain === "function" ? retain : undefined;
    this.historySink = opts.historySink;
    this.traceSink = opts.traceSink;
  }

  schedule(atUs: number, run: () => void): void {
    this.scheduleEvent(atUs, runThunk, run);
  }

  /**
   * Schedule `fn(a, b, c, d)` at `atUs`: the kernel's own events (messages, timers) pass a
   * module function and its arguments, so no closure is built per event.
   */
  scheduleEvent<A, B, C>(atUs: number, fn: (a: A, b: B, c: C, d: number) => void, a: A, b?: B, c?: C, d = 0): number {
    if (!Number.isFinite(atUs)) throw new Error(`schedule: time ${atUs} is not finite`);
    const t = Math.max(Math.round(atUs), this.nowUs);
    if (this.queue.length >= this.limits.queueLengthMax) {
      throw new SimLimitError("queueLengthMax", this.limits.queueLengthMax, `at t=${this.nowUs}µs`);
    }
    return this.queue.push(t, fn as EventHandler, a, b, c, d);
  }

  /**
   * Take out the event in `slot` (what scheduleEvent returned) if it is still the one
   * scheduled with second argument `b`; it then never runs and is not counted in eventsRun.
   */
  cancelEvent(slot: number, b: unknown): void {
    this.queue.cancel(slot, b);
  }

  /** Take out the event in `slot` if it is still `fn(a, ·, ·, d)` (EventQueue.cancelWith). */
  cancelEventWith<A>(slot: number, fn: (a: A, b: any, c: any, d: number) => void, a: A, d: number): void {
    this.queue.cancelWith(slot, fn as EventHandler, a, d);
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
    const dest = this.contexts.get(to);
    if (!dest) throw new Error(`send from ${from} to unknown process ${to}`);
    this.sendOn(from, dest, this.network.link(from, to), msg);
  }

  /** `send` once the destination and the link are known (a process's kept route). */
  sendOn(from: string, dest: ProcessContext, link: Link, msg: Message): void {
    const net = this.network;
    const copies = net.routeCopiesOn(link, this.nowUs);
    const inc = dest.proc.incarnation;
    for (let i = 0; i < copies; i++) this.scheduleEvent(net.arrivalUs[i]!, deliverMessage, dest, from, msg, inc);
  }

  record(e: Omit<HistoryEvent, "index" | "timeUs">): HistoryEvent {
    return this.recordEvent(e.process, e.type, e.f, e.lock, e.value);
  }

  /**
   * Append one history event as one exact-shape literal: the same seven keys in the same
   * order every time (an absent lock or value is an undefined slot, which JSONL and
   * JSON.stringify leave out), so every event shares one V8 hidden class; keys added
   * after construction gave up to four shapes and bigger objects.
   */
  recordEvent(process: string, type: EventType, f: string, lock: string | undefined, value: unknown): HistoryEvent {
    const ev: HistoryEvent = { index: this.historyLength++, timeUs: this.nowUs, process, type, f, lock, value };
    if (this.retainAll || (this.retainIf !== undefined && this.retainIf(ev))) this.history.push(ev);
    this.historySink?.(ev);
    const ls = this.listeners;
    for (let i = 0; i < ls.length; i++) ls[i]!(ev);
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
    this.projectAt = this.limits.projectAfterEvents > 0 ? Math.max(this.limits.projectAfterEvents, this.eventsRun + 1) : Infinity;
    const guard = this.guard;
    if (guard === undefined) this.runEvents(untilUs, busyUntilUs, Infinity);
    else {
      let done = false;
      while (!done) guard(() => (done = this.runEvents(untilUs, busyUntilUs, this.sliceEvents)));
    }
    this.nowUs = Math.max(this.nowUs, untilUs);
  }

  private projectAt = Infinity;
  private guard: ((slice: () => void) => void) | undefined;
  private sliceEvents = Infinity;

  /**
   * Run the events in slices of `sliceEvents`, each through `guard` (sim/sandbox/watchdog.ts:
   * library code that never returns is stopped there by wall time). Set by a design whose
   * processes run library code; the events and their order are the same either way.
   */
  guardEvents(guard: (slice: () => void) => void, sliceEvents: number): void {
    this.guard = guard;
    this.sliceEvents = sliceEvents;
  }

  /** Run up to `maxEvents` events no later than `untilUs`; true when none is left before it. */
  private runEvents(untilUs: number, busyUntilUs: number, maxEvents: number): boolean {
    const queue = this.queue;
    for (let n = 0; n < maxEvents; n++) {
      const nextUs = queue.peekTimeUs();
      if (nextUs > untilUs) return true;
      this.nowUs = nextUs;
      if (++this.eventsRun > this.limits.eventsMax) {
        throw new SimLimitError("eventsMax", this.limits.eventsMax, `at t=${this.nowUs}µs`);
      }
      if (this.eventsRun === this.projectAt) {
        this.projectAt *= 2;
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
      queue.runNext();
    }
    return false;
  }

  get queueLength(): number {
    return this.queue.length;
  }
}
