import * as crypto from "node:crypto";
import type { Simulation } from "../../sim/simulation.js";

/**
 * What each replica's state machine (the ZooKeeper tree, the etcd KV and leases) held
 * after every index it applied, for the replica-agreement checker
 * (checkers/replica-agreement.ts). A RaftServiceHost notes a digest of its service's
 * state after applied indexes (all up to DIGEST_EVERY_FROM, then a sample); when the run ends, one `replica-state` annotation per server
 * incarnation goes into the history:
 *
 *   { process: "zk2", type: "info", f: "replica-state",
 *     value: { incarnation: 1, states: [[1, "3f9a…"], [2, "c01d…"], ...] } }
 *
 * Digests are of a canonical form (map and set entries sorted, object keys sorted), so
 * two replicas that hold the same state give the same digest whatever order they
 * built it in. A restarted server rebuilds its state machine from index 1: it is a new
 * incarnation, with its own list.
 */
export const REPLICA_STATE = "replica-state";

export interface ReplicaStateValue {
  /** 1 for a server's first state machine, 2 after its first restart, ... */
  incarnation: number;
  /** [applied index, state digest] in apply order. */
  states: Array<[number, string]>;
}

/** Bound on nesting: state machines are shallow trees; a deeper value is a bug, not data. */
const DEPTH_MAX = 64;

/**
 * Object keys as a field begins: `"k":`, and `,"k":` after the first field. The same
 * few field names are written on every digest, and one cached string per field spares
 * the two concatenations (a string each) of quoting and colon.
 */
const firstFields = new Map<string, string>();
const nextFields = new Map<string, string>();
/** Bound on each cache: field names, not data (a state with unbounded key sets writes them uncached). */
const FIELDS_MAX = 4096;
function fieldStart(k: string, first: boolean): string {
  const cache = first ? firstFields : nextFields;
  let q = cache.get(k);
  if (q === undefined) {
    q = (first ? "" : ",") + JSON.stringify(k) + ":";
    if (cache.size < FIELDS_MAX) cache.set(k, q);
  }
  return q;
}

/**
 * Sorted key lists of the object shapes seen last (a state machine has a handful: its
 * node, session and stat records): Object.keys of the same shape gives the same
 * strings in the same order, so a match is a few pointer compares, not a sort.
 */
const SHAPES_MAX = 16;
const shapeKeys: string[][] = [];
const shapeSorted: string[][] = [];
function sortedKeys(o: object): string[] {
  const keys = Object.keys(o);
  for (let s = 0; s < shapeKeys.length; s++) {
    const known = shapeKeys[s]!;
    if (known.length !== keys.length) continue;
    let same = true;
    for (let i = 0; i < keys.length; i++) {
      if (known[i] !== keys[i]) {
        same = false;
        break;
      }
    }
    if (same) return shapeSorted[s]!;
  }
  const sorted = [...keys].sort();
  if (shapeKeys.length >= SHAPES_MAX) {
    shapeKeys.shift();
    shapeSorted.shift();
  }
  shapeKeys.push(keys);
  shapeSorted.push(sorted);
  return sorted;
}

/**
 * Map entries `[k,v]` in the order of their joined strings, compared by `k,` alone: a
 * canonical form is a whole JSON value, so `k,` decides unless two keys render alike
 * (then the whole entries decide, as before). Sorting short keys rather than whole
 * entries keeps the big value strings out of the comparisons.
 */
function compareEntries(a: [string, string], b: [string, string]): number {
  if (a[0] !== b[0]) return a[0] < b[0] ? -1 : 1;
  const ea = a[1];
  const eb = b[1];
  return ea < eb ? -1 : ea > eb ? 1 : 0;
}

/**
 * A canonical JSON form: maps, sets and object keys in sorted order; functions left out.
 * Built by string concatenation, without an array per level (a digest walks the whole
 * state machine, and this was a Raft-backed run's largest cost). Sorting
 * compares the same strings the array version joined, so the bytes are the same.
 */
