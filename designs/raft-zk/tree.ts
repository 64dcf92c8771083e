/**
 * The ZooKeeper-like data tree: the replicated state machine of Raft-ZK. Pure and
 * deterministic: `apply(cmd, zxid)` is called on every server, in log order, with the
 * Raft log index as the zxid (unique and increasing, as ZooKeeper's zxid is). No clock
 * is read here: sessions expire only by an `expireSession` command the leader proposes.
 *
 * Modelled from ZooKeeper: persistent / ephemeral nodes, sequential names (a per-parent
 * counter, 10 digits), versions checked by delete/set, czxid/mzxid in the stat, sessions
 * that own ephemerals. Not modelled: ACLs, containers/TTL nodes, multi(), quotas.
 */
export type ZkCmd =
  | { kind: "createSession"; timeoutMs: number; owner: string }
  | { kind: "closeSession"; sessionId: number }
  /** `lingerEphemerals`: a Chubby-style lock-delay, the session's ephemerals stay until `endLockDelay`. */
  | { kind: "expireSession"; sessionId: number; lingerEphemerals?: boolean }
  | { kind: "endLockDelay"; sessionId: number }
  | { kind: "create"; sessionId: number; path: string; data: string; ephemeral: boolean; sequential: boolean; parents: boolean }
  | { kind: "delete"; sessionId: number; path: string; /** -1: any version */ version: number }
  | { kind: "set"; sessionId: number; path: string; data: string; version: number };

export type ZkError = "no-node" | "node-exists" | "bad-version" | "not-empty" | "no-parent" | "session-expired" | "bad-path" | "ephemeral-parent";

export interface Stat {
  czxid: number;
  mzxid: number;
  version: number;
  /** Session id owning an ephemeral node; 0 for persistent nodes (as ZooKeeper). */
  ephemeralOwner: number;
  numChildren: number;
}

/** A change that watches fire on: data watches on `path`, child watches on its parent. */
export interface ZkEvent {
  type: "created" | "deleted" | "changed";
  path: string;
}

export type ZkResult = { ok: true; sessionId?: number; path?: string; stat?: Stat; events: ZkEvent[] } | { ok: false; error: ZkError; events: ZkEvent[] };

interface ZNode extends OwnFormEntry {
  data: string;
  czxid: number;
  mzxid: number;
  version: number;
  ephemeralOwner: number;
  /** NO_CHILDREN until the first child is added (most nodes are leaves: lock nodes). */
  children: Set<string>;
  /** Next sequence number for a sequential child (ZooKeeper uses the parent's cversion). */
  seqNext: number;
  /** The node at parentOf(path) (none for "/"): a remove then looks up no parent by path. */
  [PARENT]: ZNode | undefined;
}

/** A symbol, so the parent link is no field of the node's form (a digest writes string keys only). */
const PARENT: unique symbol = Symbol("parent node");

export interface SessionInfo extends OwnFormEntry {
  id: number;
  timeoutMs: number;
  owner: string;
  ephemerals: Set<string>;
}

import { canonicalForm, canonicalObjectWith, FORM_ENTRY, mapFormOwn, type FormParts, type OwnFormEntry } from "../../services/raft-service/replica-states.js";

export const SEQ_DIGITS = 10;

/**
 * The parent found last: nearly every create, delete and watch names a child of the
 * same directory (a lock's), and handing back that one string, whose hash the node map
 * has already computed, costs a prefix compare. A map of parents by path missed
 * whenever the path was a fresh sequential or protected name, which is most of them.
 */
let lastParent = "/";

/** The parent of `path`, whose last "/" is at `slash`. */
function parentAt(path: string, slash: number): string {
  if (slash <= 0) return "/";
  const p = lastParent;
  if (slash === p.length && path.startsWith(p)) return p;
  return (lastParent = path.slice(0, slash));
}

export function parentOf(path: string): string {
  return splitParents[splitOf(path)]!;
}

/**
 * Names and sequential paths made last, kept a little while: every replica applies the
 * same create (one command object) with the same sequence number, and the first
 * replica's strings (flat, their hashes computed by the node and child maps) spare the
 * others a concatenation, a flatten and a hash of each. Content decides a match, so a
 * hit is the very string a fresh computation would give. Bounded: a ring.
 */
