// Where the Debian packages put the servers, and the one-line hint when one is missing.
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";
import { MissingServerBinaryError } from "./errors.js";

/** Binary (or jar) → the Debian package that provides it. */
export const APT_PACKAGES = {
  "redis-server": "redis-server",
  "redis-sentinel": "redis-sentinel",
  "redis-check-aof": "redis-tools",
  etcd: "etcd-server",
  java: "default-jre-headless",
  "/usr/share/java/zookeeper.jar": "zookeeper",
} as const;

export type RequiredBinary = keyof typeof APT_PACKAGES;

export const ZOOKEEPER_JAR = "/usr/share/java/zookeeper.jar";
/** Optional: an SLF4J binding so ZooKeeper logs to stderr (package libslf4j-java, a zookeeper dependency). */
export const SLF4J_SIMPLE_JAR = "/usr/share/java/slf4j-simple.jar";

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export function isReadable(path: string): boolean {
  try {
    accessSync(path, constants.R_OK);
    return true;
  } catch {
    return false;
  }
}

/** Absolute path of `binary` on PATH, or a MissingServerBinaryError naming the apt package. */
export function findBinary(binary: RequiredBinary): string {
  if (binary.startsWith("/")) {
    if (isReadable(binary)) return binary;
    throw new MissingServerBinaryError(binary, APT_PACKAGES[binary]);
  }
  const dirs = (process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin").split(delimiter);
  for (const dir of [...dirs, "/usr/sbin", "/usr/bin"]) {
    if (dir === "") continue;
    const candidate = join(dir, binary);
    if (isExecutable(candidate)) return candidate;
  }
  throw new MissingServerBinaryError(binary, APT_PACKAGES[binary]);
}
