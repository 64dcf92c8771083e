// The client process's side of the control connection: it stamps and sends this client's
// history events, calls the in-driver storage, reports grant expiries, and holds at gates.
//
// Timeouts here never race a stop: after SIGCONT, libuv runs timers whose deadline passed
// during the stop *before* it reads input that arrived meanwhile (measured: a 200 ms timer
// beat a reply buffered during a 500 ms stop 10 times in 10). The simulator delivers what
// queued during a pause in arrival order, so a reply that arrived first wins there. Every
// timeout below therefore gives its verdict one setImmediate later, after the poll phase
// has read what is buffered.
import { readFileSync } from "node:fs";
import { connect, type Socket } from "node:net";
import type { EventType } from "../../sim/history.js";
import { hrNowNs, RunClock } from "../clock.js";
import { GATE_GO_FILE, LineSplitter, type ClientConfig, type FromClient, type GateSpec, type StorageRequest, type ToClient } from "../protocol.js";

export type StorageResult = { ok: true; reply: Record<string, unknown> } | { ok: false };

/** setTimeout whose callback runs only after input buffered by then has been handled. */
export function deferredTimeout(ms: number, fn: () => void): NodeJS.Timeout {
  return setTimeout(() => setImmediate(fn), Math.max(0, ms));
}

export class DriverLink {
  private readonly sock: Socket;
  private clock: RunClock | undefined;
  private config: ClientConfig | undefined;
  private readonly oneShot = new Map<string, (msg: ToClient) => void>();
  /** config/start messages that arrived before anyone waited for them. */
  private readonly early = new Map<string, ToClient>();
  private readonly calls = new Map<number, (r: StorageResult) => void>();
  private readonly gateWaits = new Map<number, () => void>();
  private readonly counts = new Map<string, number>();
  private nextRpcId = 1;
  private closed = false;
  private startGo: (() => void) | undefined;
  /** Where the lock's wall clock is read when it is not this process's (a lock driver's): pongs carry it. */
  wallClock?: () => Promise<number>;

  constructor(
    host: string,
    port: number,
    private readonly onClose: () => void,
  ) {
    this.sock = connect({ host, port });
    this.sock.setNoDelay(true);
    this.sock.setEncoding("utf8");
    const lines = new LineSplitter((line) => this.onMessage(JSON.parse(line) as ToClient));
    this.sock.on("data", (chunk: string) => lines.push(chunk));
    this.sock.on("error", () => {});
    this.sock.on("close", () => {
      this.closed = true;
      this.onClose();
    });
  }

