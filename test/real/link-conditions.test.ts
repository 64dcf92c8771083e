// Delay and loss on a proxied link (real/link-conditions.ts through real/proxy.ts), against a
// real loopback echo server. Delay is measured on the driver's clock (CLOCK_MONOTONIC, as the
// run clock): a chunk is never released before its time, and at most MARGIN_MS (250 ms) after it
// (a generous margin: the machine is shared, and this is a bound, not a benchmark). Order is
// kept under jitter. A loss makes bytes late by TCP's RTO (200 ms, doubling), never lost.
import { createServer, connect, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { LinkConditions, RESENDS_MAX, RTO_US_FIRST, nowUs, retransmitAtUs } from "../../real/link-conditions.js";
import { LinkProxy, ProxySet } from "../../real/proxy.js";
import { until } from "../helpers/processes.js";

/** How late a released chunk may be, on a loaded 2-core machine (at load ~15 a 172 ms late release was seen once). */
const MARGIN_MS = 250;

const open: Array<{ close(): void }> = [];
afterEach(() => {
  for (const o of open.splice(0)) o.close();
});

async function echoServer(): Promise<number> {
  const server = createServer((s) => s.on("data", (b) => s.write(b)));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  open.push(server);
  return (server.address() as { port: number }).port;
}

async function client(port: number): Promise<{ sock: Socket; got: () => string }> {
  let got = "";
  const sock = connect({ host: "127.0.0.1", port });
  sock.setNoDelay(true);
  sock.on("data", (b) => (got += b.toString()));
  open.push({ close: () => sock.destroy() });
  await new Promise<void>((r) => sock.once("connect", () => r()));
  return { sock, got: () => got };
}

async function proxied(): Promise<{ p: LinkProxy; c: Awaited<ReturnType<typeof client>> }> {
  const p = new LinkProxy("c1", "s1", { host: "127.0.0.1", port: await echoServer() });
  p.seed = "link-conditions-test";
  await p.listen();
  open.push(p);
  return { p, c: await client(p.port) };
}

/** Send `msg`, wait for its echo; the round trip in µs on the driver's clock. */
async function roundTripUs(c: Awaited<ReturnType<typeof proxied>>["c"], msg: string, timeoutMs = 10_000): Promise<number> {
  const want = c.got() + msg;
  const t0 = nowUs();
  c.sock.write(msg);
  await until(`echo of ${msg}`, () => c.got() === want, timeoutMs, 1);
  return nowUs() - t0;
}

describe("real mode: link conditions on a proxied link", () => {
  it("a delay holds each chunk for its time, measured on the driver's clock, and no longer than the margin", async () => {
    const { p, c } = await proxied();
    expect((await roundTripUs(c, "warm")) / 1000, "no conditions: loopback's own").toBeLessThan(MARGIN_MS);
    // Set after the connection opened, as a delay step is: it applies to that connection.
    p.conditions("down").extraUs = 120_000;
    p.conditions("up").setStanding({ delayUsBase: 30_000 });
    for (const msg of ["a", "b", "c"]) {
      const ms = (await roundTripUs(c, msg)) / 1000;
      expect(ms, `round trip of ${msg}`).toBeGreaterThanOrEqual(150);
      expect(ms, `round trip of ${msg}`).toBeLessThan(150 + MARGIN_MS);
    }
    p.conditions("down").extraUs = 0;
    p.conditions("up").setStanding({ delayUsBase: 0 });
    expect((await roundTripUs(c, "d")) / 1000, "the delay ended").toBeLessThan(MARGIN_MS);
  });

  it("keeps the byte order under jitter, as TCP does (a later chunk waits for an earlier, slower one)", async () => {
    const { p, c } = await proxied();
    p.conditions("up").setStanding({ delayUsBase: 1000, delayUsJitter: 30_000 });
    const sent: string[] = [];
    for (let i = 0; i < 60; i++) {
      const m = `<${i}>`;
      sent.push(m);
      c.sock.write(m);
      // Separate socket reads at the proxy, so each draws its own jitter.
      await new Promise((r) => setTimeout(r, 1));
    }
    await until("every chunk echoed", () => c.got().length === sent.join("").length, 10_000, 5);
    expect(c.got()).toBe(sent.join(""));
  });

  it("a lost chunk arrives late by TCP's RTO, never not at all; its resends double the RTO", async () => {
    const { p, c } = await proxied();
    const down = p.conditions("down");
    down.lossOverride = 0.4;
    const late: number[] = [];
    for (let i = 0; i < 8; i++) {
      const lostBefore = down.resends;
      const us = await roundTripUs(c, `m${i}`);
      const resends = down.resends - lostBefore;
      // k resends of one chunk: 200 + 400 + … ms = (2^k − 1) × 200 ms.
      const rtoUs = (2 ** resends - 1) * RTO_US_FIRST;
      expect(us, `m${i}: ${resends} resend(s)`).toBeGreaterThanOrEqual(rtoUs);
      expect(us, `m${i}: ${resends} resend(s)`).toBeLessThan(rtoUs + MARGIN_MS * 1000);
      if (resends > 0) late.push(resends);
    }
    expect(c.got()).toBe(Array.from({ length: 8 }, (_, i) => `m${i}`).join(""));
    expect(late.length, "the seed's draws lose some chunks").toBeGreaterThan(0);
    expect(down.lostChunks).toBe(late.length);
  });

  it("a rate of 1 loses every resend up to Linux's tcp_retries2, each RTO twice the last", () => {
    const c = new LinkConditions("x");
    c.lossOverride = 1;
    let expectedUs = 0;
    for (let k = 0, rto = RTO_US_FIRST; k < RESENDS_MAX; k++, rto = Math.min(rto * 2, 120_000_000)) expectedUs += rto;
    expect(c.holdUs()).toBe(expectedUs);
    expect(c.resends).toBe(RESENDS_MAX);
    c.lossOverride = undefined;
    expect(c.holdUs(), "the step ended: the standing rate (0)").toBe(0);
  });

  it("after a cut heals, held bytes arrive at TCP's next resend (200 ms after sending, then +400, +800 ms), not at the heal", async () => {
    const { p, c } = await proxied();
    await roundTripUs(c, "warm");
    for (const [cutMs, resendMs] of [
      [30, 200],
      [300, 600],
    ] as const) {
      p.cut(true, false);
      const want = c.got() + "x";
      const t0 = nowUs();
      c.sock.write("x");
      await new Promise((r) => setTimeout(r, cutMs));
      p.heal();
      await until("the held request's echo", () => c.got() === want, 5000, 1);
      const ms = (nowUs() - t0) / 1000;
      expect(ms, `a ${cutMs} ms cut`).toBeGreaterThanOrEqual(resendMs);
      expect(ms, `a ${cutMs} ms cut`).toBeLessThan(resendMs + MARGIN_MS);
    }
    expect(retransmitAtUs(0, 0)).toBe(200_000);
    expect(retransmitAtUs(0, 200_001)).toBe(600_000);
    expect(retransmitAtUs(0, 8_000_000), "an 8 s cut: resends at 0.2, 0.6, 1.4, 3.0, 6.2, 12.6 s").toBe(12_600_000);
  });

  it("ProxySet finds a directed link's conditions at either end (up for client → server, down for server → client)", async () => {
    const set = await ProxySet.open(["c1"], [{ id: "s1", host: "127.0.0.1", port: await echoServer() }]);
    open.push(set);
    const link = set.get("c1", "s1")!;
    expect(set.conditionsOf("s1", "c1")).toBe(link.conditions("down"));
    expect(set.conditionsOf("c1", "s1")).toBe(link.conditions("up"));
    expect(set.conditionsOf("c1", "s9")).toBeUndefined();
  });
});
