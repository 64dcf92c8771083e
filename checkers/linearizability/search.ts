/**
 * Wing–Gong–Lowe search for one sub-history (one lock), as Porcupine does it: the
 * completed operations' call and return entries sit in a doubly-linked list in time
 * order; linearizing an op lifts its two entries out, backtracking puts them back.
 * Every (set of linearized ops, model state) reached is memoized so no configuration
 * is explored twice.
 *
 * What differs from Porcupine, and why:
 * - Info ops (endUs = Infinity) are kept out of the list. They may be linearized at any
 *   point after their call or never, so the search succeeds once every completed op is
 *   placed. Keeping them out means dead info ops are not rescanned at every step, which
 *   is what made many-info histories quadratic; the model's `infoKeys`/`relevantKeys`
 *   say which ones are worth trying in a state.
 * - The set of linearized ops is stored as (prefix length, count, the ranks past the
 *   prefix not yet linearized, list of info ops) and hashed incrementally (Zobrist), not as an n-bit bitset per memo entry:
 *   with 100k ops per lock a full bitset per entry would cost gigabytes.
 * - Among the ops that may go next, the one whose return comes first is tried first:
 *   it is the one that must be placed soonest, and for locks it is usually the winner.
 * - An op that never changes the state (Model.readOnly: a read) and can take effect now
 *   is placed now, and nothing else is tried in its stead: any order from here that
 *   places it later stays legal with it moved here (it needs only what is linearized
 *   already, and leaves the state as it found it).
 */
import type { Operation } from "../../sim/history.js";
import { bindModel, mix32, type BoundModel, type Model } from "./model.js";
import { Memo } from "./memo.js";
import { InfoSets } from "./info-set.js";

export interface SearchBudget {
  /** Memo entries (distinct configurations) to explore before giving up. */
  statesMax: number;
  /** Estimated memo + stack memory to use before giving up, MB. */
  memoryMbMax: number;
  /** Model steps (legal or not, memo hits included) before giving up; default unbounded. */
  stepsMax?: number;
}

export interface SearchResult<S> {
  valid: true | false | "unknown";
  /** Distinct configurations memoized. */
  statesExplored: number;
  /** Model steps taken (legal or not). */
  steps: number;
  /** Estimated memory of the memo table and stack, MB. */
  memoryMbEstimate: number;
  /** Longest linearization found (op indexes into the given ops, in linearization order). */
  longestPrefix: number[];
  /** Model state after `longestPrefix`. */
  stateAfterPrefix: S;
  /**
   * When not linearizable: the ops that could have gone next after the longest prefix
   * but cannot take effect there; the first is the one whose return forces it to be
   * placed now. Empty otherwise.
   */
  stuck: number[];
  /** Why the search stopped early, when valid is "unknown". */
  stoppedBy?: "statesMax" | "memoryMbMax" | "stepsMax";
}

/** Persistent list node: shares tails so a memo entry can keep its path in O(1). */
interface Cons {
  readonly id: number;
  readonly next: Cons | null;
  readonly length: number;
}

/**
 * One per depth of the search, so a valid history of n ops holds n of them: only what
 * the walk needs stays here (the first return's position follows from firstRank; the
 * info cursor exists once phase 2 is reached). A frame is also its path's node (`id`
 * the op that led here, `next` the frame before, `length` the depth; the root's is 0),
 * not a frame and a node each.
 */
interface Frame<S> extends Cons {
  readonly next: Frame<S> | null;
  readonly state: S;
  /** The info ops linearized on the way here (InfoSets' node). */
  readonly infoSet: number;
  /** 0: first-return op; 1: walk the list; 2: info ops; 3: exhausted; 4: only the read-only op in cursor. */
  phase: number;
  cursor: number;
  firstRank: number;
  info: InfoCursor | null;
}

/** Info candidates, read lazily: the lists of the state's relevant keys, a position in them. */
interface InfoCursor {
  readonly lists: (readonly number[])[];
  listIdx: number;
  posIdx: number;
}