const MEMO_SLOTS = 16;
const seqPrefixes: string[] = [];
const seqNumbers: number[] = [];
const seqPaths: string[] = [];
let seqNext = 0;

function sequentialPath(prefix: string, seq: number): string {
  // Newest first: the replicas of a create come one after another, so their match is
  // near the top, and every miss on the way is a string compare.
  for (let k = 1; k <= seqPaths.length; k++) {
    const i = (seqNext - k + MEMO_SLOTS) % MEMO_SLOTS;
    if (seqNumbers[i] === seq && seqPrefixes[i] === prefix) return seqPaths[i]!;
  }
  const path = prefix + String(seq).padStart(SEQ_DIGITS, "0");
  seqPrefixes[seqNext] = prefix;
  seqNumbers[seqNext] = seq;
  seqPaths[seqNext] = path;
  seqNext = (seqNext + 1) % MEMO_SLOTS;
  return path;
}

/**
 * Paths split last into parent and name, the same way: every replica applies the same
 * create or delete (one path string), and its parent and name are then found by a
 * compare instead of a search for the last "/" and a prefix compare (parentOf was a
 * tenth of an apply) or a slice.
 */
const splitPaths: string[] = [];
const splitParents: string[] = [];
const splitNames: string[] = [];
let splitNext = 0;

function splitOf(path: string): number {
  // Newest first, as sequentialPath: a miss is a compare of two strings, mostly of one length.
  for (let k = 1; k <= splitPaths.length; k++) {
    const i = (splitNext - k + MEMO_SLOTS) % MEMO_SLOTS;
    if (splitPaths[i] === path) return i;
  }
  const slash = path.lastIndexOf("/");
  const at = splitNext;
  splitPaths[at] = path;
  splitParents[at] = parentAt(path, slash);
  splitNames[at] = path.slice(slash + 1);
  splitNext = (splitNext + 1) % MEMO_SLOTS;
  return at;
}

export function baseName(path: string): string {
  return splitNames[splitOf(path)]!;
}

const SLASH = 47;
const DIGIT_0 = 48;

function validPath(path: string): boolean {
  // "/" alone, or "/" then a name character, no trailing "/", no empty segment.
  if (path === "/") return true;
  return path.charCodeAt(0) === SLASH && path.length > 1 && path.charCodeAt(1) !== SLASH && path.charCodeAt(path.length - 1) !== SLASH && !path.includes("//");
}

/**
 * The sequence number of a sequential node's name (its last SEQ_DIGITS characters, all
 * ASCII digits), or NaN. Read digit by digit: a waiter sorts its lock's children by it
 * on every wake, and a regex match allocated for each comparison.
 */
export function sequenceOf(name: string): number {
  const from = name.length - SEQ_DIGITS;
  if (from < 0) return NaN;
  let n = 0;
  for (let i = from; i < name.length; i++) {
    const d = name.charCodeAt(i) - DIGIT_0;
    if (d < 0 || d > 9) return NaN;
    n = n * 10 + d;
  }
  return n;
}

/**
 * The children of every node that has never had one: shared, never added to (insert
 * gives a node its own set first). A Set per created node, on every replica, was a
 * good part of an apply's cost, and lock nodes stay leaves. Its form, size and
 * iteration are an empty set's, so digests and reads are unchanged.
 */
const NO_CHILDREN: ReadonlySet<string> = new Set<string>();

/** The events of an apply whose caller wants none: never written (each push checks for it first). */
const NO_EVENTS: readonly ZkEvent[] = Object.freeze([]);

/** canonicalForm of an empty map (the lingering sessions, nearly always). */
const EMPTY_MAP_FORM = canonicalForm(new Map());

/** What a tree holds, as a snapshot keeps it (ZkTree.snapshot). */
export interface ZkTreeCopy {
  readonly nodes: ReadonlyMap<string, ZNode>;
  readonly sessions: ReadonlyMap<number, SessionInfo>;
  readonly deadSessions: ReadonlySet<number>;
  readonly lingering: ReadonlyMap<number, Set<string>>;
  readonly lastZxid: number;
}

