import { describe, expect, it } from "vitest";
import * as nodeCrypto from "node:crypto";
import { createHash, hash } from "../../playground/browser-crypto.js";

/** The playground's digests must be Node's exactly: they are written into histories (replica states). */
describe("the playground's node:crypto stand-in", () => {
  // Lengths around the 55/56/64-byte padding edges, multi-byte UTF-8, and long input.
  const inputs = ["", "abc", "a".repeat(55), "a".repeat(56), "a".repeat(63), "a".repeat(64), "a".repeat(65), "é∑😀 zk/lock", '{"k":[1,2,3]}'.repeat(500)];
  for (let i = 0; i < 40; i++) inputs.push(String.fromCharCode(...Array.from({ length: i * 7 }, (_, j) => 32 + ((j * 31 + i) % 900))));

  it("gives Node's SHA-256 and SHA-1 hex for every input", () => {
    for (const s of inputs) {
      expect(hash("sha256", s, "hex")).toBe(nodeCrypto.createHash("sha256").update(s).digest("hex"));
      expect(createHash("sha1").update(s).digest("hex")).toBe(nodeCrypto.createHash("sha1").update(s).digest("hex"));
    }
  });

  it("hashes what update was given in parts as one string", () => {
    expect(createHash("sha256").update("ab").update("c").digest("hex")).toBe(nodeCrypto.createHash("sha256").update("abc").digest("hex"));
  });

  it("refuses an algorithm it does not have, by name", () => {
    expect(() => createHash("md5")).toThrow(/node:crypto md5 is not available in the browser/);
  });
});