// Rough sizes for the memory estimate, bytes: a memo entry object, its bucket slot and
// state; a stack frame. They only need to be the right order of magnitude.
const MEMO_ENTRY_BYTES = 240;
/** At most this many info ops are listed among a witness's stuck ops. */
const STUCK_INFO_MAX = 20;
const FRAME_BYTES = 120;

/** Check one sub-history. `ops` must all belong to one partition. */
export function searchLinearization<S>(model: Model<S>, ops: readonly Operation[], budget: SearchBudget): SearchResult<S> {
  return new WglSearch(model, ops, budget).run();
}

/**
 * One search's layout and state, built once (the entry list, the info index) and then
 * walked: a depth-first search over frames, each linearizing one op, memoized on (the
 * linearized set, the model state).
 */
class WglSearch<S> {
  private readonly n: number;
  /** Position in the history's order of each op's call and return (Infinity: an info op's). */
  private readonly callPos: Float64Array;
  private readonly retPos: Float64Array;
  /** Completed ops by rank (call order); info ops apart. */
  private readonly completed: number[] = [];
  private readonly rankOf: Int32Array;
  private readonly m: number;
  /**
   * Linked list over completed entries: node 2r = call of rank r, 2r+1 = its return,
   * HEAD = 2m. -1 = end of list.
   */
  private readonly HEAD: number;
  private readonly next: Int32Array;
  private readonly prev: Int32Array;
  /** Info ops indexed by relevance key, each list in call order; infoAlways: relevant to every state. */
  private readonly infoByKey = new Map<string, number[]>();
  private readonly infoAlways: number[] = [];
  /** The model's rules for these ops, by position. */
  private readonly bound: BoundModel<S>;
  /** 1 for a completed op the model says never changes the state (Model.readOnly). */
  private readonly readOnly: Uint8Array;

  // The linearized set, kept three ways: flags, prefix+window for exact memo comparison,
  // and a Zobrist hash updated in O(1).
  private readonly linFlag: Uint8Array;
  /** Every completed rank < base is linearized, rank base is not. */
  private base = 0;
  /** Completed ops linearized. */
  private linCount = 0;
  private zLo = 0;
  private zHi = 0;
  /**
   * The ranks after base, up to the last linearized one, that are not linearized, into
   * `holes` (their count in holesCount). With base and linCount they fix the set
   * exactly, and there are few of them (ops pending past ones already placed: about the
   * concurrency), where a bitset of the same span grows with how long one op stays
   * pending. `holesWords` is the span's bitset size in words, which the memory estimate
   * counts (as it did when the set was kept as a bitset).
   */
  private holes = new Int32Array(16);
  private holesCount = 0;
  private holesWords = 0;
  private readonly infoSets: InfoSets;
  /** A bucket is its one entry until a second shares the hash (most never do). */
  private readonly memo: Memo<S, number>;
  private statesExplored = 0;
  private steps = 0;
  private readonly stepsMax: number;
  private windowWords = 0;
  private maxDepth = 0;

  constructor(
    private readonly model: Model<S>,
    private readonly ops: readonly Operation[],
    private readonly budget: SearchBudget,
  ) {
    const n = (this.n = ops.length);
    this.bound = bindModel(model, ops);
    this.callPos = new Float64Array(n);
    this.retPos = new Float64Array(n).fill(Infinity);
    this.rankOf = new Int32Array(n).fill(-1);
    const { order, m } = this.entriesInOrder();
    this.m = m;
    this.HEAD = 2 * m;
    this.next = new Int32Array(2 * m + 1).fill(-1);
    this.prev = new Int32Array(2 * m + 1).fill(-1);
    const infoOps = this.layOut(order);
    this.indexInfoOps(infoOps);
    this.readOnly = new Uint8Array(n);
    if (model.readOnly) for (const op of this.completed) if (model.readOnly(ops[op])) this.readOnly[op] = 1;
    this.linFlag = new Uint8Array(n);
    this.infoSets = new InfoSets(n);
    // A valid history memoizes about one configuration per op: room for them from the start.
    this.memo = new Memo<S, number>(model.equal, (a, b) => a === b, n);
    this.stepsMax = budget.stepsMax ?? Infinity;
  }

