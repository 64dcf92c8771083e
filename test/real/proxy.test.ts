// The per-link TCP proxy of real mode (real/proxy.ts), against a real loopback echo server:
// bytes pass; a cut direction holds them (nothing arrives, nothing is refused); the heal
// delivers them in order; a connection opened during a cut waits for the heal; the directed
// cuts of ProxySet act on the right direction only.
import { createServer, connect, type Server, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { LinkProxy, ProxySet } from "../../real/proxy.js";
import { until } from "../helpers/processes.js";

const open: Array<{ close(): void }> = [];
afterEach(() => {
  for (const o of open.splice(0)) o.close();
});

/** An echo server that also records what it received. */
async function echoServer(): Promise<{ port: number; received: () => string; server: Server }> {
  let got = "";
  const server = createServer((s) => s.on("data", (b) => ((got += b.toString()), s.write(b))));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  open.push(server);
  return { port: (server.address() as { port: number }).port, received: () => got, server };
}

function client(port: number): Promise<{ sock: Socket; got: () => string }> {
  let got = "";
  const sock = connect({ host: "127.0.0.1", port });
  sock.on("data", (b) => (got += b.toString()));
  open.push({ close: () => sock.destroy() });
  return new Promise((r) => sock.once("connect", () => r({ sock, got: () => got })));
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
describe("real mode: LinkProxy", () => {
  it("passes bytes both ways; a cut holds them; the heal delivers them in order", async () => {
    const echo = await echoServer();
    const p = new LinkProxy("c1", "s1", { host: "127.0.0.1", port: echo.port });
    await p.listen();
    open.push(p);
    const c = await client(p.port);
    c.sock.write("a");
    await until("echo through the proxy", () => c.got() === "a", 2000, 5);
    p.cut(true, true);
    c.sock.write("b");
    c.sock.write("c");
    await sleep(100);
    expect(echo.received(), "nothing reaches the server during the cut").toBe("a");
    expect(c.got()).toBe("a");
    p.heal();
    await until("held bytes delivered after the heal", () => c.got() === "abc", 2000, 5);
    expect(echo.received()).toBe("abc");
  });

  it("a one-way cut (server → client) lets requests in and holds replies", async () => {
    const echo = await echoServer();
    const set = await ProxySet.open(["c1"], [{ id: "s1", host: "127.0.0.1", port: echo.port }]);
    open.push(set);
    const c = await client(set.get("c1", "s1")!.port);
    expect(set.cutLink("s1", "c1")).toBe(true);
    expect(set.cutLink("c1", "s9")).toBe(false);
    c.sock.write("x");
    await until("the request arrived", () => echo.received() === "x", 2000, 5);
    await sleep(100);
    expect(c.got(), "the reply is held").toBe("");
    set.healLink("s1", "c1");
    await until("the reply after the heal", () => c.got() === "x", 2000, 5);
  });

  it("a connection opened during a cut reaches the server only after the heal", async () => {
    const echo = await echoServer();
    let accepted = 0;
    echo.server.on("connection", () => accepted++);
    const p = new LinkProxy("c1", "s1", { host: "127.0.0.1", port: echo.port });
    await p.listen();
    open.push(p);
    p.cut(true, true);
    const c = await client(p.port);
    c.sock.write("q");
    await sleep(100);
    expect(accepted, "no upstream connection during the cut").toBe(0);
    p.heal();
    await until("the held request and its reply after the heal", () => c.got() === "q", 2000, 5);
    expect(accepted).toBe(1);
  });
});
