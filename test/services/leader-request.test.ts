import { describe, expect, it } from "vitest";
import { leaderRequest, scriptedServers, type LeaderRequestResult } from "../helpers/scripted-servers.js";

/**
 * leaderCall (services/raft-service/leader-request.ts, through the test helper leaderRequest), the redirect logic of the Raft-backed
 * clients, against scripted servers: a stranded leader that answers nothing, its
 * follower that still names it, and the majority's leader.
 */
const world = (behaviour: Parameters<typeof scriptedServers>[1]) => scriptedServers("lr", behaviour);

function ask(w: ReturnType<typeof world>, servers: string[], retryTimeouts = true) {
  const cursor = { servers, guess: 0 };
  let out: LeaderRequestResult<{ status: string; leader?: string }> | undefined;
  w.client.spawn(leaderRequest(w.client, cursor, { type: "req" }, { deadlineUs: 2_000_000, requestTimeoutMs: 200, retryTimeouts }), (r) => (out = r.value));
  w.sim.run(3_000_000);
  return { out, cursor };
}

describe("leaderRequest", () => {
  it("does not follow a hint back to a server that timed out: the stranded leader's follower points at it, the next server finds the real leader", () => {
    const w = world({
      s1: () => undefined, // the stranded leader: its barrier never completes
      s2: () => ({ type: "r", status: "not-leader", leader: "s1" }), // its follower, still loyal
      s3: () => ({ type: "r", status: "not-leader", leader: "s4" }),
      s4: () => ({ type: "r", status: "ok" }),
    });
    const { out, cursor } = ask(w, ["s1", "s2", "s3", "s4"]);
    expect(out).toMatchObject({ status: "answered", reply: { status: "ok" } });
    expect(cursor.guess).toBe(3);
    // One timeout (200 ms), then s2, a backoff of 20 ms, s3 and s4: well inside the deadline.
    expect((out as { sentUs: number }).sentUs).toBeLessThan(300_000);
  });

  it("follows a hint to a server that has not failed it", () => {
    const w = world({
      s1: () => ({ type: "r", status: "not-leader", leader: "s3" }),
      s2: () => ({ type: "r", status: "ok", leader: "wrong" }),
      s3: () => ({ type: "r", status: "ok" }),
    });
    const { out, cursor } = ask(w, ["s1", "s2", "s3"]);
    expect(out).toMatchObject({ status: "answered", reply: { status: "ok" } });
    expect(cursor.guess).toBe(2);
  });

  it("a write that timed out is unknown when it may not be retried", () => {
    const w = world({ s1: () => undefined, s2: () => ({ type: "r", status: "ok" }) });
    const { out, cursor } = ask(w, ["s1", "s2"], false);
    expect(out).toEqual({ status: "unknown" });
    expect(cursor.guess).toBe(1);
  });
});
