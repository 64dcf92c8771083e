// For the escape corpus's membrane probes: calls what lockstep hands library code —
// the simulated Redis clients (commands, scripts, batches, options objects), Node's
// builtins as the sandbox gives them, timers and ticks — with library-made values, so
// a probe sees what host code does with them. Resolves once the replies are in.
/* global TextEncoder, structuredClone, atob, btoa */
"use strict";
module.exports = async function exercise() {
  const out = [];
  const Redis = require("ioredis");
  const c = new Redis();
  const keys = ["k1", "k2"];
  out.push(await c.set("probe", "v", "PX", 1000, "NX"));
  out.push(await c.eval("return #KEYS", 2, ...keys, "a"));
  out.push(await c.multi().set("a", "1").get("a").exec());
  c.defineCommand("probeScript", { numberOfKeys: 1, lua: "return KEYS[1]" });
  out.push(await c.probeScript("key"));
  c.disconnect();
  const redis = require("redis");
  const n = redis.createClient();
  await n.connect();
  out.push(await n.set("probe2", "v", { NX: true, PX: 1000 }));
  out.push(await n.eval("return #KEYS", { keys, arguments: ["x"] }));
  out.push(await n.sendCommand(["GET", "probe2"]));
  await n.quit();
  const path = require("path");
  out.push(path.join("a", "b"), path.parse("/a/b.txt").name, path.resolve("x"));
  const util = require("util");
  out.push(util.format("%s %d %j", "a", 1, { b: 2 }), util.inspect({ a: [1, { b: 2 }] }));
  out.push(util.isDeepStrictEqual({ a: 1 }, { a: 1 }));
  const b = Buffer.from("hello");
  out.push(b.toString("hex"), Buffer.concat([b, Buffer.from([1, 2])]).length, b.equals(Buffer.from("hello")));
  out.push(require("crypto").createHash("sha1").update("x").digest("hex"));
  out.push(new URL("http://a/b?c=1").searchParams.get("c"), new TextEncoder().encode("é").length);
  out.push(require("querystring").stringify({ a: [1, 2], b: "x" }));
  out.push(structuredClone({ a: [1] }).a[0], atob(btoa("x")));
  await new Promise((r) => setTimeout(r, 1));
  await new Promise((r) => process.nextTick(r));
  const { EventEmitter, once } = require("events");
  const e = new EventEmitter();
  setTimeout(() => e.emit("x", 1), 1);
  out.push(await once(e, "x"));
  return out;
};
