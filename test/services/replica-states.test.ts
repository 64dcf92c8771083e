import { describe, expect, it } from "vitest";
import {
  canonicalForm,
  mapEntryOf,
  sharedEntry,
  stateDigest,
  DigestMemo,
  FormParts,
  ReplicaStateLog,
  replicaStatesOf,
  DIGEST_EVERY_FROM,
  DIGEST_STRIDE,
  DIGEST_SIZE_SMALL,
  DIGEST_SIZE_LARGE,
  digestedAt,
  REPLICA_STATE,
} from "../../services/raft-service/replica-states.js";
import { Simulation } from "../../sim/simulation.js";

/** The replica-state digests behind the replica-agreement checker (services/raft-service/replica-states.ts). */
describe("canonicalForm", () => {
  it("is the same for maps, sets and objects built in different orders, and differs for different contents", () => {
    const a = {
      m: new Map([
        [1, "x"],
        [2, "y"],
      ]),
      s: new Set(["b", "a"]),
      o: { z: 1, a: [1, 2] },
    };
    const b = {
      o: { a: [1, 2], z: 1 },
      s: new Set(["a", "b"]),
      m: new Map([
        [2, "y"],
        [1, "x"],
      ]),
    };
    expect(canonicalForm(a)).toBe(canonicalForm(b));
    expect(canonicalForm(a)).toBe('{"m":{"$map":[[1,"x"],[2,"y"]]},"o":{"a":[1,2],"z":1},"s":{"$set":["a","b"]}}');
    // Array order is content.
    expect(canonicalForm([1, 2])).not.toBe(canonicalForm([2, 1]));
    expect(canonicalForm(new Map([[1, "x"]]))).not.toBe(canonicalForm(new Map([[1, "y"]])));
  });

  it("writes scalars as JSON, bigints tagged, null/undefined/functions/symbols as null, and leaves methods out", () => {
    expect(canonicalForm('a"b')).toBe('"a\\"b"');
    expect(canonicalForm(1.5)).toBe("1.5");
    expect(canonicalForm(true)).toBe("true");
    expect(canonicalForm(10n)).toBe('"10n"');
    expect(canonicalForm(null)).toBe("null");
    expect(canonicalForm(undefined)).toBe("null");
    expect(canonicalForm(() => 1)).toBe("null");
    expect(canonicalForm(Symbol("s"))).toBe("null");
    expect(canonicalForm({ f: () => 1, x: 1 })).toBe('{"x":1}');
    // A class instance's own fields, as a plain object.
    class T {
      b = 2;
      a = 1;
    }
    expect(canonicalForm(new T())).toBe('{"a":1,"b":2}');
  });

  it("refuses nesting deeper than 64 (a bug, not data) and accepts 64", () => {
    const nest = (n: number): unknown => (n === 0 ? 0 : [nest(n - 1)]);
    expect(() => canonicalForm(nest(64))).not.toThrow();
    expect(() => canonicalForm(nest(65))).toThrow(/nesting deeper than 64/);
  });
});

/** The plain form canonicalForm's caches and key-only sort must match byte for byte. */
function reference(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "string") return JSON.stringify(value);
  if (typeof value === "bigint") return JSON.stringify(`${value}n`);
  if (typeof value === "function" || typeof value === "symbol") return "null";
  if (Array.isArray(value)) return `[${value.map(reference).join(",")}]`;
  if (value instanceof Map)
    return `{"$map":[${[...value]
      .map(([k, v]) => `[${reference(k)},${reference(v)}]`)
      .sort()
      .join(",")}]}`;
  if (value instanceof Set) return `{"$set":[${[...value].map(reference).sort().join(",")}]}`;
  const o = value as Record<string, unknown>;
  const parts = Object.keys(o)
    .sort()
    .filter((k) => typeof o[k] !== "function")
    .map((k) => `${JSON.stringify(k)}:${reference(o[k])}`);
  return `{${parts.join(",")}}`;
}

