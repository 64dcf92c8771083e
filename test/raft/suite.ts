import type { CreateRaftNode } from "../../services/raft/api.js";
import { RaftCluster, type ClusterOptions } from "./harness.js";

/**
 * The Raft regression suite, after the MIT 6.824 Raft labs (2A election, 2B agreement,
 * 2C persistence), scaled to the simulator: each test is a function of an
 * implementation and a seed, and throws a RaftCheckError (which names the seed) on
 * failure. It uses only the RaftHost interface, so it tests any implementation.
 */
export type RaftTest = (create: CreateRaftNode, seed: string) => void;

/** A bit over the election timeout bound (300 ms). */
const ELECTION_MS = 500;
const FIGURE8_ITERS = 300;
const FIGURE8_UNRELIABLE_ITERS = 300;

function cluster(create: CreateRaftNode, seed: string, n: number, extra: Partial<ClusterOptions> = {}): RaftCluster {
  return new RaftCluster({ n, seed, createNode: create, ...extra });
}

/** Unique command values: a test's own counter, so values never repeat within a run. */
function values(start: number): () => number {
  let v = start;
  return () => v++;
}

export const initialElection: RaftTest = (create, seed) => {
  const c = cluster(create, seed, 3);
  c.checkOneLeader();
  c.runMs(50);
  const term1 = c.checkTerms();
  if (term1 < 1) c.fail("initial election", `term is ${term1}, expected at least 1`);
  // With no failures the leader stays and the term does not move.
  c.runMs(2 * ELECTION_MS);
  const term2 = c.checkTerms();
  if (term1 !== term2) c.fail("initial election", `term changed from ${term1} to ${term2} with no failures`);
  c.checkOneLeader();
};

export const reElection: RaftTest = (create, seed) => {
  const c = cluster(create, seed, 3);
  const leader1 = c.checkOneLeader();
  // If the leader disconnects, a new one is elected.
  c.disconnect(leader1);
  c.checkOneLeader();
  // The old leader rejoining does not disturb the new one (or gets elected itself).
  c.connect(leader1);
  const leader2 = c.checkOneLeader();
  // No quorum: no leader.
  c.disconnect(leader2);
  c.disconnect((leader2 + 1) % 3);
  c.runMs(4 * ELECTION_MS);
  c.checkNoLeader();
  // Quorum back: a leader.
  c.connect((leader2 + 1) % 3);
  c.checkOneLeader();
  c.connect(leader2);
  c.checkOneLeader();
};

export const manyElections: RaftTest = (create, seed) => {
  const n = 7;
  const c = cluster(create, seed, n);
  c.checkOneLeader();
  for (let iter = 0; iter < 6; iter++) {
    // Cut three of seven: the other four must still (re)elect a leader.
    const cut = new Set<number>();
    while (cut.size < 3) cut.add(c.rng.int(0, n - 1));
    for (const i of cut) c.disconnect(i);
    c.checkOneLeader();
    for (const i of cut) c.connect(i);
  }
  c.checkOneLeader();
};

export const basicAgree: RaftTest = (create, seed) => {
  const c = cluster(create, seed, 3);
  let last = 0;
  for (let k = 1; k <= 5; k++) {
    if (c.nCommitted(last + 1).count > 0) c.fail("basic agree", `index ${last + 1} committed before any proposal`);
    const index = c.one(k * 100, 3, false);
    if (index <= last) c.fail("basic agree", `cmd ${k * 100} got index ${index}, not after ${last}`);
    last = index;
  }
};

export const failAgree: RaftTest = (create, seed) => {
  const c = cluster(create, seed, 3);
  c.one(101, 3, false);
  // A follower disconnects: the leader and the other follower still agree.
  const leader = c.checkOneLeader();
  c.disconnect((leader + 1) % 3);
  c.one(102, 2, false);
  c.one(103, 2, false);
  c.runMs(ELECTION_MS);
  c.one(104, 2, false);
  c.one(105, 2, false);
  // It rejoins and catches up.
  c.connect((leader + 1) % 3);
  c.one(106, 3, true);
  c.runMs(ELECTION_MS);
  c.one(107, 3, true);
};

export const failNoAgree: RaftTest = (create, seed) => {
  const n = 5;
  const c = cluster(create, seed, n);
  c.one(10, n, false);
  // Three of five followers disconnect: nothing commits.
  const leader = c.checkOneLeader();
  for (let k = 1; k <= 3; k++) c.disconnect((leader + k) % n);
  const h = c.host(leader)!;
  if (!h.isLeader()) c.fail("fail no agree", `leader ${c.ids[leader]} rejected a proposal`);
  let outcome: string | undefined;
  h.propose<unknown>(20, (r) => (outcome = r.ok ? `applied at ${r.index}` : r.error));
  c.runMs(4 * ELECTION_MS);
  if (c.indexOf(20) !== undefined) c.fail("fail no agree", `cmd 20 applied at ${c.indexOf(20)} without a majority`);
  if (outcome?.startsWith("applied")) c.fail("fail no agree", `propose callback said ${outcome}`);
  // Repair: agreement again.
  for (let k = 1; k <= 3; k++) c.connect((leader + k) % n);
  c.checkOneLeader();
  c.one(1000, n, true);
};

