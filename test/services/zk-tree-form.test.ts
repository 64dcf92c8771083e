import { describe, expect, it } from "vitest";
import { canonicalForm, FormParts } from "../../services/raft-service/replica-states.js";
import { ZkTree, type ZkCmd } from "../../designs/raft-zk/tree.js";

/**
 * ZkTree.stateForm keeps per-node and per-session canonical entries and drops them on
 * change: after every command of a mixed workload it must equal the full walk
 * (canonicalForm of the tree), byte for byte, or replica digests would drift.
 */
function lcg(seed: number): () => number {
  let x = seed >>> 0;
  return () => (x = (Math.imul(x, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

function commands(seed: number, count: number): ZkCmd[] {
  const r = lcg(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const paths = ["/locks/a/lock-", "/locks/a/x", "/locks/b/lock-", "/cfg", "/cfg/k"];
  const out: ZkCmd[] = [{ kind: "createSession", timeoutMs: 1000, owner: "c1" }];
  // A session's id is the zxid of its creation: here the 1-based position of its command.
  const sessionIds = [1];
  for (let i = 0; i < count; i++) {
    // Mostly the newest sessions (live ones), sometimes any, so writes land and expiries bite.
    const sessionId = r() < 0.8 ? sessionIds[Math.max(0, sessionIds.length - 1 - Math.floor(r() * 3))]! : pick(sessionIds);
    const path = pick(paths);
    const seqPath = `/locks/a/lock-${String(Math.floor(r() * 8)).padStart(10, "0")}`;
    switch (Math.floor(r() * 8)) {
      case 0:
        out.push({ kind: "createSession", timeoutMs: 1000, owner: `c${i}` });
        sessionIds.push(out.length);
        break;
      case 1:
        if (r() < 0.5) break;
        out.push({ kind: "expireSession", sessionId, lingerEphemerals: r() < 0.5 });
        break;
      case 2:
        out.push({ kind: "endLockDelay", sessionId });
        break;
      case 3:
        out.push({ kind: "closeSession", sessionId });
        break;
      case 4:
        out.push({ kind: "delete", sessionId, path: r() < 0.5 ? seqPath : path, version: -1 });
        break;
      case 5:
        out.push({ kind: "set", sessionId, path: r() < 0.5 ? seqPath : path, data: `d${i}`, version: -1 });
        break;
      default:
        out.push({ kind: "create", sessionId, path, data: `v${i}`, ephemeral: r() < 0.6, sequential: path.endsWith("-"), parents: r() < 0.8 });
    }
  }
  return out;
}

describe("ZkTree.stateForm", () => {
  it("equals canonicalForm of the tree after every command, with the caches warm", () => {
    for (let seed = 1; seed <= 5; seed++) {
      const t = new ZkTree();
      let ok = 0;
      let nodesMax = 0;
      for (const [i, cmd] of commands(seed, 400).entries()) {
        if (t.apply(cmd, i + 1).ok) ok++;
        nodesMax = Math.max(nodesMax, t.nodeCount);
        // Read after every command so each cached entry is in use when the next change comes.
        expect(t.stateForm(), `seed ${seed}, after command ${i + 1} (${cmd.kind})`).toBe(canonicalForm(t));
      }
      // The workload must reach a busy tree, not fail every command on a dead session.
      expect(ok).toBeGreaterThan(100);
      expect(nodesMax).toBeGreaterThan(6);
    }
  });

  it("is made from stateParts alone: the parts name every field, the maps' entries whole (so equal parts mean equal forms)", () => {
    // The tree's form rebuilt from its parts, its layout written out: deadSessions,
    // lastZxid, lingering, then each map's size and entries (sorted, as canonicalForm does).
    const fromParts = (p: FormParts): string => {
      const xs = p.parts.slice(0, p.length);
      let at = 3;
      const map = (): string => {
        const n = xs[at++] as number;
        const entries = xs.slice(at, (at += n)) as string[];
        return `{"$map":[${entries.sort().join(",")}]}`;
      };
      const nodes = map();
      const sessions = map();
      expect(at).toBe(xs.length);
      return `{"deadSessions":${xs[0] as string},"lastZxid":${xs[1] as number},"lingering":${xs[2] as string},"nodes":${nodes},"sessions":${sessions}}`;
    };
    for (let seed = 1; seed <= 3; seed++) {
      const t = new ZkTree();
      let lingered = 0;
      for (const [i, cmd] of commands(seed, 300).entries()) {
        t.apply(cmd, i + 1);
        if (t.lingering.size > 0) lingered++;
        const parts = new FormParts();
        t.stateParts(parts);
        expect(fromParts(parts), `seed ${seed}, after command ${i + 1} (${cmd.kind})`).toBe(canonicalForm(t));
      }
      expect(lingered).toBeGreaterThan(0);
    }
  });

  it("applied without an answer (a replica nobody answers from): the same tree, path, events and outcome, no stat", () => {
    for (let seed = 1; seed <= 3; seed++) {
      const answered = new ZkTree();
      const silent = new ZkTree();
      let stats = 0;
      for (const [i, cmd] of commands(seed, 300).entries()) {
        const a = answered.apply(cmd, i + 1);
        const b = silent.apply(cmd, i + 1, false);
        if (a.ok && a.stat) stats++;
        expect(b).toEqual(a.ok ? { ...a, stat: undefined } : a);
        expect(silent.stateForm(), `seed ${seed}, after command ${i + 1}`).toBe(answered.stateForm());
      }
      expect(stats).toBeGreaterThan(10);
    }
  });

  it("applied without events (no watch reads them): the same tree, path and outcome, and no events", () => {
    for (let seed = 1; seed <= 3; seed++) {
      const listed = new ZkTree();
      const quiet = new ZkTree();
      let events = 0;
      for (const [i, cmd] of commands(seed, 300).entries()) {
        const a = listed.apply(cmd, i + 1);
        const b = quiet.apply(cmd, i + 1, true, false);
        events += a.events.length;
        expect(b).toEqual({ ...a, events: [] });
        expect(quiet.stateForm(), `seed ${seed}, after command ${i + 1}`).toBe(listed.stateForm());
      }
      // The commands did make events: the comparison above was not of empty lists alone.
      expect(events).toBeGreaterThan(20);
    }
  });
});

describe("ZkTree.snapshot and restore (Raft log compaction)", () => {
  it("a snapshot is a copy later commands do not touch; restored, the state goes on as the original does", () => {
    for (let seed = 1; seed <= 3; seed++) {
      const cmds = commands(seed, 300);
      const half = Math.floor(cmds.length / 2);
      const t = new ZkTree();
      cmds.slice(0, half).forEach((c, i) => t.apply(c, i + 1));
      const snap = t.snapshot();
      const formAtSnapshot = canonicalForm(t);
      cmds.slice(half).forEach((c, i) => t.apply(c, half + i + 1));
      // Twice from the same snapshot (two restarts): the copy on the disk stays as it was.
      for (let restart = 1; restart <= 2; restart++) {
        const r = new ZkTree();
        r.apply(cmds[0]!, 1);
        r.restore(snap);
        expect(canonicalForm(r), `seed ${seed}, restart ${restart}`).toBe(formAtSnapshot);
        expect(r.stateForm()).toBe(formAtSnapshot);
        cmds.slice(half).forEach((c, i) => r.apply(c, half + i + 1));
        expect(canonicalForm(r), `seed ${seed}, restart ${restart}`).toBe(canonicalForm(t));
        expect(r.stateForm()).toBe(t.stateForm());
      }
    }
  });
});
