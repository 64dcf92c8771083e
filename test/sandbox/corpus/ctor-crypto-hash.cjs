// Escape corpus: the host Function through a hash object.
"use strict";
module.exports = {
  expect: "same",
  probe() {
    const h = require("crypto").createHash("sha1");
    const f = h.update.constructor("return process.pid");
    return [
      h.update("x").digest("hex"),
      f(),
      require("crypto").createHash("sha256").update(Buffer.from("y")).digest().constructor.constructor("return process.pid")(),
    ];
  },
};
