"use strict";
// A sweep worker thread started from the start-up bundle (bin/load-bundle.js): CommonJS, like
// bin/lockstep.js, so the thread needs no ES module loader either.
require("./load-bundle.js").runSweepWorker();
