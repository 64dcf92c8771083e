import type { Stat, ZkError } from "./tree.js";

/** Messages between Raft-ZK clients and servers (the Raft protocol's own start with "raft-"). */
export const ZK_REQUEST = "zk-request";
export const ZK_REPLY = "zk-reply";
/** Bug followerSessionExpiry only: leader → followers, sessions heard from since the last relay. */
export const ZK_TOUCH = "zk-touch";
/** Bug followerSessionExpiry only: follower → leader, "expire this session, my clock says so". */
export const ZK_EXPIRE_REQUEST = "zk-expire-request";

export type ZkReadKind = "get" | "exists" | "getChildren";

export type ZkOp =
  | { kind: "createSession"; timeoutMs: number }
  | { kind: "ping"; sessionId: number }
  | { kind: "closeSession"; sessionId: number }
  | { kind: "create"; sessionId: number; path: string; data: string; ephemeral: boolean; sequential: boolean; parents: boolean }
  | { kind: "delete"; sessionId: number; path: string; version: number }
  | { kind: "set"; sessionId: number; path: string; data: string; version: number }
  | { kind: ZkReadKind; sessionId: number; path: string; watch: boolean }
  /**
   * Wait for the one-shot watch this client set on `path` to fire: the server answers
   * when it fires (at once if it already has). Watch events travel this way, as a
   * reply, because they belong to the session's connection to that server.
   */
  | { kind: "awaitWatch"; sessionId: number; path: string };

export type ZkReply =
  | {
      status: "ok";
      zxid?: number;
      sessionId?: number;
      path?: string;
      stat?: Stat;
      data?: string;
      children?: string[];
      /** awaitWatch: what fired; "none" when this server holds no such watch (it was not the one that set it). */
      event?: ZkWatchEvent["event"] | "none";
    }
  | { status: "error"; error: ZkError }
  /** Not executed: this server is not the leader (`leader`: who it believes is). */
  | { status: "not-leader"; leader?: string }
  /** Not executed: the leader has not applied this session's creation yet; ask again. */
  | { status: "retry" }
  /** A write whose fate is unknown (leadership lost while it was in the log). */
  | { status: "unknown" };

export interface ZkWatchEvent {
  path: string;
  event: "created" | "deleted" | "changed" | "children";
}
