// Escape corpus (issue 46): the real Date behind the realm's (its prototype, the
// prototype's constructor, a subclass): the host's clock.
"use strict";
module.exports = {
  expect: "same",
  probe() {
    const out = [];
    const Real = Object.getPrototypeOf(Date);
    out.push(typeof Real.now === "function" ? Real.now() : String(Real));
    try {
      out.push(new Real().getTime());
    } catch (e) {
      out.push(String(e.message));
    }
    out.push(new Date().constructor.now(), Date.prototype.constructor.now());
    class D extends Date {}
    out.push(new D().getTime(), D.now());
    out.push(Reflect.construct(Date, []).getTime());
    return out;
  },
};
