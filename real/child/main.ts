// Entry of a client process in a real run (started by the driver, real/clients.ts):
//   node main.js <control-port> <client-id> <secret>
// It connects to the driver on 127.0.0.1, takes its config, connects its npm client(s) to
// the redis-servers, reports ready, waits for the start (the run's t0 on CLOCK_MONOTONIC),
// runs the workload, reports done and idles until the driver ends it. If the driver goes
// away (the control connection closes) it exits at once; a stopped (SIGSTOPped) client
// that outlives its driver is SIGKILLed by the watchdog it runs under.
import { DriverLink } from "./link.js";
import type { RealClientEnv, RealClientFactory, RealLockClient } from "../../designs/real-client.js";
import { DriverFailedError } from "../../designs/library/real-driver-process.js";
import { loadTolerantMs } from "../servers/deadlines.js";
import { AdapterRefusedError } from "../../designs/library/real-loader.js";
import { clientLoop } from "./workload.js";
import type { RecipeConfig } from "../../designs/real-recipe.js";

const CONNECT_TIMEOUT_MS = 10_000;
const CONFIG_TIMEOUT_MS = 30_000;
const SERVICE_CONNECT_TIMEOUT_MS = 10_000;
const START_TIMEOUT_MS = 60_000;

/** A recipe module under designs/, as a design's real-plan.ts names it ("redis-setnx/real-client.js"). */
const CLIENT_MODULE = /^[a-z0-9-]+\/real-[a-z-]+\.js$/;

/** The recipe's client, from the module its design's real plan named (loaded only in the process that runs it). */
async function recipeFor(cfg: RecipeConfig, env: RealClientEnv): Promise<RealLockClient> {
  if (!CLIENT_MODULE.test(cfg.client)) throw new Error(`recipe ${cfg.kind}: no client module "${cfg.client}"`);
  const mod = (await import(new URL(`../../designs/${cfg.client}`, import.meta.url).href)) as { createRealClient?: RealClientFactory };
  if (typeof mod.createRealClient !== "function") throw new Error(`recipe ${cfg.kind}: ${cfg.client} exports no createRealClient`);
  return mod.createRealClient(cfg, env);
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const t = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms)));
  return Promise.race([p, t]).finally(() => clearTimeout(timer));
}

async function main(): Promise<void> {
  const [portText, clientId, secret] = process.argv.slice(2);
  const port = Number(portText);
  if (!Number.isInteger(port) || port <= 0 || !clientId || !secret) throw new Error("usage: main.js <control-port> <client-id> <secret>");
  let finished = false;
  const link = new DriverLink("127.0.0.1", port, () => process.exit(finished ? 0 : 1));
  await link.connected(CONNECT_TIMEOUT_MS);
  link.send({ t: "hello", clientId, secret, pid: process.pid });
  const { config } = await link.next("config", CONFIG_TIMEOUT_MS);
  const locks = await recipeFor(config.recipe, { nowUs: () => link.nowUs(), clientId, loadTolerantMs });
  // A client that fails on its own (a lock driver that dies or prints what is not the protocol) stops the run, in its own words.
  locks.onFailure = (err) => link.send({ t: "fatal", message: err.message });
  try {
    await withTimeout(locks.connect(), loadTolerantMs(SERVICE_CONNECT_TIMEOUT_MS), `connecting to the servers (${config.recipe.kind})`);
  } catch (err) {
    // A bad adapter is the user's to fix: said once, and this process waits for the driver to end it (no exit to race the message).
    if (err instanceof AdapterRefusedError) {
      link.send({ t: "refused", refusal: err.refusal });
      return;
    }
    const message = err instanceof DriverFailedError ? err.message : `${clientId}: ${(err as Error).message}`;
    link.send({ t: "fatal", message });
    throw err;
  }
  if (locks.wallClockMs) link.wallClock = () => locks.wallClockMs!();
  // Expiries the recipe moves by itself (session keepalives) go to the driver like the workload's own.
  locks.onRefresh = (g) => {
    if (g.id !== undefined) link.reportGrant(g.id, g.expiresAtUs);
  };
  const groups = locks.processGroups?.() ?? [];
  link.send({
    t: "ready",
    packages: { node: process.version, ...locks.packages() },
    ...(locks.notes ? { notes: locks.notes() } : {}),
    ...(groups.length ? { processGroups: groups } : {}),
  });
  await link.next("start", START_TIMEOUT_MS);
  try {
    const ops = await clientLoop({ link, locks, clientId, spec: config.workload, client: config.client, endUs: config.endUs, seed: config.seed });
    finished = true;
    link.send({ t: "done", ops });
  } catch (err) {
    // A driver's failure rejects the op it was serving too: said in its own words, as onFailure says it.
    const message = err instanceof DriverFailedError ? err.message : `${clientId}: ${(err as Error).stack ?? err}`;
    link.send({ t: "fatal", message });
    throw err;
  }
  // Idle until the driver closes the connection (then onClose exits) or kills us.
  locks.close();
}

main().catch((err: unknown) => {
  process.stderr.write(`lockstep client: ${(err as Error).stack ?? err}\n`);
  // Give the fatal message a moment to leave, then go.
  setTimeout(() => process.exit(1), 50);
});
