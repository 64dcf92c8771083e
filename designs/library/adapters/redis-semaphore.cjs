// Adapter for redis-semaphore@5.8.0's Mutex over one ioredis client: SET NX PX with a
// random identifier, Lua compare-and-delete release, and the library's own automatic
// refresh (every 0.8 × lockTimeout) while held, unless options.mutex overrides it.
// Loaded only inside a client process's sandbox realm (sim/sandbox/realm.ts): Date and
// setTimeout here are that simulated process's virtual clock and timers, not the host's.
"use strict";
const Redis = require("ioredis");
const { Mutex } = require("redis-semaphore");

module.exports = {
  create({ addresses, options }) {
    const [host, port] = addresses[0].split(":");
    const client = new Redis({ host, port: Number(port), ...(options.ioredis || {}) });
    return {
      async acquire(lock, { ttlMs, waitMs }) {
        const lost = { lost: false };
        const m = new Mutex(client, lock, {
          lockTimeout: ttlMs,
          acquireTimeout: Math.max(1, waitMs),
          retryInterval: 10,
          onLockLost: () => {
            lost.lost = true;
          },
          ...(options.mutex || {}),
        });
        const ok = await m.tryAcquire().then(
          (got) => got,
          () => false,
        );
        if (!ok && waitMs > 0) {
          try {
            await m.acquire();
          } catch (e) {
            if (e && e.name === "TimeoutError") return null;
            throw e;
          }
        } else if (!ok) return null;
        return { handle: { m, lost }, validityMs: ttlMs, secret: m.identifier };
      },
      async release(h) {
        await h.m.release();
        return !h.lost.lost;
      },
      holds(h) {
        return h.m.isAcquired && !h.lost.lost;
      },
    };
  },
};
