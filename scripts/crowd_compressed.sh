#!/usr/bin/env bash
# The robot.json crowd with compressed clips on 1 thread at 200 and 10,000
# characters, two builds interleaved run by run (which goes first
# alternates): us per update (`stance bench --graph graphs/robot.json
# --asset ASSET --characters N --threads 1 --json`: us_per_update_cpu, the
# thread's CPU time of the median frame over N), each run's pair and the
# 1-minute load, then the medians (docs/performance.md, issue 29 item 2).
# usage: scripts/crowd_compressed.sh OLD_CLI NEW_CLI ASSET [RUNS]
#   ASSET: a compressed .stance of RobotExpressive (`stance import
#   RobotExpressive.glb -o re.stance`); SIZES (default "200 10000")
set -euo pipefail
old=$1 new=$2 asset=$3 runs=${4:-5}
sizes=${SIZES:-200 10000}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for r in $(seq "$runs"); do
  for n in $sizes; do
    f=$(( 120000 / n )); [ $f -ge 20 ] || f=20
    w=60; [ "$n" -gt 6000 ] && w=10
    if [ $(( r % 2 )) -eq 1 ]; then order="old new"; else order="new old"; fi
    for which in $order; do
      cli=$old; [ "$which" = new ] && cli=$new
      js=$("$cli" bench --graph graphs/robot.json --asset "$asset" --characters "$n" --threads 1 --frames "$f" --warmup "$w" --json)
      cpu=$(echo "$js" | sed -E 's/.*"us_per_update_cpu":([0-9.]+).*/\1/')
      echo "$which $n $r $cpu $(cut -d' ' -f1 /proc/loadavg)" | tee -a "$out"
    done
  done
done
python3 - "$out" <<'PY'
import sys, statistics
rows = [l.split() for l in open(sys.argv[1])]
for n in sorted({int(r[1]) for r in rows}):
    o = [float(r[3]) for r in rows if r[0] == 'old' and int(r[1]) == n]
    w = [float(r[3]) for r in rows if r[0] == 'new' and int(r[1]) == n]
    print(f"{n} characters: old {statistics.median(o):.3f} us, new {statistics.median(w):.3f} us per update (medians of {len(o)})")
PY
