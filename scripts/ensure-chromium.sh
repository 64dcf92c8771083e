#!/usr/bin/env bash
# Make sure Debian's chromium is installed for the browser test (test/reports/browser.test.ts).
# Idempotent: does nothing when /usr/bin/chromium exists; otherwise apt-get update + install,
# and fails loudly if chromium still cannot be found.
set -euo pipefail
CHROMIUM=/usr/bin/chromium
if [ -x "$CHROMIUM" ]; then
  exit 0
fi
echo "ensure-chromium: $CHROMIUM is missing; installing Debian's chromium package" >&2
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    echo "ensure-chromium: not root and no sudo; install chromium yourself (apt-get install -y chromium)" >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
if ! $SUDO apt-get update; then
  echo "ensure-chromium: apt-get update failed" >&2
  exit 1
fi
if ! $SUDO apt-get install -y --no-install-recommends chromium; then
  echo "ensure-chromium: apt-get install chromium failed" >&2
  exit 1
fi
if [ ! -x "$CHROMIUM" ]; then
  echo "ensure-chromium: chromium installed but $CHROMIUM is not there" >&2
  exit 1
fi
"$CHROMIUM" --version >&2 || { echo "ensure-chromium: $CHROMIUM does not run" >&2; exit 1; }