export function canonicalForm(value: unknown, depth = 0): string {
  if (depth > DEPTH_MAX) throw new Error(`canonicalForm: nesting deeper than ${DEPTH_MAX}`);
  if (value === null || value === undefined) return "null";
  switch (typeof value) {
    case "number":
      // JSON writes finite numbers as String does, and NaN and the infinities as null.
      return Number.isFinite(value) ? String(value) : "null";
    case "boolean":
      return value ? "true" : "false";
    case "string":
      return JSON.stringify(value);
    case "bigint":
      return JSON.stringify(`${value}n`);
    case "function":
    case "symbol":
      return "null";
  }
  const next = depth + 1;
  if (Array.isArray(value)) {
    let out = "[";
    for (let i = 0; i < value.length; i++) out += (i > 0 ? "," : "") + canonicalForm(value[i], next);
    return out + "]";
  }
  if (value instanceof Map) {
    const entries: Array<[string, string]> = [];
    for (const [k, v] of value) entries.push(mapEntryOf(canonicalForm(k, next), canonicalForm(v, next)));
    return canonicalMapOf(entries);
  }
  if (value instanceof Set) {
    const members: string[] = [];
    for (const v of value) members.push(canonicalForm(v, next));
    return `{"$set":[${members.sort().join(",")}]}`;
  }
  return objectForm(value as object, next);
}

/** A plain object's form: keys sorted, functions left out, `given` fields' forms taken as they are. */
function objectForm(o: object, next: number, given?: (key: string) => string | undefined): string {
  const r = o as Record<string, unknown>;
  const keys = sortedKeys(o);
  let out = "{";
  let first = true;
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    const v = r[k];
    if (typeof v === "function") continue;
    out += fieldStart(k, first);
    out += given?.(k) ?? canonicalForm(v, next);
    first = false;
  }
  return out + "}";
}

/**
 * One map entry as canonicalForm writes it, from the canonical forms of its key and
 * value: a state machine that caches its entries' forms (designs/raft-zk/tree.ts) builds
 * the same bytes from them.
 */
export function mapEntryOf(keyForm: string, valueForm: string): [string, string] {
  const kc = keyForm + ",";
  return [kc, "[" + kc + valueForm + "]"];
}

/** A map's canonical form from its entries (mapEntryOf), sorted here in place. */
export function canonicalMapOf(entries: Array<[string, string]>): string {
  entries.sort(compareEntries);
  let out = '{"$map":[';
  for (let i = 0; i < entries.length; i++) out += (i > 0 ? "," : "") + entries[i]![1];
  return out + "]}";
}

/** A map's canonical form, each entry taken from `cache` or made and kept there (the caller drops changed keys). */
export function mapFormCached<K, V>(map: Map<K, V>, cache: Map<K, [string, string]>): string {
  const entries: Array<[string, string]> = [];
  for (const [k, v] of map) {
    let e = cache.get(k);
    if (e === undefined) cache.set(k, (e = sharedEntry(k, v)));
    entries.push(e);
  }
  return canonicalMapOf(entries);
}

/**
 * Where a map's value keeps its own canonical map entry (mapEntryOf), for a state machine
 * that drops it when the value changes: a symbol, so no field of the value's form (Object.keys
 * leaves it out), and no lookup in a cache map beside the state's own (at 1000 clients
 * those lookups missed the CPU's caches on every apply).
 */
export const FORM_ENTRY: unique symbol = Symbol("canonical map entry");
export interface OwnFormEntry {
  [FORM_ENTRY]?: [string, string] | undefined;
}

/** The value's own entry under key `k`, made and kept on it when it has none. */
export function ownEntry<K>(k: K, v: OwnFormEntry): [string, string] {
  return (v[FORM_ENTRY] ??= sharedEntry(k, v));
}

/** mapFormCached, each entry kept on its value (OwnFormEntry). */
export function mapFormOwn<K, V extends OwnFormEntry>(map: Map<K, V>): string {
  const entries: Array<[string, string]> = [];
  map.forEach((v, k) => entries.push(ownEntry(k, v)));
  return canonicalMapOf(entries);
}

/**
 * Map entries made lately, by key, shared by every state machine in the process: the
 * replicas of a run make the same entries (the same node or session, each having
 * applied the same commands), so the ones after the first take the first's strings when
 * the value's content is the same, read field by field without writing a string. The
 * content is compared exactly (===, which is content equality on strings), so a hit is
 * the entry mapEntryOf(canonicalForm(k), canonicalForm(v)) writes; and agreeing replicas
 * then hold one string, which FormParts compares by pointer. Bounded: oldest key out.
 */
