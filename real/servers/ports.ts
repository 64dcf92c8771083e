// Free loopback ports: bind 127.0.0.1:0, read the port, close. Ports handed out once in this
// process are never handed out again, so the servers of one run never collide with each other.
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
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

/** Socket inodes listening on 127.0.0.1/0.0.0.0/:: `port`, from the kernel's tables. */
function listeningInodes(port: number): Set<string> {
  const inodes = new Set<string>();
  const hexPort = port.toString(16).toUpperCase().padStart(4, "0");
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text: string;
    try {
      text = readFileSync(table, "utf8");
    } catch {
      continue;
    }
    for (const line of text.split("\n").slice(1)) {
      const f = line.trim().split(/\s+/);
      // f[1] local address "0100007F:1F90", f[3] state ("0A" = LISTEN), f[9] inode
      if (f.length > 9 && f[3] === "0A" && f[1]!.endsWith(`:${hexPort}`)) inodes.add(f[9]!);
    }
  }
  return inodes;
}

/**
 * Does process `pid` itself hold the listening socket of `port`? The ready check asks, so a
 * foreign process that took the port (and may answer the same protocol) is never taken for ours.
 */
export function pidListensOn(pid: number, port: number): boolean {
  const inodes = listeningInodes(port);
  if (inodes.size === 0) return false;
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return false;
  }
  for (const fd of fds) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m && inodes.has(m[1]!)) return true;
    } catch {
      /* fd closed meanwhile */
    }
  }
  return false;
}
