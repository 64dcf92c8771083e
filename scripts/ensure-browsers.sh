#!/usr/bin/env bash
# Make sure Debian's chromium and firefox-esr are installed for the browser tests
# (test/reports/browser.test.ts, playground.test.ts, firefox.test.ts).
# Idempotent: does nothing when both exist; otherwise apt-get update + install of what is
# missing, and fails loudly if a browser still cannot be found or does not run.
set -euo pipefail
declare -A BINARY=([chromium]=/usr/bin/chromium [firefox-esr]=/usr/bin/firefox-esr)
MISSING=()
for pkg in chromium firefox-esr; do
  [ -x "${BINARY[$pkg]}" ] || MISSING+=("$pkg")
done
if [ ${#MISSING[@]} -gt 0 ]; then
  echo "ensure-browsers: installing Debian's ${MISSING[*]}" >&2
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
      echo "ensure-browsers: not root and no sudo; install them yourself (apt-get install -y ${MISSING[*]})" >&2
      exit 1
    fi
  fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update || { echo "ensure-browsers: apt-get update failed" >&2; exit 1; }
  $SUDO apt-get install -y --no-install-recommends "${MISSING[@]}" ||
    { echo "ensure-browsers: apt-get install ${MISSING[*]} failed" >&2; exit 1; }
fi
for pkg in chromium firefox-esr; do
  bin=${BINARY[$pkg]}
  [ -x "$bin" ] || { echo "ensure-browsers: $pkg installed but $bin is not there" >&2; exit 1; }
  "$bin" --version >&2 || { echo "ensure-browsers: $bin does not run" >&2; exit 1; }
done