const SHARED_ENTRIES_MAX = 1024;
const sharedEntries = new Map<unknown, { content: unknown[]; entry: [string, string] }>();
/** Marks a set in a content list (no primitive equals it). */
const SET_MARK = {};
/** The content read last (its first contentLength slots): one array kept, written by index (emptying it gave up its storage). */
const content: unknown[] = [];
let contentLength = 0;

export function sharedEntry(k: unknown, v: unknown): [string, string] {
  contentLength = 0;
  if (!contentOf(v)) return mapEntryOf(canonicalForm(k), canonicalForm(v));
  const known = sharedEntries.get(k);
  if (known !== undefined && sameContent(known.content)) return known.entry;
  const entry = mapEntryOf(canonicalForm(k), canonicalForm(v));
  sharedEntries.delete(k);
  sharedEntries.set(k, { content: content.slice(0, contentLength), entry });
  if (sharedEntries.size > SHARED_ENTRIES_MAX) sharedEntries.delete(sharedEntries.keys().next().value);
  return entry;
}

function put(x: unknown): void {
  content[contentLength++] = x;
}

function isPrimitive(x: unknown): boolean {
  return x === null || (typeof x !== "object" && typeof x !== "function");
}

/**
 * Reads into `content` what decides canonicalForm(v) for a plain object whose fields
 * are primitives, functions (left out of the form) or sets of primitives: its sorted
 * key list (one array per shape, from sortedKeys), then each field's value, a set as
 * SET_MARK, its size and its members in its order. False for any other value (not shared).
 */
function contentOf(v: unknown): boolean {
  if (typeof v !== "object" || v === null || Array.isArray(v) || v instanceof Map || v instanceof Set) return false;
  const keys = sortedKeys(v);
  put(keys);
  const r = v as Record<string, unknown>;
  for (let i = 0; i < keys.length; i++) {
    const f = r[keys[i]!];
    if (f instanceof Set) {
      put(SET_MARK);
      put(f.size);
      for (const m of f) {
        if (!isPrimitive(m)) return false;
        put(m);
      }
    } else if (typeof f === "object" && f !== null) return false;
    else put(f);
  }
  return true;
}

/** Whether `known` is the content just read. */
function sameContent(known: unknown[]): boolean {
  if (known.length !== contentLength) return false;
  for (let i = 0; i < contentLength; i++) if (known[i] !== content[i]) return false;
  return true;
}

/**
 * What a state's canonical form is made of, in a state's own order: strings and
 * numbers that a service writes so that two states whose parts are equal, position by
 * position, have the same canonical form (the converse need not hold: the same
 * entries met in another order are other parts and the same form). Comparing parts
 * spares a replica that agrees with one already digested at an index the sort, the
 * concatenation and the compare of its whole form. `===` on strings is
 * content equality, so equal parts are equal whatever object holds them.
 */
export class FormParts {
  readonly parts: Array<string | number> = [];
  length = 0;

  push(part: string | number): void {
    this.parts[this.length++] = part;
  }

  /** The map's size, then each entry's form (made and kept in `cache` as mapFormCached does), in the map's order. */
  pushMap<K, V>(map: Map<K, V>, cache: Map<K, [string, string]>): void {
    this.push(map.size);
    // By key (no [k, v] pair per entry); the value is looked up only to make a missing entry.
    for (const k of map.keys()) {
      let e = cache.get(k);
      if (e === undefined) cache.set(k, (e = sharedEntry(k, map.get(k))));
      this.push(e[1]);
    }
  }

  /** pushMap, each entry kept on its value (OwnFormEntry). */
  pushMapOwn<K, V extends OwnFormEntry>(map: Map<K, V>): void {
    this.push(map.size);
    map.forEach((v, k) => this.push(ownEntry(k, v)[1]));
  }

  /** Whether `other` holds the same parts. */
  equals(other: FormParts): boolean {
    const n = this.length;
    if (other.length !== n) return false;
    const a = this.parts;
    const b = other.parts;
    for (let i = 0; i < n; i++) if (a[i] !== b[i]) return false;
    return true;
  }
}

