/**
 * The etcd-like key-value store: the replicated state machine of etcd-lease. Pure and
 * deterministic; `apply` runs on every server in Raft log order.
 *
 * Modelled from etcd's mvcc and lessor: a store revision that grows by one per write
 * transaction; per key its create revision, mod revision and version; leases with a
 * TTL to which keys are attached (revoking a lease deletes its keys in one revision);
 * transactions `If(compares).Then(ops).Else(ops)`; ranges over a prefix sorted by
 * create revision with a limit and a max create revision (WithFirstCreate,
 * WithLastCreate, WithMaxCreateRev). Not modelled: history (old revisions, compaction),
 * auth, leases' checkpointing of remaining TTL.
 *
 * Lease expiry is no clock reading here: the leader proposes `leaseRevoke` when its
 * lessor says a lease has expired.
 */
import { canonicalForm, canonicalObjectWith, mapFormCached, type FormParts } from "../../services/raft-service/replica-states.js";

export interface Compare {
  key: string;
  target: "createRevision" | "modRevision" | "version" | "value";
  cmp: "=" | "!=" | "<" | ">";
  value: number | string;
}

export interface RangeOp {
  op: "range";
  key: string;
  prefix?: boolean;
  sort?: "createAsc" | "createDesc";
  limit?: number;
  maxCreateRevision?: number;
}

export type KvOp = { op: "put"; key: string; value: string; lease?: number } | { op: "delete"; key: string } | RangeOp;

export type EtcdCmd =
  | { kind: "leaseGrant"; ttlMs: number; owner: string }
  | { kind: "leaseRevoke"; leaseId: number }
  | { kind: "txn"; compare: Compare[]; success: KvOp[]; failure: KvOp[] };

export interface KeyValue {
  key: string;
  value: string;
  createRevision: number;
  modRevision: number;
  version: number;
  /** 0: no lease. */
  lease: number;
}

export type OpResponse = { op: "range"; kvs: KeyValue[] } | { op: "put" } | { op: "delete"; deleted: number };

export interface KvEvent {
  type: "put" | "delete";
  key: string;
  revision: number;
}

export type EtcdResult =
  | { ok: true; revision: number; leaseId?: number; succeeded?: boolean; responses?: OpResponse[]; events: KvEvent[] }
  | { ok: false; error: "lease-not-found"; revision: number; events: KvEvent[] };

export interface LeaseInfo {
  id: number;
  ttlMs: number;
  owner: string;
  keys: Set<string>;
}

const byCreateAsc = (a: KeyValue, b: KeyValue): number => a.createRevision - b.createRevision;
const byCreateDesc = (a: KeyValue, b: KeyValue): number => b.createRevision - a.createRevision;
const byKey = (a: KeyValue, b: KeyValue): number => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
const copyOf = (kv: KeyValue): KeyValue => ({ ...kv });

/** What a store holds, as a snapshot keeps it (EtcdKv.snapshot). */
export interface EtcdKvCopy {
  readonly keys: ReadonlyMap<string, KeyValue>;
  readonly leases: ReadonlyMap<number, LeaseInfo>;
  readonly deadLeases: ReadonlySet<number>;
  readonly revision: number;
}

function copyOfKv(c: EtcdKvCopy): { keys: Map<string, KeyValue>; leases: Map<number, LeaseInfo>; deadLeases: Set<number>; revision: number } {
  const keys = new Map<string, KeyValue>();
  for (const [k, kv] of c.keys) keys.set(k, { ...kv });
  const leases = new Map<number, LeaseInfo>();
  for (const [id, l] of c.leases) leases.set(id, { ...l, keys: new Set(l.keys) });
  return { keys, leases, deadLeases: new Set(c.deadLeases), revision: c.revision };
}

export class EtcdKv {
  private readonly keys = new Map<string, KeyValue>();
  readonly leases = new Map<number, LeaseInfo>();
  /** Leases revoked (or expired): a keepalive for one is told "not found". */
  readonly deadLeases = new Set<number>();
  /** The store's revision: the last write transaction's. */
  revision = 0;
  /**
   * Canonical map entries (replica-states.ts) of keys and leases, by key, dropped
   * whenever that key or lease changes: a replica digest walks only what changed since
   * the last one, as ZkTree's does. ES-private, so not a field of the canonical form.
   */
  readonly #keyEntries = new Map<string, [string, string]>();
  readonly #leaseEntries = new Map<number, [string, string]>();
  /** canonicalForm(deadLeases), kept until the next revoke: the set only grows, and a digest wrote it whole. */
  #deadLeasesForm: string | undefined = undefined;

