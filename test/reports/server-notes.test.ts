import { describe, expect, it } from "vitest";
import { loadScenario } from "../../scenarios/index.js";
import { runScenario } from "../../harness/runner.js";
import { runCheckers } from "../../checkers/run-all.js";
import { checkContextFor } from "../../harness/check-context.js";
import type { HistoryEvent } from "../../sim/history.js";
import { buildRunView } from "../../reports/run-view.js";
import { describeNote } from "../../reports/notes.js";
import { runFixture } from "./fixtures.js";
import { resolve } from "node:path";
import { attackByName } from "../../attacks/index.js";
import { parseScenario } from "../../scenarios/schema.js";
import { buildRecord } from "../../harness/artifacts.js";
import type { TraceRecord } from "../../sim/simulation.js";

/**
 * The servers' side of a run: lock servers note in the history what they decided (a
 * key set with its expiry by the node's own clock, a key expired, a failover, a
 * session or lease expired and by whose clock), and the report draws and tells it.
 */
const notesOf = (h: readonly HistoryEvent[], f: string) =>
  h.filter((e) => e.f === f && e.type === "info" && !/^c\d+$/.test(e.process) && e.process !== "nemesis");

describe("server notes in the history", () => {
  it("naive-gc-pause: redis-1 sets the key for c1 with its expiry by its own clock, then expires it, then sets it for c2", () => {
    const h = runScenario(loadScenario("naive-gc-pause"), 1).history;
    const sets = notesOf(h, "key-set");
    expect(sets.map((e) => [e.process, (e.value as { by: string }).by])).toEqual([
      ["redis-1", "c1"],
      ["redis-1", "c2"],
    ]);
    const first = sets[0]!.value as { expireAtWallMs: number; wallMs: number; ttlMs: number };
    expect(first.expireAtWallMs - first.wallMs).toBe(first.ttlMs);
    const expired = notesOf(h, "key-expired");
    expect(expired).toHaveLength(1);
    // Expired by the node's wall clock at the key's expiry, before c2's grant and during c1's pause.
    const v = expired[0]!.value as { wallMs: number; expireAtWallMs: number };
    expect(v.wallMs).toBeGreaterThanOrEqual(v.expireAtWallMs);
    const c2Grant = h.find((e) => e.process === "c2" && e.f === "acquire" && e.type === "ok")!;
    expect(expired[0]!.timeUs).toBeLessThan(c2Grant.timeUs);
    expect(expired[0]!.timeUs).toBeGreaterThan(sets[0]!.timeUs);
  });

  it("raft-zk-client-gc-pause: the leader expires c1's session by its monotonic clock and the commit deletes c1's ephemeral node", () => {
    const h = runScenario(loadScenario("raft-zk-client-gc-pause"), 1).history;
    const leader = notesOf(h, "leader");
    expect(leader.length).toBeGreaterThan(0);
    const decided = notesOf(h, "session-expiry");
    expect(decided).toHaveLength(1);
    const d = decided[0]!.value as { owner: string; decidedBy: string; clock: string; silentMs: number; timeoutMs: number };
    expect(d.owner).toBe("c1");
    expect(d.decidedBy).toBe(decided[0]!.process);
    expect(d.decidedBy).toBe(leader[leader.length - 1]!.process);
    expect(d.clock).toMatch(/leader's monotonic/);
    expect(d.silentMs).toBeGreaterThan(d.timeoutMs);
    const done = notesOf(h, "session-expired");
    expect(done).toHaveLength(1);
    expect((done[0]!.value as { ephemeralsDeleted: string[] }).ephemeralsDeleted).toHaveLength(1);
    expect(notesOf(h, "watch-fired").map((e) => (e.value as { client: string }).client)).toEqual(["c2"]);
  });

  it("raft-zk-follower-clock-bug: the expiry is decided by a follower's wall clock, and the note names it", () => {
    const h = runScenario(loadScenario("raft-zk-follower-clock-bug"), 1).history;
    const decided = notesOf(h, "session-expiry");
    expect(decided.length).toBeGreaterThan(0);
    for (const e of decided) {
      const d = e.value as { decidedBy: string; clock: string };
      expect(d.decidedBy).not.toBe(e.process);
      expect(d.clock).toMatch(/follower-expiry bug/);
    }
    expect(notesOf(h, "session-expiry-asked").length).toBeGreaterThan(0);
    // Without the bug, only a leader decides.
    const s = loadScenario("raft-zk-client-gc-pause");
    for (const e of notesOf(runScenario(s, 2).history, "session-expiry")) expect((e.value as { decidedBy: string }).decidedBy).toBe(e.process);
  });

  it("etcd-lease-client-gc-pause: the leader's lessor expires c1's lease and the revocation deletes its key", () => {
    const h = runScenario(loadScenario("etcd-lease-client-gc-pause"), 1).history;
    const decided = notesOf(h, "lease-expiry");
    expect(decided).toHaveLength(1);
    expect(decided[0]!.value).toMatchObject({ owner: "c1", decidedBy: decided[0]!.process });
    const revoked = notesOf(h, "lease-revoked");
    expect(revoked).toHaveLength(1);
    expect((revoked[0]!.value as { keysDeleted: string[] }).keysDeleted).toHaveLength(1);
    // A client's own release revokes no lease by expiry: the baseline has none.
    const base = runScenario(loadScenario("etcd-lease-baseline"), 1).history;
    expect(notesOf(base, "lease-expiry")).toHaveLength(0);
    expect(notesOf(base, "lease-revoked")).toHaveLength(0);
  });

  it("redis-failover-lost-lock: the sentinel's failover and the replica's promotion, with the key set again on the new primary", () => {
    const h = runScenario(loadScenario("redis-failover-lost-lock"), 1).history;
    expect(notesOf(h, "failover")).toHaveLength(1);
    const promoted = notesOf(h, "promoted");
    expect(promoted).toHaveLength(1);
    expect((promoted[0]!.value as { keys: number }).keys).toBe(0); // the lock's key never reached the replica
    const sets = notesOf(h, "key-set");
    expect(sets.some((e) => e.process === promoted[0]!.process && e.timeUs > promoted[0]!.timeUs)).toBe(true);
  });

  it("redlock-crash-restart: the crashed node notes what it lost; with AOF always it loses nothing", () => {
    const h = runScenario(loadScenario("redlock-crash-restart"), 1).history;
    const lost = notesOf(h, "crash-lost");
    expect(lost.length).toBeGreaterThan(0);
    expect(lost[0]!.value).toMatchObject({ persistence: "none" });
    expect((lost[0]!.value as { keysLost: number }).keysLost).toBeGreaterThan(0);
    const always = notesOf(runScenario(loadScenario("redlock-crash-restart-aof-always"), 1).history, "crash-lost");
    expect(always.length).toBeGreaterThan(0);
    for (const e of always) expect(e.value).toEqual({ persistence: "always", unsyncedWrites: 0 });
  });

  it("raft-zk-leader-crash-acquire: each server notes its role and term as they change; after the crash a new leader in a higher term", () => {
    const h = runScenario(loadScenario("raft-zk-leader-crash-acquire"), 1).history;
    const roles = notesOf(h, "raft-role").map((e) => ({
      p: e.process,
      t: e.timeUs,
      ...(e.value as { role: string; term: number; leader?: string; was: string }),
    }));
    const leaders = roles.filter((r) => r.role === "leader");
    expect(new Set(leaders.map((r) => r.p)).size).toBeGreaterThanOrEqual(2);
    expect(leaders.at(-1)!.term).toBeGreaterThan(leaders[0]!.term);
    // Per server, notes only on a change, and each names what it was before.
    for (const p of new Set(roles.map((r) => r.p))) {
      const mine = roles.filter((r) => r.p === p);
      expect(mine[0]!.was).toBe("starting");
      for (let i = 1; i < mine.length; i++)
        expect(`${mine[i]!.role} ${mine[i]!.term} ${mine[i]!.leader ?? ""}`).not.toBe(`${mine[i - 1]!.role} ${mine[i - 1]!.term} ${mine[i - 1]!.leader ?? ""}`);
    }
    for (const r of roles.filter((x) => x.role === "follower")) expect(r.leader).toMatch(/^zk-\d$/);
  });

  it("redis-failover-lost-lock: the primary notes each write sent to its replica, the replica each it applied; the lock's key was sent and never applied", () => {
    const h = runScenario(loadScenario("redis-failover-lost-lock"), 1).history;
    const sent = notesOf(h, "repl-sent");
    const applied = notesOf(h, "repl-applied");
    expect(sent.length).toBeGreaterThan(0);
    const failover = notesOf(h, "failover")[0]!;
    const lastSent = sent.filter((e) => e.timeUs < failover.timeUs).at(-1)!;
    const v = lastSent.value as { key: string; offset: number; to: string[] };
    expect(applied.some((e) => (e.value as { offset: number }).offset === v.offset && e.process === v.to[0])).toBe(false);
    // What was applied had been sent first, at the same offset.
    for (const a of applied.filter((e) => e.timeUs < failover.timeUs)) {
      const av = a.value as { offset: number; from: string };
      expect(sent.some((e) => e.process === av.from && (e.value as { offset: number }).offset === av.offset && e.timeUs <= a.timeUs)).toBe(true);
    }
  });

  it("redlock-crash-restart-everysec: fsync notes every second with what they made durable; with AOF always or none, none", () => {
    const h = runScenario(loadScenario("redlock-crash-restart-everysec"), 1).history;
    const fsyncs = notesOf(h, "aof-fsync");
    expect(fsyncs.length).toBeGreaterThan(0);
    for (const e of fsyncs) expect((e.value as { writes: number; intervalMs: number }).writes).toBeGreaterThan(0);
    expect(notesOf(runScenario(loadScenario("redlock-crash-restart-aof-always"), 1).history, "aof-fsync")).toHaveLength(0);
    expect(notesOf(runScenario(loadScenario("redlock-crash-restart"), 1).history, "aof-fsync")).toHaveLength(0);
    const t = describeNote("redis-3", "aof-fsync", fsyncs[0]!.value);
    expect(t.sentence).toMatch(/^redis-3 fsyncs \d+ write\(s\) to its AOF \(every 1 s\)/);
  });

  it("the checkers do not read notes as operations: verdicts are the same with the notes taken out", () => {
    const names = [
      "naive-gc-pause",
      "naive-baseline",
      "raft-zk-client-gc-pause",
      "raft-zk-follower-clock-bug",
      "etcd-lease-client-gc-pause",
      "redis-failover-lost-lock",
      "redlock-clock-jump",
      "naive-gc-pause-fenced",
      "redlock-crash-restart",
      "redlock-crash-restart-everysec",
      "raft-zk-leader-crash-acquire",
      "etcd-lease-leader-isolated",
      "redis-failover-clean",
    ];
    const NOTE_KINDS = new Set([
      "crash-lost",
      "key-set",
      "key-expired",
      "promoted",
      "replica-of",
      "leader",
      "session-expiry",
      "session-expiry-asked",
      "session-expired",
      "watch-fired",
      "lease-expiry",
      "lease-revoked",
      "raft-role",
      "aof-fsync",
      "repl-sent",
      "repl-applied",
    ]);
    for (const name of names) {
      const s = loadScenario(name);
      for (const seed of [1, 2]) {
        const h = runScenario(s, seed).history;
        const stripped = h.filter((e) => !NOTE_KINDS.has(e.f)).map((e, index) => ({ ...e, index }));
        expect(stripped.length, `${name} seed ${seed} has notes`).toBeLessThan(h.length);
        const a = runCheckers(h, checkContextFor(s));
        const b = runCheckers(stripped, checkContextFor(s));
        expect(
          a.results.map((r) => [r.checker, r.valid]),
          `${name} seed ${seed}`,
        ).toEqual(b.results.map((r) => [r.checker, r.valid]));
        expect(a.outcome).toBe(b.outcome);
      }
    }
  });
});

describe("server notes in the report's view", () => {
  it("naive-gc-pause: the expiry is a note on redis-1's lane and a step of the story, in words", () => {
    const f = runFixture(loadScenario("naive-gc-pause"));
    const v = buildRunView(f.record, f.history);
    const redis = v.lanes.findIndex((l) => l.id === "redis-1");
    expect(v.lanes[redis]!.kind).toBe("server");
    const exp = v.notes.filter((n) => n.f === "key-expired");
    expect(exp).toHaveLength(1);
    expect(exp[0]!.lane).toBe(redis);
    expect(exp[0]!.mark).toBe("expiry");
    const step = v.steps.find((s) => s.ref.kind === "note" && v.notes[s.ref.i]!.f === "key-expired")!;
    expect(step.text).toMatch(/^redis-1 expires lock:order:123 \(active expiry \(sweep\)\): its own wall clock reads 10\.000 s/);
    expect(step.tone).toBe("server");
    // No raw JSON anywhere in the story.
    for (const s of v.steps) expect(s.text).not.toMatch(/[{}"]/);
  });

  it("an unknown note kind is shown as its fields, not as JSON", () => {
    const d = describeNote("x-1", "compacted", { upTo: 7, keys: ["a", "b"], meta: { why: "size" } });
    expect(d.rows).toEqual([
      ["upTo", "7"],
      ["keys", "a, b"],
      ["meta", "why size"],
    ]);
    expect(d.sentence).not.toMatch(/[{}"]/);
  });

  it("a replica-state note is summed up (its count and last index), not listed digest by digest", () => {
    const d = describeNote("zk-2", "replica-state", {
      incarnation: 1,
      states: [
        [1, "ab12"],
        [2, "cd34"],
        [5, "ef56"],
      ],
    });
    expect(d.rows).toEqual([
      ["incarnation", "1"],
      ["indexes applied", "3"],
      ["last applied index", "5"],
    ]);
    expect(d.sentence).toBe("zk-2 (incarnation 1) applied 3 index(es), up to 5; the replica-agreement checker compares their digests");
    expect(d.sentence).not.toMatch(/ab12|cd34|ef56/);
  });

  it("a long run draws at most NOTES_PER_KIND_MAX notes of a kind, spread to its end, and counts the rest per interval", () => {
    const s = loadScenario("naive-baseline");
    const f = runFixture(s, 1);
    const v = buildRunView(f.record, f.history);
    const sets = f.history.filter((e) => e.f === "key-set");
    const total = sets.length;
    expect(total).toBeGreaterThan(400);
    const drawn = v.notes.filter((n) => n.f === "key-set");
    expect(drawn.length).toBeLessThanOrEqual(400);
    expect(v.notesOmitted).toContainEqual({ f: "key-set", drawn: drawn.length, total });
    // Busy to the end: the last drawn note is in the run's last hundredth where the history has one.
    expect(drawn.at(-1)!.t).toBeGreaterThan(sets.at(-1)!.timeUs - v.endUs / 100);
    const counted = v.noteDensity.filter((d) => d.f === "key-set");
    expect(drawn.length + counted.reduce((a, d) => a + d.n, 0)).toBe(total);
    for (const d of counted) {
      expect(d.e).toBeGreaterThan(d.s);
      const inside = sets.filter((e) => e.timeUs >= d.s && e.timeUs < d.e && e.process === v.lanes[d.lane]!.id).length;
      expect(inside).toBeGreaterThanOrEqual(d.n);
    }
  });

  it("a kind with few notes is drawn whole, with nothing counted", () => {
    const f = runFixture(loadScenario("redis-release-delayed-del"), 1);
    const v = buildRunView(f.record, f.history);
    expect(v.noteDensity).toEqual([]);
    expect(v.notesOmitted).toEqual([]);
    expect(v.notes.filter((n) => n.f === "key-set")).toHaveLength(f.history.filter((e) => e.f === "key-set").length);
  });

  it("a delete of another client's key says whose key it removed", () => {
    const f = runFixture(loadScenario("redis-release-delayed-del"), 1);
    const v = buildRunView(f.record, f.history);
    const deletes = v.notes.filter((n) => n.f === "key-deleted");
    expect(deletes[0]!.label).toBe("c1 deleted c2's key");
    expect(deletes[0]!.sentence).toMatch(/^redis-1 runs c1's DEL and deletes lock:order:123, which it holds for c2/);
    expect(deletes[0]!.key).toBe(true);
    const own = deletes.find((n) => n.label.startsWith("deleted by"));
    expect(own === undefined || own.key === false).toBe(true);
  });

  it("a renewal of another client's key is drawn as such: by whom, on whose key, the command named from the trace", () => {
    const c = attackByName("extend-after-lapse")!.compile({
      design: "library",
      designOptions: { adapter: resolve("test/fixtures/adapters/bugs/two-bugs.cjs"), nodes: 1 },
      label: "two-bugs",
    });
    if (!c.ok) throw new Error(c.refusal);
    const s = parseScenario(JSON.parse(JSON.stringify(c.scenario)), "<extend-after-lapse>");
    const trace: TraceRecord[] = [];
    const run = runScenario(s, 1, {}, { traceSink: (r) => trace.push(r) });
    const record = buildRecord(s, 1, run, runCheckers(run.history, checkContextFor(s)));
    // Without the trace the note cannot tell a renewal from an overwrite, and says only what it knows.
    for (const [t, label] of [
      [trace, "c1's PEXPIRE renewed c2's key"],
      [undefined, "c1's command set a new expiry on c2's key"],
    ] as const) {
      const v = buildRunView(record, run.history, t);
      const foreign = v.notes.filter((n) => n.mark === "foreign");
      expect(foreign.length, `with${t ? "" : "out"} a trace`).toBeGreaterThan(0);
      expect(foreign[0]!.label).toBe(label);
      expect(foreign[0]!.title).toBe(`redis-1: ${label}`);
      expect(foreign[0]!.sentence).toMatch(/^redis-1 runs c1's \S+ on lock:order:123, which it holds for c2: c1 extended a lock that was no longer its own/);
      // c1's own SET is still drawn as its own, and its DEL of c2's key says whose it was.
      expect(v.notes.find((n) => n.f === "key-set")!.label).toBe("set for c1");
      expect(v.notes.filter((n) => n.f === "key-deleted").map((n) => n.label)).toContain("c1 deleted c2's key");
    }
  });
});
