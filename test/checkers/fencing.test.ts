import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { fencing, type StaleWrite } from "../../checkers/fencing.js";
import { parseJsonlHistory } from "../../checkers/import/jsonl.js";
import type { HistoryEvent } from "../../sim/history.js";

const load = (name: string): HistoryEvent[] => parseJsonlHistory(readFileSync(new URL(`../fixtures/histories/${name}`, import.meta.url), "utf8"), name);

describe("fencing", () => {
  it("passes when the storage rejects the stale token, and counts the rejection", () => {
    const r = fencing(load("storage-fenced.jsonl"), {});
    expect(r.valid).toBe(true);
    expect(r.stats).toMatchObject({ storageWrites: 2, accepted: 1, rejected: 1, staleAccepted: 0, staleRejected: 1 });
    expect(r.summary).toContain("by fencing token");
  });

  it("fails when a write with a lower token is accepted after a higher one", () => {
    const r = fencing(load("storage-stale-accepted.jsonl"), {});
    expect(r.valid).toBe(false);
    const w = r.witness as { rule: string; staleWrites: StaleWrite[] };
    expect(w.rule).toBe("token");
    expect(w.staleWrites[0]).toMatchObject({ client: "c1", token: 1, newerToken: 2, lock: "L" });
    expect(r.stats?.staleAccepted).toBe(1);
  });

  it("without tokens, judges by grant order and says so", () => {
    const bad = fencing(load("storage-no-tokens-stale.jsonl"), {});
    expect(bad.valid).toBe(false);
    expect(bad.summary).toContain("grant order");
    expect((bad.witness as { staleWrites: StaleWrite[] }).staleWrites[0]).toMatchObject({ grantId: "c1#1", newerGrantId: "c2#1" });
    const good = fencing(load("storage-no-tokens-ok.jsonl"), {});
    expect(good.valid).toBe(true);
    expect(good.summary).toContain("grant order");
  });

  it("keeps resources apart: a low token on another resource is not stale", () => {
    const sw = (index: number, lock: string, token: number): HistoryEvent => ({
      index,
      timeUs: index,
      process: "storage",
      type: "ok",
      f: "storage-write",
      lock,
      value: { client: `c${token}`, grantId: `c${token}#1`, token, counter: 1 },
    });
    expect(fencing([sw(0, "A", 5), sw(1, "B", 1)], {}).valid).toBe(true);
    expect(fencing([sw(0, "A", 5), sw(1, "A", 1)], {}).valid).toBe(false);
  });

  it("without tokens, a grant named by two acquire-oks ranks by the one invoked last, whichever completed last", () => {
    const e = (index: number, process: string, type: HistoryEvent["type"], f: string, value?: unknown): HistoryEvent => ({
      index,
      timeUs: index,
      process,
      type,
      f,
      lock: "L",
      ...(value !== undefined ? { value } : {}),
    });
    const sw = (index: number, grantId: string): HistoryEvent => e(index, "storage", "ok", "storage-write", { client: "c", grantId, counter: 1 });
    const h = [
      e(0, "c1", "invoke", "acquire"),
      e(1, "c2", "invoke", "acquire"),
      e(2, "c2", "ok", "acquire", { grantId: "g" }), // invoked last: g ranks here, before h
      e(3, "c3", "invoke", "acquire"),
      e(4, "c3", "ok", "acquire", { grantId: "h" }),
      e(5, "c1", "ok", "acquire", { grantId: "g" }), // completes last, invoked first
      sw(6, "h"),
      sw(7, "g"),
    ];
    const r = fencing(h, {});
    expect(r.valid).toBe(false);
    expect((r.witness as { staleWrites: StaleWrite[] }).staleWrites[0]).toMatchObject({ grantId: "g", newerGrantId: "h" });
  });

  it("a history with no storage writes has nothing to judge", () => {
    const r = fencing(load("mutex-ok.jsonl"), {});
    expect(r.valid).toBe(true);
    expect(r.summary).toContain("no storage writes");
  });
});
