#!/usr/bin/env bash
# The crowd's cache misses per update on a simulated user's machine:
# valgrind's cachegrind with a 32 KiB 8-way L1d and a 16 MiB 16-way last
# level (the issue's Zen 2 desktop: its L3; cachegrind has two levels) on
# `stance bench --graph G --characters N --threads 1`, for N = 200, 1,000,
# 10,000, 50,000 and each CLI given. Each figure is the difference of two
# runs, 1 and 3 timed frames after the same warm-up, over 2 x N updates:
# loading, creating and warming cancel. Cachegrind does not simulate
# prefetch hints (`--prefetch 0` gives the same misses): these are the
# lines an update brings from memory, not how long it waits for them.
# The counts are deterministic (no timing, no other jobs): the proxy for the
# wall-time goal on this shared machine (docs/performance.md).
# Prints per update: instructions, D1 misses (reads + writes), LL misses
# (data + instruction), D1 misses over those at 200 characters and the
# bytes the LL misses bring from memory (64 a line), and the LL misses
# outside stance_instances_update's own loop: with a CLI built with
# -DSTANCE_PREFETCH_AS_LOAD (platform.h: the prefetch a load cachegrind
# simulates) those are the misses the prefetch does not cover, which an
# update waits for; with a normal build, all but the loop's own. With a BUILD_DIR
# (HOT_BUILD=dir) it also prints, from scripts/hot_lines.sh, the bytes of
# the instance, its poses and the workspace one update touches.
# usage: scripts/cache_sim.sh CLI [CLI2 ...]
#   SIZES (default "200 1000 10000 50000"), GRAPHS (default graphs/builtin.json graphs/robot.json),
#   BENCH_ARGS (extra `stance bench` arguments, e.g. "--prefetch 0"), D1, LL (cachegrind cache specs)
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: scripts/cache_sim.sh CLI [CLI2 ...]" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "cache_sim: valgrind is not installed" >&2; exit 1; }
sizes=${SIZES:-200 1000 10000 50000}
graphs=${GRAPHS:-graphs/builtin.json graphs/robot.json}
d1=${D1:-32768,8,64} ll=${LL:-16777216,16,64}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# the same frames at every size: WARM (default 3) warm-up frames, then timed
# frames 1 (run A) and 3 (run B): the updates of frames WARM+2 and WARM+3,
# so the mix of states (starts, switches) is the same and only the count of
# characters differs (more warm-up costs minutes a frame at 50,000 here)
frames_for() { echo "1 3 ${WARM:-3}"; }
# one cachegrind run: prints "Ir D1miss LLmiss"
run() { # CLI GRAPH N FRAMES WARM
  local out="$tmp/cg.$RANDOM"
  valgrind --tool=cachegrind --cache-sim=yes --D1="$d1" --LL="$ll" --cachegrind-out-file="$out" \
    "$1" bench --graph "$2" --characters "$3" --threads 1 --frames "$4" --warmup "$5" ${BENCH_ARGS:-} >/dev/null 2>&1
  # events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw; then the LL misses in
  # stance_instances_update (its loop and, inlined, the prefetch)
  awk '/^fn=/ { f = ($0 ~ /stance_instances_update$/) } f && /^[0-9]/ { at += $4 + $7 + $10 }
       /^summary:/ { print $2, $6 + $9, $4 + $7 + $10, at + 0 }' "$out"
  rm -f "$out"
}
echo "cachegrind D1 $d1, LL $ll; per update (difference of two runs)"
echo "| graph | cli | characters | instructions | D1 misses | LL misses | D1 x 200 | bytes from memory | LL misses outside the batch loop |"
echo "|---|---|---|---|---|---|---|---|---|"
for g in $graphs; do
  for cli in "$@"; do
    d1_200="" ll_200=""
    for n in $sizes; do
      read -r fa fb w <<<"$(frames_for "$n")"
      read -r ia da la pa <<<"$(run "$cli" "$g" "$n" "$fa" "$w")"
      read -r ib db lb pb <<<"$(run "$cli" "$g" "$n" "$fb" "$w")"
      u=$(( (fb - fa) * n ))
      line=$(python3 -c "
import sys
u=$u; i=($ib-$ia)/u; d=($db-$da)/u; l=($lb-$la)/u; p=($pb-$pa)/u
d0='$d1_200'; l0='$ll_200'
r1='%.2fx' % (d/float(d0)) if d0 else '1.00x'; r2='%.0f' % (64 * l)
print('%.0f %.1f %.2f %s %s %.2f' % (i, d, l, r1, r2, l - p))")
      read -r i d l r1 r2 un <<<"$line"
      if [ "$n" = 200 ]; then d1_200=$d ll_200=$l; fi
      echo "| $(basename "$g") | $cli | $n | $i | $d | $l | $r1 | $r2 | $un |"
    done
  done
done
if [ -n "${HOT_BUILD:-}" ]; then
  echo "bytes touched per update (valgrind lackey, scripts/hot_lines.sh $HOT_BUILD):"
  bash "$(dirname "${BASH_SOURCE[0]}")/hot_lines.sh" "$HOT_BUILD" $graphs
fi
