/**
 * Redis nodes note who deletes a live key (key-deleted), so a release that removes
 * another client's key is in the history: plain DEL after the lease lapsed deletes
 * the next holder's key; compare-and-delete, equally late, deletes nothing.
 */
import { describe, expect, it } from "vitest";
import { runScenario } from "../../harness/runner.js";
import { loadScenario } from "../../scenarios/index.js";
import type { HistoryEvent } from "../../sim/history.js";

function keyNotes(name: string): Array<{ f: string; by?: string; command?: string; t: number }> {
  const history = runScenario(loadScenario(name), 1).history as HistoryEvent[];
  return history
    .filter((e) => e.f === "key-set" || e.f === "key-deleted" || e.f === "key-expired")
    .map((e) => {
      const v = e.value as { by?: string; command?: string };
      return { f: e.f, by: v.by, command: v.command, t: e.timeUs };
    });
}

/** The key's owner (last key-set) when each key-deleted happened. */
function deletesWithOwner(notes: ReturnType<typeof keyNotes>): Array<{ by?: string; owner?: string; command?: string }> {
  let owner: string | undefined;
  const out: Array<{ by?: string; owner?: string; command?: string }> = [];
  for (const n of notes) {
    if (n.f === "key-set") owner = n.by;
    else if (n.f === "key-expired") owner = undefined;
    else {
      out.push({ by: n.by, owner, command: n.command });
      owner = undefined;
    }
  }
  return out;
}

describe("key-deleted notes", () => {
  it("a late plain DEL is recorded deleting the next holder's key", () => {
    const deletes = deletesWithOwner(keyNotes("redis-release-delayed-del"));
    expect(deletes[0]).toEqual({ by: "c1", owner: "c2", command: "DEL" });
    expect(deletes.some((d) => d.by !== d.owner)).toBe(true);
  });

  it("a late compare-and-delete deletes only its own key", () => {
    const deletes = deletesWithOwner(keyNotes("redis-release-delayed-cad"));
    expect(deletes.length).toBeGreaterThan(0);
    for (const d of deletes) expect(d.by).toBe(d.owner);
  });

  it("an expired key is noted as expired, never as deleted by the command that found it gone", () => {
    const notes = keyNotes("redis-release-delayed-del");
    const expired = notes.filter((n) => n.f === "key-expired");
    expect(expired.length).toBeGreaterThan(0);
    const deletedAt = new Set(notes.filter((n) => n.f === "key-deleted").map((n) => n.t));
    for (const e of expired) expect(deletedAt.has(e.t)).toBe(false);
  });
});
