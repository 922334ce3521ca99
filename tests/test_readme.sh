#!/usr/bin/env bash
# The README's API examples compile as written against the installed copy:
# every ```c block of its "The API in a few examples" section is a whole
# program; each is built with -Wall -Wextra -Werror against the installed
# headers and libraries only (pkg-config stance-io stance-lesson) and run from the source
# directory. anim_ids.h and bullet_waste.stance are made with the installed
# `stance` command, as the README says. The quick start's program is built
# against the runtime alone (pkg-config stance) and run where the quick
# start's two commands (import, compile) wrote robot.stance from ../shared/data.
set -euo pipefail
build=${STANCE_BUILD:?}
src=${STANCE_SOURCE:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" > "$tmp/install.log"
san=""
[ "${STANCE_SANITIZE:-OFF}" = "ON" ] && san="-fsanitize=address,undefined"
awk -v dir="$tmp" '
  /^## / { in_section = ($0 == "## The API in a few examples"); in_quick = ($0 == "## Quick start") }
  in_quick && /^```c$/ { q++; file = sprintf("%s/quick_%d.c", dir, q); inside = 1; next }
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
# the quick start: its commands as printed (import, compile), its program on libstance alone
[ "$(ls "$tmp"/quick_*.c 2>/dev/null | wc -l)" = 1 ] || { echo "FAIL: the README's quick start should hold one C program"; exit 1; }
data="$src/../shared/data/robot_expressive/RobotExpressive.glb"
if [ -f "$data" ]; then
  mkdir -p "$tmp/quick/graphs" && cp "$src"/graphs/robot.json "$tmp/quick/graphs/"
  # the commands the quick start prints, with the data's path as seen from the copy
  sed -n '/^## Quick start/,/^## /p' "$src/README.md" | grep '^build/stance \(import\|compile\)' | sed 's/ *#.*//' \
    | sed "s|^build/stance|\"$tmp/prefix/bin/stance\"|; s|\.\./shared/data|$src/../shared/data|" > "$tmp/quick/commands.sh"
  [ "$(wc -l < "$tmp/quick/commands.sh")" = 2 ] || { cat "$tmp/quick/commands.sh"; echo "FAIL: the quick start's import and compile commands"; exit 1; }
  sed -i 's|"\.\./\.\./shared/data|"'"$src"'/../shared/data|' "$tmp/quick/graphs/robot.json"
  if ! (cd "$tmp/quick" && bash commands.sh > commands.log 2>&1); then cat "$tmp/quick/commands.log"; echo "FAIL quick start commands"; failed=$((failed + 1));
  elif ! cc $san -std=c11 -Wall -Wextra -Werror "$tmp/quick_1.c" $(pkg-config --cflags --libs stance) -o "$tmp/quick_bin" 2> "$tmp/quick.log"; then
    cat "$tmp/quick.log"; echo "FAIL the quick start's program does not build on libstance alone"; failed=$((failed + 1))
  elif out=$(cd "$tmp/quick" && "$tmp/quick_bin" 2>&1) && [[ "$out" == "Move after 2 s, 43 skinning matrices" ]]; then
    passed=$((passed + 1)); echo "ok   quick start: $out"  # speed 4 is past Idle->Move (graphs/robot.json), 43 joints per skin
  else echo "$out"; echo "FAIL the quick start's program exits non-zero or prints something else"; failed=$((failed + 1)); fi
else
  echo "SKIP quick start: $data is absent (CI has it: ../shared/data)"
fi
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