/**
 * A deep copy: new nodes, sessions and sets (a node's cached form entry goes along, its
 * content being the same). Lingering nodes' sets are their dead sessions' own, copied once.
 */
function copyOfTree(t: ZkTreeCopy): {
  nodes: Map<string, ZNode>;
  sessions: Map<number, SessionInfo>;
  deadSessions: Set<number>;
  lingering: Map<number, Set<string>>;
  lastZxid: number;
} {
  const nodes = new Map<string, ZNode>();
  for (const [path, n] of t.nodes) nodes.set(path, { ...n, children: n.children === NO_CHILDREN ? n.children : new Set(n.children) });
  // The copies' parent links point at the copies, not at the nodes copied.
  for (const [path, n] of nodes) if (path !== "/") n[PARENT] = nodes.get(parentOf(path));
  const sessions = new Map<number, SessionInfo>();
  for (const [id, si] of t.sessions) sessions.set(id, { ...si, ephemerals: new Set(si.ephemerals) });
  const lingering = new Map<number, Set<string>>();
  for (const [id, paths] of t.lingering) lingering.set(id, new Set(paths));
  return { nodes, sessions, deadSessions: new Set(t.deadSessions), lingering, lastZxid: t.lastZxid };
}

export class ZkTree {
  private readonly nodes = new Map<string, ZNode>();
  readonly sessions = new Map<number, SessionInfo>();
  /** Sessions that existed and are gone (closed or expired): a ping for one is told so. */
  readonly deadSessions = new Set<number>();
  /** Expired sessions whose ephemeral nodes are held back by a lock-delay, until `endLockDelay`. */
  readonly lingering = new Map<number, Set<string>>();
  /** zxid of the last applied entry. */
  lastZxid = 0;
  // Each node and session keeps its canonical map entry (replica-states.ts, FORM_ENTRY),
  // dropped whenever it changes: a replica digest then writes afresh only what changed
  // since the last one, not the whole tree.
  /** canonicalForm(deadSessions), kept until the next session dies: the set only grows, and a digest wrote it whole. */
  #deadSessionsForm: string | undefined = undefined;

  constructor() {
    this.nodes.set("/", {
      data: "",
      czxid: 0,
      mzxid: 0,
      version: 0,
      ephemeralOwner: 0,
      children: new Set(),
      seqNext: 0,
      [FORM_ENTRY]: undefined,
      [PARENT]: undefined,
    });
  }

  /**
   * `answer`: whether the result carries the stat of a created or set node; false where
   * nobody waits for it (a replica other than the proposer's). `withEvents`: whether the
   * result lists the events (false where no watch or record reads them: they are then an
   * empty list). The tree, the path and ok/error are the same either way.
   */
  apply(cmd: ZkCmd, zxid: number, answer = true, withEvents = true): ZkResult {
    this.lastZxid = zxid;
    const events: ZkEvent[] = withEvents ? [] : (NO_EVENTS as ZkEvent[]);
    switch (cmd.kind) {
      case "createSession":
        // The session id is the zxid of its creation: unique across the cluster's life.
        this.sessions.set(zxid, { id: zxid, timeoutMs: cmd.timeoutMs, owner: cmd.owner, ephemerals: new Set(), [FORM_ENTRY]: undefined });
        return { ok: true, sessionId: zxid, events };
      case "closeSession":
      case "expireSession": {
        const s = this.sessions.get(cmd.sessionId);
        if (!s) return { ok: false, error: "session-expired", events };
        // A normal close frees at once; an expiry under lock-delay keeps the nodes (owned by a dead session) for now.
        if (cmd.kind === "expireSession" && cmd.lingerEphemerals) this.lingering.set(cmd.sessionId, s.ephemerals);
        else this.removeAll(s.ephemerals, events);
        this.sessions.delete(cmd.sessionId);
        this.deadSessions.add(cmd.sessionId);
        this.#deadSessionsForm = undefined;
        return { ok: true, events };
      }
      case "endLockDelay": {
        const paths = this.lingering.get(cmd.sessionId);
        if (!paths) return { ok: false, error: "no-node", events };
        this.removeAll(paths, events);
        this.lingering.delete(cmd.sessionId);
        return { ok: true, events };
      }
      case "create":
        return this.create(cmd, zxid, events, answer);
      case "delete": {
        if (!this.sessions.has(cmd.sessionId)) return { ok: false, error: "session-expired", events };
        const n = this.nodes.get(cmd.path);
        if (!n || cmd.path === "/") return { ok: false, error: "no-node", events };
        if (cmd.version !== -1 && cmd.version !== n.version) return { ok: false, error: "bad-version", events };
        if (n.children.size > 0) return { ok: false, error: "not-empty", events };
        this.remove(cmd.path, n, events);
        return { ok: true, events };
      }
      case "set": {
        if (!this.sessions.has(cmd.sessionId)) return { ok: false, error: "session-expired", events };
        const n = this.nodes.get(cmd.path);
        if (!n) return { ok: false, error: "no-node", events };
        if (cmd.version !== -1 && cmd.version !== n.version) return { ok: false, error: "bad-version", events };
        n.data = cmd.data;
        n.version++;
        n.mzxid = zxid;
        n[FORM_ENTRY] = undefined;
        if (events !== NO_EVENTS) events.push({ type: "changed", path: cmd.path });
        return answer ? { ok: true, stat: this.statOf(n), events } : { ok: true, events };
      }
    }
  }