export const concurrentStarts: RaftTest = (create, seed) => {
  const c = cluster(create, seed, 3);
  for (let attempt = 0; attempt < 5; attempt++) {
    const leader = c.checkOneLeader();
    const h = c.host(leader)!;
    const term = h.currentTerm();
    const cmds = [0, 1, 2, 3, 4].map((k) => 1000 * (attempt + 1) + k);
    const results: Array<number | string> = [];
    // Five proposals in the same instant.
    for (const cmd of cmds) h.propose<unknown>(cmd, (r) => results.push(r.ok ? r.index : r.error));
    c.runMs(2_000);
    if (h.currentTerm() !== term) continue; // leadership moved: try again
    if (results.length !== cmds.length || results.some((r) => typeof r !== "number")) {
      c.fail("concurrent starts", `proposals in a stable term got ${JSON.stringify(results)}`);
    }
    const indexes = new Set<number>();
    for (const cmd of cmds) {
      const index = c.indexOf(cmd) ?? c.fail("concurrent starts", `cmd ${cmd} never applied`);
      c.wait(index, 3);
      indexes.add(index);
    }
    if (indexes.size !== cmds.length) c.fail("concurrent starts", `indexes not distinct: ${[...indexes]}`);
    return;
  }
  c.fail("concurrent starts", "term changed too often");
};

export const rejoin: RaftTest = (create, seed) => {
  const c = cluster(create, seed, 3);
  c.one(101, 3, true);
  // The leader is partitioned and takes proposals it cannot commit.
  const leader1 = c.checkOneLeader();
  c.disconnect(leader1);
  for (const cmd of [902, 903, 904]) c.propose(c.host(leader1)!, cmd);
  // The other two elect a new leader and commit.
  c.one(103, 2, true);
  const leader2 = c.checkOneLeader();
  c.disconnect(leader2);
  // The old leader rejoins the remaining follower: its stale entries must not commit.
  c.connect(leader1);
  c.one(104, 2, true);
  c.connect(leader2);
  c.one(105, 3, true);
  for (const cmd of [902, 903, 904]) {
    if (c.indexOf(cmd) !== undefined) c.fail("rejoin", `stale cmd ${cmd} of the partitioned leader was applied at ${c.indexOf(cmd)}`);
  }
};

export const backup: RaftTest = (create, seed) => {
  const n = 5;
  const burst = 30;
  const c = cluster(create, seed, n);
  const v = values(1);
  c.one(v(), n, true);
  // Leader and one follower in a minority: they take proposals that never commit.
  const leader1 = c.checkOneLeader();
  for (const k of [2, 3, 4]) c.disconnect((leader1 + k) % n);
  for (let k = 0; k < burst; k++) c.propose(c.host(leader1)!, v() + 100_000);
  c.runMs(ELECTION_MS / 2);
  c.disconnect(leader1);
  c.disconnect((leader1 + 1) % n);
  // The other three commit a burst of their own.
  for (const k of [2, 3, 4]) c.connect((leader1 + k) % n);
  for (let k = 0; k < burst; k++) c.one(v(), 3, true);
  // Their leader loses a follower and takes more uncommittable proposals.
  const leader2 = c.checkOneLeader();
  let other = (leader1 + 2) % n;
  if (other === leader2) other = (leader2 + 1) % n;
  c.disconnect(other);
  for (let k = 0; k < burst; k++) c.propose(c.host(leader2)!, v() + 200_000);
  c.runMs(ELECTION_MS / 2);
  // The original minority plus `other` form a majority and must back up over the divergence.
  for (let i = 0; i < n; i++) c.disconnect(i);
  c.connect(leader1);
  c.connect((leader1 + 1) % n);
  c.connect(other);
  for (let k = 0; k < burst; k++) c.one(v(), 3, true);
  for (let i = 0; i < n; i++) c.connect(i);
  c.one(v(), n, true);
};

