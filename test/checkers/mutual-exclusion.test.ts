import type { HistoryEvent } from "../../sim/history.js";
import { describe, expect, it } from "vitest";
import { mutualExclusion, type Overlap } from "../../checkers/mutual-exclusion.js";
import { lostUpdates, type Overwrite } from "../../checkers/lost-updates.js";
import { computeHolds, recordsBeliefs } from "../../checkers/holds.js";
import { parseJsonlHistory } from "../../checkers/import/jsonl.js";
import { linearizability } from "../../checkers/linearizability/index.js";
import { readFileSync } from "node:fs";

const load = (name: string): HistoryEvent[] => parseJsonlHistory(readFileSync(new URL(`../fixtures/histories/${name}`, import.meta.url), "utf8"), name);
import { HistoryBuilder } from "../helpers/history-builder.js";

describe("mutual-exclusion checker", () => {
  it("passes back-to-back holds that do not overlap", () => {
    const h = new HistoryBuilder().section("c1", "c1#1", "L", 0, 10, 0).section("c2", "c2#1", "L", 10, 10, 1).section("c1", "c1#2", "L", 25, 10, 2);
    const r = mutualExclusion(h.events, {});
    expect(r.valid).toBe(true);
    expect(r.stats).toMatchObject({ holds: 3, overlaps: 0 });
  });

  it("passes overlapping holds of different locks", () => {
    const h = new HistoryBuilder().section("c1", "c1#1", "A", 0, 10, 0).section("c2", "c2#1", "B", 5, 10, 0);
    expect(mutualExclusion(h.events, {}).valid).toBe(true);
  });

  it("fails two holds of one lock that overlap, with both holds as the witness", () => {
    const h = new HistoryBuilder().section("c1", "c1#1", "L", 0, 10, 0).section("c2", "c2#1", "L", 5, 10, 0);
    const r = mutualExclusion(h.events, {});
    expect(r.valid).toBe(false);
    const w = r.witness as Overlap[];
    expect(w).toHaveLength(1);
    expect(w[0]!.first.grantId).toBe("c1#1");
    expect(w[0]!.second.grantId).toBe("c2#1");
    expect(w[0]!.overlapStartUs).toBe(6000);
    expect(w[0]!.overlapEndUs).toBe(9000); // c1 invoked release at 9 ms
    expect(r.summary).toMatch(/c1 held L/);
  });

  it("ends a hold at the client's lapse note, but a later write stretches it (the GC-pause double holder)", () => {
    const b = new HistoryBuilder();
    b.at(0).ev("c1", "invoke", "acquire", "L").at(1).ev("c1", "ok", "acquire", "L", { grantId: "g1", validityMs: 10_000, ttlMs: 10_000 });
    b.ev("c1", "invoke", "read", "L", { grantId: "g1" });
    b.at(10_001).ev("c1", "info", "lapse", "L", { grantId: "g1" });
    b.at(10_002).section("c2", "g2", "L", 10_002, 5, 0);
    const quiet = mutualExclusion(b.events, {});
    expect(quiet.valid).toBe(true); // c1 stopped believing before c2 took it, and did nothing after
    b.at(15_000).ev("c1", "ok", "read", "L", { counter: 0 }).ev("c1", "invoke", "write", "L", { grantId: "g1", counter: 1 });
    b.at(15_001).ev("c1", "ok", "write", "L", {});
    const r = mutualExclusion(b.events, {});
    expect(r.valid).toBe(false);
    const w = (r.witness as Overlap[])[0]!;
    expect(w.first.stretched).toBe(true);
    expect(w.first.endUs).toBe(15_001_000);
  });

  it("an acquire-ok whose lapse comes at the same instant is held at no instant, unless the client then acts (node-redlock v5's expired lock)", () => {
    const b = new HistoryBuilder();
    b.section("c2", "g2", "L", 0, 100, 0);
    b.at(50).ev("c1", "invoke", "acquire", "L").at(60).ev("c1", "ok", "acquire", "L", { grantId: "g1", validityMs: -500, ttlMs: 1000 });
    b.ev("c1", "info", "lapse", "L", { grantId: "g1" }).ev("c1", "invoke", "release", "L", { grantId: "g1" });
    const quiet = mutualExclusion(b.events, {});
    expect(quiet.valid).toBe(true);
    expect(quiet.stats).toMatchObject({ holds: 2, overlaps: 0 });
    // The same lock acted on: the read stretches the empty hold into c2's, and it fails.
    const acted = new HistoryBuilder();
    acted.section("c2", "g2", "L", 0, 100, 0);
    acted.at(50).ev("c1", "invoke", "acquire", "L").at(60).ev("c1", "ok", "acquire", "L", { grantId: "g1", validityMs: -500, ttlMs: 1000 });
    acted.ev("c1", "info", "lapse", "L", { grantId: "g1" }).ev("c1", "invoke", "read", "L", { grantId: "g1" });
    acted.at(61).ev("c1", "ok", "read", "L", { counter: 0 });
    const r = mutualExclusion(acted.events, {});
    expect(r.valid).toBe(false);
    expect((r.witness as Overlap[])[0]!.second.grantId).toBe("g1");
  });

  it("ends a crashed client's hold at its crash", () => {
    const b = new HistoryBuilder();
    b.at(0).ev("c1", "invoke", "acquire", "L").at(1).ev("c1", "ok", "acquire", "L", { grantId: "g1", validityMs: 10_000, ttlMs: 10_000 });
    b.at(5).ev("nemesis", "info", "crash", undefined, { phase: "start", targets: ["c1"] });
    b.section("c2", "g2", "L", 10_005, 5, 0);
    expect(mutualExclusion(b.events, {}).valid).toBe(true);
    expect(computeHolds(b.events)[0]!.endedBy).toBe("crash");
  });

  it("pairs holds by process and lock in histories without grant ids", () => {
    const b = new HistoryBuilder();
    b.at(0).ev("1", "invoke", "acquire", "L").at(1).ev("1", "ok", "acquire", "L");
    b.at(2).ev("2", "invoke", "acquire", "L").at(3).ev("2", "ok", "acquire", "L");
    b.at(4).ev("1", "invoke", "release", "L").at(5).ev("1", "ok", "release", "L");
    expect(mutualExclusion(b.events, {}).valid).toBe(false);
    const ok = new HistoryBuilder();
    ok.at(0).ev("1", "invoke", "acquire", "L").at(1).ev("1", "ok", "acquire", "L");
    ok.at(4).ev("1", "invoke", "release", "L").at(5).ev("1", "ok", "release", "L");
    ok.at(6).ev("2", "invoke", "acquire", "L").at(7).ev("2", "ok", "acquire", "L");
    expect(mutualExclusion(ok.events, {}).valid).toBe(true);
  });
});

