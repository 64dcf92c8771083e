/**
 * The Redlock debate as data: Kleppmann's claims [MK] and antirez's replies [AZ] (and
 * the Redis docs' own rules [RD]), each with the scenarios that test it and which
 * outcomes bear it out. Paraphrases follow /work/shared/REFERENCES.md §1–2. This is
 * the one place the claim → scenario mapping lives: `lockstep debate` runs it and
 * reports/debate.ts renders it.
 */
import type { Outcome } from "../checkers/run-all.js";

export interface DebateSource {
  /** Key as in REFERENCES.md: MK, AZ, RD. */
  key: "MK" | "AZ" | "RD";
  title: string;
  url: string;
}

export const SOURCES: Record<DebateSource["key"], DebateSource> = {
  MK: {
    key: "MK",
    title: "Martin Kleppmann, “How to do distributed locking” (2016)",
    url: "https://martin.kleppmann.com/2016/02/08/how-to-do-distributed-locking.html",
  },
  AZ: { key: "AZ", title: "Salvatore Sanfilippo (antirez), “Is Redlock safe?” (2016)", url: "http://antirez.com/news/101" },
  RD: {
    key: "RD",
    title: "Redis docs, “Distributed Locks with Redis” (the Redlock spec)",
    url: "https://redis.io/docs/latest/develop/use/patterns/distributed-locks/",
  },
};

export interface DebateTest {
  scenario: string;
  /** What running it shows, in one sentence a class can follow. */
  shows: string;
  /** The claim is borne out when the run's outcome is one of these. */
  supportedBy: Outcome[];
  /**
   * What makes a safe run a test of the claim. By default the run's challenge
   * (checkers/challenge.ts, by its scenario's rule); "refusal" when the claim is that
   * a client refuses a lock it cannot trust, so a failed acquire is the test.
   */
  testedBy?: "refusal";
}

export interface DebateClaim {
  id: string;
  who: "Kleppmann" | "antirez";
  source: DebateSource["key"];
  /**
   * The author's own short words: verbatim from the source (checked by hand against
   * the post; `verbatim: false` marks a paraphrase, shown as one). Never a quote made up.
   */
  words: string;
  verbatim: boolean;
  /** Where in the source: its section's heading, or for a post without headings (antirez's), what the passage replies to. */
  section: string;
  /** The claim restated plainly: lockstep's paraphrase, shown as such. */
  claim: string;
  tests: DebateTest[];
  /** Why no run tests the claim, when `tests` is empty: said on the page instead of a verdict. */
  untestedBecause?: string;
}

export interface DebateRound {
  title: string;
  /** The question the round settles, for the teacher to ask first. */
  question: string;
  claims: DebateClaim[];
}

