/**
 * Server notes in words: what a lock server recorded about itself (a key set with
 * its expiry by the node's own clock, a key expired, a failover, a session or lease
 * expired and by whose decision), turned into the short label drawn on its lane, the
 * tooltip's rows and the story's sentence. Never raw JSON: an unknown kind is shown
 * as its fields, one row each.
 */
export interface NoteText {
  /** A few words beside the mark on the lane. */
  label: string;
  /** The mark's class, which picks its shape and colour on the page. */
  mark: "expiry" | "set" | "decision" | "role" | "delete" | "foreign" | "other";
  /** The tooltip's title and rows. */
  title: string;
  rows: Array<[string, string]>;
  /** One sentence for the story (starts with the server's name). */
  sentence: string;
  /** Whether the story should always tell it (expiries, decisions, role changes), as it does faults. */
  key: boolean;
}

type V = Record<string, unknown>;

export function describeNote(server: string, f: string, value: unknown): NoteText {
  const v: V = typeof value === "object" && value !== null && !Array.isArray(value) ? (value as V) : { value };
  return (DESCRIBERS[f] ?? describeOther)(server, f, v, helpersFor(v));
}

/** Field readers over one note's value: text, a duration, a clock reading, a list. */
interface Helpers {
  s(k: string): string;
  ms(k: string): string;
  clockMs(k: string): string;
  list(k: string): string;
}

function helpersFor(v: V): Helpers {
  const s = (k: string): string => (v[k] === undefined ? "" : String(v[k]));
  return {
    s,
    ms: (k) => (typeof v[k] === "number" ? fmtMs(v[k] as number) : s(k)),
    clockMs: (k) => (typeof v[k] === "number" ? fmtClock(v[k] as number) : s(k)),
    list: (k) => (Array.isArray(v[k]) ? (v[k] as unknown[]).map(String).join(", ") || "none" : s(k)),
  };
}

type Describer = (server: string, f: string, v: V, h: Helpers) => NoteText;

function describeKeySet(server: string, _f: string, v: V, h: Helpers): NoteText {
  const { s, ms, clockMs } = h;
  // `owner` is added by the run view when the key was live and another client's: a renewal (or overwrite) of its key.
  if (v.owner !== undefined && v.owner !== v.by) return describeForeignSet(server, v, h);
  return {
    label: `set${v.by ? ` for ${s("by")}` : ""}`,
    mark: "set",
    title: `${server} sets ${s("key")}${v.by ? ` for ${s("by")}` : ""}`,
    rows: [
      ["key", s("key")],
      ["by", `${s("by") || "—"}${v.command ? ` (${s("command")})` : ""}`],
      ["expires at", `${clockMs("expireAtWallMs")} by ${server}'s wall clock`],
      ["its clock read", clockMs("wallMs")],
      ["time to live", ms("ttlMs")],
    ],
    sentence: `${server} sets ${s("key")}${v.by ? ` for ${s("by")}` : ""}, to expire in ${ms("ttlMs")} by its own wall clock (at ${clockMs("expireAtWallMs")})`,
    key: false,
  };
}

/** A command that gave another client's live key a new expiry (or a new value): the decisive moment of an extend bug. */
function describeForeignSet(server: string, v: V, h: Helpers): NoteText {
  const { s, ms, clockMs } = h;
  const by = s("by");
  const command = v.command !== undefined ? s("command") : "command";
  // Without the trace the note cannot tell a renewal from an overwrite (SET without NX): it says what it knows.
  const did = v.overwrote ? "overwrote" : v.command !== undefined ? "renewed" : "set a new expiry on";
  return {
    label: `${by}'s ${command} ${did} ${s("owner")}'s key`,
    mark: "foreign",
    title: `${server}: ${by}'s ${command} ${did} ${s("owner")}'s key`,
    rows: [
      ["key", s("key")],
      [`${did} by`, `${by} (${command})`],
      ["whose key", `${s("owner")}'s: it set the key's value`],
      ["now expires at", `${clockMs("expireAtWallMs")} by ${server}'s wall clock (in ${ms("ttlMs")})`],
      ["its clock read", clockMs("wallMs")],
    ],
    sentence: v.overwrote
      ? `${server} runs ${by}'s ${command} on ${s("key")}, which it holds for ${s("owner")}: ${by} replaced ${s("owner")}'s value while ${s("owner")} holds the lock`
      : `${server} runs ${by}'s ${command} on ${s("key")}, which it holds for ${s("owner")}: ${by} extended a lock that was no longer its own, and goes on as if it held it beside ${s("owner")}`,
    key: true,
  };
}

