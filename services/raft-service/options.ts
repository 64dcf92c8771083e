import { Fields } from "../../sim/validate.js";

/**
 * Design options shared by the services on the Raft core (raft-zk, etcd-lease).
 * `sessionTimeoutMs` is the ZooKeeper session timeout or the etcd lease TTL; the
 * checkers read it under this name (harness/check-context.ts).
 */
export interface RaftServiceOptions {
  /** Servers in the Raft group (odd, >= 1). */
  nodes: number;
  sessionTimeoutMs: number;
  /** Client session pings / lease keepalives, ms. */
  heartbeatIntervalMs: number;
  /**
   * The client stops trusting its locks this long before the session timeout has
   * passed since it last heard from the service (room for clock rate error), ms.
   */
  clockDriftMarginMs: number;
  /** Socket timeout of one client request, ms. */
  requestTimeoutMs: number;
  /** A waiter re-checks the lock this often even without a watch event (watches die with a leader), ms. */
  watchPollMs: number;
  electionTimeoutMsMin: number;
  electionTimeoutMsMax: number;
  raftHeartbeatIntervalMs: number;
  /**
   * A server whose election timeout is half the others' minimum, so that it wins the
   * first election (and tends to win again after it is back): lets a scenario's fault
   * target "the leader" by name. Unset: every server draws from the same range.
   */
  preferredLeader?: string;
  /** Switchable bugs of the service (not of the Raft core). */
  bugs: Record<string, boolean>;
}

export const RAFT_SERVICE_FIELDS = [
  "nodes",
  "sessionTimeoutMs",
  "heartbeatIntervalMs",
  "clockDriftMarginMs",
  "requestTimeoutMs",
  "watchPollMs",
  "electionTimeoutMsMin",
  "electionTimeoutMsMax",
  "raftHeartbeatIntervalMs",
  "preferredLeader",
  "bugs",
];

/** Server ids of a cluster: `<prefix>-1` .. `<prefix>-N`. */
export function serverIds(prefix: string, nodes: number): string[] {
  return Array.from({ length: nodes }, (_, i) => `${prefix}-${i + 1}`);
}

export function parseRaftServiceOptions(raw: unknown, file: string, prefix: string, bugNames: readonly string[], idPrefix: string): RaftServiceOptions {
  return parseRaftServiceFields(Fields.root(file, raw ?? {}, prefix).only(RAFT_SERVICE_FIELDS), bugNames, idPrefix);
}

/** The shared fields of an options object whose unknown keys the caller has already refused (a design with fields of its own). */
export function parseRaftServiceFields(f: Fields, bugNames: readonly string[], idPrefix: string): RaftServiceOptions {
  const nodes = f.number("nodes", { integer: true, min: 1, max: 99, dflt: 5 });
  if (nodes % 2 === 0) f.fail("nodes", "expected an odd number of servers (a majority must be well defined)");
  const sessionTimeoutMs = f.number("sessionTimeoutMs", { min: 10, dflt: 4000 });
  const heartbeatIntervalMs = f.number("heartbeatIntervalMs", { min: 1, dflt: Math.max(1, Math.floor(sessionTimeoutMs / 8)) });
  if (heartbeatIntervalMs >= sessionTimeoutMs) f.fail("heartbeatIntervalMs", `expected less than sessionTimeoutMs (${sessionTimeoutMs})`);
  const clockDriftMarginMs = f.number("clockDriftMarginMs", { min: 0, dflt: Math.ceil(sessionTimeoutMs / 10) });
  if (clockDriftMarginMs >= sessionTimeoutMs) f.fail("clockDriftMarginMs", `expected less than sessionTimeoutMs (${sessionTimeoutMs})`);
  const electionTimeoutMsMin = f.number("electionTimeoutMsMin", { min: 1, dflt: 150 });
  const electionTimeoutMsMax = f.number("electionTimeoutMsMax", { min: 1, dflt: 300 });
  if (electionTimeoutMsMax < electionTimeoutMsMin) f.fail("electionTimeoutMsMax", `expected >= electionTimeoutMsMin (${electionTimeoutMsMin})`);
  const raftHeartbeatIntervalMs = f.number("raftHeartbeatIntervalMs", { min: 1, dflt: 50 });
  if (raftHeartbeatIntervalMs >= electionTimeoutMsMin) f.fail("raftHeartbeatIntervalMs", `expected less than electionTimeoutMsMin (${electionTimeoutMsMin})`);
  const preferredLeader = f.optString("preferredLeader");
  const ids = serverIds(idPrefix, nodes);
  if (preferredLeader !== undefined && !ids.includes(preferredLeader)) f.fail("preferredLeader", `expected one of ${ids.join(", ")}`);
  if (preferredLeader !== undefined && raftHeartbeatIntervalMs >= electionTimeoutMsMin / 2) {
    f.fail("raftHeartbeatIntervalMs", `expected less than half of electionTimeoutMsMin (${electionTimeoutMsMin / 2}) with a preferredLeader`);
  }
  const b = f.object("bugs", {});
  b.only(bugNames);
  const bugs: Record<string, boolean> = {};
  for (const name of bugNames) bugs[name] = b.boolean(name, false);
  return {
    nodes,
    sessionTimeoutMs,
    heartbeatIntervalMs,
    clockDriftMarginMs,
    requestTimeoutMs: f.number("requestTimeoutMs", { min: 1, dflt: 200 }),
    watchPollMs: f.number("watchPollMs", { min: 1, dflt: 1000 }),
    electionTimeoutMsMin,
    electionTimeoutMsMax,
    raftHeartbeatIntervalMs,
    ...(preferredLeader !== undefined ? { preferredLeader } : {}),
    bugs,
  };
}
