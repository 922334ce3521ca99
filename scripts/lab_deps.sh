#!/usr/bin/env bash
# Installs what the animation lab needs, if any of it is missing:
#   Debian: emscripten (emcc, to build build-lab/), chromium (the browser tests)
#   npm:    playwright-core, into lab/node_modules (pinned by lab/package.json)
# As root it runs apt-get; otherwise it prints the exact command and stops.
# No browser is downloaded: the tests drive Debian's /usr/bin/chromium.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
pkgs=(emscripten chromium python3)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
command -v node >/dev/null || missing+=(nodejs)
command -v npm >/dev/null || missing+=(npm)
if [ ${#missing[@]} -gt 0 ]; then
  cmd="apt-get install -y --no-install-recommends ${missing[*]}"
  if [ "$(id -u)" -ne 0 ]; then
    echo "stance lab: needs these Debian packages: ${missing[*]}" >&2
    echo "run:  sudo apt-get update && sudo $cmd" >&2
    exit 1
  fi
  echo "stance lab: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  $cmd
fi
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "stance lab: the browser tests need node and npm (Debian: nodejs npm)" >&2
  exit 1
fi
if [ ! -f "$here/lab/node_modules/playwright-core/package.json" ]; then
  echo "stance lab: installing playwright-core into lab/node_modules"
  # --ignore-scripts: playwright-core has no install step, and no browser is fetched
  (cd "$here/lab" && npm install --no-audit --no-fund --ignore-scripts)
fi
