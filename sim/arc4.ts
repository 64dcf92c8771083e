/**
 * The seeded stream behind Rng: RC4 keyed by the seed string, with the first 256
 * outputs dropped, and doubles built from its bytes — the same algorithm and the same
 * arithmetic as seedrandom 3's default generator, so every seed gives the very draws it
 * gave through seedrandom (test/sim/arc4.test.ts compares the two). Kept here because a
 * seedrandom instance costs several kilobytes of garbage per fork (a 256-entry array
 * grown by push, four closures, a 256-character string mixed into a global pool), and a
 * run forks a stream per process and per client incarnation.
 */
const WIDTH = 256;
const MASK = WIDTH - 1;
/** Six RC4 outputs start a double: numerator < 2^48 over 2^48. */
const CHUNKS = 6;
const START_DENOM = WIDTH ** CHUNKS;
const SIGNIFICANCE = 2 ** 52;
const OVERFLOW = SIGNIFICANCE * 2;
/** A 32-bit top of seven bytes at least this: the 56-bit V is at least 2^52 (double()'s fast case). */
const TOP_NIBBLE_MIN = 2 ** 28;
const TWO_POW_24 = 2 ** 24;
const TWO_POW_MINUS_32 = 2 ** -32;
const TWO_POW_MINUS_56 = 2 ** -56;

/** The key of the stream being built (never kept: the state is copied into S). */
const keyScratch = new Uint8Array(WIDTH);

export class Arc4 {
  private readonly s = new Uint8Array(WIDTH);
  private i = 0;
  private j = 0;

  constructor(seed: string) {
    const key = keyScratch;
    // seedrandom's mixkey: the seed's characters smeared into at most 256 key bytes.
    const keyLength = Math.min(seed.length, WIDTH);
    let smear = 0;
    for (let n = 0; n < seed.length; n++) {
      const k = n & MASK;
      // The first pass meets empty key slots (undefined * 19 is NaN; x ^ NaN is x).
      if (n >= WIDTH) smear ^= key[k]! * 19;
      key[k] = MASK & (smear + seed.charCodeAt(n));
    }
    // An empty seed is the key [0].
    if (keyLength === 0) key[0] = 0;
    const len = Math.max(keyLength, 1);
    const s = this.s;
    for (let n = 0; n < WIDTH; n++) s[n] = n;
    let j = 0;
    for (let n = 0; n < WIDTH; n++) {
      const t = s[n]!;
      j = MASK & (j + key[n % len]! + t);
      s[n] = s[j]!;
      s[j] = t;
    }
    this.next(WIDTH); // RC4-drop[256]
  }

  /** The next `count` outputs as one big-endian number (count ≤ 6 stays exact). */
  next(count: number): number {
    const s = this.s;
    let i = this.i;
    let j = this.j;
    let r = 0;
    // Bounded by count.
    while (count-- > 0) {
      i = MASK & (i + 1);
      const t = s[i]!;
      j = MASK & (j + t);
      const u = s[j]!;
      s[i] = u;
      s[j] = t;
      r = r * WIDTH + s[MASK & (u + t)]!;
    }
    this.i = i;
    this.j = j;
    return r;
  }

  /**
   * Uniform in [0, 1), as seedrandom's `double()`: the same value from the same bytes.
   * seedrandom takes seven bytes V (56 bits) and, when V ≥ 2^52 (its first byte ≥ 16,
   * fifteen draws in sixteen), returns V cut to its top 53 bits over 2^56 through a loop
   * of float halvings. Here that case is the 32-bit top `hi` plus the 24-bit rest with
   * its low k bits cleared (k = bits of V past 53), both exact; the rest takes seedrandom's
   * loop as it was (doubleLoop). test/sim/arc4.test.ts compares both paths to seedrandom.
   */
  double(): number {
    const s = this.s;
    let i = this.i;
    let j = this.j;
    let hi = 0;
    let lo = 0;
    // Seven RC4 outputs, as next(7) would draw them: four into hi, three into lo.
    for (let n = 0; n < 7; n++) {
      i = MASK & (i + 1);
      const t = s[i]!;
      j = MASK & (j + t);
      const u = s[j]!;
      s[i] = u;
      s[j] = t;
      const byte = s[MASK & (u + t)]!;
      if (n < 4) hi = (hi << 8) | byte;
      else lo = (lo << 8) | byte;
    }
    this.i = i;
    this.j = j;
    hi >>>= 0;
    if (hi >= TOP_NIBBLE_MIN) {
      // V has 53 + k bits, k in 0..3: seedrandom's halvings drop exactly V's low k bits.
      const k = 3 - Math.clz32(hi);
      return hi * TWO_POW_MINUS_32 + ((lo >>> k) << k) * TWO_POW_MINUS_56;
    }
    // V < 2^52: seedrandom's state after its first pass, then its loop.
    return this.doubleLoop(hi * TWO_POW_24 + (lo & ~MASK), lo & MASK);
  }

  /** seedrandom's double() loop, from after its first pass (n = the six bytes × 256, x = the seventh). */
  private doubleLoop(n: number, x: number): number {
    let d = START_DENOM * WIDTH;
    // Each pass draws a byte, and a nonzero numerator passes 2^52 within two passes.
    while (n < SIGNIFICANCE) {
      n = (n + x) * WIDTH;
      d *= WIDTH;
      x = this.next(1);
    }
    while (n >= OVERFLOW) {
      n /= 2;
      d /= 2;
      x >>>= 1;
    }
    return (n + x) / d;
  }

  /** A signed 32-bit draw, as seedrandom's `int32()`. */
  int32(): number {
    return this.next(4) | 0;
  }
}
