import type { LockUnderTest } from "../../attacks/index.js";
import type { Scenario } from "../../scenarios/schema.js";
import { wilson95 } from "../sweep/wilson.js";
import { onReference, unsafeNear } from "../audit/counterexample.js";

/**
 * The differential property of `explore --differential` and `audit --explore`: a drawn
 * schedule is the lock's own bug only when, over many seeds of that schedule, the lock
 * is unsafe more often than the reference recipe with the 95% intervals apart, as the
 * audit decides its rows. One seed against one seed is timing noise: a pause past the
 * lease is unsafe now and then for a correct lock and its reference alike.
 */

/** Seeds each candidate schedule is run on, here and on the reference. */
export const DIFFERENTIAL_SEEDS = 20;

/** One schedule over DIFFERENTIAL_SEEDS seeds, here and on the reference. */
export interface PairedRates {
  /** The first seed (the draw's own); the schedule ran on it and the next seeds - 1. */
  seed: number;
  seeds: number;
  /** Seeds unsafe here, and on the reference recipe. */
  here: number;
  there: number;
  hereCi95: [number, number];
  thereCi95: [number, number];
  /** The seeds unsafe here and safe on the reference: the runs a diagnosis reads. */
  evidenceSeeds: number[];
  /** The lock is unsafe more often: the intervals do not meet. */
  yours: boolean;
}

/**
 * Both rates over up to `seeds` seeds from `seed`. The runs stop early once the lock can
 * no longer come out unsafe more often (were every seed left unsafe here and safe there,
 * the intervals would still meet): a correct lock's limit schedules cost fewer runs.
 */
export function pairedRates(
  s: Scenario,
  seed: number,
  ref: LockUnderTest,
  violates: (s: Scenario, seed: number) => boolean,
  seeds = DIFFERENTIAL_SEEDS,
): PairedRates {
  let here = 0;
  let there = 0;
  let ran = 0;
  const evidenceSeeds: number[] = [];
  const theirs = onReference(s, ref);
  while (ran < seeds) {
    const mine = violates(s, seed + ran);
    const refs = violates(theirs, seed + ran);
    if (mine) here++;
    if (refs) there++;
    if (mine && !refs) evidenceSeeds.push(seed + ran);
    ran++;
    const left = seeds - ran;
    if (wilson95(here + left, seeds)[0] <= wilson95(there, seeds)[1]) break;
  }
  const hereCi95 = wilson95(here, ran);
  const thereCi95 = wilson95(there, ran);
  return { seed, seeds: ran, here, there, hereCi95, thereCi95, evidenceSeeds, yours: hereCi95[0] > thereCi95[1] };
}

/** "unsafe 20/20 [84%, 100%] here, 0/20 [0%, 16%] on setnx-reference". */
export function ratesText(r: PairedRates, reference: string): string {
  const ci = (c: [number, number]): string => `[${Math.round(c[0] * 100)}%, ${Math.round(c[1] * 100)}%]`;
  return `unsafe ${r.here}/${r.seeds} ${ci(r.hereCi95)} here, ${r.there}/${r.seeds} ${ci(r.thereCi95)} on ${reference} (seeds ${r.seed}..${r.seed + r.seeds - 1})`;
}

/**
 * The property as a search uses it: a draw that is safe here on its own seed costs one
 * run; one that is unsafe is judged on paired rates, and every judged draw is kept
 * (the rates a "nothing found" must print). While shrinking, a candidate must stay
 * unsafe here and safe on the reference on its seed and the next few (cheap); the
 * shrunk result is judged on paired rates again by the caller.
 */
export class Differential {
  readonly judged: PairedRates[] = [];

  constructor(
    private readonly violates: (s: Scenario, seed: number) => boolean,
    private readonly ref: LockUnderTest,
    private readonly seeds = DIFFERENTIAL_SEEDS,
  ) {}

  search = (s: Scenario, seed: number): boolean => {
    if (!this.violates(s, seed)) return false;
    const r = pairedRates(s, seed, this.ref, this.violates, this.seeds);
    this.judged.push(r);
    return r.yours;
  };

  shrink = (s: Scenario, seed: number): boolean => this.violates(s, seed) && !unsafeNear(onReference(s, this.ref), seed);

  rates(s: Scenario, seed: number): PairedRates {
    return pairedRates(s, seed, this.ref, this.violates, this.seeds);
  }

  /** Over every draw judged: seeds unsafe here and there, in all. */
  totals(): { schedules: number; seeds: number; here: number; there: number } {
    return {
      schedules: this.judged.length,
      seeds: this.judged.reduce((n, r) => n + r.seeds, 0),
      here: this.judged.reduce((n, r) => n + r.here, 0),
      there: this.judged.reduce((n, r) => n + r.there, 0),
    };
  }
}
