#!/usr/bin/env bash
# Only the public API leaves a shared stance library (issue 24 item 7):
# `nm -D --defined-only` of every shared library the build made (libstance,
# libstance_build, libstance_lesson, libstance_io) lists stance_* symbols
# and nothing else (-fvisibility=hidden, STANCE_API, cmake/exports.map);
# every function the public headers declare (include/stance,
# include/stance_lesson) is exported by one of them; and each library
# resolves all its symbols against the others (ldd -r: nothing undefined).
set -euo pipefail
build=${STANCE_BUILD:?}
src=${STANCE_SOURCE:?}
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok   $1"; }
bad() { failed=$((failed + 1)); echo "FAIL $1"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
libs=()
for name in stance stance_build stance_lesson stance_io; do
  so="$build/lib$name.so"
  if [ -f "$so" ]; then libs+=("$so"); else bad "lib$name.so was not built ($so)"; fi
done
: > "$tmp/exported"
for so in "${libs[@]}"; do
  nm -D --defined-only "$so" | awk 'NF >= 3 {print $3}' > "$tmp/syms"
  n=$(wc -l < "$tmp/syms")
  others=$(grep -v '^stance_' "$tmp/syms" || true)
  if [ "$n" -gt 0 ] && [ -z "$others" ]; then ok "$(basename "$so"): $n symbols, all stance_*"
  else bad "$(basename "$so"): $n symbols; not stance_*: $(echo $others | head -c 400)"; fi
  cat "$tmp/syms" >> "$tmp/exported"
  und=$(cd "$build" && LD_LIBRARY_PATH="$build" ldd -r "$so" 2>&1 | grep -i 'undefined symbol' || true)
  [ -z "$und" ] && ok "$(basename "$so"): every symbol resolves (ldd -r)" || bad "$(basename "$so"): $(echo "$und" | head -3)"
done
# every declared function is exported (STANCE_API on each, the right library built)
python3 - "$src" > "$tmp/declared" <<'PY'
import glob, os, re, sys
src = sys.argv[1]
for path in sorted(glob.glob(os.path.join(src, 'include/stance/*.h')) + glob.glob(os.path.join(src, 'include/stance_lesson/*.h'))):
    text = re.sub(r'/\*.*?\*/', ' ', open(path).read(), flags=re.S)
    for m in re.finditer(r'^STANCE_API\b[^;(]*?\b(stance_\w+)\s*\(', text, flags=re.M):
        print(m.group(1))
PY
nd=$(sort -u "$tmp/declared" | wc -l)
missing=$(sort -u "$tmp/declared" | comm -23 - <(sort -u "$tmp/exported") | tr '\n' ' ')
if [ "$nd" -gt 150 ] && [ -z "$missing" ]; then ok "all $nd declared functions are exported"
else bad "$nd declared; not exported: $missing"; fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