describe("canonicalForm against the plain form", () => {
  it("orders map entries as the joined strings would, where one key's form is a prefix of another's or two keys render alike", () => {
    const m = new Map<unknown, unknown>([
      [12, "a"],
      [1, "b"],
      ["a,b", 1],
      ["a", 2],
      ['a"', 3],
      [[1], 4],
      [[1, 2], 5],
      [{ x: 1 }, "z"],
      [{ x: 1 }, "y"],
      [-1, 6],
      [1.5, 7],
    ]);
    expect(canonicalForm(m)).toBe(reference(m));
  });

  it("writes NaN and the infinities as null, -0 as 0, and keys in order whatever shape came first", () => {
    const v = { n: [NaN, Infinity, -Infinity, -0, 1e21, 5e-7], b: [true, false] };
    expect(canonicalForm(v)).toBe(reference(v));
    // Same keys, other insertion orders, and an integer-like key (Object.keys puts those first).
    const shapes = [
      { b: 1, a: 2 },
      { a: 3, b: 4 },
      { 2: "x", a: 1 },
      { a: 1, 2: "y", b: new Set([3, 1, 20]) },
    ];
    for (let round = 0; round < 2; round++) for (const o of shapes) expect(canonicalForm(o)).toBe(reference(o));
  });

  it("is the plain form on many objects of many shapes (past the shape cache's bound)", () => {
    const objs = Array.from({ length: 40 }, (_, i) => Object.fromEntries(Array.from({ length: (i % 7) + 1 }, (_, k) => [`k${(k * 7 + i) % 11}`, i * k])));
    for (let round = 0; round < 2; round++) for (const o of objs) expect(canonicalForm(o)).toBe(reference(o));
    const state = { nodes: new Map(objs.map((o, i) => [`/p/${i}`, o])), ids: new Set(objs.map((_, i) => i * 37)) };
    expect(canonicalForm(state)).toBe(reference(state));
  });
});

describe("stateDigest", () => {
  it("is 16 hex digits of SHA-256 of the canonical form", () => {
    expect(stateDigest({ a: 1 })).toMatch(/^[0-9a-f]{16}$/);
    // sha256('{"a":1}') begins 015abd7f5cc57a2d.
    expect(stateDigest({ a: 1 })).toBe("015abd7f5cc57a2d");
    expect(stateDigest(new Set([1, 2]))).toBe(stateDigest(new Set([2, 1])));
    expect(stateDigest({ a: 1 })).not.toBe(stateDigest({ a: 2 }));
  });
});

describe("ReplicaStateLog", () => {
  it("keeps a digest at every index up to 32, then every 16th", () => {
    expect([DIGEST_EVERY_FROM, DIGEST_STRIDE]).toEqual([32, 16]);
    const log = new ReplicaStateLog("zk-1", 1);
    let reads = 0;
    for (let i = 1; i <= 100; i++) log.applied(i, () => (reads++, { i }));
    const kept = log.states.map(([i]) => i);
    expect(kept).toEqual([...Array.from({ length: 32 }, (_, k) => k + 1), 48, 64, 80, 96]);
    // The state is read only where a digest is kept (it costs a walk of the tree).
    expect(reads).toBe(kept.length);
    expect(log.states[0]).toEqual([1, stateDigest({ i: 1 })]);
  });
});

describe("digestedAt: the stride grows with the state", () => {
  const kept = (size: number, to = 70_000): number[] => {
    const out: number[] = [];
    for (let i = 1; i <= to; i++) if (digestedAt(i, () => size)) out.push(i);
    return out;
  };
  it("keeps every 16th index while the state has at most DIGEST_SIZE_SMALL entries", () => {
    expect([DIGEST_SIZE_SMALL, DIGEST_SIZE_LARGE]).toEqual([32, 512]);
    const every16th = kept(0, 200);
    expect(every16th).toEqual([...Array.from({ length: 32 }, (_, k) => k + 1), 48, 64, 80, 96, 112, 128, 144, 160, 176, 192]);
    expect(kept(DIGEST_SIZE_SMALL, 200)).toEqual(every16th);
    expect(kept(DIGEST_SIZE_SMALL, 200)).toEqual(kept(-1, 200).filter((i) => digestedAt(i, undefined)));
  });
  it("doubles the stride with each doubling past DIGEST_SIZE_SMALL, and again past DIGEST_SIZE_LARGE", () => {
    const strideAt = (size: number): number => {
      const past = kept(size).filter((i) => i > DIGEST_EVERY_FROM);
      return past[1]! - past[0]!;
    };
    expect([33, 64, 65, 512, 513, 1024, 1025, 3000].map(strideAt)).toEqual([32, 32, 64, 256, 1024, 1024, 4096, 16384]);
    // A walk's cost per applied index stays bounded as the state grows: size / stride.
    for (const size of [100, 1000, 3000]) expect(size / strideAt(size)).toBeLessThanOrEqual(DIGEST_SIZE_SMALL / DIGEST_STRIDE);
  });
  it("nests: a bigger state's indexes are a subset of a smaller one's, so replicas that disagree in size still meet", () => {
    for (const [small, big] of [
      [10, 40],
      [40, 600],
      [600, 5000],
    ] as const) {
      const fine = new Set(kept(small));
      const coarse = kept(big);
      expect(coarse.filter((i) => i > DIGEST_EVERY_FROM).length).toBeGreaterThan(0);
      for (const i of coarse) expect(fine.has(i), `index ${i}`).toBe(true);
    }
  });
  it("reads the state's size only where the index alone does not decide", () => {
    let reads = 0;
    for (let i = 1; i <= 160; i++) digestedAt(i, () => (reads++, 1000));
    expect(reads).toBe(160 / DIGEST_STRIDE - DIGEST_EVERY_FROM / DIGEST_STRIDE);
  });
});