export const DEBATE: DebateRound[] = [
  {
    title: "What is the lock for?",
    question: "If the lock fails and two clients both do the work, is that a wasted email or corrupted data?",
    claims: [
      {
        id: "mk-efficiency-correctness",
        who: "Kleppmann",
        source: "MK",
        words: "there are two reasons why you might want a lock in a distributed application: for efficiency or for correctness",
        verbatim: true,
        section: "What are you using that lock for?",
        claim:
          "Ask what happens if the lock fails. For efficiency (no duplicate work) one Redis node is enough and Redlock's five are needless cost; for correctness Redlock is not safe enough. It is neither fish nor fowl.",
        tests: [],
        untestedBecause: "a judgement about what a failure costs; a run shows whether the lock fails (the rounds below), not what the failure is worth",
      },
      {
        id: "az-strong-guarantees",
        who: "antirez",
        source: "AZ",
        words:
          "Most of the times when you need a distributed lock system that can guarantee mutual exclusivity, when this property is violated you already lost.",
        verbatim: true,
        section: "his reply on fencing tokens (point 1)",
        claim:
          "A lock is wanted exactly where the resource has no other control, so Redlock is meant for mutual exclusion, not merely efficiency; assuming the resource can resolve races (with tokens) assumes the lock away.",
        tests: [],
        untestedBecause: "an argument about where locks are used; the runs below test what Redlock guarantees, not what users need",
      },
    ],
  },
  {
    title: "Why not one Redis with a replica?",
    question: "If the primary fails over to its replica, is the lock still held?",
    claims: [
      {
        id: "mk-single-instance",
        who: "Kleppmann",
        source: "MK",
        words: "If you use a single Redis instance, of course you will drop some locks if the power suddenly goes out on your Redis node",
        verbatim: true,
        section: "What are you using that lock for?",
        claim:
          "A single Redis node (perhaps with an asynchronous replica) loses locks when it fails; for an efficiency lock that is no big deal, and it is at least plain to everyone that the lock is approximate.",
        tests: [
          {
            scenario: "redis-failover-lost-lock",
            shows: "the primary dies before its replica has the key; the promoted replica grants the lock again",
            supportedBy: ["unsafe", "unsafe-but-fenced"],
          },
        ],
      },
      {
        id: "rd-failover",
        words: "The master crashes before the write to the key is transmitted to the replica.",
        verbatim: true,
        section: "Why failover-based implementations are not enough",
        who: "antirez",
        source: "RD",
        claim:
          "A single primary with asynchronous replication is not enough: the primary can acknowledge a lock and die before the replica has it, and the promoted replica grants it again. This is why Redlock uses N independent masters.",
        tests: [
          {
            scenario: "redis-failover-lost-lock",
            shows: "the acknowledged lock dies with the primary; the promoted replica grants it to a second client",
            supportedBy: ["unsafe", "unsafe-but-fenced"],
          },
          { scenario: "redis-failover-clean", shows: "the same failover after the lock was replicated is harmless", supportedBy: ["safe"] },
        ],
      },
    ],
  },
  {
    title: "Process pauses",
    question: "A client holds the lock and then stops (a GC pause, a page fault, a slow network) for longer than the lease. What happens to its next write?",
    claims: [
      {
        id: "mk-gc-pause",
        words:
          "if the GC pause lasts longer than the lease expiry period, and the client doesn’t realise that it has expired, it may go ahead and make some unsafe change.",
        verbatim: true,
        section: "Protecting a resource with a lock",
        who: "Kleppmann",
        source: "MK",
        claim:
          "A pause longer than the lease lets the lock expire; another client acquires it and writes; then the paused client wakes and writes too. Checking the lease before writing cannot help, because the pause can fall between the check and the write. Redlock changes nothing here.",
        tests: [
          {
            scenario: "naive-gc-pause",
            shows: "one Redis node: the paused client's write overwrites the new holder's (a lost update)",
            supportedBy: ["unsafe"],
          },
          { scenario: "redlock-gc-pause", shows: "five Redlock nodes: the same pause, the same two holders", supportedBy: ["unsafe"] },
        ],
      },
      {
        id: "az-generic-lease",
        words:
          "After the expire time, the mutual exclusion guarantee, which is the main property of the lock, is gone: another client may already have the lock.",
        verbatim: true,
        section: "his reply on auto release and fencing tokens",
        who: "antirez",
        source: "AZ",
        claim:
          "A pause after the lock is acquired is the generic problem of every lease-based lock, not a flaw of Redlock: any system that expires a lock (so a dead client cannot hold it forever) has it.",
        tests: [
          {
            scenario: "raft-zk-client-gc-pause",
            shows: "a ZooKeeper-style lock on Raft: the session expires during the pause and two clients hold the lock",
            supportedBy: ["unsafe", "unsafe-but-fenced"],
          },
        ],
      },
    ],
  },
  {
    title: "Network delay, the same as a pause?",
    question: "Instead of a paused client, a message stuck in the network for longer than the lease. Is it the same failure?",
    claims: [
      {
        id: "mk-network-delay",
        who: "Kleppmann",
        source: "MK",
        words: "A long network delay can produce the same effect as the process pause.",
        verbatim: true,
        section: "Breaking Redlock with bad timings",
        claim:
          "A request delayed in the network (GitHub once saw packets delayed about 90 s) reaches the server after the lease ended, exactly as a paused client's would; a timeout on the client cannot be trusted to prevent it.",
        tests: [
          {
            scenario: "redis-release-delayed-del",
            shows: "a release sent in time, delivered late: its DEL removes the next holder's key, and a third client gets the lock while the second holds it",
            supportedBy: ["unsafe"],
          },
        ],
      },
      {
        id: "az-delay-immune",
        who: "antirez",
        source: "AZ",
        words: "Redlock looks completely immune from messages that have unbound delays between processes",
        verbatim: true,
        section: "his reply on network delays and process pauses (steps 1 and 3)",
        claim:
          "Delays before the client has its majority only shrink the validity it measures after step 3, so they cannot make a client believe in a lock it does not hold; only a delay after step 3 can, which is the generic lease problem again.",
        tests: [
          {
            scenario: "redlock-slow-acquire",
            shows: "replies delayed during acquisition: the elapsed time eats the validity and the client gives up",
            supportedBy: ["safe"],
            testedBy: "refusal",
          },
        ],
      },
    ],
  },
  {
    title: "Fencing tokens",
    question: "What can the storage do to refuse a write from a client whose lock has expired?",
    claims: [
      {
        id: "mk-fencing",
        words:
          "the storage server remembers that it has already processed a write with a higher token number (34), and so it rejects the request with token 33.",
        verbatim: true,
        section: "Making the lock safe with fencing",
        who: "Kleppmann",
        source: "MK",
        claim:
          "Give every grant a monotonically increasing fencing token and have the storage reject a write with a token lower than one it has seen. The holder of token 33 pauses, 34 writes, and the storage rejects 33. Redlock has no such token.",
        tests: [
          {
            scenario: "naive-gc-pause-fenced",
            shows: "the same GC pause with an INCR token: two holders, but the stale write is rejected",
            supportedBy: ["unsafe-but-fenced"],
          },
          { scenario: "redis-fenced-gc-pause", shows: "three clients, one paused holder: its write is rejected", supportedBy: ["unsafe-but-fenced"] },
          {
            scenario: "raft-zk-client-gc-pause-fenced",
            shows: "the ZooKeeper-style lock with its zxid as token: the stale write is rejected",
            supportedBy: ["unsafe-but-fenced"],
          },
        ],
      },
      {
        id: "mk-single-counter",
        words: "Simply keeping a counter on one Redis node would not be sufficient, because that node may fail.",
        verbatim: true,
        section: "Making the lock safe with fencing",
        who: "Kleppmann",
        source: "MK",
        claim: "Keeping the token counter on one Redis node would not be sufficient, because that node may fail.",
        tests: [
          {
            scenario: "redis-fenced-restart-token-reuse",
            shows: "the counter's node restarts at zero and hands out a token already used: it fences nothing",
            supportedBy: ["unsafe"],
          },
        ],
      },
      {
        id: "az-random-token",
        words: "What do you do with a unique token? For example you can implement Check and Set.",
        verbatim: true,
        section: "his reply on auto release and fencing tokens",
        who: "antirez",
        source: "AZ",
        claim:
          "Fencing needs a storage that is itself linearizable, and token order need not match access order. With a random token the storage can do a check-and-set instead of comparing numbers.",
        tests: [
          {
            scenario: "redlock-gc-pause-owner-check",
            shows:
              "Redlock's GC pause again, with a storage that claims the counter for the grant's random value and writes only while it still owns it: the paused holder's write is refused",
            supportedBy: ["unsafe-but-fenced"],
          },
        ],
      },
    ],
  },
  {
    title: "Clocks",
    question: "Redlock's keys expire by the servers' clocks. What if a clock jumps, or runs fast?",
    claims: [
      {
        id: "mk-clock-jump",
        words: "The clock on node C jumps forward, causing the lock to expire.",
        verbatim: true,
        section: "Breaking Redlock with bad timings",
        who: "Kleppmann",
        source: "MK",
        claim:
          "Client 1 locks A, B and C (D and E unreachable). C's clock jumps forward and the key expires. Client 2 locks C, D and E (A and B unreachable). Both believe they hold the lock.",
        tests: [{ scenario: "redlock-clock-jump", shows: "a node's wall clock jumps and two clients hold a majority each", supportedBy: ["unsafe"] }],
      },
      {
        id: "az-clock-rate",
        words: "just the ability of different processes to count 10 seconds as 9.5 or 11.2",
        verbatim: true,
        section: "his reply on clocks and the system model",
        who: "antirez",
        source: "AZ",
        claim:
          "Redlock needs only a bounded clock rate error (“count 10 seconds as 9.5 or 11.2”), which the drift allowance covers; avoid jumps by slewing NTP, and Redis should move to monotonic time.",
        tests: [
          { scenario: "redlock-clock-drift-within", shows: "clocks 0.5% fast, inside the 1% allowance: safe", supportedBy: ["safe"] },
          {
            scenario: "redlock-clock-drift-fast",
            shows: "clocks 5% fast, beyond the allowance: two holders — the bound is the whole guarantee",
            supportedBy: ["unsafe"],
          },
        ],
      },
    ],
  },
  {
    title: "Pauses during acquisition",
    question: "What if the client pauses while the nodes' “OK”s are still on their way, and reads them after the keys expired?",
    claims: [
      {
        id: "mk-acquire-pause",
        words: "While the responses to client 1 are in flight, client 1 goes into stop-the-world GC.",
        verbatim: true,
        section: "Breaking Redlock with bad timings",
        who: "Kleppmann",
        source: "MK",
        claim:
          "Client 1 pauses while the replies are in flight; the keys expire and client 2 acquires all five; client 1 then reads the buffered OKs and believes it holds the lock.",
        tests: [
          {
            scenario: "redlock-acquire-pause",
            shows: "the pause happens as described; whether it harms depends on the client's second clock read",
            supportedBy: ["unsafe", "unsafe-but-fenced"],
          },
        ],
      },
      {
        id: "az-reread-clock",
        words: "after acquiring the majority we check again that we are not out of time.",
        verbatim: true,
        section: "his reply on network delays and process pauses (steps 1 and 3)",
        who: "antirez",
        source: "AZ",
        claim:
          "Step 3 of the algorithm re-reads the clock after acquiring and subtracts the elapsed time from the validity, so a pause during acquisition leaves no validity and the client gives up.",
        tests: [
          { scenario: "redlock-acquire-pause", shows: "the second clock read catches the pause: the client does not use the lock", supportedBy: ["safe"] },
          {
            scenario: "redlock-slow-acquire",
            shows: "replies so slow that the elapsed time eats the validity: the client gives up",
            supportedBy: ["safe"],
            testedBy: "refusal",
          },
          {
            scenario: "redlock-slow-acquire-seed",
            shows: "a client loop without the drift term accepts a lock with 5 ms left: two holders — the check must be done right",
            supportedBy: ["unsafe"],
          },
          {
            scenario: "redlock-v5-acquire-pause",
            shows: "node-redlock v5 skips step 3's second clock read and returns the expired lock; the caller's own validity check stands in for it",
            supportedBy: ["safe"],
          },
          {
            scenario: "redlock-v5-acquire-pause-unchecked",
            shows: "the same v5 lock with a caller that does not check: two holders — step 3 is the client's, and a library can leave it out",
            supportedBy: ["unsafe"],
          },
        ],
      },
    ],
  },
  {
    title: "Crashes and restarts",
    question: "A node that granted the lock crashes and comes back. Does it still know about the lock?",
    claims: [
      {
        id: "mk-crash-restart",
        words: "A similar issue could happen if C crashes before persisting the lock to disk, and immediately restarts.",
        verbatim: true,
        section: "Breaking Redlock with bad timings",
        who: "Kleppmann",
        source: "MK",
        claim: "A node that crashes without having persisted the key and restarts at once is equivalent to a clock jump: it grants the lock a second time.",
        tests: [
          { scenario: "redlock-crash-restart", shows: "no persistence: the restarted node votes for a second client", supportedBy: ["unsafe"] },
          {
            scenario: "redlock-crash-restart-everysec",
            shows: "AOF with the default one-second fsync: the crash loses the last second, and the lock with it",
            supportedBy: ["unsafe"],
          },
        ],
      },
      {
        id: "rd-persistence",
        words:
          "Turn on AOF with fsync=always, or keep a crashed instance down for a bit longer than the longest TTL, so that the locks it granted expire before it votes again.",
        verbatim: false,
        section: "Performance, crash recovery and fsync",
        who: "antirez",
        source: "RD",
        claim:
          "Use fsync=always, or delay the restart of a crashed node for longer than the longest TTL, and a restart cannot re-grant a lock that is still held.",
        tests: [
          { scenario: "redlock-crash-restart-aof-always", shows: "AOF always: the restarted node still has the key", supportedBy: ["safe"] },
          { scenario: "redlock-crash-restart-delayed", shows: "a delayed restart: the node stays down past the TTL", supportedBy: ["safe"] },
        ],
      },
    ],
  },
];

/** Every (claim, test) pair, in page order. */
export function debateTests(): Array<{ round: DebateRound; claim: DebateClaim; test: DebateTest }> {
  return DEBATE.flatMap((round) => round.claims.flatMap((claim) => claim.tests.map((test) => ({ round, claim, test }))));
}
