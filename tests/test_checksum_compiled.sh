#!/usr/bin/env bash
# tests/test_checksum_compiled.sh - test_checksum on graphs/robot.json compiled
# by the CLI with exact keys (--error-cm 0, as scripts/cross_test.sh compiles
# it: the "robot_compiled" checksums, the ones builds without jansson - wine,
# qemu, node - check): compiles it into a temporary directory and runs
# the C test with STANCE_COMPILED_GRAPHS. Skipped (with a message) without
# ../shared/data's RobotExpressive; failing then in CI.
set -euo pipefail
src=${STANCE_SOURCE:?} cli=${STANCE_CLI:?} build=${STANCE_BUILD:?}
data=${STANCE_DATA:-$src/../shared/data}
if [ ! -f "$data/robot_expressive/RobotExpressive.glb" ]; then
  echo "test_checksum_compiled: $data/robot_expressive/RobotExpressive.glb is missing: skipped"
  [ "${CI:-}" != true ] || exit 1
  exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$src" && "$cli" compile graphs/robot.json -o "$tmp/robot.stance" --error-cm 0) > /dev/null
out=$(STANCE_COMPILED_GRAPHS=$tmp "$build/tests/test_checksum" 2>&1) || { echo "$out"; exit 1; }
echo "$out"
grep -q 'ok   test_robot_compiled' <<<"$out"