  /**
   * Entries in the history's order (real-time order is the order events were recorded, so
   * a process's next call follows its last return even at one instant). An entry is a
   * number, 2 * op + (1 for a return), placed by its event's position: no object per entry
   * (there are two per op, and a lock may have hundreds of thousands of ops). `order` may
   * have holes (-1); `m` is the completed ops' count.
   */
  private entriesInOrder(): { order: Int32Array; m: number } {
    const { ops, n } = this;
    // Each entry's position, read from its event once (entry 2i: op i's call, 2i + 1: its return; NaN: none).
    const at = new Float64Array(2 * n);
    let m = 0;
    let lo = Infinity;
    let hi = -Infinity;
    for (let i = 0; i < n; i++) {
      const op = ops[i];
      const call = (at[2 * i] = op.invoke.index);
      const completed = Number.isFinite(op.endUs);
      const ret = (at[2 * i + 1] = completed ? op.complete!.index : NaN);
      if (completed) m++;
      if (call < lo) lo = call;
      if (call > hi) hi = call;
      if (ret > hi) hi = ret;
    }
    const count = n + m;
    const slotted = hi - lo >= 0 && hi - lo < 4 * count + 64 ? placedInSlots(at, lo, hi) : undefined;
    return { order: slotted ?? sortedEntries(at), m };
  }

  /**
   * One pass over the entries in order: each op's call and return positions, ranks 0..m-1
   * for the completed ops in call order, their entries linked into the list; returns the
   * info ops in call order.
   */
  private layOut(order: Int32Array): number[] {
    const { ops, next, prev, rankOf } = this;
    const infoOps: number[] = [];
    let last = this.HEAD;
    for (let p = 0; p < order.length; p++) {
      const e = order[p];
      if (e < 0) continue;
      const op = e >>> 1;
      let node: number;
      if ((e & 1) === 1) {
        this.retPos[op] = p;
        node = 2 * rankOf[op] + 1;
      } else {
        this.callPos[op] = p;
        if (!Number.isFinite(ops[op].endUs)) {
          infoOps.push(op);
          continue;
        }
        rankOf[op] = this.completed.length;
        this.completed.push(op);
        node = 2 * rankOf[op];
      }
      next[last] = node;
      prev[node] = last;
      last = node;
    }
    return infoOps;
  }

  private indexInfoOps(infoOps: readonly number[]): void {
    const { model, n } = this;
    const batchKeys = this.bound.infoKeys;
    if (batchKeys && batchKeys.length !== n) throw new Error(`${model.name}.infoKeys returned ${batchKeys.length} keys for ${n} ops`);
    const addTo = (key: string, op: number): void => {
      const list = this.infoByKey.get(key);
      if (list) list.push(op);
      else this.infoByKey.set(key, [op]);
    };
    for (const op of infoOps) {
      const key = batchKeys?.[op];
      if (key === null) continue;
      if (key === undefined) this.infoAlways.push(op);
      else if (typeof key === "string") addTo(key, op);
      else for (const k of key) addTo(k, op);
    }
  }

  private lift(r: number): void {
    const { next, prev } = this;
    const c = 2 * r;
    const ret = c + 1;
    next[prev[c]] = next[c];
    prev[next[c]] = prev[c]; // a call's next always exists: its return follows it
    next[prev[ret]] = next[ret];
    if (next[ret] >= 0) prev[next[ret]] = prev[ret];
  }

