import seedrandom from "seedrandom";

/**
 * Seeded randomness with named forks. Each component forks its own stream
 * (`rng.fork("network")`), so adding a client does not change the network's dice.
 * The fork's seed is derived from the parent's seed string and the name, never
 * from the parent's position in its stream.
 */
export class Rng {
  private readonly prng: seedrandom.PRNG;

  constructor(readonly seed: string) {
    this.prng = seedrandom(seed);
  }

  fork(name: string): Rng {
    return new Rng(`${this.seed}/${name}`);
  }

  /** Uniform in [0, 1). */
  float(): number {
    return this.prng.double();
  }

  /** Uniform integer in [lo, hi] (inclusive). */
  int(lo: number, hi: number): number {
    if (hi < lo) throw new RangeError(`Rng.int: hi ${hi} < lo ${lo}`);
    return lo + Math.floor(this.prng.double() * (hi - lo + 1));
  }

  chance(p: number): boolean {
    return p > 0 && this.prng.double() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError("Rng.pick: empty list");
    return items[this.int(0, items.length - 1)]!;
  }

  /** A random hex token, like a UUID's randomness (128 bits by default). */
  token(bits = 128): string {
    let s = "";
    for (let i = 0; i < bits / 32; i++) s += (this.prng.int32() >>> 0).toString(16).padStart(8, "0");
    return s;
  }
}
