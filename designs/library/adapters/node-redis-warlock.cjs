// Adapter for node-redis-warlock@1.0.2 over ioredis: SET <key>:lock <uuid v1> PX NX,
// optimistic() retries every `wait` ms up to maxAttempts (here: as many as fit in waitMs),
// release by a Lua compare-and-delete ("parity del").
// Loaded only inside a client process's sandbox realm (sim/sandbox/realm.ts): Date and
// setTimeout here are that simulated process's virtual clock and timers, not the host's.
"use strict";
const Redis = require("ioredis");
const Warlock = require("node-redis-warlock");

module.exports = {
  create({ addresses, options }) {
    const [host, port] = addresses[0].split(":");
    const warlock = Warlock(new Redis({ host, port: Number(port), ...(options.ioredis || {}) }));
    const waitStepMs = options.retryDelayMs || 50;
    return {
      acquire(key, { ttlMs, waitMs }) {
        const attempts = Math.max(1, Math.floor(waitMs / waitStepMs) + 1);
        return new Promise((resolve, reject) => {
          warlock.optimistic(key, ttlMs, attempts, waitStepMs, (err, unlock) => {
            if (err && err.message === "unable to obtain lock") return resolve(null);
            if (err) return reject(err);
            resolve({ handle: unlock, validityMs: ttlMs });
          });
        });
      },
      release(unlock) {
        return new Promise((resolve, reject) => unlock((err, result) => (err ? reject(err) : resolve(result === 1))));
      },
    };
  },
};
