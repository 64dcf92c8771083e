// Adapter for redis-lock@1.0.0 over a node-redis client: SET lock.<name> <expiry> NX PX,
// retried every 50 ms with no limit; the release is a plain DEL, sent only while the
// client's own clock says the lock has not expired. The library has no try-lock, so the
// adapter gives up after waitMs (the library's retry loop keeps going, as it would in an
// application that raced it against a timer).
// Loaded only inside a client process's sandbox realm (sim/sandbox/realm.ts): Date and
// setTimeout here are that simulated process's virtual clock and timers, not the host's.
"use strict";
const { createClient } = require("redis");
const redisLock = require("redis-lock");

module.exports = {
  create({ addresses, options }) {
    const client = createClient({ url: `redis://${addresses[0]}`, ...(options.redis || {}) });
    client.on("error", () => {});
    const ready = client.connect();
    const lock = redisLock(client, options.retryDelayMs);
    return {
      async acquire(name, { ttlMs, waitMs }) {
        await ready;
        let timer;
        const gaveUp = new Promise((resolve) => {
          timer = setTimeout(() => resolve(null), Math.max(1, waitMs));
        });
        const got = await Promise.race([lock(name, ttlMs).then((unlock) => ({ unlock, expiresAt: Date.now() + ttlMs })), gaveUp]);
        clearTimeout(timer);
        if (!got) return null;
        return { handle: got, validityMs: ttlMs };
      },
      async release(h) {
        const deleted = await h.unlock();
        return deleted === 1;
      },
      holds(h) {
        return h.expiresAt > Date.now();
      },
    };
  },
};
