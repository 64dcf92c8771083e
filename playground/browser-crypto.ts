/**
 * node:crypto in the playground's bundle: the two digests a run writes into its history
 * (SHA-256 of replica states, SHA-1 of Lua scripts), synchronous and byte for byte
 * Node's, over the UTF-8 of a string, as Node hashes a string. Anything else throws.
 * test/playground/browser-crypto.test.ts holds them equal to Node's.
 */

export function hash(algorithm: string, data: string, encoding: string = "hex"): string {
  return createHash(algorithm).update(data).digest(encoding);
}

interface Hash {
  update(s: string): Hash;
  digest(encoding: string): string;
}

export function createHash(algorithm: string): Hash {
  if (algorithm !== "sha256" && algorithm !== "sha1") throw new Error(`lockstep playground: node:crypto ${algorithm} is not available in the browser`);
  const parts: string[] = [];
  const h: Hash = {
    update(s: string) {
      parts.push(s);
      return h;
    },
    digest(encoding: string): string {
      if (encoding !== "hex") throw new Error(`lockstep playground: node:crypto digest("${encoding}") is not available in the browser`);
      const bytes = new TextEncoder().encode(parts.join(""));
      return hex(algorithm === "sha256" ? sha256(bytes) : sha1(bytes));
    },
  };
  return h;
}

export function createHmac(): never {
  throw new Error("lockstep playground: node:crypto createHmac is not available in the browser");
}

export function timingSafeEqual(): never {
  throw new Error("lockstep playground: node:crypto timingSafeEqual is not available in the browser");
}

export default { hash, createHash, createHmac, timingSafeEqual };

function hex(words: Uint32Array): string {
  let s = "";
  for (const w of words) s += (w >>> 0).toString(16).padStart(8, "0");
  return s;
}

/** The message padded to 64-byte blocks with its bit length (big-endian), as SHA-1 and SHA-256 pad. */
function blocks(bytes: Uint8Array): DataView {
  const n = Math.ceil((bytes.length + 9) / 64) * 64;
  const buf = new Uint8Array(n);
  buf.set(bytes);
  buf[bytes.length] = 0x80;
  const view = new DataView(buf.buffer);
  const bits = bytes.length * 8;
  view.setUint32(n - 8, Math.floor(bits / 0x100000000));
  view.setUint32(n - 4, bits >>> 0);
  return view;
}

const K256 = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74,
  0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d,
  0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e,
  0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5,
  0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

const rotr = (x: number, n: number): number => (x >>> n) | (x << (32 - n));

function sha256(bytes: Uint8Array): Uint32Array {
  const v = blocks(bytes);
  const h = new Uint32Array([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);
  const w = new Uint32Array(64);
  for (let off = 0; off < v.byteLength; off += 64) {
    for (let i = 0; i < 16; i++) w[i] = v.getUint32(off + i * 4);
    for (let i = 16; i < 64; i++) {
      const a = w[i - 15]!,
        b = w[i - 2]!;
      w[i] = (w[i - 16]! + (rotr(a, 7) ^ rotr(a, 18) ^ (a >>> 3)) + w[i - 7]! + (rotr(b, 17) ^ rotr(b, 19) ^ (b >>> 10))) | 0;
    }
    let [a, b, c, d, e, f, g, hh] = h as unknown as number[];
    for (let i = 0; i < 64; i++) {
      const t1 = (hh! + (rotr(e!, 6) ^ rotr(e!, 11) ^ rotr(e!, 25)) + ((e! & f!) ^ (~e! & g!)) + K256[i]! + w[i]!) | 0;
      const t2 = ((rotr(a!, 2) ^ rotr(a!, 13) ^ rotr(a!, 22)) + ((a! & b!) ^ (a! & c!) ^ (b! & c!))) | 0;
      hh = g;
      g = f;
      f = e;
      e = (d! + t1) | 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) | 0;
    }
    const out = [a, b, c, d, e, f, g, hh];
    for (let i = 0; i < 8; i++) h[i] = (h[i]! + out[i]!) | 0;
  }
  return h;
}

function sha1(bytes: Uint8Array): Uint32Array {
  const v = blocks(bytes);
  const h = new Uint32Array([0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0]);
  const w = new Uint32Array(80);
  for (let off = 0; off < v.byteLength; off += 64) {
    for (let i = 0; i < 16; i++) w[i] = v.getUint32(off + i * 4);
    for (let i = 16; i < 80; i++) w[i] = rotr(w[i - 3]! ^ w[i - 8]! ^ w[i - 14]! ^ w[i - 16]!, 31);
    let [a, b, c, d, e] = h as unknown as number[];
    for (let i = 0; i < 80; i++) {
      const f = i < 20 ? (b! & c!) | (~b! & d!) : i < 40 ? b! ^ c! ^ d! : i < 60 ? (b! & c!) | (b! & d!) | (c! & d!) : b! ^ c! ^ d!;
      const k = i < 20 ? 0x5a827999 : i < 40 ? 0x6ed9eba1 : i < 60 ? 0x8f1bbcdc : 0xca62c1d6;
      const t = (rotr(a!, 27) + f + e! + k + w[i]!) | 0;
      e = d;
      d = c;
      c = rotr(b!, 2);
      b = a;
      a = t;
    }
    const out = [a, b, c, d, e];
    for (let i = 0; i < 5; i++) h[i] = (h[i]! + out[i]!) | 0;
  }
  return h;
}