  private unlift(r: number): void {
    const { next, prev } = this;
    const c = 2 * r;
    const ret = c + 1;
    next[prev[ret]] = ret;
    if (next[ret] >= 0) prev[next[ret]] = ret;
    next[prev[c]] = c;
    prev[next[c]] = c;
  }

  private setLin(op: number): void {
    this.linFlag[op] = 1;
    this.zLo ^= zobLo(op);
    this.zHi ^= zobHi(op);
    const r = this.rankOf[op];
    if (r >= 0) {
      this.linCount++;
      this.lift(r);
      if (r === this.base) while (this.base < this.m && this.linFlag[this.completed[this.base]]) this.base++;
    }
  }

  private clearLin(op: number): void {
    this.linFlag[op] = 0;
    this.zLo ^= zobLo(op);
    this.zHi ^= zobHi(op);
    const r = this.rankOf[op];
    if (r >= 0) {
      this.linCount--;
      this.unlift(r);
      if (r < this.base) this.base = r;
    }
  }

  private snapshotHoles(): void {
    const { base, linFlag, completed } = this;
    let ahead = this.linCount - base;
    this.holesCount = 0;
    this.holesWords = 0;
    if (ahead === 0) return;
    let r = base + 1;
    for (; ahead > 0; r++) {
      this.steps++; // a state's own walks count as work: the budget bounds time, whatever the history's size
      if (linFlag[completed[r]]) ahead--;
      else {
        if (this.holesCount === this.holes.length) {
          const wider = new Int32Array(2 * this.holes.length);
          wider.set(this.holes);
          this.holes = wider;
        }
        this.holes[this.holesCount++] = r;
      }
    }
    this.holesWords = ((r - 1 - base - 1) >>> 5) + 1;
  }

  private memoryMb(): number {
    return (this.statesExplored * MEMO_ENTRY_BYTES + this.windowWords * 4 + this.maxDepth * FRAME_BYTES) / (1024 * 1024);
  }

  /** Look up the current configuration; memoize it and return true if it is new. */
  private remember(state: S, infoSet: number): boolean {
    const key = (this.zLo ^ this.model.hash(state)) >>> 0;
    const infoCount = this.infoSets.size(infoSet);
    this.snapshotHoles();
    if (!this.memo.addIfNew(key, this.zHi, this.linCount, this.base, infoCount, this.holes, this.holesCount, state, infoSet)) return false;
    this.statesExplored++;
    this.windowWords += this.holesWords;
    return true;
  }

  private newFrame(state: S, via: number, parent: Frame<S> | null, infoSet: number): Frame<S> {
    const { next, readOnly, completed } = this;
    // The first return entry bounds which ops may go next: only those called before it.
    // On the way, a read-only op that can take effect here is the only one to try (see above).
    let node = next[this.HEAD];
    let forced = -1;
    while (node >= 0 && (node & 1) === 0) {
      const op = completed[node >>> 1];
      if (forced < 0 && readOnly[op] === 1 && this.bound.step(state, op) !== undefined) forced = op;
      node = next[node];
      this.steps++;
    }
    const firstRank = node >= 0 ? node >>> 1 : -1;
    return {
      id: via,
      next: parent,
      length: parent ? parent.length + 1 : 0,
      state,
      infoSet,
      phase: forced >= 0 ? 4 : firstRank >= 0 ? 0 : 1,
      cursor: forced >= 0 ? forced : next[this.HEAD],
      firstRank,
      info: null,
    };
  }

  private infoListsOf(f: Frame<S>): (readonly number[])[] {
    const { next, completed } = this;
    const { relevantKeys } = this.bound;
    const lists: (readonly number[])[] = [];
    if (relevantKeys && this.infoByKey.size > 0) {
      // The completed ops that may go next: the first-return op, then the other calls before it.
      const nextOps: number[] = [];
      if (f.firstRank >= 0) nextOps.push(completed[f.firstRank]);
      for (let node = next[this.HEAD]; node >= 0 && (node & 1) === 0; node = next[node]) {
        if (node >>> 1 !== f.firstRank) nextOps.push(completed[node >>> 1]);
      }
      this.steps += nextOps.length;
      for (const k of relevantKeys(f.state, nextOps)) {
        const list = this.infoByKey.get(k);
        if (list) lists.push(list);
      }
    }
    if (this.infoAlways.length > 0) lists.push(this.infoAlways);
    return lists;
  }

