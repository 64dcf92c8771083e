import { timeText } from "../../checkers/time-text.js";
import { describe, expect, it } from "vitest";
import { judgeChallenge, beliefs } from "../../checkers/challenge.js";
import { runCheckers } from "../../checkers/run-all.js";
import { HistoryBuilder } from "../helpers/history-builder.js";

const grant = (b: HistoryBuilder, p: string, g: string, atMs: number, validityMs = 10_000): HistoryBuilder =>
  b
    .at(atMs)
    .ev(p, "invoke", "acquire", "L", { ttlMs: 10_000, waitMs: 30_000 })
    .at(atMs + 1)
    .ev(p, "ok", "acquire", "L", { grantId: g, validityMs, ttlMs: 10_000 });
const pause = (b: HistoryBuilder, p: string, fromMs: number, toMs: number): HistoryBuilder =>
  b
    .at(fromMs)
    .ev("nemesis", "info", "pause", undefined, { phase: "start", targets: [p] })
    .at(toMs)
    .ev("nemesis", "info", "pause", undefined, { phase: "end", targets: [p] });

/** c1 takes L and is paused 1–15 s; its lease lapses at 10 s by its clock; c2, waiting since 2 s, gets L at 10.5 s. */
function pausedHolder(): HistoryBuilder {
  const b = grant(new HistoryBuilder(), "c1", "c1#1", 0);
  b.at(0.5).ev("c1", "invoke", "read", "L", { grantId: "c1#1" }).at(0.9).ev("c1", "ok", "read", "L", { counter: 0 });
  pause(b, "c1", 1000, 15_000);
  b.at(2).ev("c2", "invoke", "acquire", "L", { ttlMs: 10_000, waitMs: 30_000 });
  b.at(10_000).ev("c1", "info", "lapse", "L", { grantId: "c1#1" });
  b.at(10_500).ev("c2", "ok", "acquire", "L", { grantId: "c2#1", validityMs: 9999, ttlMs: 10_000 });
  b.at(10_600).ev("c2", "invoke", "release", "L", { grantId: "c2#1" }).at(10_601).ev("c2", "ok", "release", "L", { released: true });
  return b;
}

const OB = { kind: "overlapping-belief" } as const;

describe("timeText: a verdict's time in the unit its size needs", () => {
  it("µs under 1 ms, ms (to 0.1) under 1 s, seconds (to 0.1) from there", () => {
    expect([0, 850, 1_117, 51_000, 51_240, 999_949, 1_000_000, 10_509_966, 15_007_133].map(timeText)).toEqual([
      "0 µs",
      "850 µs",
      "1.1 ms",
      "51 ms",
      "51.2 ms",
      "999.9 ms",
      "1 s",
      "10.5 s",
      "15 s",
    ]);
  });
});

