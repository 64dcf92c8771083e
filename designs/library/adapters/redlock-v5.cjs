// Adapter for @sesamecare-oss/redlock@1.4.0, the maintained node-redlock v5 line: one
// ioredis client per node; an attempt resolves as soon as a quorum votes; acquire()
// does not reject a lock that is already expired when it returns (node-redlock #296).
// Loaded only inside a client process's sandbox realm (sim/sandbox/realm.ts): Date and
// setTimeout here are that simulated process's virtual clock and timers, not the host's.
"use strict";
const Redis = require("ioredis");
const { Redlock, ExecutionError } = require("@sesamecare-oss/redlock");

module.exports = {
  create({ addresses, options }) {
    const clients = addresses.map((a) => {
      const [host, port] = a.split(":");
      return new Redis({ host, port: Number(port), ...(options.ioredis || {}) });
    });
    const redlock = new Redlock(clients, { ...(options.redlock || {}) });
    redlock.on("error", () => {});
    return {
      async acquire(lock, { ttlMs }) {
        try {
          const l = await redlock.acquire([lock], ttlMs);
          return { handle: l, validityMs: l.expiration - Date.now(), secret: l.value };
        } catch (e) {
          if (e instanceof ExecutionError) return null;
          throw e;
        }
      },
      // A rejected release means "not released on a quorum": unknown, as for v4.
      async release(l) {
        await l.release();
        return true;
      },
      async extend(l, ttlMs) {
        try {
          const next = await l.extend(ttlMs);
          return { handle: next, validityMs: next.expiration - Date.now() };
        } catch (e) {
          if (e instanceof ExecutionError) return null;
          throw e;
        }
      },
      holds(l) {
        return l.expiration > Date.now();
      },
    };
  },
};