function describeKeyExpired(server: string, _f: string, v: V, h: Helpers): NoteText {
  const { s, clockMs } = h;
  return {
    label: "key expired",
    mark: "expiry",
    title: `${server} expires ${s("key")}`,
    rows: [
      ["key", s("key")],
      ["how", s("how")],
      ...(v.expireAtWallMs !== undefined ? ([["was to expire at", `${clockMs("expireAtWallMs")} by ${server}'s clock`]] as Array<[string, string]>) : []),
      ["its clock read", clockMs("wallMs")],
    ],
    sentence: `${server} expires ${s("key")} (${s("how")}): its own wall clock reads ${clockMs("wallMs")}, past the key's expiry${v.expireAtWallMs !== undefined ? ` at ${clockMs("expireAtWallMs")}` : ""}; the lock is free there`,
    key: true,
  };
}

function describeKeyDeleted(server: string, _f: string, v: V, h: Helpers): NoteText {
  const { s, clockMs } = h;
  // `owner` is added by the run view: who the key was last set for on this node.
  const by = s("by") || "a client";
  const foreign = v.owner !== undefined && v.owner !== v.by;
  const whose = v.owner !== undefined ? `${s("owner")}'s key` : s("key");
  return {
    label: foreign ? `${by} deleted ${s("owner")}'s key` : `deleted by ${by}`,
    // Another client's key: the decisive moment of a release bug. One's own: routine.
    mark: foreign ? "delete" : "other",
    title: `${server}: ${by}'s ${s("command")} deletes ${whose}`,
    rows: [
      ["key", s("key")],
      ["deleted by", `${by} (${s("command")})`],
      ["set for", s("owner") || "unknown"],
      ["its clock read", clockMs("wallMs")],
    ],
    sentence: foreign
      ? `${server} runs ${by}'s ${s("command")} and deletes ${s("key")}, which it holds for ${s("owner")}: ${by} released a lock that was no longer its own, and the lock is free while ${s("owner")} believes it holds it`
      : `${server} runs ${by}'s ${s("command")} and deletes ${s("key")}`,
    key: foreign,
  };
}

function describeFailover(server: string, _f: string, _v: V, h: Helpers): NoteText {
  const { s } = h;
  return {
    label: `failover → ${s("to")}`,
    mark: "role",
    title: `${server} fails over from ${s("from")} to ${s("to")}`,
    rows: [
      ["old primary", s("from")],
      ["new primary", s("to")],
      ["epoch", s("epoch")],
      ["replication offset promoted", s("promotedOffset")],
    ],
    sentence: `${server} declares ${s("from")} down and promotes ${s("to")} (epoch ${s("epoch")}); writes ${s("from")} had not replicated are lost`,
    key: true,
  };
}

function describePromoted(server: string, _f: string, _v: V, h: Helpers): NoteText {
  const { s } = h;
  return {
    label: "promoted to primary",
    mark: "role",
    title: `${server} becomes the primary`,
    rows: [
      ["replication offset", s("offset")],
      ["keys it holds", s("keys")],
    ],
    sentence: `${server} becomes the primary with ${s("keys")} key(s) at replication offset ${s("offset")}`,
    key: true,
  };
}

