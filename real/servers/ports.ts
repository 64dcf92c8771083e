// Free loopback ports: bind 127.0.0.1:0, read the port, close. Ports handed out once in this
// process are never handed out again, so the servers of one run never collide with each other.
import { createServer } from "node:net";

export const LOOPBACK = "127.0.0.1";
const handedOut = new Set<number>();
const MAX_ATTEMPTS = 64;

function bindZero(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.once("error", reject);
    srv.listen({ host: LOOPBACK, port: 0, exclusive: true }, () => {
      const addr = srv.address();
      const port = typeof addr === "object" && addr !== null ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** One free loopback port not handed out before in this process. */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const port = await bindZero();
    if (port > 0 && !handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error(`no free loopback port after ${MAX_ATTEMPTS} attempts`);
}

export async function freePorts(count: number): Promise<number[]> {
  const ports: number[] = [];
  for (let i = 0; i < count; i++) ports.push(await freePort());
  return ports;
}