export const persist: RaftTest = (create, seed) => {
  const c = cluster(create, seed, 3);
  c.one(11, 3, true);
  // Everyone crashes and restarts from disk.
  for (let i = 0; i < 3; i++) c.crash(i);
  for (let i = 0; i < 3; i++) c.restart(i);
  c.one(12, 3, true);
  const leader1 = c.checkOneLeader();
  c.crash(leader1);
  c.restart(leader1);
  c.one(13, 3, true);
  const leader2 = c.checkOneLeader();
  c.crash(leader2);
  c.one(14, 2, true);
  c.restart(leader2);
  c.wait(c.indexOf(14)!, 3);
  // Many crashes of followers and leaders with commits in between (6.824 Persist2).
  const v = values(100);
  for (let iter = 0; iter < 4; iter++) {
    c.one(v(), 3, true);
    const leader = c.checkOneLeader();
    c.crash((leader + 1) % 3);
    c.one(v(), 2, true);
    c.crash(leader);
    c.restart((leader + 1) % 3);
    c.restart(leader);
  }
  c.one(v(), 3, true);
};

export const figure8: RaftTest = (create, seed) => {
  const n = 5;
  const c = cluster(create, seed, n);
  const v = values(1);
  c.one(v(), 1, true);
  let up = n;
  for (let iter = 0; iter < FIGURE8_ITERS; iter++) {
    const leader = c.start(v());
    // Mostly short gaps, sometimes long ones: leaders die with entries half-replicated.
    c.runMs(c.rng.chance(0.1) ? c.rng.int(0, ELECTION_MS) : c.rng.int(0, 13));
    if (leader !== undefined && c.isAlive(leader)) {
      c.crash(leader);
      up--;
    }
    if (up < 3) {
      const down = c.ids.map((_, i) => i).filter((i) => !c.isAlive(i));
      c.restart(c.rng.pick(down));
      up++;
    }
  }
  for (let i = 0; i < n; i++) if (!c.isAlive(i)) c.restart(i);
  c.one(v(), n, true);
};

/**
 * The paper's Figure 8 built step by step: an entry of an old term gets stored on a
 * majority by a later leader, which must not count it committed, because a server
 * with a newer-term entry at that index can still be elected and overwrite it.
 */
export const figure8Paper: RaftTest = (create, seed) => {
  const n = 5;
  const c = cluster(create, seed, n);
  const v = values(1);
  c.one(v(), n, true);
  // (a) S1 leads and replicates X to S2 only.
  const s1 = c.checkOneLeader();
  const [s2, s3, s4, s5] = [1, 2, 3, 4].map((k) => (s1 + k) % n) as [number, number, number, number];
  c.partition([
    [s1, s2],
    [s3, s4, s5],
  ]);
  const x = 1_000_000 + v();
  c.propose(c.host(s1)!, x);
  c.runMs(50);
  c.crash(s1);
  // (b) The other three elect a leader L, which takes Y alone and crashes.
  const l = c.waitLeader([s3, s4, s5]);
  const rest = [s3, s4, s5].filter((i) => i !== l);
  c.disconnect(l);
  c.propose(c.host(l)!, 2_000_000 + v());
  c.runMs(10);
  c.crash(l);
  c.connect(l);
  // (c) S1 comes back; S1 or S2 (the only ones holding X) is elected and spreads X to a majority.
  c.heal();
  c.restart(s1);
  const l3 = c.waitLeader([s1, s2, ...rest]);
  if (l3 !== s1 && l3 !== s2) c.fail("figure 8", `${c.ids[l3]} was elected without the most up-to-date log`);
  c.runMs(300);
  // (d) The X holders crash; L (newer last term) is elected and commits over index of X.
  c.crash(s1);
  c.crash(s2);
  c.restart(l);
  c.waitLeader([l]);
  c.one(v(), 3, true);
  // (e) Everyone back: all agree.
  c.restart(s1);
  c.restart(s2);
  c.one(v(), n, true);
};

/**
 * Votes survive crashes. Two servers that cannot hear each other time out in the same
 * term and both ask the third; the third is crashed and restarted as soon as its term
 * moves (it has just voted). If it forgot that vote, both candidates win the term.
 */
export const persistVotes: RaftTest = (create, seed) => {
  const n = 3;
  const c = cluster(create, seed, n);
  const v = values(1);
  c.one(v(), n, true);
  for (let round = 0; round < 4; round++) {
    const voter = c.checkOneLeader();
    const [a, b] = [(voter + 1) % n, (voter + 2) % n] as [number, number];
    c.partition([[a], [b]]);
    // The leader restarts as a follower of the same term: a and b stop hearing heartbeats.
    c.crash(voter);
    c.restart(voter);
    const term0 = c.host(voter)!.currentTerm();
    for (let k = 0; k < 600; k++) {
      c.runMs(1);
      const h = c.host(voter)!;
      if (h.currentTerm() > term0 && !h.isLeader()) {
        c.crash(voter);
        c.restart(voter);
        break;
      }
    }
    c.runMs(2 * ELECTION_MS);
    c.heal();
    c.one(v(), n, true);
  }
};