  private create(cmd: Extract<ZkCmd, { kind: "create" }>, zxid: number, events: ZkEvent[], answer: boolean): ZkResult {
    // Each big map looked up once per thing (session, parent, path): at 1000 clients a
    // lookup in them is a miss in the CPU's caches, and there were twice as many.
    const session = this.sessions.get(cmd.sessionId);
    if (session === undefined) return { ok: false, error: "session-expired", events };
    if (!validPath(cmd.path) || cmd.path === "/") return { ok: false, error: "bad-path", events };
    const parentPath = parentOf(cmd.path);
    let parent = this.nodes.get(parentPath);
    if (parent === undefined) {
      if (!cmd.parents) return { ok: false, error: "no-parent", events };
      // Curator's creatingParentsIfNeeded: persistent parents, each its own create.
      const missing: string[] = [];
      for (let p = parentPath; !this.nodes.has(p); p = parentOf(p)) missing.unshift(p);
      for (const p of missing) parent = this.insert(p, this.nodes.get(parentOf(p))!, "", 0, zxid, events);
    }
    if (parent!.ephemeralOwner !== 0) return { ok: false, error: "ephemeral-parent", events };
    let path = cmd.path;
    if (cmd.sequential) {
      path = sequentialPath(path, parent!.seqNext++);
      parent![FORM_ENTRY] = undefined;
    }
    if (this.nodes.has(path)) return { ok: false, error: "node-exists", events };
    const owner = cmd.ephemeral ? cmd.sessionId : 0;
    // The new node's parent is parentPath even for a sequential name (the suffix has no "/").
    const n = this.insert(path, parent!, cmd.data, owner, zxid, events);
    if (owner !== 0) {
      session.ephemerals.add(path);
      session[FORM_ENTRY] = undefined;
    }
    return answer ? { ok: true, path, stat: this.statOf(n), events } : { ok: true, path, events };
  }

  /** Delete ephemerals deepest first so a parent is never deleted before its children. */
  private removeAll(paths: Set<string>, events: ZkEvent[]): void {
    for (const p of [...paths].sort((a, b) => b.length - a.length || (a < b ? 1 : -1))) {
      const n = this.nodes.get(p);
      if (n !== undefined) this.remove(p, n, events);
    }
  }

  /** `parent` is the node at parentOf(path), which the caller has. */
  private insert(path: string, parent: ZNode, data: string, ephemeralOwner: number, zxid: number, events: ZkEvent[]): ZNode {
    const n: ZNode = {
      data,
      czxid: zxid,
      mzxid: zxid,
      version: 0,
      ephemeralOwner,
      children: NO_CHILDREN as Set<string>,
      seqNext: 0,
      [FORM_ENTRY]: undefined,
      [PARENT]: parent,
    };
    this.nodes.set(path, n);
    if (parent.children === NO_CHILDREN) parent.children = new Set();
    parent.children.add(baseName(path));
    parent[FORM_ENTRY] = undefined;
    if (events !== NO_EVENTS) events.push({ type: "created", path });
    return n;
  }

