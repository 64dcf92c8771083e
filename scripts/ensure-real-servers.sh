#!/usr/bin/env bash
# Make sure the Debian packages real mode starts (real/servers/) are installed:
# redis-server, redis-sentinel, redis-tools, etcd-server, etcd-client, zookeeper (+ Java), faketime and libfaketime
# (the preload library real/faketime.ts puts client processes under), GNU parallel (the
# README's recipe for sharded sweeps, run by test/gnu-parallel.test.ts), and python3-redis
# (redis-py, whose Lock examples/python-redis-py/driver.py drives through the lock-driver protocol).
# Idempotent: does nothing when every binary is there; otherwise apt-get install (apt-get update
# first only when the package lists are missing or the install fails without it), and fails
# loudly if something still cannot be found.
set -euo pipefail
# binary-or-file:package
NEEDED=(
  "redis-server:redis-server"
  "redis-sentinel:redis-sentinel"
  "redis-cli:redis-tools"
  "etcd:etcd-server"
  "etcdctl:etcd-client"
  "java:zookeeper"
  "/usr/share/java/zookeeper.jar:zookeeper"
  "faketime:faketime"
  "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1:libfaketime"
  "parallel:parallel"
  "/usr/lib/python3/dist-packages/redis/lock.py:python3-redis"
)
have() {
  case "$1" in
    /*) [ -r "$1" ] ;;
    *) command -v "$1" >/dev/null 2>&1 ;;
  esac
}
missing_pkgs=()
for entry in "${NEEDED[@]}"; do
  bin=${entry%%:*}
  pkg=${entry##*:}
  if ! have "$bin"; then
    echo "ensure-real-servers: $bin is missing (package $pkg)" >&2
    case " ${missing_pkgs[*]-} " in *" $pkg "*) ;; *) missing_pkgs+=("$pkg") ;; esac
  fi
done
if [ "${#missing_pkgs[@]}" -eq 0 ]; then
  exit 0
fi
source "$(dirname "${BASH_SOURCE[0]}")/apt-install.sh"
apt_install ensure-real-servers "${missing_pkgs[@]}"
for entry in "${NEEDED[@]}"; do
  bin=${entry%%:*}
  if ! have "$bin"; then
    echo "ensure-real-servers: ${entry##*:} installed but $bin is still missing" >&2
    exit 1
  fi
done
