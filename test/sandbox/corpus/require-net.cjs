// Escape corpus: a real socket.
"use strict";
module.exports = {
  expect: { stop: 'require("net").connect' },
  probe() {
    require("net").connect(6379, "127.0.0.1");
    return "connected";
  },
};
