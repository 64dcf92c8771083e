#!/usr/bin/env node
// The installed command. CommonJS (bin/package.json) so that start-up needs no ES module
// loader: bin/load-bundle.js answers --help/--version from the build's canned text, runs
// `check` from the start-up bundle, and sends everything else to dist/cli/main.js.
"use strict";
require("./load-bundle.js").run(process.argv.slice(2));