function describeReplicaOf(server: string, _f: string, _v: V, h: Helpers): NoteText {
  const { s } = h;
  return {
    label: `replica of ${s("primary")}`,
    mark: "role",
    title: `${server} follows ${s("primary")}`,
    rows: [
      ["new primary", s("primary")],
      ["its offset before", s("wasOffset")],
    ],
    sentence: `${server} becomes a replica of ${s("primary")} and resyncs from it`,
    key: true,
  };
}

function describeRedisRestart(server: string, _f: string, _v: V, h: Helpers): NoteText {
  const { s } = h;
  return {
    label: "restarted",
    mark: "role",
    title: `${server} restarts`,
    rows: [
      ["persistence", s("persistence")],
      ["keys loaded", s("keysLoaded")],
      ["role", s("role")],
    ],
    sentence: `${server} restarts with persistence ${s("persistence")} and loads ${s("keysLoaded")} key(s)`,
    key: true,
  };
}

function describeCrashLost(server: string, _f: string, v: V, h: Helpers): NoteText {
  const { s } = h;
  const none = v.keysLost !== undefined;
  const n = none ? s("keysLost") : s("unsyncedWrites");
  return {
    label: none ? `crash: ${n} key(s) lost` : `crash: ${n} unsynced write(s) lost`,
    mark: "expiry",
    title: `${server} crashes and loses ${none ? `every key (${n})` : `${n} write(s) not yet fsynced`}`,
    rows: [
      ["persistence", s("persistence")],
      [none ? "keys lost" : "writes not fsynced", n],
    ],
    sentence: none
      ? `${server} crashes with persistence none: its ${n} live key(s) are gone, and a restart comes back empty`
      : `${server} crashes with AOF ${s("persistence")}: ${n} write(s) not yet fsynced are lost`,
    key: true,
  };
}

function describeRaftRole(server: string, _f: string, _v: V, h: Helpers): NoteText {
  const { s } = h;
  return {
    label: `${s("role")}, term ${s("term")}`,
    mark: "role",
    title: `${server} is ${s("role")} in term ${s("term")}`,
    rows: [
      ["role", s("role")],
      ["term", s("term")],
      ["leader it follows", s("leader") || "—"],
      ["before", s("was")],
    ],
    sentence: `${server} is now ${s("role") === "follower" ? `a follower of ${s("leader")}` : s("role")} in term ${s("term")} (was: ${s("was")}); seen on its service tick`,
    key: true,
  };
}

function describeAofFsync(server: string, _f: string, _v: V, h: Helpers): NoteText {
  const { s, ms } = h;
  return {
    label: `fsync ${s("writes")} write(s)`,
    mark: "other",
    title: `${server} fsyncs its append-only file`,
    rows: [
      ["writes made durable", s("writes")],
      ["fsync period", ms("intervalMs")],
    ],
    sentence: `${server} fsyncs ${s("writes")} write(s) to its AOF (every ${ms("intervalMs")}): a crash before this would have lost them`,
    key: false,
  };
}

function describeReplSent(server: string, _f: string, _v: V, h: Helpers): NoteText {
  const { s, list } = h;
  return {
    label: `sent ${s("key")} #${s("offset")}`,
    mark: "other",
    title: `${server} streams a write to its replicas`,
    rows: [
      ["key", s("key")],
      ["replication offset", s("offset")],
      ["to", list("to")],
    ],
    sentence: `${server} sends the write to ${s("key")} (offset ${s("offset")}) to ${list("to")}, after it has already replied: replication is asynchronous`,
    key: false,
  };
}

function describeReplApplied(server: string, _f: string, _v: V, h: Helpers): NoteText {
  const { s } = h;
  return {
    label: `applied ${s("key")} #${s("offset")}`,
    mark: "set",
    title: `${server} applies a replicated write`,
    rows: [
      ["key", s("key")],
      ["replication offset", s("offset")],
      ["from", s("from")],
    ],
    sentence: `${server} applies the write to ${s("key")} from ${s("from")} (offset ${s("offset")})`,
    key: false,
  };
}