  /**
   * `responses`: whether a transaction's result carries its responses (ranges read, puts
   * and deletes answered); false where nobody waits for them (a replica other than the
   * proposer's): its state, events, revision and success are the same either way.
   */
  apply(cmd: EtcdCmd, index: number, responses = true): EtcdResult {
    const events: KvEvent[] = [];
    switch (cmd.kind) {
      case "leaseGrant":
        // etcd picks a random id; the log index is as unique and keeps runs reproducible.
        this.leases.set(index, { id: index, ttlMs: cmd.ttlMs, owner: cmd.owner, keys: new Set() });
        this.#leaseEntries.delete(index);
        return { ok: true, revision: this.revision, leaseId: index, events };
      case "leaseRevoke": {
        const l = this.leases.get(cmd.leaseId);
        if (!l) return { ok: false, error: "lease-not-found", revision: this.revision, events };
        if (l.keys.size > 0) {
          const rev = ++this.revision;
          for (const k of [...l.keys].sort()) this.deleteKey(k, rev, events);
        }
        this.leases.delete(cmd.leaseId);
        this.#leaseEntries.delete(cmd.leaseId);
        this.deadLeases.add(cmd.leaseId);
        this.#deadLeasesForm = undefined;
        return { ok: true, revision: this.revision, events };
      }
      case "txn":
        return this.txn(cmd, events, responses);
    }
  }

  private txn(cmd: Extract<EtcdCmd, { kind: "txn" }>, events: KvEvent[], answer: boolean): EtcdResult {
    // Loops, not every/some: a closure each per transaction on every replica.
    let succeeded = true;
    for (let i = 0; i < cmd.compare.length && succeeded; i++) succeeded = this.compare(cmd.compare[i]!);
    const ops = succeeded ? cmd.success : cmd.failure;
    // A put naming an unknown lease fails the whole transaction, as in etcd.
    for (const o of ops) {
      if (o.op === "put" && o.lease && !this.leases.has(o.lease)) return { ok: false, error: "lease-not-found", revision: this.revision, events };
    }
    let writes = false;
    for (let i = 0; i < ops.length && !writes; i++) {
      const o = ops[i]!;
      writes = o.op === "put" || (o.op === "delete" && this.keys.has(o.key));
    }
    const rev = writes ? this.revision + 1 : this.revision;
    // Unanswered, a range reads nothing (it writes nothing either).
    const responses: OpResponse[] | undefined = answer ? [] : undefined;
    for (const o of ops) {
      if (o.op === "range") responses?.push({ op: "range", kvs: this.range(o) });
      else if (o.op === "put") {
        this.put(o.key, o.value, o.lease ?? 0, rev, events);
        responses?.push({ op: "put" });
      } else {
        const had = this.keys.has(o.key);
        if (had) this.deleteKey(o.key, rev, events);
        responses?.push({ op: "delete", deleted: had ? 1 : 0 });
      }
    }
    this.revision = rev;
    return responses !== undefined ? { ok: true, revision: rev, succeeded, responses, events } : { ok: true, revision: rev, succeeded, events };
  }

  private compare(c: Compare): boolean {
    const kv = this.keys.get(c.key);
    // A missing key compares as create/mod revision 0, version 0, value "" (etcd's semantics).
    const actual: number | string =
      c.target === "value"
        ? (kv?.value ?? "")
        : c.target === "createRevision"
          ? (kv?.createRevision ?? 0)
          : c.target === "modRevision"
            ? (kv?.modRevision ?? 0)
            : (kv?.version ?? 0);
    switch (c.cmp) {
      case "=":
        return actual === c.value;
      case "!=":
        return actual !== c.value;
      case "<":
        return actual < c.value;
      case ">":
        return actual > c.value;
    }
  }

  private put(key: string, value: string, lease: number, rev: number, events: KvEvent[]): void {
    const prev = this.keys.get(key);
    if (prev && prev.lease !== 0 && prev.lease !== lease) {
      this.leases.get(prev.lease)?.keys.delete(key);
      this.#leaseEntries.delete(prev.lease);
    }
    this.keys.set(key, {
      key,
      value,
      createRevision: prev?.createRevision ?? rev,
      modRevision: rev,
      version: (prev?.version ?? 0) + 1,
      lease,
    });
    this.#keyEntries.delete(key);
    if (lease !== 0) {
      this.leases.get(lease)!.keys.add(key);
      this.#leaseEntries.delete(lease);
    }
    events.push({ type: "put", key, revision: rev });
  }

