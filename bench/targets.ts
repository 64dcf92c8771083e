/**
 * Performance target lines. A bench module prints its target line where its rows are;
 * `npm run bench` (bench/index.ts) runs each module in a process of its own and picks the
 * lines that begin with TARGET_PREFIX out of its output, to print them together at the end,
 * so the figures a reader compares stand in one block.
 */
export const TARGET_PREFIX = "target";

/** Print a target line; `what` follows the prefix (e.g. ": kernel only ..."). */
export function reportTarget(what: string): void {
  console.log(`${TARGET_PREFIX}${what}`);
}
