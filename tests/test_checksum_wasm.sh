#!/usr/bin/env bash
# tests/test_checksum_wasm.sh - tests/test_checksum.c compiled by emcc -O3 into
# WebAssembly, scalar and SIMD128 (-msimd128), run under node: the same
# committed checksums as the native builds (docs/determinism.md). The robot
# runs from graphs/robot.json compiled by the native CLI with exact keys
# (--error-cm 0, as scripts/cross_test.sh: robot_compiled; the wasm build
# reads no JSON). Skipped with a message when emcc or node is
# missing (make check installs them: scripts/lab_deps.sh) and in the
# sanitizer build (the Release build's run covers it).
set -euo pipefail
src=${STANCE_SOURCE:?} cli=${STANCE_CLI:?} build=${STANCE_BUILD:?}
if [ "${STANCE_SANITIZE:-OFF}" = ON ]; then
  echo "test_checksum_wasm: skipped in the sanitizer build (the Release build runs it)"; exit 0
fi
for tool in emcc node; do
  command -v $tool >/dev/null || { echo "test_checksum_wasm: SKIPPED: $tool is not installed (bash scripts/lab_deps.sh)"; exit 0; }
done
out=$build/wasm
mkdir -p "$out"
data=${STANCE_DATA:-$src/../shared/data}
graphs=
if [ -f "$data/robot_expressive/RobotExpressive.glb" ]; then
  (cd "$src" && "$cli" compile graphs/robot.json -o "$out/robot.stance" --error-cm 0) > /dev/null
  graphs=$out
else
  echo "test_checksum_wasm: $data/robot_expressive/RobotExpressive.glb is missing: the robot is skipped"
  [ "${CI:-}" != true ] || exit 1
fi
read -r -d "" -a sources < "$build/lab_sources.txt" || true
# node 18+ has fetch, which emscripten 3.1's loader then uses on a file path
nodeflags=
node --no-experimental-fetch -e 0 2>/dev/null && nodeflags=--no-experimental-fetch
status=0
for form in scalar simd128; do
  flags=
  [ $form = simd128 ] && flags=-msimd128
  (cd "$src" && NODE_PATH=/usr/share/nodejs emcc -std=c11 -O3 -fno-math-errno -ffp-contract=off $flags \
     -Wall -Wextra -Werror -Iinclude -Isrc -Itests -DSTANCE_NO_GRAPHFILE -DSTANCE_SOURCE_DIR="\"$src\"" \
     "${sources[@]}" tests/test_checksum.c -sNODERAWFS=1 -sALLOW_MEMORY_GROWTH=1 -sEXIT_RUNTIME=1 \
     --pre-js tests/node_env.js -o "$out/test_checksum_$form.js")
  if log=$(STANCE_COMPILED_GRAPHS=$graphs node $nodeflags "$out/test_checksum_$form.js" 2>&1); then
    echo "wasm $form: $(grep -E 'checksums x' <<<"$log")"
  else
    echo "wasm $form: FAILED"; echo "$log"; status=1
  fi
  [ -z "$graphs" ] || grep -q '^ok   test_robot_compiled' <<<"$log" || { echo "wasm $form: the robot did not run"; status=1; }
done
exit $status