  private deleteKey(key: string, rev: number, events: KvEvent[]): void {
    const kv = this.keys.get(key);
    if (!kv) return;
    this.keys.delete(key);
    this.#keyEntries.delete(key);
    if (kv.lease !== 0) {
      this.leases.get(kv.lease)?.keys.delete(key);
      this.#leaseEntries.delete(kv.lease);
    }
    events.push({ type: "delete", key, revision: rev });
  }

  /** Range read (also used by reads outside transactions, after a read barrier). */
  range(o: RangeOp): KeyValue[] {
    const maxRev = o.maxCreateRevision;
    if (o.prefix && o.limit === 1 && (o.sort === "createAsc" || o.sort === "createDesc")) return this.firstByCreate(o.key, o.sort === "createAsc", maxRev);
    let kvs: KeyValue[];
    if (o.prefix) {
      // One pass for the prefix and the revision bound (a spread and two filters allocated an array each).
      kvs = [];
      for (const kv of this.keys.values()) if (kv.key.startsWith(o.key) && (maxRev === undefined || kv.createRevision <= maxRev)) kvs.push(kv);
    } else {
      const kv = this.keys.get(o.key);
      kvs = kv && (maxRev === undefined || kv.createRevision <= maxRev) ? [kv] : [];
    }
    if (o.sort === "createAsc") kvs.sort(byCreateAsc);
    else if (o.sort === "createDesc") kvs.sort(byCreateDesc);
    else kvs.sort(byKey);
    if (o.limit !== undefined && o.limit > 0) kvs = kvs.slice(0, o.limit);
    return kvs.map(copyOf);
  }

  /**
   * range's answer for a prefix, sorted by create revision, limit 1 (the lock recipe's
   * "who is first" and "who is just before me", on every replica's transactions): the
   * first key of the least (or greatest) create revision in the store's order, which is
   * what the stable sort puts first, found in one pass without an array or a sort.
   */
  private firstByCreate(prefix: string, ascending: boolean, maxRev: number | undefined): KeyValue[] {
    let best: KeyValue | undefined;
    for (const kv of this.keys.values()) {
      if (!kv.key.startsWith(prefix) || (maxRev !== undefined && kv.createRevision > maxRev)) continue;
      if (best === undefined || (ascending ? kv.createRevision < best.createRevision : kv.createRevision > best.createRevision)) best = kv;
    }
    return best === undefined ? [] : [{ ...best }];
  }

  get(key: string): KeyValue | undefined {
    const kv = this.keys.get(key);
    return kv ? { ...kv } : undefined;
  }

  /** A copy of the store sharing nothing it goes on changing: Raft's snapshot (§7). */
  snapshot(): EtcdKvCopy {
    const { keys, leases, deadLeases, revision } = this;
    return copyOfKv({ keys, leases, deadLeases, revision });
  }

  /** Back to a copy `snapshot` made (on a restart; the copy stays as it is, for the next one). */
  restore(copy: EtcdKvCopy): void {
    const c = copyOfKv(copy);
    this.keys.clear();
    for (const [k, kv] of c.keys) this.keys.set(k, kv);
    this.leases.clear();
    for (const [id, l] of c.leases) this.leases.set(id, l);
    this.deadLeases.clear();
    for (const id of c.deadLeases) this.deadLeases.add(id);
    this.revision = c.revision;
    this.#keyEntries.clear();
    this.#leaseEntries.clear();
    this.#deadLeasesForm = undefined;
  }

  /** Members of the maps and sets a digest writes (the leases' own key sets are a few each). */
  stateSize(): number {
    return this.keys.size + this.leases.size + this.deadLeases.size;
  }

  /**
   * What stateForm is made of (FormParts): every field it writes, in its order, the two
   * maps as their sizes and cached entries. A field added to the store must be added here.
   */
  stateParts(out: FormParts): void {
    out.push((this.#deadLeasesForm ??= canonicalForm(this.deadLeases)));
    out.pushMap(this.keys, this.#keyEntries);
    out.pushMap(this.leases, this.#leaseEntries);
    out.push(this.revision);
  }

  /** canonicalForm(this), byte for byte, from the cached entries of unchanged keys and leases. */
  stateForm(): string {
    return canonicalObjectWith(this, (field) =>
      field === "keys"
        ? mapFormCached(this.keys, this.#keyEntries)
        : field === "leases"
          ? mapFormCached(this.leases, this.#leaseEntries)
          : field === "deadLeases"
            ? (this.#deadLeasesForm ??= canonicalForm(this.deadLeases))
            : undefined,
    );
  }
}