describe("DigestMemo", () => {
  it("gives each form its own digest at an index, reusing one only for the same form", () => {
    const memo = new DigestMemo();
    const x = canonicalForm({ a: 1 });
    const y = canonicalForm({ a: 2 });
    const dx = stateDigest({ a: 1 });
    const dy = stateDigest({ a: 2 });
    // Agreeing, disagreeing, then agreeing again at one index; another index after.
    expect([memo.digest(7, x), memo.digest(7, y), memo.digest(7, x), memo.digest(7, x), memo.digest(8, y)]).toEqual([dx, dy, dx, dx, dy]);
    // Past its bound the oldest index is forgotten, and a digest is still right.
    for (let i = 100; i < 100 + 2 * DigestMemo.INDEXES_MAX; i++) memo.digest(i, x);
    expect(memo.digest(7, y)).toBe(dy);
  });

  it("is shared by the logs of one run: two replicas at one index with different states get different digests", () => {
    const sim = new Simulation({ seed: "m" });
    const states = replicaStatesOf(sim);
    const a = states.open("zk-1");
    const b = states.open("zk-2");
    a.appliedForm(1, () => canonicalForm({ n: 1 }));
    b.appliedForm(1, () => canonicalForm({ n: 2 }));
    a.appliedForm(2, () => canonicalForm({ n: 3 }));
    b.appliedForm(2, () => canonicalForm({ n: 3 }));
    expect(a.states).toEqual([
      [1, stateDigest({ n: 1 })],
      [2, stateDigest({ n: 3 })],
    ]);
    expect(b.states).toEqual([
      [1, stateDigest({ n: 2 })],
      [2, stateDigest({ n: 3 })],
    ]);
  });
});

describe("sharedEntry", () => {
  const made = (k: unknown, v: unknown) => mapEntryOf(canonicalForm(k), canonicalForm(v));

  it("is the entry canonicalForm makes, for values alike and unlike under one key, whatever was made before", () => {
    const r = (() => {
      let x = 7;
      return () => (x = (Math.imul(x, 1664525) + 1013904223) >>> 0) / 2 ** 32;
    })();
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
    const prims: unknown[] = [0, -0, 1, 2.5, NaN, Infinity, "", "a", 'q"uote', "1", true, false, null, undefined, 10n];
    const value = (): unknown => {
      switch (Math.floor(r() * 6)) {
        case 0:
          return { a: pick(prims), b: pick(prims) };
        case 1:
          // Same keys, other insertion order (another shape).
          return { b: pick(prims), a: pick(prims) };
        case 2:
          return { a: pick(prims), s: new Set(Array.from({ length: Math.floor(r() * 4) }, () => pick(prims))) };
        case 3:
          return { a: pick(prims), f: () => 1 };
        case 4:
          // Not shared: a nested object, a set holding an object, a map.
          return pick([{ a: { b: pick(prims) } }, { a: 1, s: new Set([{ x: pick(prims) }]) }, new Map([[1, pick(prims)]])]);
        default:
          return pick(prims);
      }
    };
    let alike = 0;
    for (let i = 0; i < 3000; i++) {
      const k = pick(["/a", "/b", 1, 2, "1"]);
      const v = value();
      const e = sharedEntry(k, v);
      expect(e, `${String(k)}: ${canonicalForm(v)}`).toEqual(made(k, v));
      // The same content again, in a fresh object: the same strings.
      if (typeof v === "object" && v !== null && !(v instanceof Map)) {
        const copy = Object.fromEntries(Object.entries(v).map(([f, x]) => [f, x instanceof Set ? new Set(x) : x]));
        if (sharedEntry(k, copy)[1] === e[1]) alike++;
        expect(sharedEntry(k, copy)).toEqual(made(k, copy));
      }
    }
    expect(alike).toBeGreaterThan(500);
  });

  it("a set changed in place, or a field changed, under a key seen before gets its new entry", () => {
    const node = { data: "x", children: new Set(["a"]), version: 1 };
    expect(sharedEntry("/p", node)).toEqual(made("/p", node));
    node.children.add("b");
    expect(sharedEntry("/p", node)).toEqual(made("/p", node));
    node.children.delete("a");
    node.children.add("a");
    // Same members in another order: another content list, the same (sorted) form.
    expect(sharedEntry("/p", node)).toEqual(made("/p", node));
    node.version = 2;
    expect(sharedEntry("/p", node)).toEqual(made("/p", node));
    // Past the bound the oldest key is forgotten, and an entry is still right.
    for (let i = 0; i < 3000; i++) sharedEntry(`/k${i}`, { i });
    node.data = "y";
    expect(sharedEntry("/p", node)).toEqual(made("/p", node));
  });
});

