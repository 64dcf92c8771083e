// What a real run tells the user about itself: a server whose port another process took
// (between lockstep's choice and the bind) moved to a fresh one, and results.json, the
// report and the terminal say so; a single run (`--runs 1`) records the machine's load as a
// batch does; a batch stopped by a server that would not start says why in one line, without
// a dangling "last log lines:". The port is taken on purpose: freePort hands the run's
// redis-server a port this test holds, once. One real run (a redis-server, two clients) at
// a time; the fake redis-server below starts nothing.
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it, vi } from "vitest";
import { main } from "../../cli/main.js";
import type { RealRunRecord } from "../../real/index.js";
import { captureStdio } from "../helpers/capture-stdio.js";
import { hangBoundMs } from "../helpers/hang-bound.js";

const taken = vi.hoisted(() => ({ next: 0 }));
vi.mock("../../real/servers/ports.js", async (importOriginal) => {
  const ports = await importOriginal<typeof import("../../real/servers/ports.js")>();
  return {
    ...ports,
    freePort: async () => {
      const p = taken.next;
      taken.next = 0;
      return p > 0 ? p : ports.freePort();
    },
  };
});

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "../..");
const scratch = mkdtempSync(join(tmpdir(), "lockstep-real-reporting-test-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const io = captureStdio();

/** A process listening on a free loopback port, as another program that took it would. */
function occupyPort(): Promise<{ port: number; server: Server }> {
  return new Promise((ok, fail) => {
    const server = createServer((s) => s.destroy());
    server.once("error", fail);
    server.listen({ host: "127.0.0.1", port: 0 }, () => ok({ port: (server.address() as { port: number }).port, server }));
  });
}

describe("real mode reports what happened to the run itself", () => {
  it(
    "a port taken before redis-server bound it: the move is in results.json, the report and the terminal; --runs 1 records the load",
    async () => {
      const { port, server } = await occupyPort();
      taken.next = port;
      const out = join(scratch, "moved");
      try {
        const code = await main(["real", "naive-baseline", "--runs", "1", "--time-scale", "0.2", "--out", out]);
        expect(code, io.err).toBe(0);
      } finally {
        server.close();
      }
      const record = JSON.parse(readFileSync(join(out, "results.json"), "utf8")) as RealRunRecord;
      const redis = record.real.servers[0]!;
      expect(redis.portMoves).toEqual([{ fromPorts: [port], toPorts: [redis.port] }]);
      expect(redis.port).not.toBe(port);
      const line = `redis-1 could not bind 127.0.0.1:${port} (another process took it after lockstep chose it) and started on 127.0.0.1:${redis.port}`;
      expect(io.out).toContain(`  port moved: ${line}`);
      expect(readFileSync(join(out, "report.html"), "utf8")).toContain(`Port moved: ${line}.`);

      // A single run records the load as a batch's summary.json does, and says it.
      expect(record.real.load.cores).toBeGreaterThan(0);
      const l = record.real.load.oneMinute;
      expect(l.min).toBeLessThanOrEqual(l.mean);
      expect(l.mean).toBeLessThanOrEqual(l.max);
      expect(io.out).toMatch(/outcome: safe .*; wall [\d.]+ s at load [\d.]+(–[\d.]+ \(mean [\d.]+\))? on \d+ cores,/);
      expect(readFileSync(join(out, "report.html"), "utf8")).toMatch(/s wall time at load [\d.]+/);
    },
    hangBoundMs(300_000),
  );

  it(
    'a batch stopped by a server that would not start: one reason line, no dangling "last log lines:"',
    () => {
      // A redis-server that answers --version as 7.0.15 does and exits at once otherwise.
      const bin = join(scratch, "bin");
      mkdirSync(bin);
      const fake = join(bin, "redis-server");
      writeFileSync(
        fake,
        `#!/bin/sh\nif [ "$1" = "--version" ]; then echo "Redis server v=7.0.15 sha=00000000:0 malloc=jemalloc-5.3.0 bits=64 build=0"; exit 0; fi\necho "fake redis-server: cannot start" >&2\nexit 1\n`,
      );
      chmodSync(fake, 0o755);
      const out = join(scratch, "stopped");
      const r = spawnSync(process.execPath, ["--import", "tsx", join(here, "../helpers/cli-child.ts"), "real", "naive-baseline", "--runs", "2", "--out", out], {
        cwd: root,
        encoding: "utf8",
        env: { ...process.env, PATH: `${bin}:${process.env.PATH ?? ""}` },
      });
      expect(r.status, r.stderr).toBe(1);
      const stopLine = r.stderr.split("\n").find((l) => l.startsWith("lockstep real: run 1/2 failed: "));
      expect(stopLine, r.stderr).toMatch(
        /^lockstep real: run 1\/2 failed: redis-1 \(redis-server :\d+\) exited \(code 1\) before it was ready; summary\.json for the 0 finished run\(s\)$/,
      );
      // The log lines themselves are printed, under the error, once.
      expect(r.stderr).toContain("fake redis-server: cannot start");
      const summary = JSON.parse(readFileSync(join(out, "summary.json"), "utf8")) as { stoppedBy: { run: number; reason: string } };
      expect(summary.stoppedBy.run).toBe(1);
      expect(summary.stoppedBy.reason).toMatch(/^failed: redis-1 \(redis-server :\d+\) exited \(code 1\) before it was ready$/);
    },
    hangBoundMs(120_000),
  );
});
