// A wall-clock jump of a redis-server, emulated: redis-server cannot run under libfaketime
// (it deadlocks at start-up, REAL-SYSTEMS.md), so a jump of Δ ms is applied to what the
// clock governs — key expiry. One Lua script, atomic on the server: every key with a TTL has
// it shortened by Δ (lengthened for a backward jump), and a key whose TTL is ≤ Δ is deleted,
// as it would have expired at once. Keys without a TTL are untouched. What the emulation does
// not do: TTLs set *after* the jump are not shifted (a real jump changes nothing for them
// either: Redis stores absolute expiry times and reads its clock afresh), and Redis's own
// time-dependent internals (the LRU clock, latency stats) are not moved. Reports name it
// "emulated (PTTL shift)".
import { tcpExchange } from "./servers/index.js";

/** Returns { shifted, deleted }. SCAN inside a script is allowed (Redis ≥ 5 replicates the script's effects). */
export const TTL_SHIFT_LUA = `
local delta = tonumber(ARGV[1])
local shifted, deleted = 0, 0
local cursor = "0"
repeat
  local r = redis.call("SCAN", cursor, "COUNT", 1000)
  cursor = r[1]
  for _, k in ipairs(r[2]) do
    local t = redis.call("PTTL", k)
    if t >= 0 then
      if t <= delta then
        redis.call("DEL", k)
        deleted = deleted + 1
      else
        redis.call("PEXPIRE", k, t - delta)
        shifted = shifted + 1
      end
    end
  end
until cursor == "0"
return { shifted, deleted }`;

const SHIFT_TIMEOUT_MS = 2_000;

function resp(args: readonly string[]): string {
  return `*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join("")}`;
}

/** Shift every TTL on the redis-server at `port` by `deltaMs` (a forward jump expires keys sooner). */
export async function shiftTtls(port: number, deltaMs: number): Promise<{ shifted: number; deleted: number }> {
  const reply = await tcpExchange(
    port,
    resp(["EVAL", TTL_SHIFT_LUA, "0", String(Math.round(deltaMs))]),
    (r) => /^-.*\r\n$/.test(r) || /^\*2\r\n:\d+\r\n:\d+\r\n$/.test(r),
    SHIFT_TIMEOUT_MS,
  );
  const m = /^\*2\r\n:(\d+)\r\n:(\d+)\r\n$/.exec(reply);
  if (!m) throw new Error(`TTL shift on 127.0.0.1:${port}: unexpected reply ${JSON.stringify(reply.slice(0, 200))}`);
  return { shifted: Number(m[1]), deleted: Number(m[2]) };
}