/**
 * An object's canonical form with some fields' forms given (`given`, by field name,
 * e.g. from a cache) and the others walked: the bytes canonicalForm writes for `o`.
 */
export function canonicalObjectWith(o: object, given: (key: string) => string | undefined): string {
  return objectForm(o, 1, given);
}

/** 16 hex digits of SHA-256 over the canonical form: short, and a collision is not a worry at these sizes. */
export function stateDigest(value: unknown): string {
  return sha256Hex(canonicalForm(value)).slice(0, 16);
}

/**
 * One-shot crypto.hash (Node 20.12+) where there is one: a third of createHash's cost
 * per digest, which built a Hash object for every sampled index. Same hex either way.
 */
const oneShot = (crypto as { hash?: (algorithm: string, data: string, encoding: "hex") => string }).hash;
const sha256Hex: (s: string) => string = oneShot ? (s) => oneShot("sha256", s, "hex") : (s) => crypto.createHash("sha256").update(s).digest("hex");

/**
 * Which applied indexes get a digest: every one up to DIGEST_EVERY_FROM, then every
 * DIGEST_STRIDE-th. A digest costs a walk of the whole state machine, and per apply it
 * doubled a long Raft run's time; a divergent replica stays divergent (sequence
 * counters, versions and the zxid/revision in every later node or key differ), so the
 * sampled indexes still catch it.
 */
export const DIGEST_EVERY_FROM = 32;
export const DIGEST_STRIDE = 16;

/**
 * Past this many entries in a state (its maps' and sets' members), the stride doubles
 * with each doubling of the state, so a digest (a walk of the state, and a fresh form
 * for each entry changed since the last) costs each applied index about the same at any
 * size: at 1000 clients a digest every 16th index was most of a run's time. Past
 * DIGEST_SIZE_LARGE it doubles twice: between two digests of a big state nearly every
 * entry has changed, and a fresh form costs more than an apply. The strides are powers
 * of two times DIGEST_STRIDE, so a replica that samples fewer indexes samples a subset of
 * another's: two that disagree in size still meet. The shipped scenarios' states stay
 * under DIGEST_SIZE_SMALL (17 entries at most): they are digested at every 16th index.
 */
export const DIGEST_SIZE_SMALL = 32;
export const DIGEST_SIZE_LARGE = 512;

/** Whether the state after `index` gets a digest, the state having `size()` entries then. */
export function digestedAt(index: number, size: (() => number) | undefined): boolean {
  if (index <= DIGEST_EVERY_FROM) return true;
  if (index % DIGEST_STRIDE !== 0) return false;
  if (size === undefined) return true;
  const n = size();
  let stride = DIGEST_STRIDE;
  for (let small = DIGEST_SIZE_SMALL; n > small; small *= 2) stride *= 2;
  for (let large = DIGEST_SIZE_LARGE; n > large; large *= 2) stride *= 2;
  return index % stride === 0;
}

/**
 * The last digests taken, by applied index, with the form they hash: the replicas of a
 * run digest the same indexes, and agreeing ones the same form, so all but the first
 * compare strings instead of hashing (the hash was half a digest's cost).
 * Bounded: the oldest index leaves first.
 */
export class DigestMemo {
  private readonly byIndex = new Map<number, [string, string]>();
  /** By index, the parts of the last state digested there through `digestParts`, and its digest. */
  private readonly partsByIndex = new Map<number, [FormParts, string]>();
  /** Where the next state's parts are written (it becomes a kept entry when its digest is new). */
  private scratch = new FormParts();
  /**
   * Replicas digest an index within a few heartbeats of each other, a few digests apart;
   * each kept entry holds a whole state's parts (at 1000 clients ~0.5 MB of forms no
   * longer live), so the memo keeps a few, and a replica further behind hashes itself.
   */
  static readonly INDEXES_MAX = 16;