function describeLeader(server: string, _f: string, v: V, h: Helpers): NoteText {
  const { s } = h;
  return {
    label: `leader, term ${s("term")}`,
    mark: "role",
    title: `${server} becomes leader (term ${s("term")})`,
    rows: [
      ["term", s("term")],
      ...(v.sessions !== undefined ? ([["sessions", s("sessions")]] as Array<[string, string]>) : []),
      ...(v.leases !== undefined ? ([["leases", s("leases")]] as Array<[string, string]>) : []),
      ["on becoming leader", s("note")],
    ],
    sentence: `${server} becomes leader in term ${s("term")} and ${s("note")}`,
    key: true,
  };
}

function describeSessionExpiry(server: string, _f: string, v: V, h: Helpers): NoteText {
  const { s, ms } = h;
  return {
    label: `expires ${s("owner")}'s session`,
    mark: "decision",
    title: `${server} decides ${s("owner")}'s session ${s("sessionId")} has expired`,
    rows: [
      ["session", `${s("sessionId")} (owner ${s("owner")})`],
      ["decided by", s("decidedBy")],
      ["timed by", s("clock")],
      ...(v.silentMs !== undefined ? ([["silent for", ms("silentMs")]] as Array<[string, string]>) : []),
      ...(v.timeoutMs !== undefined ? ([["session timeout", ms("timeoutMs")]] as Array<[string, string]>) : []),
    ],
    sentence: `${server} proposes expiring ${s("owner")}'s session ${s("sessionId")}: decided by ${s("decidedBy")}, timed by ${s("clock")}${v.silentMs !== undefined ? `, silent for ${ms("silentMs")}` : ""}`,
    key: true,
  };
}

function describeSessionExpiryAsked(server: string, _f: string, _v: V, h: Helpers): NoteText {
  const { s, ms } = h;
  return {
    label: `asks to expire ${s("owner")}`,
    mark: "decision",
    title: `${server} asks ${s("leader")} to expire ${s("owner")}'s session`,
    rows: [
      ["session", `${s("sessionId")} (owner ${s("owner")})`],
      ["silent by its own wall clock", ms("silentMsByMyWallClock")],
      ["session timeout", ms("timeoutMs")],
    ],
    sentence: `${server} (a follower) times ${s("owner")}'s session on its own wall clock, finds it silent for ${ms("silentMsByMyWallClock")} and asks ${s("leader")} to expire it`,
    key: true,
  };
}

function describeSessionExpired(_server: string, _f: string, _v: V, h: Helpers): NoteText {
  const { s, list } = h;
  return {
    label: "session expired",
    mark: "expiry",
    title: `session ${s("sessionId")} expired (zxid ${s("zxid")})`,
    rows: [
      ["session", s("sessionId")],
      ["zxid", s("zxid")],
      ["ephemeral nodes deleted", list("ephemeralsDeleted")],
    ],
    sentence: `session ${s("sessionId")}'s expiry is committed (zxid ${s("zxid")}); its ephemeral nodes are deleted: ${list("ephemeralsDeleted")}`,
    key: true,
  };
}

function describeWatchFired(server: string, _f: string, _v: V, h: Helpers): NoteText {
  const { s } = h;
  return {
    label: `watch → ${s("client")}`,
    mark: "other",
    title: `${server} fires ${s("client")}'s watch`,
    rows: [
      ["path", s("path")],
      ["event", s("event")],
      ["to", s("client")],
    ],
    sentence: `${server} tells ${s("client")} that ${s("path")} was ${s("event")}`,
    key: false,
  };
}

function describeLeaseExpiry(server: string, _f: string, _v: V, h: Helpers): NoteText {
  const { s, ms } = h;
  return {
    label: `expires ${s("owner")}'s lease`,
    mark: "decision",
    title: `${server} decides ${s("owner")}'s lease ${s("leaseId")} has expired`,
    rows: [
      ["lease", `${s("leaseId")} (owner ${s("owner")})`],
      ["decided by", s("decidedBy")],
      ["timed by", s("clock")],
      ["TTL", ms("ttlMs")],
      ["overdue by", ms("overdueMs")],
    ],
    sentence: `${server} finds ${s("owner")}'s lease ${s("leaseId")} expired by ${s("clock")} and proposes its revocation`,
    key: true,
  };
}

