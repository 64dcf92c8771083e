// A lockstep adapter module (docs/your-own-lock.md) served as a lock driver
// (docs/lock-protocol.md): `node driver.cjs [adapter.cjs]`, by default the audit's reference
// recipe (SET NX PX, compare-and-delete, compare-and-pexpire over ioredis). The same module
// runs in-process with `--lock`, so the two paths can be held against each other: same
// verdicts on the same attacks means the protocol adds nothing of its own.
"use strict";
const path = require("node:path");
const readline = require("node:readline");

const adapterFile = path.resolve(process.argv[2] || path.join(__dirname, "../../designs/library/adapters/setnx-reference.cjs"));
const handles = new Map(); // the grant's name (lockstep's) -> the adapter's handle
let lock;

const send = (fields) => process.stdout.write(JSON.stringify(fields) + "\n");
// CLOCK_MONOTONIC in ms (lockstep's clock): the instant a reported validity is counted from.
const monoMs = () => Number(process.hrtime.bigint()) / 1e6;
const number = (v) => (typeof v === "number" && Number.isFinite(v) ? v : undefined);

const ops = {
  async init(req) {
    const mod = require(adapterFile);
    lock = await (mod.create ? mod : mod.default).create({ addresses: req.addresses, options: req.options, processId: req.client });
    const optional = ["extend", "holds"].filter((op) => typeof lock[op] === "function");
    return { protocol: 1, name: `adapter ${path.basename(adapterFile)}`, ops: optional, versions: { node: process.version } };
  },
  async acquire(req) {
    const got = await lock.acquire(req.key, { ttlMs: req.ttlMs, waitMs: req.waitMs });
    if (got === null || got === undefined || got === false) return { granted: false };
    handles.set(req.grant, got.handle);
    const secret = typeof got.secret === "string" ? got.secret : undefined;
    return { granted: true, token: number(got.token), secret, validityMs: number(got.validityMs), monoMs: monoMs() };
  },
  async release(req) {
    return { released: (await lock.release(handles.get(req.grant))) !== false };
  },
  async extend(req) {
    const got = await lock.extend(handles.get(req.grant), req.ttlMs);
    if (got === null || got === undefined || got === false) return { extended: false };
    if (got !== true && "handle" in got) handles.set(req.grant, got.handle);
    return { extended: true, validityMs: got === true ? undefined : number(got.validityMs), monoMs: monoMs() };
  },
  async holds(req) {
    return { holds: lock.holds(handles.get(req.grant)) === true };
  },
  async clock() {
    return { wallMs: Date.now() };
  },
};

// Each line is handled as it comes, so `clock` is answered at once even while a lock call waits.
readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const req = JSON.parse(line);
  const op = ops[req.op];
  Promise.resolve()
    .then(() => (op ? op(req) : Promise.reject(new Error(`unknown op ${req.op}`))))
    .then(
      (fields) => send({ id: req.id, ...fields }),
      (err) => send({ id: req.id, error: err instanceof Error ? err.message : String(err) }),
    );
});
