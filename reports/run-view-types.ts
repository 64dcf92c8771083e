import type { NoteText } from "./notes.js";

/**
 * The shape of what the run report's page is sent (built by buildRunView in
 * run-view.ts). A file of its own, free of Node imports, so the browser code
 * (reports/browser/) type-checks against the same declarations.
 */
export interface RunView {
  /** The history has no times (an imported one without :time): times are positions in its file, drawn and said as #n. */
  timeIsOrder?: true;
  /** Where the timeline starts: 0 for a run, an imported history's first event. */
  startUs: number;
  endUs: number;
  lanes: Lane[];
  locks: string[];
  /** Strings the columns below refer to by index (reasons, grant ids that do not follow `<client>#<n>`). */
  strings: string[];
  holds: HoldColumns;
  /** Acquire attempts that did not end in a grant (failed or unknown). Granted ones are holds.w..holds.s. */
  attempts: AttemptColumns;
  /** Client operations other than acquire that failed or whose outcome is unknown (timeouts, rejected writes). */
  errors: ErrorColumns;
  /** Writes as the resource saw them: accepted or rejected. */
  writes: WriteColumns;
  /** A history without locks (a register's, imported): every operation, invoke to reply, on its client's lane. */
  regOps: RegisterOpColumns;
  faults: FaultMark[];
  /** Annotations of server processes (a key set or expired, a failover, a session expired), drawn as marks on their lane. */
  notes: NoteMark[];
  /** Kinds of note with more than NOTES_PER_KIND_MAX in the history: drawn spread over the run; the page says how many were drawn. */
  notesOmitted: Array<{ f: string; drawn: number; total: number }>;
  /** The notes of those kinds not drawn, counted per lane and interval of the run. */
  noteDensity: NoteDensity[];
  /** Raft servers' role over time, one band per (server, role, term), from the raft-role notes (never capped). */
  roles: RoleBand[];
  violations: ViolationMark[];
  /** Failing (or undecided) checkers' sentences, for the red box above the timeline. */
  findings: Array<{ checker: string; valid: boolean | "unknown"; summary: string }>;
  clocks: { t: number[]; lanes: number[]; offsetsUs: number[][] };
  /** Figures over the grants not in `clamped`: holds whose imported grant was stamped before its invoke (no latency to measure). */
  latency: { count: number; p50Ms: number | null; p99Ms: number | null; maxMs: number | null; targetMs: number; clamped: number[] };
  steps: StoryStep[];
}

export interface Lane {
  id: string;
  kind: "client" | "server" | "resource" | "other";
}

/** Hold i: lane[i], lock[i], start s[i], end e[i], wait start w[i] (the acquire's invoke). */
export interface HoldColumns {
  lane: number[];
  lock: number[];
  s: number[];
  e: number[];
  w: number[];
  /** Fencing token or -1 when the design issues none. */
  tok: number[];
  /** Grant: n when the id is `<client>#<n>`, else -(1 + string index). */
  g: number[];
  /** How it ended: index into HOLD_END. */
  by: number[];
  /** 1 when the client acted after its lease had lapsed by its own clock. */
  st: number[];
  /** Release result: index into RELEASE_RESULT. */
  rel: number[];
  /** Validity the client believed it had at acquire-ok, ms (rounded), or -1. */
  val: number[];
  /** When the client's own clock said the lease had lapsed (its `lapse` note), µs, or -1. */
  lap: number[];
  /** 1 when the hold is part of a violation. */
  bad: number[];
}

export const HOLD_END = ["release", "lapse", "crash", "end-of-history"] as const;
export const RELEASE_RESULT = ["released", "key already gone", "release failed or unknown", "no release"] as const;

export interface AttemptColumns {
  lane: number[];
  lock: number[];
  s: number[];
  e: number[];
  /** 0 fail, 1 unknown (info). */
  out: number[];
  /** String index of the reason, or -1. */
  why: number[];
}

export interface ErrorColumns {
  lane: number[];
  lock: number[];
  t: number[];
  /** String index of the operation name (read, write, extend, release). */
  f: number[];
  out: number[];
  why: number[];
}

export interface WriteColumns {
  /** Client lane of the writer, or -1. */
  cl: number[];
  lock: number[];
  t: number[];
  /** 1 accepted, 0 rejected. */
  ok: number[];
  counter: number[];
  tok: number[];
  /** Hold index of the grant it was written under, or -1. */
  hold: number[];
  why: number[];
  /** 1 when a checker names this write as a violation (a stale write accepted). */
  bad: number[];
}

export interface FaultMark {
  kind: string;
  step: number;
  s: number;
  /** End, µs; null for instant faults (clock jump, heal) and faults never undone. */
  e: number | null;
  lanes: number[];
  groups?: string[][];
  oneWay?: boolean;
  note?: string;
  deltaMs?: number;
  driftPpm?: number;
  extraMs?: number;
  lossRate?: number;
}

export interface NoteMark extends NoteText {
  lane: number;
  t: number;
  f: string;
}

/** A server in one role and term from s to e (µs): until its next role change, its crash, or the end. */
export interface RoleBand {
  lane: number;
  s: number;
  e: number;
  role: string;
  term: number;
  /** The leader a follower follows, when it knows one. */
  leader?: string;
}

export interface ViolationMark {
  checker: string;
  lock: string;
  s: number;
  e: number;
  /** Hold indexes involved. */
  holds: number[];
  /** Write indexes involved. */
  writes: number[];
  sentence: string;
}

export interface StoryStep {
  t: number;
  text: string;
  /** What to highlight when the step is clicked. */
  ref: { kind: "hold" | "write" | "fault" | "violation" | "attempt" | "note"; i: number };
  /** "server": a lock server's own decision (an expiry, a failover); kept like faults when the story is cut. */
  tone: "normal" | "fault" | "bad" | "server";
}

/** `n` notes of kind `f` on `lane` between s and e (µs) that are counted, not drawn one by one. */
export interface NoteDensity {
  lane: number;
  f: string;
  s: number;
  e: number;
  n: number;
}

/** Register operation i: lane, invoke s, reply e (-1: none), its words (string index), outcome 0 ok, 1 fail, 2 unknown. */
export interface RegisterOpColumns {
  lane: number[];
  s: number[];
  e: number[];
  txt: number[];
  out: number[];
}
