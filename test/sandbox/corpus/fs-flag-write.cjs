// Escape corpus (issue 46): readFileSync with a write flag creates ("a+") or truncates
// ("w+") a file; options are parsed, never passed through.
"use strict";
module.exports = {
  expect: { stop: 'flag "a+"' },
  probe() {
    return require("fs").readFileSync(__dirname + "/created-by-a-probe.txt", { flag: "a+", encoding: "utf8" });
  },
};
