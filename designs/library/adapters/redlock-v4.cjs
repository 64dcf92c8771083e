// Adapter for redlock@4.2.0 (npm `latest`): one ioredis client per node, Redlock with
// the library's own defaults (driftFactor 0.01, retryCount 10, retryDelay 200 ms,
// retryJitter 100 ms) unless designOptions.options.redlock overrides them. The library
// decides how long to retry (waitMs is not its concept). It believes it holds the lock
// while lock.expiration > Date.now(): that is holds().
// Loaded only inside a client process's sandbox realm (sim/sandbox/realm.ts): Date and
// setTimeout here are that simulated process's virtual clock and timers, not the host's.
"use strict";
const Redis = require("ioredis");
const Redlock = require("redlock");

module.exports = {
  create({ addresses, options }) {
    const clients = addresses.map((a) => {
      const [host, port] = a.split(":");
      return new Redis({ host, port: Number(port), ...(options.ioredis || {}) });
    });
    const redlock = new Redlock(clients, { ...(options.redlock || {}) });
    redlock.on("clientError", () => {});
    const lockError = (e) => e instanceof Redlock.LockError;
    return {
      async acquire(lock, { ttlMs }) {
        try {
          const l = await redlock.lock(lock, ttlMs);
          return { handle: l, validityMs: l.expiration - Date.now(), secret: l.value };
        } catch (e) {
          if (lockError(e)) return null;
          throw e;
        }
      },
      // A rejected unlock means "not released on a quorum" (keys expired, taken over, or
      // unreachable): the library cannot say which, so it is an unknown outcome, not "not ours".
      async release(l) {
        await l.unlock();
        return true;
      },
      async extend(l, ttlMs) {
        try {
          const next = await l.extend(ttlMs);
          return { handle: next, validityMs: next.expiration - Date.now() };
        } catch (e) {
          if (lockError(e)) return null;
          throw e;
        }
      },
      holds(l) {
        return l.expiration > Date.now();
      },
    };
  },
};
