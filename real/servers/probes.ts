// Ready checks over loopback, each bounded by its own timeout, plus the bounded retry loop.
import { request } from "node:http";
import { connect } from "node:net";
import { LoadTolerantDeadline } from "./deadlines.js";
import { LOOPBACK } from "./ports.js";

/** Send `payload` over TCP and collect the reply until `done(reply)` or close; never longer than timeoutMs. */
export function tcpExchange(port: number, payload: string, done: (reply: string) => boolean, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let reply = "";
    let settled = false;
    const sock = connect({ host: LOOPBACK, port });
    const finish = (err?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      sock.destroy();
      if (err) reject(err);
      else resolve(reply);
    };
    const timer = setTimeout(() => finish(new Error(`no reply on ${LOOPBACK}:${port} within ${timeoutMs} ms`)), timeoutMs);
    sock.setEncoding("utf8");
    sock.once("connect", () => sock.write(payload));
    sock.on("data", (chunk: string) => {
      reply += chunk;
      if (done(reply)) finish();
    });
    sock.once("end", () => finish());
    sock.once("close", () => finish());
    sock.once("error", (err) => finish(err));
  });
}

/** Redis (and Sentinel) is ready when PING answers +PONG. */
export async function redisPing(port: number, timeoutMs = 1000): Promise<boolean> {
  try {
    const reply = await tcpExchange(port, "PING\r\n", (r) => r.includes("\r\n"), timeoutMs);
    return reply.startsWith("+PONG");
  } catch {
    return false;
  }
}

/** The `srvr` four-letter word's reply ("" when unreachable). */
export async function zkSrvr(port: number, timeoutMs = 1000): Promise<string> {
  try {
    return await tcpExchange(port, "srvr", () => false, timeoutMs);
  } catch {
    return "";
  }
}

/** A ZooKeeper peer is serving when srvr reports its Mode (leader, follower or standalone). */
export async function zkServing(port: number, timeoutMs = 1000): Promise<boolean> {
  return /^Mode: (leader|follower|standalone|observer)$/m.test(await zkSrvr(port, timeoutMs));
}

export interface HttpReply {
  status: number;
  body: string;
}

/** One HTTP request to 127.0.0.1:port, no keep-alive, bounded by timeoutMs. */
export function httpRequest(port: number, method: "GET" | "POST", path: string, body: string | undefined, timeoutMs: number): Promise<HttpReply> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: LOOPBACK,
        port,
        method,
        path,
        agent: false,
        headers: body === undefined ? {} : { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => (text += c));
        res.once("end", () => {
          clearTimeout(timer);
          resolve({ status: res.statusCode ?? 0, body: text });
        });
        res.once("error", (err) => {
          clearTimeout(timer);
          reject(err);
        });
      },
    );
    const timer = setTimeout(() => req.destroy(new Error(`HTTP ${method} ${path} on port ${port}: no reply within ${timeoutMs} ms`)), timeoutMs);
    req.once("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
    req.end(body);
  });
}

/** etcd is ready when GET /health on its client port says {"health":"true"} (it has a leader). */
export async function etcdHealthy(clientPort: number, timeoutMs = 1000): Promise<boolean> {
  try {
    const r = await httpRequest(clientPort, "GET", "/health", undefined, timeoutMs);
    return r.status === 200 && (JSON.parse(r.body) as { health?: unknown }).health === "true";
  } catch {
    return false;
  }
}

export const sleepMs = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Retry `probe` every intervalMs until it is true, within a load-tolerant bound of base
 * timeoutMs (each probe must be bounded itself). `check` runs before every attempt and may
 * throw (e.g. the process exited). onTimeout gets the ms actually waited.
 */
export async function waitUntil(opts: {
  probe: () => Promise<boolean>;
  timeoutMs: number;
  intervalMs?: number;
  check?: () => void;
  onTimeout: (waitedMs: number) => Error;
}): Promise<void> {
  const deadline = new LoadTolerantDeadline(opts.timeoutMs);
  const interval = opts.intervalMs ?? 50;
  for (;;) {
    opts.check?.();
    if (await opts.probe()) return;
    opts.check?.();
    if (deadline.expired()) throw opts.onTimeout(deadline.elapsedMs());
    await sleepMs(Math.min(interval, deadline.remainingMs()));
  }
}
