// For the escape corpus's membrane probes: replaces many of the realm's own intrinsics
// with spies that note every host value (a function or object whose prototype chain is
// not the realm's) they are called with, as library code that patches intrinsics would
// see it; `reachAll` then tries each through its constructor. Host code that calls a
// method found on a realm object, or hands a realm callable a host value, shows here.
"use strict";
const reach = require("./corpus-reach.cjs");
const RealmObjectProto = Object.prototype;
const RealmFunctionProto = Function.prototype;
const { apply, getPrototypeOf, defineProperty, getOwnPropertyDescriptor } = Reflect;

function isHost(v) {
  if (typeof v === "function") return getPrototypeOf(v) !== RealmFunctionProto && !(v instanceof Function);
  if (v === null || typeof v !== "object") return false;
  let p = v;
  let last = v;
  for (let i = 0; i < 64 && p !== null; i++) {
    last = p;
    p = getPrototypeOf(p);
  }
  return last !== RealmObjectProto && last !== v;
}

const TARGETS = [
  [
    Array.prototype,
    [
      "map",
      "forEach",
      "filter",
      "reduce",
      "push",
      "slice",
      "join",
      "concat",
      "some",
      "every",
      "find",
      "indexOf",
      "includes",
      "flat",
      "splice",
      "entries",
      "keys",
      "values",
    ],
    "Array.prototype",
  ],
  [Array, ["from", "of", "isArray"], "Array"],
  [Object, ["keys", "values", "entries", "assign", "defineProperty", "getPrototypeOf", "create", "freeze", "getOwnPropertyNames"], "Object"],
  [Function.prototype, ["call", "apply", "bind"], "Function.prototype"],
  [Promise.prototype, ["then", "catch", "finally"], "Promise.prototype"],
  [Promise, ["resolve", "reject", "all"], "Promise"],
  [JSON, ["parse", "stringify"], "JSON"],
  [String.prototype, ["split", "replace", "slice", "concat", "toString"], "String.prototype"],
  [Object.prototype, ["toString", "hasOwnProperty"], "Object.prototype"],
  [Error.prototype, ["toString"], "Error.prototype"],
  [Map.prototype, ["get", "set", "has"], "Map.prototype"],
];

/** Install the spies; returns { seen, restore }: `seen` collects [where, hostValue]. */
function spyOnIntrinsics() {
  const seen = [];
  const undo = [];
  for (const [obj, names, label] of TARGETS) {
    for (const name of names) {
      const d = getOwnPropertyDescriptor(obj, name);
      if (!d || typeof d.value !== "function") continue;
      const orig = d.value;
      const spy = {
        [name](...args) {
          if (seen.length < 20) {
            if (isHost(this)) seen.push([`${label}.${name} this`, this]);
            for (const a of args) if (isHost(a)) seen.push([`${label}.${name} argument`, a]);
          }
          return new.target ? Reflect.construct(orig, args, new.target) : apply(orig, this, args);
        },
      }[name];
      defineProperty(obj, name, { ...d, value: spy });
      undo.push(() => defineProperty(obj, name, d));
    }
  }
  return { seen, restore: () => undo.forEach((f) => apply(f, undefined, [])) };
}

/** Each host value seen, tried through its constructor chain. */
function reachAll(seen) {
  return seen.map(([where, v]) => reach(where, () => (typeof v === "function" ? v : v.constructor)));
}

module.exports = { spyOnIntrinsics, reachAll, isHost };