describe("challenge: overlapping-belief (the default)", () => {
  it("a register's history (no acquire) is not challenged by it, in the same words as a lock history nobody asked for", () => {
    const b = new HistoryBuilder();
    b.at(0).ev("c1", "invoke", "write", "x", { value: 1 }).at(1).ev("c1", "ok", "write", "x", null);
    b.at(2).ev("c2", "invoke", "read", "x", null).at(3).ev("c2", "ok", "read", "x", { value: 2 });
    expect(judgeChallenge(b.events, OB)).toEqual({
      kind: "overlapping-belief",
      grants: 0,
      acquiresFailed: 0,
      challenged: false,
      count: 0,
      why: "no client asked for a lock",
    });
    // A lock history whose only acquire was refused goes the long way, and says so.
    b.at(4).ev("c3", "invoke", "acquire", "L", { ttlMs: 100, waitMs: 0 }).at(5).ev("c3", "fail", "acquire", "L", null);
    const refused = judgeChallenge(b.events, OB);
    expect([refused.challenged, refused.acquiresFailed]).toEqual([false, 1]);
    expect(refused.why).toMatch(/^nobody was ever granted a lock/);
  });

  it("challenges a run where a second client is granted while a paused holder still believes it holds", () => {
    const b = pausedHolder();
    b.events.sort((x, y) => x.timeUs - y.timeUs).forEach((e, i) => (e.index = i));
    const r = judgeChallenge(b.events, OB);
    expect(r.challenged).toBe(true);
    expect(r.count).toBe(1);
    expect(r.why).toBe("c2 was granted L at 10.5 s while c1 still held it (granted at 1 ms, held until 15 s)");
    // The lapse note fell mid-pause: c1 finds out only when it wakes.
    expect(beliefs(b.events)[0]!.endUs).toBe(15_000_000);
  });

  it("does not challenge the same run when the holder was awake and its library found the lapse before the grant", () => {
    const b = grant(new HistoryBuilder(), "c1", "c1#1", 0);
    b.at(2).ev("c2", "invoke", "acquire", "L", { ttlMs: 10_000, waitMs: 30_000 });
    b.at(10_000).ev("c1", "info", "lapse", "L", { grantId: "c1#1" });
    b.at(10_500).ev("c2", "ok", "acquire", "L", { grantId: "c2#1", validityMs: 9999, ttlMs: 10_000 });
    const r = judgeChallenge(b.events, OB);
    expect(r.challenged).toBe(false);
    expect(r.why).toMatch(/^no grant met another client's hold: 2 grants to 2 clients/);
  });

  it("says who gave up, when, after how many attempts and why, when the waiter never got the lock", () => {
    const b = grant(new HistoryBuilder(), "c1", "c1#1", 0);
    for (let i = 0; i < 3; i++) {
      b.at(1000 + i * 500).ev("c2", "invoke", "acquire", "L", { ttlMs: 10_000, waitMs: 0 });
      b.at(1200 + i * 500).ev("c2", "fail", "acquire", "L", { reason: "retry count exhausted" });
    }
    b.at(15_000).ev("c1", "invoke", "release", "L", { grantId: "c1#1" });
    const r = judgeChallenge(b.events, OB);
    expect(r.challenged).toBe(false);
    expect(r.acquiresFailed).toBe(3);
    expect(r.why).toBe(
      "c2 never held L while c1 believed it did: c2 tried from 1 s and gave up at 2.2 s after 3 attempts (retry count exhausted); c1 held it from 1 ms to 15 s (it released)",
    );
  });

  it("says when a waiter gave up well inside the waitMs it was given: the library's own limit", () => {
    const b = grant(new HistoryBuilder(), "c1", "c1#1", 0);
    b.at(1000)
      .ev("c2", "invoke", "acquire", "L", { ttlMs: 10_000, waitMs: 30_000 })
      .at(2700)
      .ev("c2", "fail", "acquire", "L", { reason: "quorum not reached" });
    b.at(15_000).ev("c1", "invoke", "release", "L", { grantId: "c1#1" });
    expect(judgeChallenge(b.events, OB).why).toBe(
      "c2 never held L while c1 believed it did: c2 tried from 1 s and gave up at 2.7 s (quorum not reached), 1.7 s into the 30 s the workload would wait (waitMs): its own limit, not the scenario's; c1 held it from 1 ms to 15 s (it released)",
    );
    // A wait that used (nearly) all of waitMs ran out by the scenario's own limit: nothing more to say.
    const full = grant(new HistoryBuilder(), "c1", "c1#1", 0);
    full.at(1000).ev("c2", "invoke", "acquire", "L", { ttlMs: 10_000, waitMs: 3000 }).at(4000).ev("c2", "fail", "acquire", "L", { reason: "timeout" });
    full.at(15_000).ev("c1", "invoke", "release", "L", { grantId: "c1#1" });
    expect(judgeChallenge(full.events, OB).why).toMatch(/c2 tried from 1 s and gave up at 4 s \(timeout\); c1 held it/);
  });

  it("tells a waiter's whole wait: the attempt that met the hold, and the retries after it", () => {
    const b = grant(new HistoryBuilder(), "c3", "c3#1", 500);
    b.at(2600).ev("c3", "invoke", "release", "L", { grantId: "c3#1" });
    for (let t = 1000; t < 12_000; t += 1000)
      b.at(t)
        .ev("c2", "invoke", "acquire", "L", { ttlMs: 1000 })
        .at(t + 900)
        .ev("c2", "fail", "acquire", "L");
    const why = judgeChallenge(b.events, OB).why;
    expect(why).toBe(
      "c2 never held L while c3 believed it did: c2 tried from 1 s and gave up at 11.9 s after 11 attempts; c3 held it from 501 ms to 2.6 s (it released)",
    );
    expect(why).not.toMatch(/before/);
  });

  it("does not count a grant whose validity was gone on arrival (no belief) as meeting a hold", () => {
    const b = grant(new HistoryBuilder(), "c1", "c1#1", 0);
    // c2's grant lapses at once and it does nothing under it.
    grant(b, "c2", "c2#1", 10).at(11).ev("c2", "info", "lapse", "L", { grantId: "c2#1" });
    b.at(12).ev("c2", "invoke", "release", "L", { grantId: "c2#1" });
    b.at(20).ev("c1", "invoke", "release", "L", { grantId: "c1#1" });
    expect(judgeChallenge(b.events, OB).challenged).toBe(false);
    const live = grant(new HistoryBuilder(), "c1", "c1#1", 0);
    grant(live, "c2", "c2#1", 10).at(20).ev("c1", "invoke", "release", "L", { grantId: "c1#1" });
    expect(judgeChallenge(live.events, OB).challenged).toBe(true);
  });

  it("says so when nobody asked for a lock, or nobody got one", () => {
    expect(judgeChallenge([], OB).why).toBe("no client asked for a lock");
    const b = new HistoryBuilder().at(0).ev("c1", "invoke", "acquire", "L", { ttlMs: 1000 }).at(5).ev("c1", "fail", "acquire", "L", { reason: "no quorum" });
    expect(judgeChallenge(b.events, OB).why).toBe("nobody was ever granted a lock: gave up at 5 ms (no quorum)");
  });

  it("makes a safe but unchallenged run's outcome not-challenged, and leaves a challenged one safe", () => {
    const handover = new HistoryBuilder().section("c1", "c1#1", "L", 0, 10, 0).section("c2", "c2#1", "L", 20, 10, 1).finalRead("L", 2);
    const v = runCheckers(handover.events, { ttlMs: 10_000 });
    expect(v.safety).toBe(true);
    expect(v.outcome).toBe("not-challenged");
    expect(v.challenge.challenged).toBe(false);
    // The same history under a rule that contention suffices: c2 asked while c1 held.
    const contended = new HistoryBuilder().section("c1", "c1#1", "L", 0, 10, 0);
    contended
      .at(5)
      .ev("c2", "invoke", "acquire", "L", { ttlMs: 10_000 })
      .at(11)
      .ev("c2", "ok", "acquire", "L", { grantId: "c2#1", validityMs: 9999, ttlMs: 10_000 });
    contended.at(12).ev("c2", "invoke", "release", "L", { grantId: "c2#1" }).at(13).ev("c2", "ok", "release", "L", { released: true });
    contended.finalRead("L", 1);
    expect(runCheckers(contended.events, { ttlMs: 10_000, challenge: { kind: "waiter-served" } }).outcome).toBe("safe");
  });

  it("never leaves an unsafe run unchallenged, whatever the rule asked for", () => {
    const overlap = new HistoryBuilder().section("c1", "c1#1", "L", 0, 10, 0).section("c2", "c2#1", "L", 5, 10, 0).finalRead("L", 1);
    const v = runCheckers(overlap.events, { ttlMs: 10_000, challenge: { kind: "waiter-waited", waitedMsMin: 60_000 } });
    expect(v.safety).toBe(false);
    expect(v.challenge.challenged).toBe(true);
    expect(v.challenge.why).toBe("c2 was granted L at 6 ms while c1 still held it (granted at 1 ms, held until 9 ms)");
  });
});

describe("challenge: the other kinds", () => {
  it("expiry-handover: challenged when the lock passed on before the holder's release freed it, not when every release did", () => {
    const lapsed = grant(new HistoryBuilder(), "c1", "c1#1", 0).at(10_000).ev("c1", "info", "lapse", "L", { grantId: "c1#1" });
    grant(lapsed, "c2", "c2#1", 10_100)
      .at(12_000)
      .ev("c1", "invoke", "release", "L", { grantId: "c1#1" })
      .at(12_001)
      .ev("c1", "ok", "release", "L", { released: false });
    const r = judgeChallenge(lapsed.events, { kind: "expiry-handover" });
    expect(r.challenged).toBe(true);
    expect(r.why).toMatch(/^c2 was granted L at 10.1 s, freed by c1's lease running out, not by its release/);
    // A release that was sent but never answered did not free the lock either.
    const lostRelease = grant(new HistoryBuilder(), "c1", "c1#1", 0)
      .at(5)
      .ev("c1", "invoke", "release", "L", { grantId: "c1#1" })
      .at(8000)
      .ev("c1", "info", "release", "L", { reason: "timeout" });
    grant(lostRelease, "c2", "c2#1", 10_100);
    expect(judgeChallenge(lostRelease.events, { kind: "expiry-handover" }).challenged).toBe(true);
    const released = new HistoryBuilder().section("c1", "c1#1", "L", 0, 10, 0).section("c2", "c2#1", "L", 20, 10, 1);
    const n = judgeChallenge(released.events, { kind: "expiry-handover" });
    expect(n.challenged).toBe(false);
    expect(n.why).toMatch(/^every lock was freed by its holder's release, never by a lease running out/);
  });

  it("waiter-served: challenged when a client waited while another held and then got the lock", () => {
    const apart = new HistoryBuilder().section("c1", "c1#1", "L", 0, 10, 0).section("c2", "c2#1", "L", 20, 10, 1);
    expect(judgeChallenge(apart.events, { kind: "waiter-served" }).challenged).toBe(false);
    const queued = new HistoryBuilder().section("c1", "c1#1", "L", 0, 10, 0);
    queued.at(3).ev("c2", "invoke", "acquire", "L", { ttlMs: 10_000 }).at(11).ev("c2", "ok", "acquire", "L", { grantId: "c2#1", validityMs: 1, ttlMs: 1 });
    const r = judgeChallenge(queued.events, { kind: "waiter-served" });
    expect(r.challenged).toBe(true);
    // 3 ms and 11 ms, not "0 s" and "0 s": times under a second are said in ms.
    expect(r.why).toBe("c2 asked for L at 3 ms while c1 held it, and was granted it at 11 ms");
  });

  it("granted-during-release: challenged when a grant falls between another client's release invoke and its answer", () => {
    // c1 invokes its release at 100 ms and is answered at 2 s (it paused); c2 is granted at 500 ms.
    const during = grant(new HistoryBuilder(), "c1", "c1#1", 0);
    during.at(100).ev("c1", "invoke", "release", "L", { grantId: "c1#1" });
    grant(during, "c2", "c2#1", 499);
    during.at(2000).ev("c1", "ok", "release", "L", { released: true });
    const r = judgeChallenge(during.events, { kind: "granted-during-release" });
    expect(r.challenged).toBe(true);
    expect(r.why).toBe("c2 was granted L at 500 ms while c1's release, invoked at 100 ms, was still outstanding");
    // The same grant after the release was answered: nothing stalled mid-release.
    const after = grant(new HistoryBuilder(), "c1", "c1#1", 0);
    after.at(100).ev("c1", "invoke", "release", "L", { grantId: "c1#1" }).at(101).ev("c1", "ok", "release", "L", { released: true });
    grant(after, "c2", "c2#1", 499);
    const n = judgeChallenge(after.events, { kind: "granted-during-release" });
    expect(n.challenged).toBe(false);
    expect(n.why).toBe("no client was granted a lock while another's release of it was outstanding (1 release)");
  });

  it("waiter-waited: challenged by a wait of at least the bound with no grant to anyone, not by a shorter one", () => {
    const b = new HistoryBuilder().at(0).ev("c1", "invoke", "acquire", "L", { ttlMs: 1000 }).at(1500).ev("c1", "info", "acquire", "L", { reason: "timeout" });
    expect(judgeChallenge(b.events, { kind: "waiter-waited" }).challenged).toBe(true);
    expect(judgeChallenge(b.events, { kind: "waiter-waited", waitedMsMin: 2000 }).challenged).toBe(false);
    // A grant to someone else 200 ms into the wait: the lock was available, the wait does not count.
    const served = new HistoryBuilder().at(0).ev("c1", "invoke", "acquire", "L", { ttlMs: 1000 });
    grant(served, "c2", "c2#1", 199).at(1500).ev("c1", "info", "acquire", "L", { reason: "timeout" });
    served.events.sort((x, y) => x.timeUs - y.timeUs).forEach((e, i) => (e.index = i));
    const r = judgeChallenge(served.events, { kind: "waiter-waited" });
    expect(r.challenged).toBe(false);
    expect(r.why).toMatch(/^no client waited one TTL or more/);
  });
});
