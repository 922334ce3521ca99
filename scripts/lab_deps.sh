#!/usr/bin/env bash
# Installs what the animation lab needs, if any of it is missing:
#   Debian: emscripten (emcc, to build build-lab/), chromium (the browser tests), dpkg-dev (apt-get source
#           of jansson, scripts/lab_jansson.sh),
#           libtinygltf-dev and nlohmann-json3-dev (headers of the in-page glTF import)
#   npm:    playwright-core, into lab/node_modules (pinned by lab/package.json)
# As root it runs apt-get; otherwise it prints the exact command and stops.
# No browser is downloaded: the tests drive Debian's /usr/bin/chromium.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
pkgs=(emscripten chromium python3 libtinygltf-dev nlohmann-json3-dev dpkg-dev)
command -v node >/dev/null || pkgs+=(nodejs)
command -v npm >/dev/null || pkgs+=(npm)
bash "$here/scripts/deps.sh" "${pkgs[@]}"
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "stance lab: the browser tests need node and npm (Debian: nodejs npm)" >&2
  exit 1
fi
if [ ! -f "$here/lab/node_modules/playwright-core/package.json" ]; then
  echo "stance lab: installing playwright-core into lab/node_modules"
  # --ignore-scripts: playwright-core has no install step, and no browser is fetched
  (cd "$here/lab" && npm install --no-audit --no-fund --ignore-scripts)
fi
