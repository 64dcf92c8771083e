/**
 * The adapter that lets lockstep drive MyLock (docs/your-own-lock.md): it builds the lock
 * the way the application does — here with an ioredis client, which inside the simulator
 * is lockstep's simulated one — and maps acquire/release to the workload's calls.
 *
 *   npx lockstep run naive-gc-pause --lock examples/my-lock/adapter.ts
 */
import Redis from "ioredis";
import { MyLock, type Held } from "./my-lock.js";

export default {
  create({ addresses }: { addresses: string[] }) {
    const [host, port] = addresses[0].split(":");
    const lock = new MyLock(new Redis({ host, port: Number(port) }));
    return {
      async acquire(key: string, { ttlMs, waitMs }: { ttlMs: number; waitMs: number }) {
        const held = await lock.acquire(key, ttlMs, waitMs);
        return held && { handle: held, validityMs: held.validUntilMs - performance.now(), secret: held.token };
      },
      release: (held: Held) => lock.release(held),
      async extend(held: Held, ttlMs: number) {
        return (await lock.extend(held, ttlMs)) && { validityMs: held.validUntilMs - performance.now() };
      },
      holds: (held: Held) => held.validUntilMs > performance.now(),
    };
  },
};