export const unreliableAgree: RaftTest = (create, seed) => {
  const n = 5;
  const c = cluster(create, seed, n, { unreliable: true });
  for (let iter = 1; iter < 20; iter++) {
    // Proposals nobody waits for, alongside one that must commit.
    for (let j = 0; j < 4; j++) c.start(100 * iter + j);
    c.one(iter, 1, true);
  }
  c.setUnreliable(false);
  c.one(100_000, n, true);
};

export const figure8Unreliable: RaftTest = (create, seed) => {
  const n = 5;
  const c = cluster(create, seed, n, { unreliable: true, longReordering: true });
  const v = values(1);
  c.one(v(), 1, true);
  let up = n;
  for (let iter = 0; iter < FIGURE8_UNRELIABLE_ITERS; iter++) {
    const leader = c.start(v());
    c.runMs(c.rng.chance(0.1) ? c.rng.int(0, ELECTION_MS) : c.rng.int(0, 13));
    if (leader !== undefined && c.isConnected(leader) && c.rng.chance(0.5)) {
      c.disconnect(leader);
      up--;
    }
    if (up < 3) {
      const down = c.ids.map((_, i) => i).filter((i) => !c.isConnected(i));
      c.connect(c.rng.pick(down));
      up++;
    }
  }
  c.setUnreliable(false);
  for (let i = 0; i < n; i++) c.connect(i);
  c.one(v(), n, true);
};

export const churn: RaftTest = (create, seed) => {
  const n = 5;
  const c = cluster(create, seed, n, { unreliable: true });
  const v = values(1);
  for (let iter = 0; iter < 25; iter++) {
    // Clients keep proposing at whoever is leader.
    for (let j = 0; j < 3; j++) c.start(v());
    const i = c.rng.int(0, n - 1);
    if (c.rng.chance(0.2)) c.disconnect(i);
    if (c.rng.chance(0.5)) {
      const j = c.rng.int(0, n - 1);
      if (c.isAlive(j)) c.crash(j);
      else c.restart(j);
    }
    if (c.rng.chance(0.2)) c.connect(c.rng.int(0, n - 1));
    if (c.rng.chance(0.2)) {
      const j = c.rng.int(0, n - 1);
      if (!c.isAlive(j)) c.restart(j);
    }
    c.runMs((ELECTION_MS * 7) / 10);
  }
  c.setUnreliable(false);
  for (let i = 0; i < n; i++) {
    if (!c.isAlive(i)) c.restart(i);
    c.connect(i);
  }
  c.runMs(ELECTION_MS);
  const last = c.one(v(), n, true);
  // Everyone applies everything up to the last index, and it all agrees (checked on apply).
  for (let index = 1; index <= last; index++) {
    if (c.nCommitted(index).cmd !== undefined) c.wait(index, n);
  }
};

/** Read index (thesis §6.4): a deposed leader's read barrier must not succeed. */
export const readIndex: RaftTest = (create, seed) => {
  const n = 5;
  const c = cluster(create, seed, n);
  c.one(1, n, true);
  const leader1 = c.checkOneLeader();
  c.disconnect(leader1);
  const stale: string[] = [];
  c.host(leader1)!.readBarrier((r) => stale.push(r.ok ? "ok" : r.error));
  // The majority moves on and commits a write the old leader has not seen.
  c.one(2, n - 1, true);
  c.runMs(ELECTION_MS);
  if (stale.includes("ok")) c.fail("read index", `partitioned old leader ${c.ids[leader1]} confirmed a read barrier`);
  const leader2 = c.checkOneLeader();
  const fresh: string[] = [];
  const written = c.indexOf(2)!;
  c.host(leader2)!.readBarrier((r) => {
    // Linearizable: once the barrier passes, the leader has applied every write committed before it.
    if (r.ok && !c.hasApplied(leader2, written)) c.fail("read index", `barrier passed before ${c.ids[leader2]} applied index ${written}`);
    fresh.push(r.ok ? "ok" : r.error);
  });
  c.runMs(200);
  if (fresh[0] !== "ok") c.fail("read index", `current leader's read barrier gave ${JSON.stringify(fresh)}`);
  c.connect(leader1);
  c.runMs(ELECTION_MS);
  if (stale.length !== 1 || stale[0] === "ok") c.fail("read index", `old leader's barrier ended with ${JSON.stringify(stale)}, wanted one failure`);
};

/** The suite, by name (6.824 order). */
export const RAFT_TESTS: Record<string, RaftTest> = {
  initialElection,
  reElection,
  manyElections,
  basicAgree,
  failAgree,
  failNoAgree,
  concurrentStarts,
  rejoin,
  backup,
  persist,
  figure8,
  figure8Paper,
  persistVotes,
  unreliableAgree,
  figure8Unreliable,
  churn,
  readIndex,
};
