#!/usr/bin/env bash
# Make sure Debian's chromium and firefox-esr are installed for the browser tests
# (test/reports/browser.test.ts, playground.test.ts, firefox.test.ts).
# Idempotent: does nothing when both exist; otherwise installs what is missing
# (scripts/apt-install.sh), and fails loudly if a browser still cannot be found or does not run.
set -euo pipefail
declare -A BINARY=([chromium]=/usr/bin/chromium [firefox-esr]=/usr/bin/firefox-esr)
MISSING=()
for pkg in chromium firefox-esr; do
  [ -x "${BINARY[$pkg]}" ] || MISSING+=("$pkg")
done
if [ ${#MISSING[@]} -gt 0 ]; then
  echo "ensure-browsers: installing Debian's ${MISSING[*]}" >&2
  source "$(dirname "${BASH_SOURCE[0]}")/apt-install.sh"
  apt_install ensure-browsers "${MISSING[@]}"
fi
for pkg in chromium firefox-esr; do
  bin=${BINARY[$pkg]}
  [ -x "$bin" ] || { echo "ensure-browsers: $pkg installed but $bin is not there" >&2; exit 1; }
  "$bin" --version >&2 || { echo "ensure-browsers: $bin does not run" >&2; exit 1; }
done
