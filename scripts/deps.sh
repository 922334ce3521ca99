#!/usr/bin/env bash
# Installs Debian packages if any is missing: the ones named on the command
# line, or with none named, those the tests need (scripts/cross_test.sh
# passes its own list: mingw-w64 wine wine64, or qemu-user
# gcc-aarch64-linux-gnu libc6-dev-arm64-cross). As root it runs apt-get;
# otherwise it prints the exact command and stops.
set -euo pipefail
if [ $# -gt 0 ]; then pkgs=("$@"); else
  # libtsan2: gcc's ThreadSanitizer runtime (make test-tsan, part of make check)
  pkgs=(cmake make gcc pkg-config libassimp-dev libtinygltf-dev assimp-testmodels libjansson-dev valgrind python3 python3-jsonschema g++ clang libtsan2)
fi
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
cmd="apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
  echo "stance: the tests need these Debian packages: ${missing[*]}" >&2
  echo "run:  sudo apt-get update && sudo $cmd" >&2
  exit 1
fi
echo "stance: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
$cmd
