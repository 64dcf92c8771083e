/**
 * Drives Debian's firefox-esr over WebDriver BiDi directly, for test/reports/firefox.test.ts.
 * playwright-core's BiDi Firefox cannot be used: every new context sends
 * emulation.setMediaFeaturesOverride, which firefox-esr 153 answers "unknown command".
 * Run as `node --experimental-websocket firefox-bidi.mjs <jobs.json> <boundMs>` (Node 20
 * has its WebSocket client behind that flag); jobs: [{file, width, png, ready}], where
 * `ready` is a selector present once the page has drawn ("" for a static page). Prints one
 * JSON line per job: {file, scrollWidth, innerWidth, ready, errors}. One browser serves
 * every job; past boundMs (the only bound on waiting for a page) the browser is killed and
 * the script exits 3, so no hang outlives it.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const FIREFOX = "/usr/bin/firefox-esr";

/** firefox-esr started headless on a fresh profile, and the BiDi address it prints. */
async function startFirefox(profile) {
  const child = spawn(FIREFOX, ["--headless", "--no-remote", "--remote-debugging-port=0", "--profile", profile], { stdio: ["ignore", "ignore", "pipe"] });
  const url = await new Promise((resolve, reject) => {
    let err = "";
    child.stderr.on("data", (d) => {
      err += d;
      const m = /WebDriver BiDi listening on (ws:\/\/\S+)/.exec(err);
      if (m) resolve(m[1]);
    });
    child.on("exit", (code) => reject(new Error(`firefox-esr exited (${code}) before BiDi listened: ${err.slice(0, 400)}`)));
  });
  return { ff: child, url };
}

/** A BiDi session: send(method, params) resolves with the result; log entries (JS errors) are collected. */
async function connect(url) {
  const ws = new globalThis.WebSocket(`${url}/session`);
  await new Promise((resolve, reject) => {
    ws.onopen = resolve;
    ws.onerror = () => reject(new Error(`cannot connect to ${url}`));
  });
  let next = 0;
  const pending = new Map();
  const logs = [];
  ws.onmessage = (m) => {
    const msg = JSON.parse(m.data);
    if (msg.type === "event" && msg.method === "log.entryAdded" && msg.params.level === "error") logs.push(msg.params.text);
    const done = pending.get(msg.id);
    if (!done) return;
    pending.delete(msg.id);
    done(msg);
  };
  const send = (method, params) =>
    new Promise((resolve, reject) => {
      const id = ++next;
      pending.set(id, (msg) => (msg.type === "error" ? reject(new Error(`${method}: ${msg.error}: ${msg.message}`)) : resolve(msg.result)));
      ws.send(JSON.stringify({ id, method, params }));
    });
  await send("session.new", { capabilities: {} });
  await send("session.subscribe", { events: ["log.entryAdded"] });
  return { ws, send, logs };
}

/** Open one page at a width, wait until it has drawn, measure it and save a full-page screenshot. */
async function runJob(s, context, job) {
  s.logs.length = 0;
  await s.send("browsingContext.setViewport", { context, viewport: { width: job.width, height: 900 } });
  await s.send("browsingContext.navigate", { context, url: pathToFileURL(job.file).href, wait: "complete" });
  const evaluate = async (expression) => (await s.send("script.evaluate", { expression, target: { context }, awaitPromise: true })).result.value;
  // No count of polls: how long a page takes to draw depends on the machine's load; the watchdog ends a hang.
  let ready = job.ready === "";
  while (!ready) {
    ready = (await evaluate(`document.querySelector(${JSON.stringify(job.ready)}) !== null`)) === true;
    if (!ready) await new Promise((r) => setTimeout(r, 100));
  }
  const sizes = JSON.parse(await evaluate("JSON.stringify({ scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth })"));
  const shot = await s.send("browsingContext.captureScreenshot", { context, origin: "document" });
  writeFileSync(job.png, Buffer.from(shot.data, "base64"));
  return { file: job.file, ...sizes, ready, errors: [...s.logs] };
}

const jobs = JSON.parse(readFileSync(process.argv[2], "utf8"));
const profile = mkdtempSync(join(tmpdir(), "lockstep-firefox-"));
let ff;
const watchdog = setTimeout(() => {
  ff?.kill("SIGKILL");
  rmSync(profile, { recursive: true, force: true });
  process.stderr.write(`firefox-bidi: still running after ${process.argv[3]} ms: killed\n`);
  process.exit(3);
}, Number(process.argv[3]));
try {
  const started = await startFirefox(profile);
  ff = started.ff;
  const s = await connect(started.url);
  const { contexts } = await s.send("browsingContext.getTree", {});
  for (const job of jobs) process.stdout.write(JSON.stringify(await runJob(s, contexts[0].context, job)) + "\n");
  s.ws.close();
} finally {
  if (ff && ff.exitCode === null) {
    const exited = new Promise((r) => ff.on("exit", r));
    ff.kill();
    await exited;
  }
  rmSync(profile, { recursive: true, force: true });
  clearTimeout(watchdog);
}