  /**
   * The frame's next info candidate: an info op of a relevant key, not yet linearized,
   * called before the first pending return (after it, it cannot go next). Read lazily,
   * so a state with many relevant info ops costs only the ones actually tried.
   */
  private nextInfo(f: Frame<S>, c: InfoCursor): number {
    // Position of the first return entry still in the list (Infinity if none).
    const firstReturnPos = f.firstRank >= 0 ? this.retPos[this.completed[f.firstRank]] : Infinity;
    while (c.listIdx < c.lists.length) {
      const list: readonly number[] = c.lists[c.listIdx];
      while (c.posIdx < list.length) {
        const op = list[c.posIdx++];
        this.steps++;
        if (this.callPos[op] >= firstReturnPos) break;
        if (!this.linFlag[op]) return op;
      }
      c.listIdx++;
      c.posIdx = 0;
    }
    return -1;
  }

  private infoCursorOf(f: Frame<S>): InfoCursor {
    return { lists: this.infoListsOf(f), listIdx: 0, posIdx: 0 };
  }

  /** Next candidate op of a frame, or -1 when it has none left. */
  private nextCandidate(f: Frame<S>): number {
    if (f.phase === 4) {
      f.phase = 3;
      return f.cursor;
    }
    if (f.phase === 0) {
      f.phase = 1;
      return this.completed[f.firstRank];
    }
    if (f.phase === 1) {
      while (f.cursor >= 0 && (f.cursor & 1) === 0) {
        const r = f.cursor >>> 1;
        f.cursor = this.next[f.cursor];
        if (r !== f.firstRank) return this.completed[r];
      }
      f.phase = 2;
    }
    if (f.phase === 2) {
      const op = this.nextInfo(f, (f.info ??= this.infoCursorOf(f)));
      if (op >= 0) return op;
      f.phase = 3;
    }
    return -1;
  }

  private stuckAt(f: Frame<S>): number[] {
    const { next, completed } = this;
    const out: number[] = [];
    if (f.firstRank >= 0) out.push(completed[f.firstRank]);
    for (let node = next[this.HEAD]; node >= 0 && (node & 1) === 0; node = next[node]) {
      if (node >>> 1 !== f.firstRank) out.push(completed[node >>> 1]);
    }
    // Relevant info ops too, but only a few: there may be thousands.
    const c = this.infoCursorOf(f);
    for (let k = 0, op = this.nextInfo(f, c); op >= 0 && k < STUCK_INFO_MAX; k++, op = this.nextInfo(f, c)) out.push(op);
    return out;
  }

  private finish(valid: SearchResult<S>["valid"], path: Cons | null, state: S, stuck: number[], stoppedBy?: SearchResult<S>["stoppedBy"]): SearchResult<S> {
    return {
      valid,
      statesExplored: this.statesExplored,
      steps: this.steps,
      memoryMbEstimate: Math.round(this.memoryMb() * 10) / 10,
      longestPrefix: consToArray(path),
      stateAfterPrefix: state,
      stuck,
      ...(stoppedBy ? { stoppedBy } : {}),
    };
  }

