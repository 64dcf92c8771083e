// Adapter for redlock-universal@0.8.5's Redlock (createRedlock) over one ioredis client
// per node: its retries (200 ms apart, drift factor 0.01) are counted to cover the
// workload's waitMs (the library's own default, 3 retries, gives up after ~600 ms),
// unless options.redlock overrides them. Its handle carries the acquire time and TTL.
// Loaded only inside a client process's sandbox realm (sim/sandbox/realm.ts): Date and
// setTimeout here are that simulated process's virtual clock and timers, not the host's.
"use strict";
const Redis = require("ioredis");
const { createRedlock, IoredisAdapter } = require("redlock-universal");

module.exports = {
  create({ addresses, options }) {
    const adapters = addresses.map((a) => {
      const [host, port] = a.split(":");
      return new IoredisAdapter(new Redis({ host, port: Number(port), ...(options.ioredis || {}) }));
    });
    const locks = new Map();
    const lockFor = (key, ttlMs, waitMs) => {
      const k = `${key}/${ttlMs}/${waitMs}`;
      const retryDelay = (options.redlock && options.redlock.retryDelay) || 200;
      const retryAttempts = Math.max(0, Math.ceil(waitMs / retryDelay));
      if (!locks.has(k)) locks.set(k, createRedlock({ adapters, key, ttl: ttlMs, retryDelay, retryAttempts, ...(options.redlock || {}) }));
      return locks.get(k);
    };
    return {
      async acquire(key, { ttlMs, waitMs }) {
        const lock = lockFor(key, ttlMs, waitMs);
        try {
          const handle = await lock.acquire();
          const validityMs = handle.acquiredAt + ttlMs - Date.now();
          return { handle: { lock, handle, ttlMs }, validityMs, secret: handle.value };
        } catch (e) {
          if (e && e.name === "LockAcquisitionError") return null;
          throw e;
        }
      },
      async release(h) {
        return h.lock.release(h.handle);
      },
      async extend(h, ttlMs) {
        return (await h.lock.extend(h.handle, ttlMs)) ? { validityMs: ttlMs } : null;
      },
    };
  },
};
