#!/usr/bin/env bash
# The lab's crowd update + skinning cost per frame under node (no browser, no
# drawing): scripts/lab_crowd_node.c with the runtime, builder, lesson
# library and lab/*.c, compiled as `make lab` compiles them.
# usage: scripts/lab_crowd_node.sh [SOURCE_DIR [BUILD_DIR [EMCC_FLAGS...]]]
#   SOURCE_DIR  a stance tree (default: this one); another tree measures it the same way
#   BUILD_DIR   its CMake build with lab_sources.txt (default: SOURCE_DIR/build)
#   EMCC_FLAGS  default: the Makefile's -O2 -fno-math-errno -ffp-contract=off -msimd128
# RUNS (default 5) runs; each prints its line, then the CPU and the load.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
src=$(cd "${1:-$here}" && pwd)
build=${2:-$src/build}
shift $(( $# < 2 ? $# : 2 ))
flags=("$@")
[ ${#flags[@]} -gt 0 ] || flags=(-O2 -fno-math-errno -ffp-contract=off -msimd128)
[ -s "$build/lab_sources.txt" ] || { echo "lab_crowd_node: $build/lab_sources.txt is missing (cmake writes it)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
read -r -d "" -a sources < "$build/lab_sources.txt" || true
(cd "$src" && NODE_PATH=/usr/share/nodejs emcc -std=c11 "${flags[@]}" -Iinclude -Isrc -Ilab "${sources[@]}" lab/*.c \
   "$here/scripts/lab_crowd_node.c" -sENVIRONMENT=node -sALLOW_MEMORY_GROWTH=1 -o "$tmp/crowd.js")
nodeflags=
node --no-experimental-fetch -e 0 2>/dev/null && nodeflags=--no-experimental-fetch
for r in $(seq "${RUNS:-5}"); do node $nodeflags "$tmp/crowd.js"; done
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg); flags ${flags[*]}"