  /** The search proper: depth first, a frame per linearized op, the deepest dead end kept as the witness. */
  run(): SearchResult<S> {
    const { model, budget } = this;
    const init = model.init();
    this.remember(init, 0);
    const stack: Frame<S>[] = [this.newFrame(init, -1, null, 0)];
    // The deepest dead end: its stuck ops are found once the search has failed (most dead ends are passed by).
    let best: Frame<S> = stack[0]!;
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      if (this.next[this.HEAD] < 0) return this.finish(true, top, top.state, []);
      const op = this.nextCandidate(top);
      if (op < 0) {
        if (top.length > best.length) best = top;
        stack.pop();
        if (top.length > 0) this.clearLin(top.id);
        continue;
      }
      if (++this.steps > this.stepsMax) {
        this.steps = this.stepsMax;
        const deepest = top.length >= best.length ? top : best;
        return this.finish("unknown", deepest, deepest.state, [], "stepsMax");
      }
      const nextState = this.bound.step(top.state, op);
      if (nextState === undefined) continue;
      const isInfo = this.rankOf[op] < 0;
      // An info op that changes nothing is the same as leaving it out.
      if (isInfo && model.equal(nextState, top.state)) continue;
      // A legal read-only op goes here or nowhere: an order from here that places it later is as legal with it moved here.
      if (this.readOnly[op] === 1) top.phase = 3;
      this.setLin(op);
      const infoSet = isInfo ? this.infoSets.add(top.infoSet, op) : top.infoSet;
      if (!this.remember(nextState, infoSet)) {
        this.clearLin(op);
        continue;
      }
      const path = this.newFrame(nextState, op, top, infoSet);
      stack.push(path);
      if (stack.length > this.maxDepth) this.maxDepth = stack.length;
      if (this.statesExplored >= budget.statesMax || this.memoryMb() >= budget.memoryMbMax) {
        const deepest = path.length >= best.length ? path : best;
        return this.finish("unknown", deepest, deepest.state, [], this.statesExplored >= budget.statesMax ? "statesMax" : "memoryMbMax");
      }
    }
    return this.finish(false, best, best.state, this.stuckAfter(best));
  }

  /**
   * The ops that cannot follow a dead end's path, once the search is over (every op back
   * in the list): the path is linearized again, so the list is as it was at that dead end.
   */
  private stuckAfter(deadEnd: Frame<S>): number[] {
    for (const op of consToArray(deadEnd)) this.setLin(op);
    return this.stuckAt(this.newFrame(deadEnd.state, deadEnd.id, null, deadEnd.infoSet));
  }
}

/**
 * The entries (`at`: each one's position, NaN for the return an info op lacks) in order, each
 * in its position's slot, holes -1. A lock's entries usually fill most of the span of
 * positions they come from, so this is one pass (a comparison sort was a tenth of a 10k-op
 * search); undefined when two share a position or one is not an integer (ops made by hand).
 */
function placedInSlots(at: Float64Array, lo: number, hi: number): Int32Array | undefined {
  const slots = new Int32Array(hi - lo + 1).fill(-1);
  for (let e = 0; e < at.length; e++) {
    if ((e & 1) === 1 && Number.isNaN(at[e])) continue;
    const slot = at[e] - lo;
    if (!(slot >= 0 && slot < slots.length && Number.isInteger(slot)) || slots[slot] >= 0) return undefined;
    slots[slot] = e;
  }
  return slots;
}

/** The entries sorted by position: for a lock whose entries are scattered thinly through a long history of many locks, or ops made by hand. */
function sortedEntries(at: Float64Array): Int32Array {
  const ents: number[] = [];
  for (let e = 0; e < at.length; e++) if ((e & 1) === 0 || !Number.isNaN(at[e])) ents.push(e);
  return Int32Array.from(ents.sort((a, b) => at[a] - at[b]));
}

const zobLo = (op: number): number => mix32(op * 2 + 0x2545f491) | 1;
const zobHi = (op: number): number => mix32(op * 2 + 0x68e31da5) | 1;

function consToArray(c: Cons | null): number[] {
  const out: number[] = new Array(c ? c.length : 0);
  // A root frame is a node of length 0: it names no op.
  for (let i = out.length - 1; c && i >= 0; c = c.next, i--) out[i] = c.id;
  return out;
}
