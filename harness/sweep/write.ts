import { writeTextSafe, type SafeWriteOptions } from "../safe-write.js";

/** Write a JSON file whole or not at all, never over what lockstep did not write (harness/safe-write.ts). */
export function writeJsonAtomic(path: string, value: unknown, o: SafeWriteOptions = {}): void {
  writeTextSafe(path, JSON.stringify(value, null, 2) + "\n", o);
}

export function writeTextAtomic(path: string, text: string, o: SafeWriteOptions = {}): void {
  writeTextSafe(path, text, o);
}
