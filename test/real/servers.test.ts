// Real servers from the Debian packages: start, ready, use over raw sockets/HTTP, and — the
// point of this file — nothing left running afterwards on any exit path of the driver.
import { spawn, execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import {
  APT_PACKAGES,
  hooksInstalled,
  httpRequest,
  MissingServerBinaryError,
  redisPing,
  ServerGroup,
  startEtcdCluster,
  startRedis,
  startSentinel,
  startZooKeeperEnsemble,
  tcpExchange,
  zkSrvr,
} from "../../real/servers/index.js";
import { isGone, until } from "../helpers/processes.js";

const here = dirname(fileURLToPath(import.meta.url));
const serversIndex = resolve(here, "../../real/servers/index.ts");
const suiteStart = Date.now();
const timings: string[] = [];

afterAll(() => {
  console.log(`real servers: ${timings.join(", ")}; wall time ${Date.now() - suiteStart} ms`);
});

function strictlyGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ESRCH";
  }
}

/** ps lines of live server processes tied to this run (by temp dir in args, or redis port). */
function leftovers(dir: string, redisPorts: number[] = []): string[] {
  const out = execFileSync("ps", ["-eo", "pid=,stat=,args="], { encoding: "utf8" });
  return out
    .split("\n")
    .filter((l) => !/^\s*\d+\s+Z/.test(l))
    .filter(
      (l) => l.includes(dir) || redisPorts.some((p) => l.includes(`redis-server ${"127.0.0.1"}:${p}`) || l.includes(`redis-sentinel ${"127.0.0.1"}:${p}`)),
    );
}

const resp = (port: number, cmd: string) => tcpExchange(port, cmd, (r) => r.endsWith("\r\n"), 2000);
const b64 = (s: string) => Buffer.from(s).toString("base64");

