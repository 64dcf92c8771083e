// Adapter for redis-semaphore@5.8.0's RedlockMutex: the same Mutex, acquired on a quorum
// of N ioredis clients, refreshed automatically every 0.8 × lockTimeout while held.
// Loaded only inside a client process's sandbox realm (sim/sandbox/realm.ts): Date and
// setTimeout here are that simulated process's virtual clock and timers, not the host's.
"use strict";
const Redis = require("ioredis");
const { RedlockMutex } = require("redis-semaphore");

module.exports = {
  create({ addresses, options }) {
    const clients = addresses.map((a) => {
      const [host, port] = a.split(":");
      return new Redis({ host, port: Number(port), ...(options.ioredis || {}) });
    });
    return {
      async acquire(lock, { ttlMs, waitMs }) {
        const lost = { lost: false };
        const m = new RedlockMutex(clients, lock, {
          lockTimeout: ttlMs,
          acquireTimeout: Math.max(1, waitMs),
          retryInterval: 10,
          onLockLost: () => {
            lost.lost = true;
          },
          ...(options.mutex || {}),
        });
        const got = await m.tryAcquire().then(
          (ok) => ok,
          () => false,
        );
        if (!got) {
          if (waitMs <= 0) return null;
          try {
            await m.acquire();
          } catch (e) {
            if (e && e.name === "TimeoutError") return null;
            throw e;
          }
        }
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
