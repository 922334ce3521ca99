#!/usr/bin/env bash
# Instructions and last-level cache misses per character-frame of the LOD
# crowd (scripts/lod_cache.c: everyone at rate 8), under callgrind's cache
# simulator with a 16 MB last level (as the issue's Zen 2 L3; 32 KB L1s): a proxy for
# the memory traffic, deterministic on any machine and load (valgrind's
# model, not the CPU's counters). Prints the command and the figures.
# usage: scripts/lod_cache.sh [BUILD_DIR]   env: GRAPH (graphs/builtin.json), CHARACTERS (10000),
#   SETTLE (16), FRAMES (8), SHOW (all|screen|none: all), BATCH (1|0: 1)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build=$(cd "${1:-$here/build}" && pwd)
command -v valgrind >/dev/null || { echo "lod_cache: valgrind is not installed" >&2; exit 1; }
g=${GRAPH:-graphs/builtin.json} n=${CHARACTERS:-10000} settle=${SETTLE:-16} frames=${FRAMES:-8} show=${SHOW:-all} batch=${BATCH:-1}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
libs=()
for l in stance_io stance_lesson stance_build stance; do libs+=("$build/lib$l.a"); done
(cd "$here" && ${CC:-cc} -std=c11 -O2 -g -Iinclude -Isrc -Itools scripts/lod_cache.c tools/crowd.c tools/tool_graph.c \
   "${libs[@]}" $(pkg-config --libs jansson tinygltf assimp 2>/dev/null || echo -ljansson -ltinygltf -lassimp) -lstdc++ -lpthread -lm -o "$tmp/lod_cache")
cmd="valgrind --tool=callgrind --cache-sim=yes --I1=32768,8,64 --D1=32768,8,64 --LL=16777216,16,64 --toggle-collect=crowd_frame_timed lod_cache $g $n $settle $frames $show $batch"
echo "$cmd"
(cd "$here" && valgrind --tool=callgrind --cache-sim=yes --I1=32768,8,64 --D1=32768,8,64 --LL=16777216,16,64 --toggle-collect=crowd_frame_timed \
   --callgrind-out-file="$tmp/cg.out" "$tmp/lod_cache" "$g" "$n" "$settle" "$frames" "$show" "$batch" 2>/dev/null)
callgrind_annotate "$tmp/cg.out" 2>/dev/null | awk -v cf=$((n * frames)) '
  /^Events recorded:/ { for (i = 3; i <= NF; i++) ev[i - 2] = $i; ne = NF - 2 }
  /PROGRAM TOTALS/ && !done { k = 0; for (i = 1; i <= NF && $i != "PROGRAM"; i++) if ($i !~ /^\(/) { x = $i; gsub(",", "", x); v[ev[++k]] = x == "." ? 0 : x }; done = 1 }
  END { printf "per character-frame: %.1f instructions, %.2f data reads, %.2f data writes, LL misses %.3f (reads %.3f, writes %.3f), L1 data misses %.2f\n",
        v["Ir"] / cf, v["Dr"] / cf, v["Dw"] / cf, (v["ILmr"] + v["DLmr"] + v["DLmw"]) / cf, v["DLmr"] / cf, v["DLmw"] / cf, (v["D1mr"] + v["D1mw"]) / cf }'
