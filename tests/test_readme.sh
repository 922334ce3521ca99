#!/usr/bin/env bash
# The README's API examples compile as written against the installed copy:
# every ```c block of its "The API in a few examples" section is a whole
# program; each is built with -Wall -Wextra -Werror against the installed
# headers and libraries only (pkg-config stance-io stance-lesson) and run from the source
# directory. anim_ids.h and bullet_waste.stance are made with the installed
# `stance` command, as the README says.
set -euo pipefail
build=${STANCE_BUILD:?}
src=${STANCE_SOURCE:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" > "$tmp/install.log"
san=""
[ "${STANCE_SANITIZE:-OFF}" = "ON" ] && san="-fsanitize=address,undefined"
awk -v dir="$tmp" '
  /^## / { in_section = ($0 == "## The API in a few examples") }
  in_section && /^```c$/ { n++; file = sprintf("%s/readme_%d.c", dir, n); inside = 1; next }
  inside && /^```$/ { inside = 0; close(file); next }
  inside { print > file }
' "$src/README.md"
count=$(ls "$tmp"/readme_*.c 2>/dev/null | wc -l)
[ "$count" -ge 3 ] || { echo "FAIL: found $count C examples in the README's API section, expected at least 3"; exit 1; }
pcdir=$(ls -d "$tmp"/prefix/lib*/pkgconfig | head -1)
export PKG_CONFIG_PATH="$pcdir" LD_LIBRARY_PATH="$(dirname "$pcdir")"
mkdir -p "$tmp/gen" "$tmp/run"
"$tmp/prefix/bin/stance" gen-header "$src/graphs/bullet_waste.json" > "$tmp/gen/anim_ids.h"
passed=0 failed=0
for c in "$tmp"/readme_*.c; do
  name=$(basename "$c" .c)
  # only installed headers: stance's own includes must name stance/ or stance_lesson/<header> that the install has
  for h in $(sed -n 's/^#include [<"]\(stance\(_lesson\)\{0,1\}\/[^>"]*\)[>"].*/\1/p' "$c"); do
    [ -f "$tmp/prefix/include/$h" ] || { echo "FAIL $name includes $h, which is not installed"; failed=$((failed + 1)); continue 2; }
  done
  if ! cc $san -std=c11 -Wall -Wextra -Werror -I"$tmp/gen" "$c" $(pkg-config --cflags --libs stance-io stance-lesson) -o "$tmp/$name" 2> "$tmp/$name.log"; then
    cat "$tmp/$name.log"; echo "FAIL $name does not build"; failed=$((failed + 1)); continue
  fi
  # run in a copy of the layout the examples name (graphs/ and the compiled graph)
  rm -rf "$tmp/run" && mkdir -p "$tmp/run" && cp -r "$src/graphs" "$tmp/run/"
  "$tmp/prefix/bin/stance" compile "$src/graphs/bullet_waste.json" -o "$tmp/run/bullet_waste.stance" > /dev/null
  if out=$(cd "$tmp/run" && "$tmp/$name" 2>&1); then passed=$((passed + 1)); echo "ok   $name: $out" | head -3
  else echo "$out"; echo "FAIL $name exits non-zero"; failed=$((failed + 1)); fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