function describeLeaseRevoked(_server: string, _f: string, _v: V, h: Helpers): NoteText {
  const { s, list } = h;
  return {
    label: "lease revoked",
    mark: "expiry",
    title: `lease ${s("leaseId")} revoked (revision ${s("revision")})`,
    rows: [
      ["lease", s("leaseId")],
      ["revision", s("revision")],
      ["keys deleted", list("keysDeleted")],
    ],
    sentence: `lease ${s("leaseId")}'s revocation is committed (revision ${s("revision")}); its keys are deleted: ${list("keysDeleted")}`,
    key: true,
  };
}

function describeReplicaState(server: string, _f: string, v: V, h: Helpers): NoteText {
  const { s } = h;
  // The replica-agreement checker's input: a digest per applied index, far too long to show.
  const states = Array.isArray(v.states) ? (v.states as unknown[]) : [];
  const last = states.length ? (states[states.length - 1] as unknown[]) : undefined;
  const lastIndex = Array.isArray(last) ? String(last[0]) : "none";
  return {
    label: "state digests",
    mark: "other",
    title: `${server}: its state machine's digests (replica agreement)`,
    rows: [
      ["incarnation", s("incarnation")],
      ["indexes applied", String(states.length)],
      ["last applied index", lastIndex],
    ],
    sentence: `${server} (incarnation ${s("incarnation")}) applied ${states.length} index(es), up to ${lastIndex}; the replica-agreement checker compares their digests`,
    key: false,
  };
}

function describeOther(server: string, f: string, v: V): NoteText {
  const rows = Object.entries(v).map(([k, x]): [string, string] => [k, plain(x)]);
  return {
    label: f,
    mark: "other",
    title: `${server}: ${f}`,
    rows,
    sentence: `${server}: ${f}${rows.length ? ` (${rows.map(([k, x]) => `${k} ${x}`).join(", ")})` : ""}`,
    key: false,
  };
}

/** One describer per kind of note; any other kind is shown as its fields. */
const DESCRIBERS: Record<string, Describer> = {
  "key-set": describeKeySet,
  "key-expired": describeKeyExpired,
  "key-deleted": describeKeyDeleted,
  failover: describeFailover,
  promoted: describePromoted,
  "replica-of": describeReplicaOf,
  "redis-restart": describeRedisRestart,
  "crash-lost": describeCrashLost,
  "raft-role": describeRaftRole,
  "aof-fsync": describeAofFsync,
  "repl-sent": describeReplSent,
  "repl-applied": describeReplApplied,
  leader: describeLeader,
  "session-expiry": describeSessionExpiry,
  "session-expiry-asked": describeSessionExpiryAsked,
  "session-expired": describeSessionExpired,
  "watch-fired": describeWatchFired,
  "lease-expiry": describeLeaseExpiry,
  "lease-revoked": describeLeaseRevoked,
  "replica-state": describeReplicaState,
};

/** A value as text, without JSON punctuation where it is simple. */
function plain(x: unknown): string {
  if (x === null || x === undefined) return "—";
  if (typeof x !== "object") return String(x);
  if (Array.isArray(x)) return x.map(plain).join(", ");
  const s = Object.entries(x as V)
    .map(([k, y]) => `${k} ${plain(y)}`)
    .join(", ");
  return s.length > 160 ? s.slice(0, 157) + "..." : s;
}

function fmtMs(ms: number): string {
  const a = Math.abs(ms);
  if (a >= 1000) return `${+(ms / 1000).toFixed(3)} s`;
  if (a >= 1) return `${+ms.toFixed(3)} ms`;
  return `${+(ms * 1000).toFixed(0)} µs`;
}

/** A wall-clock reading in ms since the run's epoch, as seconds (the unit of the timeline's axis). */
function fmtClock(ms: number): string {
  return `${(ms / 1000).toFixed(3)} s`;
}
