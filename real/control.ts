// The driver's control server: the one TCP listener client processes connect to, on
// 127.0.0.1 and a free port. A connection counts once its first line is a hello naming an
// expected client and the run's secret; anything else is dropped. Messages are JSON lines
// (protocol.ts), bounded in length.
import { createServer, type Server, type Socket } from "node:net";
import { LOOPBACK } from "./servers/index.js";
import { loadTolerantMs } from "./servers/deadlines.js";
import { LineSplitter, type FromClient, type ToClient } from "./protocol.js";

export interface ControlHandlers {
  onMessage(clientId: string, msg: FromClient): void;
  /** A client's connection closed (it exited, or was killed). */
  onClose(clientId: string): void;
}

const HELLO_TIMEOUT_MS = 10_000;

export class ControlServer {
  private readonly sockets = new Map<string, Socket>();
  private readonly all = new Set<Socket>();
  private closed = false;

  private constructor(
    private readonly server: Server,
    readonly port: number,
    private readonly secret: string,
    private readonly expected: ReadonlySet<string>,
    private readonly handlers: ControlHandlers,
  ) {
    server.on("connection", (sock) => this.accept(sock));
  }

  static listen(secret: string, expected: ReadonlySet<string>, handlers: ControlHandlers): Promise<ControlServer> {
    return new Promise((resolve, reject) => {
      const server = createServer();
      server.once("error", reject);
      server.listen({ host: LOOPBACK, port: 0, exclusive: true }, () => {
        const addr = server.address();
        const port = typeof addr === "object" && addr !== null ? addr.port : 0;
        server.off("error", reject);
        server.on("error", () => {});
        resolve(new ControlServer(server, port, secret, expected, handlers));
      });
    });
  }

  private accept(sock: Socket): void {
    if (this.closed) return void sock.destroy();
    this.all.add(sock);
    sock.setNoDelay(true);
    sock.setEncoding("utf8");
    let id: string | undefined;
    const helloTimer = setTimeout(() => {
      if (id === undefined) sock.destroy();
    }, loadTolerantMs(HELLO_TIMEOUT_MS));
    const lines = new LineSplitter((line) => {
      let msg: FromClient;
      try {
        msg = JSON.parse(line) as FromClient;
      } catch {
        return void sock.destroy();
      }
      if (id === undefined) {
        if (msg.t !== "hello" || msg.secret !== this.secret || !this.expected.has(msg.clientId) || this.sockets.has(msg.clientId)) {
          return void sock.destroy();
        }
        id = msg.clientId;
        clearTimeout(helloTimer);
        this.sockets.set(id, sock);
      }
      this.handlers.onMessage(id, msg);
    });
    sock.on("data", (chunk: string) => {
      try {
        lines.push(chunk);
      } catch {
        sock.destroy();
      }
    });
    sock.on("error", () => {});
    sock.on("close", () => {
      clearTimeout(helloTimer);
      this.all.delete(sock);
      if (id !== undefined && this.sockets.get(id) === sock) {
        this.sockets.delete(id);
        if (!this.closed) this.handlers.onClose(id);
      }
    });
  }

  /** Send to a client; false if it is not connected. */
  send(clientId: string, msg: ToClient): boolean {
    const sock = this.sockets.get(clientId);
    if (!sock || sock.destroyed) return false;
    sock.write(JSON.stringify(msg) + "\n");
    return true;
  }

  /** Stop listening and drop every connection (the clients exit when theirs closes). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const s of this.all) s.destroy();
    this.server.close();
  }
}
