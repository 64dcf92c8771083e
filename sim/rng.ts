import { Arc4 } from "./arc4.js";

/**
 * Seeded randomness with named forks. Each component forks its own stream
 * (`rng.fork("network")`), so adding a client does not change the network's dice.
 * The fork's seed is derived from the parent's seed string and the name, never
 * from the parent's position in its stream.
 */
const HEX_CODES = Array.from("0123456789abcdef", (c) => c.charCodeAt(0));
const TOKEN_CHUNKS_SCRATCH = 8;
const tokenScratch: number[] = [];

export class Rng {
  private readonly prng: Arc4;

  constructor(readonly seed: string) {
    // seedrandom's generator, reimplemented allocation-light (sim/arc4.ts): the same draws.
    this.prng = new Arc4(seed);
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
    // Eight hex digits per 32-bit draw, built as one string (no per-draw toString and padStart).
    const chunks = Math.ceil(bits / 32);
    const codes = chunks <= TOKEN_CHUNKS_SCRATCH ? tokenScratch : new Array<number>(chunks * 8);
    codes.length = chunks * 8;
    for (let i = 0; i < chunks; i++) {
      const x = this.prng.int32() >>> 0;
      for (let k = 0; k < 8; k++) codes[i * 8 + k] = HEX_CODES[(x >>> (28 - 4 * k)) & 15]!;
    }
    return String.fromCharCode.apply(null, codes);
  }
}
