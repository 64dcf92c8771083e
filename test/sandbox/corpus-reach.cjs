// For the escape corpus's constructor-chain probes: what code evaluated by the Function
// reached from `f()` sees — its process's pid, its clock, and whether it has the real
// process.binding — or the error that stopped the probe. In a sealed realm every one is
// the realm's virtual process (pid 1, the virtual clock).
"use strict";
const PROBE = "return [process.pid, Date.now(), typeof process.binding]";

module.exports = function reach(name, f) {
  try {
    return [name, f().constructor(PROBE)()];
  } catch (e) {
    return [name, String(e && e.message)];
  }
};