describe("holds, stretched by the ops done under a grant", () => {
  const e = (index: number, timeUs: number, type: HistoryEvent["type"], f: string, value?: unknown): HistoryEvent => ({
    index,
    timeUs,
    process: "c1",
    type,
    f,
    lock: "L",
    ...(value !== undefined ? { value } : {}),
  });
  const held = [
    e(0, 0, "invoke", "acquire"),
    e(1, 1_000, "ok", "acquire", { grantId: "g" }),
    e(2, 5_000, "invoke", "release", { grantId: "g" }),
    e(3, 5_500, "ok", "release"),
  ];

  it("an ok write counts to its completion even when that is stamped before its invoke", () => {
    const h = [...held, e(4, 10_000, "invoke", "write", { grantId: "g" }), e(5, 8_000, "ok", "write")];
    expect(computeHolds(h)[0]).toMatchObject({ endUs: 8_000, stretched: true });
  });

  it("a write that never completed, or was left by the next invoke, counts to its invoke", () => {
    const never = [...held, e(4, 9_000, "invoke", "write", { grantId: "g" })];
    expect(computeHolds(never)[0]).toMatchObject({ endUs: 9_000, stretched: true });
    const left = [...held, e(4, 7_000, "invoke", "write", { grantId: "g" }), e(5, 8_000, "invoke", "read", { grantId: "g" }), e(6, 9_000, "fail", "read")];
    expect(computeHolds(left)[0]).toMatchObject({ endUs: 8_000, stretched: true });
  });
});

