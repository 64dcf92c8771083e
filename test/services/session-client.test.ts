import { describe, expect, it } from "vitest";
import type { Message } from "../../sim/simulation.js";
import { leaderRequest, scriptedServers } from "../helpers/scripted-servers.js";
import { ServiceSession, SessionClient, type SessionProtocol } from "../../services/raft-service/session-client.js";

/**
 * SessionClient.request is leaderCall's fiber with the session bookkeeping in its
 * sink (no generator of its own): against scripted servers, it returns what
 * leaderRequest answers, and renews or expires the session exactly as the plain
 * version did (with the send time of the attempt that was answered).
 */
type Op = { kind: string; id?: number };
type Reply = { status: string; leader?: string };

const protocol: SessionProtocol<Op, Reply, ServiceSession> = {
  requestType: "req",
  timeoutMs: 10_000,
  keepAliveIntervalMs: 1_000,
  clockDriftMarginMs: 100,
  requestTimeoutMs: 200,
  createOp: () => ({ kind: "create" }),
  createdId: () => undefined,
  newSession: (id, sentUs) => new ServiceSession(id, sentUs),
  keepAliveOp: (id) => ({ kind: "ping", id }),
  closeOp: (id) => ({ kind: "close", id }),
  provesSession: (op) => op.id,
  expiredBy: (reply) => reply.status === "session-expired",
};

const world = (behaviour: Parameters<typeof scriptedServers>[1]) => scriptedServers("sc", behaviour);

const servers = () => ({
  s1: () => undefined, // silent: one timeout first
  s2: () => ({ type: "r", status: "not-leader", leader: "s3" }),
  s3: (m: Message) => ({ type: "r", status: (m as unknown as { op: Op }).op.id === 9 ? "session-expired" : "ok" }),
});

/** Runs `op` through SessionClient.request on session `sid` (its lastHeardUs 0); what came back and the session after. */
function viaClient(op: Op, sid = 7) {
  const w = world(servers());
  const c = new SessionClient<Op, Reply, ServiceSession>(w.client, ["s1", "s2", "s3"], protocol);
  (c as unknown as { cursor: { guess: number } }).cursor.guess = 0;
  const s = new ServiceSession(sid, 0);
  c.session = s;
  const contacts: number[] = [];
  c.contactListeners.push((x) => contacts.push(x.lastHeardUs));
  let out: unknown;
  w.client.spawn(c.request(op, 2_000_000, true), (r) => (out = r.value));
  w.sim.run(3_000_000);
  return { out, session: s, contacts };
}

/** The same op through the plain leaderRequest: its answer and the answered attempt's send time. */
function viaPlain(op: Op) {
  const w = world(servers());
  let out: { status: string; reply?: Reply; sentUs?: number } | undefined;
  w.client.spawn(
    leaderRequest<Reply>(
      w.client,
      { servers: ["s1", "s2", "s3"], guess: 0 },
      { type: "req", op },
      { deadlineUs: 2_000_000, requestTimeoutMs: 200, retryTimeouts: true },
    ),
    (r) => (out = r.value),
  );
  w.sim.run(3_000_000);
  return out!;
}

describe("SessionClient.request", () => {
  it("an ok answer to the session's own op renews it with the answered attempt's send time, as the plain version", () => {
    const plain = viaPlain({ kind: "ping", id: 7 });
    const got = viaClient({ kind: "ping", id: 7 });
    expect(plain.status).toBe("answered");
    expect(got.out).toEqual(plain.reply);
    // After a timeout on s1 and a redirect from s2: later than the first send.
    expect(plain.sentUs).toBeGreaterThan(200_000);
    expect(got.session.lastHeardUs).toBe(plain.sentUs);
    expect(got.contacts).toEqual([plain.sentUs]);
    expect(got.session.expired).toBe(false);
  });

  it("an expiry answer ends the session; an op of no session or another one leaves it alone", () => {
    const expired = viaClient({ kind: "ping", id: 9 }, 9);
    expect(expired.out).toMatchObject({ type: "r", status: "session-expired" });
    expect(expired.session.expired).toBe(true);
    expect(expired.session.lastHeardUs).toBe(0);
    expect(expired.contacts).toEqual([]);
    const notOurs = viaClient({ kind: "ping", id: 9 }, 7); // op 9 proves session 9, not ours
    expect(notOurs.session.expired).toBe(false);
    const other = viaClient({ kind: "create" });
    expect(other.session.lastHeardUs).toBe(0);
    expect(other.contacts).toEqual([]);
  });

  it("a timeout that may not be retried is unknown and touches nothing", () => {
    const w = world({ s1: () => undefined, s2: () => ({ type: "r", status: "ok" }), s3: () => ({ type: "r", status: "ok" }) });
    const c = new SessionClient<Op, Reply, ServiceSession>(w.client, ["s1", "s2", "s3"], protocol);
    (c as unknown as { cursor: { guess: number } }).cursor.guess = 0;
    const s = new ServiceSession(7, 0);
    c.session = s;
    let out: unknown;
    w.client.spawn(c.request({ kind: "ping", id: 7 }, 2_000_000, false), (r) => (out = r.value));
    w.sim.run(3_000_000);
    expect(out).toEqual({ status: "unknown" });
    expect(s.lastHeardUs).toBe(0);
  });
});
