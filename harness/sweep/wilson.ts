/**
 * The Wilson score interval of a binomial proportion (95%: z = 1.96). Unlike the
 * normal approximation it stays inside [0, 1] and is honest at 0 or n successes:
 * 0 violations in 1,000 runs gives [0, 0.38%], not [0, 0].
 */
export function wilson95(successes: number, trials: number): [number, number] {
  if (trials === 0) return [0, 1];
  const z = 1.959963984540054;
  const p = successes / trials;
  const z2n = (z * z) / trials;
  const centre = (p + z2n / 2) / (1 + z2n);
  const half = (z * Math.sqrt((p * (1 - p)) / trials + (z * z) / (4 * trials * trials))) / (1 + z2n);
  return [Math.max(0, centre - half), Math.min(1, centre + half)];
}
