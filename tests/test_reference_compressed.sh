#!/usr/bin/env bash
# tests/test_reference_compressed.sh - test_reference (the fast copy of the
# frame, the SSE2-forced one and the reference, bit for bit) on
# graphs/builtin.json and graphs/robot.json compiled by the CLI as it
# compiles by default: compressed clips (tests/test_reference.c alone runs the
# graph files' exact keys). A compressed clip's constant tracks once kept a
# -0 of the source that the fused additive kept and the reference's apply
# turned into +0 (clip_packed_create.c). Compiles into a temporary directory
# and runs the C test with STANCE_COMPILED_GRAPHS; robot.json only with
# ../shared/data's RobotExpressive (test_reference skips it without, and
# fails then in CI).
set -euo pipefail
src=${STANCE_SOURCE:?} cli=${STANCE_CLI:?} build=${STANCE_BUILD:?}
data=${STANCE_DATA:-$src/../shared/data}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
graphs=(builtin)
[ -f "$data/robot_expressive/RobotExpressive.glb" ] && graphs+=(robot)
for g in "${graphs[@]}"; do
  log=$(cd "$src" && "$cli" compile "graphs/$g.json" -o "$tmp/$g.stance")
  echo "$log"
  # the point of the test: the clips are compressed
  grep -Eq ', [1-9][0-9]* compressed' <<<"$log" || { echo "test_reference_compressed: $g.json: no compressed clip"; exit 1; }
done
out=$(cd "$build/tests" && STANCE_DATA=$data STANCE_COMPILED_GRAPHS=$tmp ./test_reference 2>&1) || { echo "$out"; exit 1; }
echo "$out"
grep -q 'ok   test_builtin_json' <<<"$out"
grep -q 'ok   test_robot_json' <<<"$out"
