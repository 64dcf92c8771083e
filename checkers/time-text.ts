/**
 * A point in a run's time for a verdict's sentence: to a tenth of a second from 1 s on, in
 * ms (to 0.1 ms) below it, in µs below 1 ms — so a hold that ends at 51 ms reads "51 ms",
 * not "0.1 s", and two instants a few ms apart never both read "0 s".
 */
export function timeText(us: number): string {
  const a = Math.abs(us);
  if (a >= 1e6) return `${Math.round(us / 1e5) / 10} s`;
  if (a >= 1e3) return `${Math.round(us / 100) / 10} ms`;
  return `${Math.round(us)} µs`;
}
