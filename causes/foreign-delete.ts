import type { Cause, CauseMatch } from "./types.js";
import { grantOfLife, s3, ms, type Facts, type KeyLife, type NodeCommand } from "./facts.js";

/**
 * A release that deletes the key without asking whose it is: a plain DEL (or a script
 * that does not compare) removed a live key another client's acquire had set. The next
 * acquire then succeeds beside that client. A delete preceded by the same client's read
 * of its own value is check-then-delete's (two commands, not one).
 */
export const foreignDelete: Cause = {
  name: "release-deletes-others-key",
  title: "Your release deletes the key whoever holds it",
  meaning:
    "Your release removes the lock's key without checking that it still holds your value. When your lease has run out and another client has taken the lock, your release deletes that client's key, and a third client takes the lock while the second still holds it.",
  fix: "Delete the key only if it still holds the random value your acquire wrote, in one atomic step: a Lua script that compares and deletes.",
  fixCode: `const RELEASE = 'if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end';
await redis.eval(RELEASE, 1, key, token); // token: the value your SET NX wrote`,
  source: "https://redis.io/docs/latest/develop/use/patterns/distributed-locks/",
  recognise(f) {
    return othersKeysEnded(f, "deleted")
      .filter(({ life, by }) => !checkedFirst(f, life, by))
      .map(({ life, by }) => match(f, life, by, "deleted"));
  },
};

/**
 * Lives of one client's key that another client's command ended (deleted or overwrote)
 * while the key was live. A key holding a value the acting client had set itself is
 * left out: its compare matched, which is the shared secret's fault (shared-secret.ts).
 */
export function othersKeysEnded(f: Facts, kind: "deleted" | "overwritten"): Array<{ life: KeyLife; by: NodeCommand }> {
  const out: Array<{ life: KeyLife; by: NodeCommand }> = [];
  for (const life of f.lives) {
    if (life.end.kind !== kind) continue;
    const by = life.end.by;
    if (by.from !== undefined && life.owner !== undefined && by.from !== life.owner && !setValue(f, by.from, life.value)) out.push({ life, by });
  }
  return out;
}

/** Whether `client` ever set a key to `value`. */
export function setValue(f: Facts, client: string, value: string): boolean {
  return f.lives.some((l) => l.owner === client && l.value === value);
}

/**
 * Whether `by`'s client read the key on that node just before (its last command there)
 * and got a value it had set itself: it compared, then deleted, in two commands.
 */
export function checkedFirst(f: Facts, life: KeyLife, by: NodeCommand): boolean {
  const before = f.commands.filter((c) => c.node === by.node && c.from === by.from && c.timeUs < by.timeUs && c.key === life.key);
  const last = before.at(-1);
  if (!last || last.changes.length > 0 || !last.reply.startsWith('"')) return false;
  const seen = JSON.parse(last.reply) as unknown;
  return f.lives.some((l) => l.owner === by.from && l.key === life.key && l.value === seen);
}

export function match(f: Facts, life: KeyLife, by: NodeCommand, what: string): CauseMatch {
  const g = grantOfLife(f, life);
  const held = g && g.beliefEndUs > by.timeUs ? `, ${ms(by.timeUs - g.okUs)} into ${life.owner}'s hold` : "";
  return {
    atUs: by.timeUs,
    processes: [by.from!, life.owner!],
    sentence: `${by.from}'s ${by.name} ${what} ${life.owner}'s key ${life.key} on ${life.node} at ${s3(by.timeUs)}${held} (${life.owner} had set it at ${s3(life.startUs)}).`,
  };
}
