#!/usr/bin/env bash
# tests/check_circles.sh - no circle of files in src/ (issue 23): the graph of
# #include lines and of symbols one object uses that another defines (nm),
# checked by tests/check_circles.py against its list of known circles.
# First the checker itself on a planted tree: a circle of calls through a
# header and a circle of includes must be found, a tree without one passes.
set -euo pipefail
src=${STANCE_SOURCE:-$(cd "$(dirname "$0")/.." && pwd)}
build=${STANCE_BUILD:-$src/build}
command -v nm >/dev/null || { echo "check_circles: nm is not installed (binutils)" >&2; exit 1; }
command -v cc >/dev/null || { echo "check_circles: no C compiler (cc)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

plant() { # plant DIR: src/x/{a,b,c}.c and their objects as CMake lays them out
  local d=$1
  mkdir -p "$d/src/x" "$d/build/CMakeFiles/t.dir/src/x"
  for f in a b c; do cc -c "$d/src/x/$f.c" -I"$d/src" -o "$d/build/CMakeFiles/t.dir/src/x/$f.c.o"; done
}
# the checker on DIR must fail and name the loop LOOP
expect_circle() {
  local d=$1 loop=$2 out
  plant "$d"
  if out=$(python3 "$src/tests/check_circles.py" "$d" "$d/build"); then
    echo "check_circles: the circle planted in $d was not found:"; echo "$out"; exit 1
  fi
  grep -qF "$loop" <<<"$out" || { echo "check_circles: the circle planted in $d was not named ($loop):"; echo "$out"; exit 1; }
}
# a calls b, b calls a (through b.h): a circle of calls
mkdir -p "$tmp/calls/src/x"
printf 'int b(int);\n' > "$tmp/calls/src/x/b.h"
printf '#include "x/b.h"\nint a(int n) { return n ? b(n - 1) : 0; }\n' > "$tmp/calls/src/x/a.c"
printf 'int a(int);\nint b(int n) { return n ? a(n - 1) : 1; }\n' > "$tmp/calls/src/x/b.c"
printf 'int c(void) { return 2; }\n' > "$tmp/calls/src/x/c.c"
expect_circle "$tmp/calls" "CIRCLE of 2 files: x/a.c (calls b) -> x/b.c (calls a) -> x/a.c"
# two headers that include each other: a circle of includes
mkdir -p "$tmp/incl/src/x"
printf '#ifndef P_H\n#define P_H\n#include "x/q.h"\n#endif\n' > "$tmp/incl/src/x/p.h"
printf '#ifndef Q_H\n#define Q_H\n#include "x/p.h"\n#endif\n' > "$tmp/incl/src/x/q.h"
for f in a b c; do printf '#include "x/p.h"\nint %s(void) { return 0; }\n' $f > "$tmp/incl/src/x/$f.c"; done
expect_circle "$tmp/incl" "CIRCLE of 2 files: x/p.h (includes it) -> x/q.h (includes it) -> x/p.h"
# a calls b, b calls c: no circle
mkdir -p "$tmp/none/src/x"
printf 'int b(void);\nint a(void) { return b(); }\n' > "$tmp/none/src/x/a.c"
printf 'int c(void);\nint b(void) { return c(); }\n' > "$tmp/none/src/x/b.c"
printf 'int c(void) { return 3; }\n' > "$tmp/none/src/x/c.c"
plant "$tmp/none"
python3 "$src/tests/check_circles.py" "$tmp/none" "$tmp/none/build" > "$tmp/none.out" ||
  { echo "check_circles: a tree without a circle failed:"; cat "$tmp/none.out"; exit 1; }
# core/frame calls core/rig: the layers' order; core/rig calls core/frame: against it (no circle of files)
mkdir -p "$tmp/layer/src/core/rig" "$tmp/layer/src/core/frame" "$tmp/layer/build/CMakeFiles/t.dir/src/core/rig" "$tmp/layer/build/CMakeFiles/t.dir/src/core/frame"
printf 'int r2(void);\nint f1(void) { return r2(); }\n' > "$tmp/layer/src/core/frame/f.c"
printf 'int r2(void) { return 1; }\n' > "$tmp/layer/src/core/rig/r2.c"
printf 'int f3(void);\nint r1(void) { return f3(); }\n' > "$tmp/layer/src/core/rig/r1.c"
printf 'int f3(void) { return 3; }\n' > "$tmp/layer/src/core/frame/f3.c"
for f in frame/f frame/f3 rig/r1 rig/r2; do cc -c "$tmp/layer/src/core/$f.c" -o "$tmp/layer/build/CMakeFiles/t.dir/src/core/$f.c.o"; done
if out=$(python3 "$src/tests/check_circles.py" "$tmp/layer" "$tmp/layer/build"); then
  echo "check_circles: the use against the layers planted in $tmp/layer was not found:"; echo "$out"; exit 1
fi
grep -qF "LAYER: core/rig/r1.c (rig) uses core/frame/f3.c (frame, a later layer): calls f3" <<<"$out" ||
  { echo "check_circles: the planted use against the layers was not named:"; echo "$out"; exit 1; }
! grep -q "core/frame/f.c (frame) uses" <<<"$out" || { echo "check_circles: a use down the layers was refused:"; echo "$out"; exit 1; }
echo "check_circles: the checker finds a planted circle of calls and of includes and a use against src/core's layers, and passes a tree without one"

exec python3 "$src/tests/check_circles.py" "$src" "$build"
