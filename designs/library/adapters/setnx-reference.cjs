// The single-node reference recipe (../shared/seeds: SET NX PX with a random token,
// compare-and-delete release, compare-and-pexpire extend) over ioredis, the client most
// Redis lock libraries use. The audit and `explore --differential` run it beside a
// user's lock so both go through the same client stack: a difference between the two is
// then the user's code, not the client's timing.
// The lease is measured on the monotonic clock (performance.now), from before the
// request, as the seeds do: a wall clock may step. Loaded only inside a client process's
// sandbox realm: the clocks, timers and crypto here are that simulated process's.
"use strict";
/* global performance */
const Redis = require("ioredis");
const { randomBytes } = require("node:crypto");

const RELEASE = 'if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end';
const EXTEND = 'if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("pexpire", KEYS[1], ARGV[2]) else return 0 end';
const RETRY_MS = 25;

module.exports = {
  create({ addresses, options }) {
    const [host, port] = addresses[0].split(":");
    const redis = new Redis({ host, port: Number(port), ...(options.ioredis || {}) });
    return {
      async acquire(key, { ttlMs, waitMs }) {
        const token = randomBytes(16).toString("hex");
        const deadline = performance.now() + waitMs;
        for (;;) {
          const started = performance.now();
          if ((await redis.set(key, token, "PX", ttlMs, "NX")) === "OK") {
            return { handle: { key, token, validUntilMs: started + ttlMs }, validityMs: started + ttlMs - performance.now(), secret: token };
          }
          if (performance.now() + RETRY_MS > deadline) return null;
          await new Promise((r) => setTimeout(r, RETRY_MS));
        }
      },
      async release(h) {
        return (await redis.eval(RELEASE, 1, h.key, h.token)) === 1;
      },
      async extend(h, ttlMs) {
        const started = performance.now();
        if ((await redis.eval(EXTEND, 1, h.key, h.token, ttlMs)) !== 1) return null;
        const handle = { ...h, validUntilMs: started + ttlMs };
        return { handle, validityMs: handle.validUntilMs - performance.now() };
      },
      holds(h) {
        return h.validUntilMs > performance.now();
      },
    };
  },
};
