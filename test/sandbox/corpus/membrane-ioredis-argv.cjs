// Escape corpus (issue 46): a command's arguments cross to the host as the prelude copies
// them (strings and numbers taken as they are, anything else flattened in the realm first).
// Library code that replaces the array iterator, passes a proxy, an array with holes, an
// object whose toString looks at what it is called with, or a Buffer sees only realm
// values, and each command is the argv ioredis would send.
"use strict";
const reach = require("../corpus-reach.cjs");
const { isHost } = require("../corpus-spy.cjs");

module.exports = {
  expect: "same",
  async probe() {
    const seen = [];
    // Index loops only: the iterator below is replaced while the commands run.
    const note = (where, self, args) => {
      if (isHost(self) && seen.length < 20) seen[seen.length] = [where, self];
      for (let i = 0; i < args.length; i++) if (isHost(args[i]) && seen.length < 20) seen[seen.length] = [where, args[i]];
    };
    const Redis = require("ioredis");
    const c = new Redis();
    const iterator = Array.prototype[Symbol.iterator];
    const loud = {
      toString() {
        note("toString", this, arguments);
        return "loud";
      },
    };
    const proxy = new Proxy(["argv-p", 2], {
      get(t, k, r) {
        note("proxy get", r, []);
        return Reflect.get(t, k, r);
      },
    });
    // eslint-disable-next-line no-sparse-arrays
    const holes = ["argv-h", , "x"];
    const replies = [];
    const ask = async (f) => {
      try {
        replies.push(await f());
      } catch (e) {
        replies.push(`${e.name}: ${e.message}`);
      }
    };
    Array.prototype[Symbol.iterator] = function () {
      note("Array iterator", this, arguments);
      return Reflect.apply(iterator, this, []);
    };
    try {
      await ask(() => c.call("SET", "argv-n", 12, "PX", 1000));
      await ask(() => c.set("argv-o", loud));
      await ask(() => c.set(proxy));
      await ask(() => c.call("SET", holes));
      await ask(() => c.set("argv-b", Buffer.from("bytes")));
      await ask(() => c.del(["argv-n", ["argv-o"]], "argv-p"));
      c.defineCommand("argvScript", { numberOfKeys: 1, lua: "return ARGV[1] .. KEYS[1]" });
      await ask(() => c.argvScript("k", loud));
      await ask(() => c.argvScript("k", 7));
      for (const k of ["argv-n", "argv-o", "argv-p", "argv-h", "argv-b"]) await ask(() => c.get(k));
    } finally {
      Array.prototype[Symbol.iterator] = iterator;
    }
    c.disconnect();
    return { hostValues: seen.map(([where, v]) => reach(where, () => (typeof v === "function" ? v : v.constructor))), replies };
  },
};
