/**
 * Client connections to a simulated Redis node, with TCP's guarantees as a real client
 * library relies on them: a connection is opened by a handshake; requests on it run
 * once each, in order, however often the client's side retransmits them (the network
 * may drop, delay or reorder single messages; TCP does not); a node that restarted
 * knows none of its old connections and answers them with a reset.
 *
 * The table is volatile: a crashed node loses it, as a process loses its sockets.
 */
import type { ArgvReply } from "./argv-reply.js";

export const CONN_REQUEST = "redis-conn";
export const CONN_REPLY = "redis-conn-reply";

/** Client -> node. `open` opens the connection; otherwise `seq` numbers the request on it. */
export interface ConnRequest {
  type: typeof CONN_REQUEST;
  conn: string;
  open?: true;
  seq?: number;
  argv?: string[];
  /** MULTI ... EXEC: the queued commands, run atomically. */
  batch?: string[][];
}

/** Node -> client: the open acknowledged, a reply for `seq`, or a reset. */
export interface ConnReply {
  type: typeof CONN_REPLY;
  conn: string;
  opened?: true;
  seq?: number;
  reply?: ArgvReply;
  reset?: true;
}

/** Replies kept per connection for retransmitted requests (TCP's window, generously). */
const REPLIES_KEPT = 256;

interface Conn {
  /** The client process at the other end. */
  peer: string;
  nextSeq: number;
  early: Map<number, ConnRequest>;
  replies: Map<number, ArgvReply>;
}

export class ConnectionTable {
  private readonly conns = new Map<string, Conn>();

  /**
   * Handle one message from a client; `run` executes a request, `send` answers.
   * Requests that arrive ahead of a gap wait for it, as TCP holds them.
   */
  onMessage(from: string, m: ConnRequest, run: (r: ConnRequest) => ArgvReply, send: (r: ConnReply) => void): void {
    if (m.open) {
      if (!this.conns.has(m.conn)) this.conns.set(m.conn, { peer: from, nextSeq: 1, early: new Map(), replies: new Map() });
      send({ type: CONN_REPLY, conn: m.conn, opened: true });
      return;
    }
    const c = this.conns.get(m.conn);
    if (!c || m.seq === undefined) {
      send({ type: CONN_REPLY, conn: m.conn, reset: true });
      return;
    }
    if (m.seq < c.nextSeq) {
      const old = c.replies.get(m.seq);
      if (old !== undefined) send({ type: CONN_REPLY, conn: m.conn, seq: m.seq, reply: old });
      return;
    }
    c.early.set(m.seq, m);
    for (let r = c.early.get(c.nextSeq); r; r = c.early.get(c.nextSeq)) {
      c.early.delete(c.nextSeq);
      const reply = run(r);
      c.replies.set(c.nextSeq, reply);
      c.replies.delete(c.nextSeq - REPLIES_KEPT);
      send({ type: CONN_REPLY, conn: m.conn, seq: c.nextSeq, reply });
      c.nextSeq++;
    }
  }

  /** The node's process dies: its kernel resets every connection (the peers learn at once, network permitting). */
  resetAll(send: (to: string, r: ConnReply) => void): void {
    for (const [conn, c] of [...this.conns].sort(([a], [b]) => (a < b ? -1 : 1))) send(c.peer, { type: CONN_REPLY, conn, reset: true });
    this.conns.clear();
  }

  /** A client closed its connection (QUIT). */
  close(conn: string): void {
    this.conns.delete(conn);
  }
}