  /** Remove `n`, the node at `path`. */
  private remove(path: string, n: ZNode, events: ZkEvent[]): void {
    this.nodes.delete(path);
    const parent = n[PARENT];
    if (parent !== undefined) {
      parent.children.delete(baseName(path));
      parent[FORM_ENTRY] = undefined;
    }
    if (n.ephemeralOwner !== 0) {
      const owner = this.sessions.get(n.ephemeralOwner);
      if (owner !== undefined) {
        owner.ephemerals.delete(path);
        owner[FORM_ENTRY] = undefined;
      }
    }
    if (events !== NO_EVENTS) events.push({ type: "deleted", path });
  }

  private statOf(n: ZNode): Stat {
    return { czxid: n.czxid, mzxid: n.mzxid, version: n.version, ephemeralOwner: n.ephemeralOwner, numChildren: n.children.size };
  }

  // --- reads (served by the leader after a read barrier) ---

  exists(path: string): Stat | undefined {
    const n = this.nodes.get(path);
    return n ? this.statOf(n) : undefined;
  }

  get(path: string): { data: string; stat: Stat } | undefined {
    const n = this.nodes.get(path);
    return n ? { data: n.data, stat: this.statOf(n) } : undefined;
  }

  /** Children names, sorted (ZooKeeper returns them unordered; sorting keeps runs reproducible). */
  getChildren(path: string): string[] | undefined {
    const n = this.nodes.get(path);
    return n ? [...n.children].sort() : undefined;
  }

  get nodeCount(): number {
    return this.nodes.size;
  }

  /** A copy of the tree sharing nothing it goes on changing: Raft's snapshot (§7), taken every few thousand entries. */
  snapshot(): ZkTreeCopy {
    const { nodes, sessions, deadSessions, lingering, lastZxid } = this;
    return copyOfTree({ nodes, sessions, deadSessions, lingering, lastZxid });
  }

  /** Back to a copy `snapshot` made (on a restart; the copy stays as it is, for the next one). */
  restore(copy: ZkTreeCopy): void {
    const c = copyOfTree(copy);
    this.nodes.clear();
    for (const [path, n] of c.nodes) this.nodes.set(path, n);
    this.sessions.clear();
    for (const [id, si] of c.sessions) this.sessions.set(id, si);
    this.deadSessions.clear();
    for (const id of c.deadSessions) this.deadSessions.add(id);
    this.lingering.clear();
    for (const [id, paths] of c.lingering) this.lingering.set(id, paths);
    this.lastZxid = c.lastZxid;
    this.#deadSessionsForm = undefined;
  }

  /** Members of the maps and sets a digest writes (the sessions' own sets are a few each). */
  stateSize(): number {
    return this.nodes.size + this.sessions.size + this.deadSessions.size + this.lingering.size;
  }

  /**
   * What stateForm is made of (FormParts): every field it writes, in its order, the two
   * maps as their sizes and cached entries. A field added to the tree must be added here.
   */
  stateParts(out: FormParts): void {
    out.push((this.#deadSessionsForm ??= canonicalForm(this.deadSessions)));
    out.push(this.lastZxid);
    out.push(this.lingering.size === 0 ? EMPTY_MAP_FORM : canonicalForm(this.lingering));
    out.pushMapOwn(this.nodes);
    out.pushMapOwn(this.sessions);
  }

  /** canonicalForm(this), byte for byte, from the cached entries of unchanged nodes and sessions. */
  stateForm(): string {
    return canonicalObjectWith(this, (field) =>
      field === "nodes"
        ? mapFormOwn(this.nodes)
        : field === "sessions"
          ? mapFormOwn(this.sessions)
          : field === "deadSessions"
            ? (this.#deadSessionsForm ??= canonicalForm(this.deadSessions))
            : undefined,
    );
  }
}
