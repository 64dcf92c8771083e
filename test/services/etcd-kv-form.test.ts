import { describe, expect, it } from "vitest";
import { canonicalForm, FormParts } from "../../services/raft-service/replica-states.js";
import { EtcdKv, type EtcdCmd, type KvOp } from "../../designs/etcd-lease/kv.js";

/**
 * EtcdKv.stateForm keeps per-key and per-lease canonical entries and drops them on
 * change: after every command of a mixed workload (leases granted and revoked, keys
 * put under one lease then another, deleted, read) it must equal the full walk
 * (canonicalForm of the store), byte for byte, or replica digests would drift.
 */
function lcg(seed: number): () => number {
  let x = seed >>> 0;
  return () => (x = (Math.imul(x, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

function commands(seed: number, count: number): EtcdCmd[] {
  const r = lcg(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const keys = ["/locks/a/1", "/locks/a/2", "/locks/a/3", "/locks/b/1", "/cfg"];
  const out: EtcdCmd[] = [{ kind: "leaseGrant", ttlMs: 1000, owner: "c1" }];
  // A lease's id is the index of its grant: here the 1-based position of its command.
  const leaseIds = [1];
  const op = (): KvOp => {
    const key = pick(keys);
    const k = r();
    if (k < 0.55) return { op: "put", key, value: `v${Math.floor(r() * 100)}`, ...(r() < 0.7 ? { lease: pick(leaseIds) } : {}) };
    if (k < 0.85) return { op: "delete", key };
    return { op: "range", key: "/locks/", prefix: true, sort: "createAsc" };
  };
  for (let i = 0; i < count; i++) {
    switch (Math.floor(r() * 6)) {
      case 0:
        out.push({ kind: "leaseGrant", ttlMs: 1000, owner: `c${i}` });
        leaseIds.push(out.length);
        break;
      case 1:
        out.push({ kind: "leaseRevoke", leaseId: pick(leaseIds) });
        break;
      default: {
        const key = pick(keys);
        out.push({
          kind: "txn",
          compare: [{ key, target: "createRevision", cmp: "=", value: 0 }],
          success: [op(), ...(r() < 0.4 ? [op()] : [])],
          failure: [op()],
        });
      }
    }
  }
  return out;
}

describe("EtcdKv.stateForm", () => {
  it("equals canonicalForm of the store after every command, with the caches warm", () => {
    let revoked = 0;
    for (let seed = 1; seed <= 5; seed++) {
      const kv = new EtcdKv();
      let leased = 0;
      for (const [i, cmd] of commands(seed, 400).entries()) {
        const r = kv.apply(cmd, i + 1);
        if (cmd.kind === "leaseRevoke" && r.ok && r.events.length > 0) revoked++;
        leased = Math.max(leased, [...kv.leases.values()].filter((l) => l.keys.size > 0).length);
        // Read after every command so each cached entry is in use when the next change comes.
        expect(kv.stateForm(), `seed ${seed}, after command ${i + 1} (${cmd.kind})`).toBe(canonicalForm(kv));
      }
      // The workload must reach keys held by several leases...
      expect(leased).toBeGreaterThan(1);
    }
    // ... and revokes that delete keys.
    expect(revoked).toBeGreaterThan(5);
  });

  it("is made from stateParts alone: the parts name every field, the maps' entries whole (so equal parts mean equal forms)", () => {
    // The store's form rebuilt from its parts, its layout written out: deadLeases, each
    // map's size and entries (sorted, as canonicalForm does), then revision.
    const fromParts = (p: FormParts): string => {
      const xs = p.parts.slice(0, p.length);
      let at = 1;
      const map = (): string => {
        const n = xs[at++] as number;
        const entries = xs.slice(at, (at += n)) as string[];
        return `{"$map":[${entries.sort().join(",")}]}`;
      };
      const keys = map();
      const leases = map();
      expect(at).toBe(xs.length - 1);
      return `{"deadLeases":${xs[0] as string},"keys":${keys},"leases":${leases},"revision":${xs[at] as number}}`;
    };
    for (let seed = 1; seed <= 3; seed++) {
      const kv = new EtcdKv();
      for (const [i, cmd] of commands(seed, 300).entries()) {
        kv.apply(cmd, i + 1);
        const parts = new FormParts();
        kv.stateParts(parts);
        expect(fromParts(parts), `seed ${seed}, after command ${i + 1} (${cmd.kind})`).toBe(canonicalForm(kv));
      }
    }
  });

  it("applied without responses (a replica nobody answers from): the same store, events, revision and success", () => {
    for (let seed = 1; seed <= 3; seed++) {
      const answered = new EtcdKv();
      const silent = new EtcdKv();
      let ranges = 0;
      for (const [i, cmd] of commands(seed, 300).entries()) {
        const a = answered.apply(cmd, i + 1);
        const b = silent.apply(cmd, i + 1, false);
        if (a.ok && a.responses?.some((x) => x.op === "range")) ranges++;
        expect(b).toEqual({ ...a, responses: undefined });
        expect(silent.stateForm(), `seed ${seed}, after command ${i + 1}`).toBe(answered.stateForm());
      }
      expect(ranges).toBeGreaterThan(0);
    }
  });
});

describe("EtcdKv.snapshot and restore (Raft log compaction)", () => {
  it("a snapshot is a copy later commands do not touch; restored, the state goes on as the original does", () => {
    for (let seed = 1; seed <= 3; seed++) {
      const cmds = commands(seed, 300);
      const half = Math.floor(cmds.length / 2);
      const t = new EtcdKv();
      cmds.slice(0, half).forEach((c, i) => t.apply(c, i + 1));
      const snap = t.snapshot();
      const formAtSnapshot = canonicalForm(t);
      cmds.slice(half).forEach((c, i) => t.apply(c, half + i + 1));
      // Twice from the same snapshot (two restarts): the copy on the disk stays as it was.
      for (let restart = 1; restart <= 2; restart++) {
        const r = new EtcdKv();
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
