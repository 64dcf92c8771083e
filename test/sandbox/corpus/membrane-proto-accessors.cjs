// Escape corpus (issue 46): accessors on Object.prototype, Array.prototype and
// Error.prototype (then, code, name, message, 0...) see every object host code reads a
// missing property of, or assigns one to; none may be the host's.
"use strict";
const { isHost, reachAll } = require("../corpus-spy.cjs");
const exercise = require("../corpus-exercise.cjs");
const NAMES = ["then", "code", "name", "message", "stack", "cause", "argv", "value", "constructor", "0", "1", "length", "toJSON", "done"];
module.exports = {
  expect: "same",
  async probe() {
    const seen = [];
    const undo = [];
    const note = (where, v) => {
      if (seen.length < 20 && isHost(v)) seen.push([where, v]);
    };
    for (const [proto, label] of [
      [Object.prototype, "Object"],
      [Array.prototype, "Array"],
      [Error.prototype, "Error"],
    ]) {
      for (const k of NAMES) {
        const d = Object.getOwnPropertyDescriptor(proto, k);
        if (d && !d.configurable) continue;
        const slot = Symbol(k);
        Object.defineProperty(proto, k, {
          configurable: true,
          get() {
            note(`${label}.prototype.${k} get`, this);
            return d ? ("value" in d ? d.value : d.get.call(this)) : this[slot];
          },
          set(v) {
            note(`${label}.prototype.${k} set`, this);
            note(`${label}.prototype.${k} set value`, v);
            Object.defineProperty(this, k, { value: v, writable: true, enumerable: true, configurable: true });
          },
        });
        undo.push(() => (d ? Object.defineProperty(proto, k, d) : delete proto[k]));
      }
    }
    let result;
    try {
      result = await exercise();
    } catch (e) {
      result = String(e && e.message);
    } finally {
      undo.forEach((f) => f());
    }
    return { hostValues: reachAll(seen), result };
  },
};
