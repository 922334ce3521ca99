#!/usr/bin/env bash
# Instructions per character update of the reference workload, counted by
# callgrind (stable on noisy machines): every call of workload_frame (the
# full update of all characters: stance_clip_sample_blend2, local-to-model)
# is counted, divided by calls x characters; workload_frame_separate (the
# specification's separate calls: sample x2, blend, local-to-model) and
# each separate pass likewise.
# usage: scripts/callgrind.sh [path/to/stance] [joints...]
set -euo pipefail
cli=${1:-build/stance}
shift || true
joints=${*:-64 256}
command -v valgrind >/dev/null || { echo "callgrind: valgrind is not installed (apt-get install valgrind)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chars=1000 frames=2
for j in $joints; do
  valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.$j" \
    "$cli" bench --joints "$j" --characters $chars --frames $frames > /dev/null 2> "$tmp/log.$j"
  # inclusive cost of each function: the full update, and each pass on its own
  callgrind_annotate --inclusive=yes "$tmp/cg.$j" > "$tmp/ann.$j" 2>/dev/null
  cost() { grep -E "[:\ ]$1 " "$tmp/ann.$j" | head -1 | awk '{gsub(",", "", $1); print $1}'; }
  ir=$(cost workload_frame); isep=$(cost workload_frame_separate); is=$(cost workload_pass_sample); ib=$(cost workload_pass_blend); il=$(cost workload_pass_l2m)
  calls=$(( 10 + 5 * frames )) pcalls=$(( 5 * frames ))
  echo "J=$j: $(( ir / (calls * chars) )) instructions per character update ($ir over $calls frames x $chars characters);" \
       "separate calls $(( isep / (pcalls * chars) ));" \
       "passes: sample x2 $(( is / (pcalls * chars) )), blend $(( ib / (pcalls * chars) )), local-to-model $(( il / (pcalls * chars) ))"
done
# The crowd workload (the real path): instructions per character update of
# stance bench --graph, steady state (the timed frames after the warm-up), 1 thread.
graphs=${STANCE_CROWD_GRAPHS:-graphs/builtin.json graphs/robot.json}
cchars=200 cframes=30
for g in $graphs; do
  [ -f "$g" ] || continue
  out="$tmp/cg.crowd.$(basename "$g")"
  valgrind --tool=callgrind --callgrind-out-file="$out" --toggle-collect=crowd_frame_timed \
    "$cli" bench --graph "$g" --characters $cchars --threads 1 --frames $cframes > /dev/null 2> "$tmp/log.crowd"
  ir=$(grep -E '^summary:' "$out" | awk '{print $2}')
  echo "crowd $g: $(( ir / (cframes * cchars) )) instructions per character update ($ir over $cframes frames x $cchars characters)"
done
