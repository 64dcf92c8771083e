import type { Cause } from "./types.js";
import { checkedFirst, match, othersKeysEnded } from "./foreign-delete.js";
import { s3 } from "./facts.js";

/**
 * A release that compares and deletes in two commands (GET, then DEL): between them the
 * key expired and another client set it, and the DEL removed that client's key.
 */
export const checkThenDelete: Cause = {
  name: "release-checks-then-deletes",
  title: "Your release checks the value, then deletes, in two commands",
  meaning:
    "Your release reads the key (GET), sees its own value, and then deletes it (DEL) in a second command. Between the two the lease can run out and another client can take the lock: the DEL then removes that client's key, and a third client walks in beside it.",
  fix: "Compare and delete in one atomic step, a Lua script Redis runs without interleaving.",
  fixCode: `const RELEASE = 'if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end';
await redis.eval(RELEASE, 1, key, token); // instead of GET, compare, DEL`,
  source: "https://redis.io/docs/latest/develop/use/patterns/distributed-locks/",
  recognise(f) {
    return othersKeysEnded(f, "deleted")
      .filter(({ life, by }) => checkedFirst(f, life, by))
      .map(({ life, by }) => {
        const m = match(f, life, by, "deleted");
        const read = f.commands.filter((c) => c.node === by.node && c.from === by.from && c.timeUs < by.timeUs && c.key === life.key).at(-1)!;
        return { ...m, sentence: `${by.from} read its own value at ${s3(read.timeUs)}; then ${m.sentence}` };
      });
  },
};