describe("lost-updates checker", () => {
  it("passes when the final counter equals the acknowledged writes", () => {
    const h = new HistoryBuilder().section("c1", "a", "L", 0, 10, 0).section("c2", "b", "L", 10, 10, 1).finalRead("L", 2);
    const r = lostUpdates(h.events, {});
    expect(r.valid).toBe(true);
    expect(r.stats).toMatchObject({ acknowledgedWrites: 2, lostUpdates: 0 });
  });

  it("counts a write as unknown unless it completed ok or fail, one never completed included", () => {
    const h = new HistoryBuilder();
    h.at(0).ev("c1", "invoke", "write", "L").ev("c2", "invoke", "write", "L").ev("c3", "invoke", "write", "L").ev("c4", "invoke", "write", "L");
    h.at(1).ev("c2", "info", "write", "L").ev("c3", "ok", "write", "L").ev("c4", "fail", "write", "L");
    // c1's write never completes; c5's write is superseded by its next invoke.
    h.at(2).ev("c5", "invoke", "write", "L").ev("c5", "invoke", "write", "L").at(3).ev("c5", "ok", "write", "L");
    h.finalRead("L", 2);
    const r = lostUpdates(h.events, {});
    expect(r.valid).toBe(true);
    expect(r.stats).toMatchObject({ acknowledgedWrites: 2, lostUpdates: 0, unknownWrites: 3 });
  });

  it("fails when two holders wrote from the same read", () => {
    const h = new HistoryBuilder().section("c1", "a", "L", 0, 10, 0).section("c2", "b", "L", 5, 10, 0).finalRead("L", 1);
    const r = lostUpdates(h.events, {});
    expect(r.valid).toBe(false);
    expect(r.stats).toMatchObject({ acknowledgedWrites: 2, lostUpdates: 1 });
    expect(r.summary).toMatch(/L ended at 1 after 2/);
  });

  it("names the accepted write that overwrote another, from the storage's notes", () => {
    const h = new HistoryBuilder().section("c1", "a", "L", 0, 10, 0).section("c2", "b", "L", 5, 10, 0);
    h.at(8).ev("storage", "ok", "storage-write", "L", { client: "c1", grantId: "a", counter: 1 });
    h.at(13).ev("storage", "ok", "storage-write", "L", { client: "c2", grantId: "b", counter: 1 });
    h.at(20).ev("storage", "ok", "storage-write", "L", { client: "c1", grantId: "c", counter: 2 }); // a fresh read: no overwrite
    h.finalRead("L", 2);
    h.section("c1", "c", "L", 18, 5, 1);
    const r = lostUpdates(h.events, {});
    expect(r.valid).toBe(false);
    const w = r.witness as { overwrites: Overwrite[] };
    expect(w.overwrites).toHaveLength(1);
    expect(w.overwrites[0]).toMatchObject({ client: "c2", grantId: "b", counter: 1, overwrote: { client: "c1", grantId: "a", counter: 1 } });
    expect(h.events[w.overwrites[0]!.index]!.f).toBe("storage-write");
    expect(r.summary).toMatch(/c2's write of 1 \(grant b\) at 13.000 ms overwrote c1's write of 1 \(grant a\)/);
  });

  it("says it did not check a history without a final read", () => {
    const h = new HistoryBuilder().section("c1", "a", "L", 0, 10, 0);
    const r = lostUpdates(h.events, {});
    expect(r.skipped).toBeDefined();
  });
});

describe("imported lease histories: a hold ends at its lease when nothing ends it first", () => {
  // c1 takes the lease at invoke 0 (TTL 1000 ms) and never releases; c2 takes over later.
  const takeover = (atMs: number, staleWriteMs?: number) => {
    const lines: object[] = [
      { timeUs: 0, process: "c1", type: "invoke", f: "acquire", lock: "L", value: { ttlMs: 1000 } },
      { timeUs: 100, process: "c1", type: "ok", f: "acquire", lock: "L" },
      { timeUs: atMs * 1000 - 50, process: "c2", type: "invoke", f: "acquire", lock: "L", value: { ttlMs: 1000 } },
      { timeUs: atMs * 1000, process: "c2", type: "ok", f: "acquire", lock: "L" },
    ];
    if (staleWriteMs !== undefined)
      lines.push(
        { timeUs: staleWriteMs * 1000, process: "c1", type: "invoke", f: "write", lock: "L", value: 1 },
        { timeUs: staleWriteMs * 1000 + 10, process: "c1", type: "ok", f: "write", lock: "L" },
      );
    return parseJsonlHistory(lines.map((l) => JSON.stringify(l)).join("\n"), "lease.jsonl");
  };
  const judged = (h: HistoryEvent[]) => mutualExclusion(h, { ttlMs: 1000, holdsEndAtLease: true }).valid;

  it("a takeover 3 × TTL after the grant, with no release, is no double holder (as the lease-lock model says)", () => {
    expect(judged(takeover(3000))).toBe(true);
    expect(linearizability(takeover(3000), { ttlMs: 1000, model: "lease-lock" }).valid).toBe(true);
    // Where beliefs are recorded (lockstep's own), a holder with no lapse note still holds.
    expect(mutualExclusion(takeover(3000), { ttlMs: 1000 }).valid).toBe(false);
  });

  it("a grant at exactly the first holder's invoke + TTL is legal; one a microsecond earlier is not", () => {
    expect(judged(takeover(1000))).toBe(true);
    const early = takeover(1000).map((e) => (e.process === "c2" && e.type === "ok" ? { ...e, timeUs: e.timeUs - 1 } : e));
    expect(judged(early)).toBe(false);
  });

  it("the old holder acting under its grant after the takeover is still a double holder", () => {
    expect(judged(takeover(3000, 3500))).toBe(false);
  });

  it("check treats a history without beliefs so, and lockstep's own history not", () => {
    expect(recordsBeliefs(takeover(3000))).toBe(false);
    expect(recordsBeliefs(load("mutex-ok.jsonl"))).toBe(true);
  });
});
