/**
 * Issue 17's targets, as each bench module measured them in this run: a module prints its
 * target line where its rows are, and `npm run bench` (bench/index.ts) prints them again
 * together at the end, so the figures a reader compares stand in one block.
 */
const lines: string[] = [];

/** Print a target line now and keep it for the summary. */
export function reportTarget(line: string): void {
  console.log(line);
  lines.push(line);
}

/** The target lines reported so far, in the order the modules ran. */
export function reportedTargets(): readonly string[] {
  return lines;
}