  connected(timeoutMs: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`no connection to the driver within ${timeoutMs} ms`)), timeoutMs);
      this.sock.once("connect", () => {
        clearTimeout(t);
        resolve();
      });
    });
  }

  send(msg: FromClient): void {
    if (!this.closed) this.sock.write(JSON.stringify(msg) + "\n");
  }

  /** The next message of kind `t` (config, start), bounded. */
  next<K extends ToClient["t"]>(t: K, timeoutMs: number): Promise<Extract<ToClient, { t: K }>> {
    const got = this.early.get(t);
    if (got) {
      this.early.delete(t);
      return Promise.resolve(got as Extract<ToClient, { t: K }>);
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.oneShot.delete(t);
        reject(new Error(`no ${t} from the driver within ${timeoutMs} ms`));
      }, timeoutMs);
      this.oneShot.set(t, (m) => {
        clearTimeout(timer);
        resolve(m as Extract<ToClient, { t: K }>);
      });
    });
  }

  private onMessage(m: ToClient): void {
    switch (m.t) {
      case "ping":
        return this.pong();
      case "config":
        this.config = m.config;
        break;
      case "start":
        this.clock = new RunClock(BigInt(m.t0Ns));
        break;
      case "storage-reply": {
        const id = m.body.inReplyTo as number;
        const done = this.calls.get(id);
        this.calls.delete(id);
        done?.({ ok: true, reply: m.body });
        return;
      }
      case "start-go":
        this.startGo?.();
        return;
      case "go": {
        const go = this.gateWaits.get(m.gateId);
        this.gateWaits.delete(m.gateId);
        go?.();
        return;
      }
    }
    const waiter = this.oneShot.get(m.t);
    this.oneShot.delete(m.t);
    if (waiter) waiter(m);
    else this.early.set(m.t, m);
  }

  /**
   * The clock reading a ping asks for: this process's CLOCK_MONOTONIC and the lock's wall
   * clock. A lock driver's wall clock is read by the driver; the monotonic reading is then
   * the middle of the request's round trip (a pipe's, well under a millisecond).
   */
  private pong(): void {
    if (!this.wallClock) return this.send({ t: "pong", hrNs: hrNowNs().toString(), wallMs: Date.now() });
    const sentNs = hrNowNs();
    this.wallClock().then(
      (wallMs) => this.send({ t: "pong", hrNs: ((sentNs + hrNowNs()) / 2n).toString(), wallMs }),
      () => {}, // the driver failed: it says so itself (fatal), and the ping's own bound runs out
    );
  }

  nowUs(): number {
    if (!this.clock) throw new Error("the run has not started");
    return this.clock.nowUs();
  }

  /**
   * Record one of this client's history events, stamped now. If the event is a fault's
   * trigger (a gate), wait here until the driver has applied the fault: the driver stops
   * this process, then sends `go`, which is read only once the process runs again.
   */
  async record(type: EventType, f: string, lock?: string, value?: unknown): Promise<void> {
    const timeUs = this.nowUs();
    this.send({ t: "event", ev: { timeUs, type, f, ...(lock !== undefined ? { lock } : {}), ...(value !== undefined ? { value } : {}) } });
    const key = `${f}\u0000${type}`;
    const n = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, n);
    const gate = this.config?.gates.find((g: GateSpec) => g.f === f && g.type === type && g.nth === n);
    if (gate?.holdAfter) this.holdAfterContinuation(gate.gateId);
    else if (gate) await this.waitAtGate(gate.gateId);
  }

  /**
   * A pause of this client triggered by its own event: the code after the event runs on to
   * its next wait (it arms its timers, as in the simulator, where they run through the pause),
   * then — one setImmediate later, before any timer or input — the process holds, blocked,
   * until the driver has stopped it (SIGSTOP) and written the gate's go file. After SIGCONT,
   * libuv fires the timers whose time passed during the stop, as real Node does.
   */
  private holdAfterContinuation(gateId: number): void {
    const boundMs = this.config!.gateTimeoutMs;
    setImmediate(() => {
      // Asked for only now, at the hold point: a stop landing earlier would freeze the continuation before it armed its timers.
      this.send({ t: "gate", gateId });
      const start = performance.now();
      const cell = new Int32Array(new SharedArrayBuffer(4));
      // Bounded by gateTimeoutMs (the pause's length plus a load-tolerant margin); 1 ms per turn.
      while (!goFileHas(gateId)) {
        if (performance.now() - start > boundMs) throw new Error(`no go file from the driver at gate ${gateId} within ${boundMs} ms`);
        Atomics.wait(cell, 0, 0, 1);
      }
    });
  }

  private waitAtGate(gateId: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = deferredTimeout(this.config!.gateTimeoutMs, () => {
        if (!this.gateWaits.has(gateId)) return;
        this.gateWaits.delete(gateId);
        reject(new Error(`no go from the driver at gate ${gateId} within ${this.config!.gateTimeoutMs} ms`));
      });
      this.gateWaits.set(gateId, () => {
        clearTimeout(timer);
        resolve();
      });
      this.send({ t: "gate", gateId });
    });
  }

  /**
   * At its start time, a client that starts after others waits until the driver has seen each
   * of them finish its first operation, at most startOrderWaitMs: the story's order of arrival
   * holds even when the machine's load wakes or serves the first process late.
   */
  async startInOrder(): Promise<void> {
    const cfg = this.config!;
    if (!cfg.startAfter?.length) return;
    await new Promise<void>((resolve) => {
      const timer = deferredTimeout(cfg.startOrderWaitMs ?? 0, () => resolve());
      this.startGo = () => {
        clearTimeout(timer);
        resolve();
      };
      this.send({ t: "start-gate" });
    });
    this.startGo = undefined;
  }

  reportGrant(grantId: string, expiresAtUs: number): void {
    this.send({ t: "grant", grantId, expiresAtUs: Math.round(expiresAtUs), atUs: this.nowUs() });
  }

  /** One call to the in-driver storage; { ok: false } after timeoutMs (a late reply is dropped, as in the simulator). */
  storage(msg: Omit<StorageRequest, "rpcId">, timeoutMs: number): Promise<StorageResult> {
    const rpcId = this.nextRpcId++;
    return new Promise((resolve) => {
      const timer = deferredTimeout(timeoutMs, () => {
        if (!this.calls.has(rpcId)) return;
        this.calls.delete(rpcId);
        resolve({ ok: false });
      });
      this.calls.set(rpcId, (r) => {
        clearTimeout(timer);
        resolve(r);
      });
      this.send({ t: "storage", msg: { ...msg, rpcId } });
    });
  }
}

function goFileHas(gateId: number): boolean {
  try {
    return readFileSync(GATE_GO_FILE, "utf8").split("\n").includes(String(gateId));
  } catch {
    return false;
  }
}