describe("real servers (Debian packages)", () => {
  it("redis + sentinel: PING, SET/GET over a raw socket; pause, crash-restart on the same data; stop leaves nothing", async () => {
    const t0 = Date.now();
    const group = new ServerGroup();
    let ports: number[];
    try {
      expect(hooksInstalled()).toBe(true);
      const redis = await startRedis(group, { aof: "always" });
      const sentinel = await startSentinel(group, { primary: redis });
      ports = [redis.port, sentinel.port];
      timings.push(`redis+sentinel ready ${Date.now() - t0} ms`);
      expect(leftovers(group.dir, ports).length).toBeGreaterThanOrEqual(2); // the ps check sees live servers
      expect(await resp(redis.port, "PING\r\n")).toBe("+PONG\r\n");
      expect(await resp(redis.port, "SET lockstep-key v1\r\n")).toBe("+OK\r\n");
      expect(await resp(redis.port, "GET lockstep-key\r\n")).toBe("$2\r\nv1\r\n");
      const master = await tcpExchange(sentinel.port, "SENTINEL get-master-addr-by-name mymaster\r\n", (r) => r.split("\r\n").length >= 5, 2000);
      expect(master).toContain(String(redis.port));

      await redis.process.pause();
      expect(redis.process.state).toBe("paused");
      expect(await redisPing(redis.port, 300)).toBe(false);
      redis.process.resume();
      expect(await redisPing(redis.port, 2000)).toBe(true);

      const firstPid = redis.process.pid!;
      const t1 = Date.now();
      await redis.process.restart();
      timings.push(`redis crash+restart ${Date.now() - t1} ms`);
      expect(strictlyGone(firstPid)).toBe(true);
      expect(redis.process.pid).not.toBe(firstPid);
      expect(await resp(redis.port, "GET lockstep-key\r\n")).toBe("$2\r\nv1\r\n");
    } finally {
      await group.stop();
    }
    for (const pid of group.pidsEver()) expect(strictlyGone(pid), `pid ${pid}`).toBe(true);
    expect(leftovers(group.dir, ports)).toEqual([]);
    expect(existsSync(group.dir)).toBe(false);
    expect(hooksInstalled()).toBe(false); // signal/exit hooks removed with the last live group
  });

  it("etcd: a 3-node cluster becomes healthy; put/get through the v3 JSON gateway; member restart; stop leaves nothing", async () => {
    const t0 = Date.now();
    const group = new ServerGroup();
    try {
      const etcd = await startEtcdCluster(group, { size: 3 });
      timings.push(`etcd x3 healthy ${Date.now() - t0} ms`);
      expect(leftovers(group.dir).filter((l) => /^\s*\d+\s+\S+\s+\S*etcd --name/.test(l)).length).toBe(3);
      const port = etcd.members[0]!.clientPort;
      const put = await httpRequest(port, "POST", "/v3/kv/put", JSON.stringify({ key: b64("lockstep/k"), value: b64("v1") }), 5000);
      expect(put.status).toBe(200);
      const other = etcd.members[2]!.clientPort;
      const got = await httpRequest(other, "POST", "/v3/kv/range", JSON.stringify({ key: b64("lockstep/k") }), 5000);
      const kvs = (JSON.parse(got.body) as { kvs?: { value: string }[] }).kvs ?? [];
      expect(kvs.map((kv) => Buffer.from(kv.value, "base64").toString())).toEqual(["v1"]);

      const t1 = Date.now();
      await etcd.members[1]!.process.restart();
      timings.push(`etcd member restart ${Date.now() - t1} ms`);
    } finally {
      await group.stop();
    }
    for (const pid of group.pidsEver()) expect(strictlyGone(pid), `pid ${pid}`).toBe(true);
    expect(leftovers(group.dir)).toEqual([]);
  });

  it("zookeeper: a 3-node ensemble answers srvr with one leader; stop leaves nothing", async () => {
    const t0 = Date.now();
    const group = new ServerGroup();
    try {
      const zk = await startZooKeeperEnsemble(group, { size: 3 });
      timings.push(`zookeeper x3 serving ${Date.now() - t0} ms`);
      expect(leftovers(group.dir).filter((l) => /^\s*\d+\s+\S+\s+\S*java /.test(l)).length).toBe(3);
      const modes = await Promise.all(zk.peers.map(async (p) => /^Mode: (\w+)$/m.exec(await zkSrvr(p.clientPort, 2000))?.[1]));
      expect(modes.filter((m) => m === "leader")).toHaveLength(1);
      expect(modes.filter((m) => m === "follower")).toHaveLength(2);
    } finally {
      await group.stop();
    }
    for (const pid of group.pidsEver()) expect(strictlyGone(pid), `pid ${pid}`).toBe(true);
    expect(leftovers(group.dir)).toEqual([]);
  });

  it("a server that cannot start fails fast with a named error carrying its last log lines", async () => {
    const group = new ServerGroup();
    try {
      await expect(startRedis(group, { extraArgs: ["--no-such-option", "1"] })).rejects.toThrow(
        expect.objectContaining({ name: "ServerExitedError", message: expect.stringMatching(/redis1[\s\S]*no-such-option/) }),
      );
    } finally {
      await group.stop();
    }
    for (const pid of group.pidsEver()) expect(strictlyGone(pid), `pid ${pid}`).toBe(true);
  });

  it("a missing package is one line naming the binary and the apt-get command", () => {
    const err = new MissingServerBinaryError("etcd", APT_PACKAGES.etcd);
    expect(err.message).toBe("etcd not found; install it: apt-get install -y --no-install-recommends etcd-server");
    expect(err.message).not.toContain("\n");
  });

  describe("a driver process that ends abnormally", () => {
    const scratch = mkdtempSync(join(tmpdir(), "lockstep-driver-test-"));
    afterAll(() => rmSync(scratch, { recursive: true, force: true }));

    // The driver starts a redis under its own ServerGroup, prints what it started, then idles.
    const driver = join(scratch, "driver.mts");
    writeFileSync(
      driver,
      [
        `import { ServerGroup, startRedis } from ${JSON.stringify(serversIndex)};`,
        `const group = new ServerGroup({ parentDir: ${JSON.stringify(scratch)} });`,
        `const redis = await startRedis(group);`,
        `console.log(JSON.stringify({ pids: group.pidsEver(), serverPid: redis.process.pid, port: redis.port, dir: group.dir }));`,
        `setInterval(() => {}, 60_000);`,
        "",
      ].join("\n"),
    );

    interface Started {
      pids: number[];
      serverPid: number;
      port: number;
      dir: string;
    }

    function startDriver(): Promise<{ child: ReturnType<typeof spawn>; info: Started; exited: Promise<number | null> }> {
      const child = spawn(process.execPath, ["--import", "tsx", driver], { cwd: resolve(here, "../.."), stdio: ["ignore", "pipe", "pipe"] });
      let stderr = "";
      child.stderr!.on("data", (c: Buffer) => (stderr += c.toString()));
      const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
      return new Promise((resolveStart, reject) => {
        let out = "";
        const timer = setTimeout(() => {
          child.kill("SIGKILL");
          reject(new Error(`driver did not report within 15 s; stderr: ${stderr}`));
        }, 15_000);
        child.stdout!.on("data", (c: Buffer) => {
          out += c.toString();
          const nl = out.indexOf("\n");
          if (nl >= 0) {
            clearTimeout(timer);
            resolveStart({ child, info: JSON.parse(out.slice(0, nl)) as Started, exited });
          }
        });
        void exited.then((code) => {
          clearTimeout(timer);
          reject(new Error(`driver exited early (${code}); stderr: ${stderr}`));
        });
      });
    }

    it("SIGKILL of the driver: the watchdog kills its redis-server within a bounded wait", async () => {
      const { child, info, exited } = await startDriver();
      expect(await redisPing(info.port, 1000)).toBe(true);
      const t0 = Date.now();
      child.kill("SIGKILL");
      await exited;
      await until("redis-server gone after driver SIGKILL", () => info.pids.every(isGone), 3000);
      timings.push(`watchdog cleanup after driver SIGKILL ${Date.now() - t0} ms`);
      await until("no leftover processes", () => leftovers(info.dir, [info.port]).length === 0, 2000);
      expect(await redisPing(info.port, 300)).toBe(false);
    });

    it("SIGINT of the driver: it stops its servers and exits 130", async () => {
      const { child, info, exited } = await startDriver();
      expect(await redisPing(info.port, 1000)).toBe(true);
      child.kill("SIGINT");
      const code = await Promise.race([exited, new Promise<string>((r) => setTimeout(() => r("timeout"), 8000))]);
      expect(code).toBe(130);
      for (const pid of info.pids) expect(isGone(pid), `pid ${pid}`).toBe(true);
      expect(strictlyGone(info.serverPid)).toBe(true);
      expect(leftovers(info.dir, [info.port])).toEqual([]);
      expect(existsSync(info.dir)).toBe(false);
    });
  });
});