describe("DigestMemo.digestParts", () => {
  /** A state as its parts, its form being their canonical form (equal parts, equal form, as FormParts asks). */
  const state = (...xs: Array<string | number>) => ({
    parts: (out: FormParts) => xs.forEach((x) => out.push(x)),
    form: () => canonicalForm(xs),
    digest: stateDigest(xs),
  });

  it("gives every state the digest of its own form, making the form only for parts unlike the last ones at that index", () => {
    const memo = new DigestMemo();
    const forms: string[] = [];
    const digestOf = (index: number, s: ReturnType<typeof state>) =>
      memo.digestParts(index, s.parts, () => {
        const f = s.form();
        forms.push(f);
        return f;
      });
    const a = state("x", 1);
    const b = state("x", 2);
    const aLonger = state("x", 1, 3);
    // A state, an agreeing one, a disagreeing one, an agreeing one again, at one index.
    expect([digestOf(5, a), digestOf(5, state("x", 1)), digestOf(5, b), digestOf(5, state("x", 2)), digestOf(5, a)]).toEqual([
      a.digest,
      a.digest,
      b.digest,
      b.digest,
      a.digest,
    ]);
    expect(forms).toEqual([a.form(), b.form(), a.form()]);
    // A prefix of the kept parts is not equal to them, nor they to a longer list.
    expect([digestOf(5, state("x")), digestOf(5, aLonger), digestOf(5, a)]).toEqual([state("x").digest, aLonger.digest, a.digest]);
    // The same parts at another index are that index's own business.
    forms.length = 0;
    expect(digestOf(6, a)).toBe(a.digest);
    expect(forms).toEqual([a.form()]);
    // A number and the string of it are different parts.
    expect([digestOf(7, state(1)), digestOf(7, state("1"))]).toEqual([state(1).digest, state("1").digest]);
    // Past its bound the oldest index is forgotten, and a digest is still right.
    for (let i = 100; i < 100 + 2 * DigestMemo.INDEXES_MAX; i++) digestOf(i, a);
    expect(digestOf(5, b)).toBe(b.digest);
  });

  it("through ReplicaStateLog.appliedParts, samples the same indexes as appliedForm", () => {
    const byForm = new ReplicaStateLog("zk-1", 1);
    const byParts = new ReplicaStateLog("zk-1", 1);
    for (let i = 1; i <= 70; i++) {
      const s = state("n", i % 3);
      byForm.appliedForm(i, s.form);
      byParts.appliedParts(i, s.parts, s.form);
    }
    expect(byParts.states).toEqual(byForm.states);
  });
});

describe("ReplicaStates", () => {
  it("counts incarnations per replica and, at the run's end, records one annotation each, by replica then incarnation", () => {
    const sim = new Simulation({ seed: "r" });
    const states = replicaStatesOf(sim);
    expect(replicaStatesOf(sim)).toBe(states);
    const b1 = states.open("zk-2");
    const c1 = states.open("zk-3");
    const a1 = states.open("zk-1");
    const b2 = states.open("zk-2");
    const c2 = states.open("zk-3");
    const b3 = states.open("zk-2");
    const a2 = states.open("zk-1");
    expect([a1, a2, b1, b2, b3, c1, c2].map((l) => l.incarnation)).toEqual([1, 2, 1, 2, 3, 1, 2]);
    b1.applied(1, () => "x");
    a1.applied(1, () => "x");
    b2.applied(1, () => "y");
    expect(sim.history).toEqual([]);
    sim.endRun();
    const recorded = sim.history.map((e) => [e.process, e.type, e.f, (e.value as { incarnation: number }).incarnation]);
    expect(REPLICA_STATE).toBe("replica-state");
    expect(recorded).toEqual([
      ["zk-1", "info", "replica-state", 1],
      ["zk-1", "info", "replica-state", 2],
      ["zk-2", "info", "replica-state", 1],
      ["zk-2", "info", "replica-state", 2],
      ["zk-2", "info", "replica-state", 3],
      ["zk-3", "info", "replica-state", 1],
      ["zk-3", "info", "replica-state", 2],
    ]);
    expect(sim.history[3]!.value).toEqual({ incarnation: 2, states: [[1, stateDigest("y")]] });
    // Another simulation has its own.
    expect(replicaStatesOf(new Simulation({ seed: "r" }))).not.toBe(states);
  });
});
