import type { RawScenario } from "./play.js";

/**
 * The URL fragment's run: `#run=` then the starting scenario's name, the seed and the
 * edited scenario JSON, as base64url of UTF-8 JSON. A shared link opens exactly that run.
 */
export interface PlayState {
  base: string;
  seed: number;
  raw: RawScenario;
}

export function encodeState(s: PlayState): string {
  const bytes = new TextEncoder().encode(JSON.stringify({ v: 1, base: s.base, seed: s.seed, raw: s.raw }));
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** The state, or undefined when the text is not one (a damaged or hand-edited link). */
export function decodeState(text: string): PlayState | undefined {
  try {
    const bin = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
    const bytes = Uint8Array.from(bin, (c) => c.charCodeAt(0));
    const o = JSON.parse(new TextDecoder().decode(bytes)) as { v?: number; base?: unknown; seed?: unknown; raw?: unknown };
    if (o.v !== 1 || typeof o.base !== "string" || typeof o.seed !== "number" || !Number.isInteger(o.seed) || o.seed < 0) return undefined;
    const raw = o.raw as RawScenario | null;
    if (!raw || typeof raw !== "object" || typeof raw.name !== "string" || typeof raw.design !== "string") return undefined;
    return { base: o.base, seed: o.seed, raw };
  } catch {
    return undefined;
  }
}
