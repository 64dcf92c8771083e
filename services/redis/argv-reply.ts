/**
 * Replies of the generic (argv) command path, with RESP2's distinctions kept: a status
 * ("OK") is not a bulk string "OK", and arrays nest. The clients map them to what
 * ioredis or node-redis returns.
 */
export type ArgvReply = null | number | string | { status: string } | { error: string } | ArgvReply[];

export const OK: ArgvReply = { status: "OK" };

export function isErrorReply(r: ArgvReply): r is { error: string } {
  return r !== null && typeof r === "object" && !Array.isArray(r) && "error" in r;
}
