// Escape corpus: Buffer behaves as Node's inside the realm.
"use strict";
module.exports = {
  expect: "same",
  probe() {
    const b = Buffer.from("héllo");
    const c = Buffer.concat([b, Buffer.alloc(2, 1)]);
    const d = Buffer.alloc(4);
    d.writeUInt32BE(0xdeadbeef);
    return [
      b.toString("base64"),
      c.length,
      Buffer.isBuffer(c),
      c.slice(1, 3).toString("hex"),
      d.readUInt32BE(0),
      d.toString("hex"),
      JSON.stringify(b),
      b.equals(Buffer.from("héllo")),
      String(b),
    ];
  },
};
