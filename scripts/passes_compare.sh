#!/usr/bin/env bash
# The reference workload's passes (bench/WORKLOAD.md: sample x2, blend,
# local-to-model; `stance bench --joints J --characters 1000 --json`, each
# run itself the median of 5 repetitions) at J=64 and J=256, two builds
# interleaved run by run (which goes first alternates); medians over the
# runs in ns per character, the CPU, its caches and the load.
# usage: scripts/passes_compare.sh OLD_CLI NEW_CLI [RUNS]
set -euo pipefail
old=$1 new=$2 runs=${3:-7}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
loads=()
for r in $(seq "$runs"); do
  loads+=("$(cut -d' ' -f1 /proc/loadavg)")
  for j in 64 256; do
    if [ $(( r % 2 )) -eq 1 ]; then order="old new"; else order="new old"; fi
    for which in $order; do
      cli=$old; [ "$which" = new ] && cli=$new
      echo "$which $j $("$cli" bench --joints "$j" --characters 1000 --json)" >> "$out"
    done
  done
done
loads+=("$(cut -d' ' -f1 /proc/loadavg)")
python3 - "$out" <<'PY'
import sys, json, statistics
rows = []
for l in open(sys.argv[1]):
    w, j, js = l.split(" ", 2)
    rows.append((w, int(j), json.loads(js)))
keys = ["update_ns", "sample_ns", "blend_ns", "local_to_model_ns"]
print("| J | build | full update | sample x2 | blend | local-to-model | check |")
print("|---|---|---|---|---|---|---|")
for j in (64, 256):
    for w in ("old", "new"):
        rs = [r[2] for r in rows if r[0] == w and r[1] == j]
        print("| %d | %s | %s | %.2f |" % (j, w, " | ".join("%.0f ns" % statistics.median([r[k] for r in rs]) for k in keys), rs[0]["check"]))
PY
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores;" \
     "L1d $(( $(getconf LEVEL1_DCACHE_SIZE) / 1024 )) KiB, L2 $(( $(getconf LEVEL2_CACHE_SIZE) / 1024 )) KiB," \
     "L3 $(( $(getconf LEVEL3_CACHE_SIZE) / 1048576 )) MiB (as the VM reports them)"
echo "load (1-minute) at the start of each run and at the end: ${loads[*]}"