  /**
   * The digest of the state whose parts `writeParts` writes and whose form `form` gives:
   * that of the last state digested at `index` if their parts are equal, else `digest`
   * of its form.
   */
  digestParts(index: number, writeParts: (out: FormParts) => void, form: () => string): string {
    const mine = this.scratch;
    mine.length = 0;
    writeParts(mine);
    const known = this.partsByIndex.get(index);
    if (known !== undefined && known[0].equals(mine)) return known[1];
    // Hashed here, the form not kept (byIndex's compare is for replicas without parts):
    // a kept form of a whole state lived on through 64 indexes, and GC copied it.
    const d = sha256Hex(form()).slice(0, 16);
    // Kept as the index's entry (the newest state wins, as in byIndex); the scratch for
    // the next is the entry this one replaces or pushes out, or a fresh one.
    let spare = known?.[0];
    this.partsByIndex.delete(index);
    this.partsByIndex.set(index, [mine, d]);
    if (this.partsByIndex.size > DigestMemo.INDEXES_MAX) {
      const oldest = this.partsByIndex.keys().next().value as number;
      spare ??= this.partsByIndex.get(oldest)![0];
      this.partsByIndex.delete(oldest);
    }
    this.scratch = spare ?? new FormParts();
    return d;
  }

  digest(index: number, form: string): string {
    const known = this.byIndex.get(index);
    if (known !== undefined && known[0] === form) return known[1];
    const d = sha256Hex(form).slice(0, 16);
    // A replica that disagrees replaces the entry: the next agreeing one hashes again, still right.
    this.byIndex.delete(index);
    this.byIndex.set(index, [form, d]);
    if (this.byIndex.size > DigestMemo.INDEXES_MAX) this.byIndex.delete(this.byIndex.keys().next().value as number);
    return d;
  }
}

/** One server incarnation's applied states. */
export class ReplicaStateLog {
  readonly states: Array<[number, string]> = [];
  constructor(
    readonly replica: string,
    readonly incarnation: number,
    private readonly memo: DigestMemo = new DigestMemo(),
  ) {}

  /** `size`: the state's entries (digestedAt); absent, every DIGEST_STRIDE-th index past the first is digested. */
  applied(index: number, state: () => unknown, size?: () => number): void {
    this.appliedForm(index, () => canonicalForm(state()), size);
  }

  /** As `applied`, given the state's canonical form (a service that caches it, e.g. the ZooKeeper tree). */
  appliedForm(index: number, form: () => string, size?: () => number): void {
    if (!digestedAt(index, size)) return;
    this.states.push([index, this.memo.digest(index, form())]);
  }

  /** As `appliedForm`, given also the parts that determine the form (FormParts): the form is made only for a state unlike the last one digested at this index. */
  appliedParts(index: number, parts: (out: FormParts) => void, form: () => string, size?: () => number): void {
    if (!digestedAt(index, size)) return;
    this.states.push([index, this.memo.digestParts(index, parts, form)]);
  }
}

/** Every replica's logs of one simulation; written to its history when the run ends. */
export class ReplicaStates {
  private readonly logs: ReplicaStateLog[] = [];
  private readonly incarnations = new Map<string, number>();
  private readonly memo = new DigestMemo();

  constructor(private readonly sim: Simulation) {
    sim.onRunEnd(() => this.record());
  }

  /** A server's new state machine (first boot or restart). */
  open(replica: string): ReplicaStateLog {
    const incarnation = (this.incarnations.get(replica) ?? 0) + 1;
    this.incarnations.set(replica, incarnation);
    const log = new ReplicaStateLog(replica, incarnation, this.memo);
    this.logs.push(log);
    return log;
  }

  private record(): void {
    // By server, then incarnation: the order servers were built in is not the point.
    const sorted = [...this.logs].sort((a, b) => (a.replica < b.replica ? -1 : a.replica > b.replica ? 1 : a.incarnation - b.incarnation));
    for (const l of sorted) {
      const value: ReplicaStateValue = { incarnation: l.incarnation, states: l.states };
      this.sim.record({ process: l.replica, type: "info", f: REPLICA_STATE, value });
    }
  }
}

const bySim = new WeakMap<Simulation, ReplicaStates>();

/** The replica states of `sim`, created on first use. */
export function replicaStatesOf(sim: Simulation): ReplicaStates {
  let r = bySim.get(sim);
  if (!r) bySim.set(sim, (r = new ReplicaStates(sim)));
  return r;
}
