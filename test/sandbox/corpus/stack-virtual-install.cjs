// Escape corpus (issue 46): what library code learns of its install and of lockstep from
// stacks, CallSites, __filename, require.resolve and error messages: the same in any
// install folder, and no lockstep frame.
"use strict";
module.exports = {
  expect: "same",
  async probe() {
    const out = { filename: __filename, dirname: __dirname, resolved: require.resolve("../corpus-reach.cjs") };
    out.stack = new Error("here").stack;
    const prev = Error.prepareStackTrace;
    Error.prepareStackTrace = (_e, sites) => sites.map((s) => [s.getFileName(), s.getFunctionName(), s.getTypeName(), s.getLineNumber(), String(s)]);
    out.sites = new Error().stack;
    Error.prepareStackTrace = prev;
    const o = {};
    Error.captureStackTrace(o);
    out.captured = o.stack;
    try {
      require.resolve("no-such-package-anywhere");
    } catch (e) {
      out.missing = [e.code, e.message];
    }
    try {
      require("fs").readFileSync(__dirname + "/no-such-file.txt");
    } catch (e) {
      out.enoent = [e.code, e.message];
    }
    out.later = await new Promise((r) => setTimeout(() => r(new Error("in a timer").stack), 1));
    out.module = [module.filename, module.id, typeof module.paths];
    return out;
  },
};
