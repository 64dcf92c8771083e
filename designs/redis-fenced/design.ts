import { setnxDesign } from "../redis-setnx/design.js";

/**
 * Seed 001's lock: the naive SET NX PX lock, and after a successful SET an
 * `INCR fence:<lock>` whose value is the fencing token (not atomic with the SET, as in
 * the seed). The client is redis-setnx's with fencing on (designs/redis-setnx/client.ts);
 * the token lives on the same single node, so a restart without persistence hands out
 * tokens again from 1 (scenario redis-fenced-restart-token-reuse).
 */
export const redisFenced = setnxDesign("redis-fenced", true, "single Redis node, SET NX PX plus INCR fence:<lock> as the fencing token (design brief 001)");
