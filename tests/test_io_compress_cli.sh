#!/usr/bin/env bash
# tests/test_io_compress_cli.sh - the compression options of the CLI:
# `stance import` compresses by default (info: compressed, stored < raw, the
# largest error within 0.01 cm), --error-cm 0 writes the exact clips (bytes
# as before: a second import is identical and samples like the source),
# a .stance FILE is copied as stored unless --error-cm is given, a coarser
# --error-cm stores less; bad values are usage errors (exit 2);
# the compressor's working memory counts against --max-memory;
# `stance bench --clips` reports every clip. The error bound itself is
# re-measured independently by tests/test_io_compress.c.
#
# Env: STANCE_CLI, STANCE_DATA.
set -u
cli=${STANCE_CLI:?}
data=${STANCE_DATA:-../shared/data}
src="$data/robot_expressive/RobotExpressive.glb"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
ok() { passed=$((passed + 1)); }
bad() { echo "FAIL: $*"; failed=$((failed + 1)); }
if [ ! -f "$src" ]; then
    echo "missing $src: skipped"
    [ "${CI:-}" = true ] && exit 1
    exit 0
fi
sum() { # sum FILE FIELD [info args]: the clips' total of FIELD (max for max_error_cm)
    "$cli" info "$1" --json "${@:3}" 2>/dev/null | python3 -c "
import json,sys; c=json.load(sys.stdin)['clips']; v=[x['$2'] for x in c]
print(max(v) if '$2'=='max_error_cm' else (all(v) if '$2'=='compressed' else sum(v)))"
}
"$cli" import "$src" -o "$tmp/z.stance" >/dev/null 2>&1 && ok || bad "default import failed"
"$cli" import "$src" --error-cm 0 -o "$tmp/x.stance" >/dev/null 2>&1 && ok || bad "exact import failed"
"$cli" import "$src" --error-cm 0.1 -o "$tmp/c.stance" >/dev/null 2>&1 && ok || bad "0.1 cm import failed"
[ "$(sum "$tmp/z.stance" compressed)" = True ] && ok || bad "default import is not compressed"
[ "$(sum "$tmp/x.stance" compressed)" = False ] && ok || bad "--error-cm 0 is compressed"
zs=$(sum "$tmp/z.stance" stored_bytes) xs=$(sum "$tmp/x.stance" stored_bytes) cs=$(sum "$tmp/c.stance" stored_bytes)
raw=$(sum "$tmp/z.stance" raw_bytes)
[ "$raw" = "$(sum "$tmp/x.stance" raw_bytes)" ] && [ "$raw" -gt 0 ] && ok || bad "raw bytes differ"
[ "$zs" -le 78904 ] && [ "$zs" -lt "$xs" ] && [ "$cs" -lt "$zs" ] && ok || bad "stored bytes: default $zs, exact $xs, 0.1 cm $cs"
python3 -c "import sys; e=float('$(sum "$tmp/z.stance" max_error_cm)'); sys.exit(not (0 < e <= 0.01))" && ok || bad "max_error_cm out of (0, 0.01]"
python3 -c "import sys; e=float('$(sum "$tmp/c.stance" max_error_cm)'); sys.exit(not (0.01 < e <= 0.1))" && ok || bad "0.1 cm: max_error_cm out of (0.01, 0.1]"
[ "$(sum "$tmp/x.stance" max_error_cm)" = 0.0 ] || [ "$(sum "$tmp/x.stance" max_error_cm)" = 0 ] && ok || bad "exact clips report an error"
# the error in other units: metres read as centimetres report 1/100
python3 -c "import sys; a=float('$(sum "$tmp/z.stance" max_error_cm --unit-cm 1)'); b=float('$(sum "$tmp/z.stance" max_error_cm)'); sys.exit(not abs(a * 100 - b) <= 1e-6 * b)" && ok || bad "--unit-cm"
# a .stance input is copied as stored; --error-cm compresses it
"$cli" import "$tmp/x.stance" -o "$tmp/x2.stance" >/dev/null 2>&1 && cmp -s "$tmp/x.stance" "$tmp/x2.stance" && ok || bad "exact .stance not copied as stored"
"$cli" import "$tmp/z.stance" -o "$tmp/z2.stance" >/dev/null 2>&1 && cmp -s "$tmp/z.stance" "$tmp/z2.stance" && ok || bad "compressed .stance not copied as stored"
"$cli" import "$tmp/x.stance" --error-cm 0.01 -o "$tmp/z3.stance" >/dev/null 2>&1 && cmp -s "$tmp/z.stance" "$tmp/z3.stance" && ok || bad "compressing the exact .stance differs from compressing on import"
for a in "--error-cm -1" "--error-cm x" "--vertex-cm 0" "--unit-cm 0" "--error-cm"; do
    # shellcheck disable=SC2086 # two words
    "$cli" import "$src" $a -o "$tmp/bad.stance" >/dev/null 2>&1
    [ $? -eq 2 ] && ok || bad "import $a: wanted exit 2"
done
# the compressor's working memory counts against --max-memory: a clear error
"$cli" import "$src" --max-memory 2M -o "$tmp/m.stance" >/dev/null 2>"$tmp/m.err"
[ $? -eq 1 ] && grep -q "working memory, over the budget of 2.0 MB" "$tmp/m.err" && ok || bad "--max-memory 2M: $(cat "$tmp/m.err")"
n=$("$cli" bench --clips "$tmp/z.stance" --json 2>/dev/null | python3 -c "import json,sys; d=json.load(sys.stdin); print(sum(1 for c in d['clips'] if c['compressed'] and c['sample_ns'] > 0))")
[ "$n" = 14 ] && ok || bad "bench --clips: $n compressed clips timed, wanted 14"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
