#!/usr/bin/env bash
# scripts/simde_compare.sh - simd.h's hand-written NEON form against Debian's
# libsimde-dev (SIMDE_ENABLE_NATIVE_ALIASES: the SSE2 form's intrinsics
# translated to NEON): the hot files compiled for ARM64 at -O3 both ways,
# instructions per function (objdump -d), the functions that differ and the
# totals. docs/platforms.md has the figures. Needs gcc-aarch64-linux-gnu,
# binutils-aarch64-linux-gnu and libsimde-dev.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/inc"
printf '#define SIMDE_ENABLE_NATIVE_ALIASES\n#include <simde/x86/sse2.h>\n' >"$tmp/inc/emmintrin.h"
count() {
  aarch64-linux-gnu-objdump -d --no-show-raw-insn "$1" | awk '/^[0-9a-f]+ <.*>:$/ {fn=$2; gsub(/[<>:]/,"",fn); next}
    /^ +[0-9a-f]+:\t/ {n[fn]++} END {for (f in n) print f, n[f]}' | sort
}
printf '%-34s %8s %8s\n' function neon simde
for f in src/core/rig/local_to_model.c src/core/clip/fused.c src/core/rig/pose.c src/core/frame/evaluate.c; do
  b=$(basename "$f" .c)
  aarch64-linux-gnu-gcc -std=c11 -O3 -fno-math-errno -Iinclude -Isrc -c "$f" -o "$tmp/$b.neon.o"
  aarch64-linux-gnu-gcc -std=c11 -O3 -fno-math-errno -Iinclude -Isrc -I"$tmp/inc" -D__SSE2__ -c "$f" -o "$tmp/$b.simde.o"
  join <(count "$tmp/$b.neon.o") <(count "$tmp/$b.simde.o") | awk -v file="$b" '{t1 += $2; t2 += $3; if ($2 != $3) printf "%-34s %8d %8d\n", $1, $2, $3}
    END {printf "%-34s %8d %8d\n", file ".c (all)", t1, t2}'
done
echo "fused multiply-adds in the NEON objects: $(for o in "$tmp"/*.neon.o; do aarch64-linux-gnu-objdump -d "$o"; done | grep -cE '\s(fmla|fmls|fmadd|fmsub|fnmadd|fnmsub)\s' || true)"
