#!/usr/bin/env bash
# The crowd on 1 thread at 200 / 1,000 / 10,000 / 50,000 characters, two
# builds interleaved run by run (which goes first alternates), both graphs:
# us per update (`stance bench --graph G --characters N --threads 1 --json`:
# us_per_update_cpu, the thread's CPU time of the median frame over N; on a
# loaded machine a frame longer than a time slice also waits for other jobs
# in its wall time, us_per_update_per_core, given too), then the medians
# over the runs, the ratio of 10,000 to 200, the CPU, its caches and the load.
# usage: scripts/crowd_scale.sh OLD_CLI NEW_CLI [RUNS]
#   SIZES (default "200 1000 10000 50000"), GRAPHS (default graphs/builtin.json graphs/robot.json)
set -euo pipefail
old=$1 new=$2 runs=${3:-5}
sizes=${SIZES:-200 1000 10000 50000}
graphs=${GRAPHS:-graphs/builtin.json graphs/robot.json}
frames_for() { # about 120,000 timed updates, at least 20 frames
  local f=$(( 120000 / $1 )); [ $f -ge 20 ] || f=20; echo $f; }
warm_for() { # 60 warm-up frames, or 10 past 6,000 characters
  if [ "$1" -gt 6000 ]; then echo 10; else echo 60; fi; }
out=$(mktemp)
trap 'rm -f "$out"' EXIT
loads=()
for r in $(seq "$runs"); do
  loads+=("$(cut -d' ' -f1 /proc/loadavg)")
  for g in $graphs; do
    for n in $sizes; do
      if [ $(( r % 2 )) -eq 1 ]; then order="old new"; else order="new old"; fi
      for which in $order; do
        cli=$old; [ "$which" = new ] && cli=$new
        js=$("$cli" bench --graph "$g" --characters "$n" --threads 1 --frames "$(frames_for "$n")" --warmup "$(warm_for "$n")" --json)
        cpu=$(echo "$js" | sed -E 's/.*"us_per_update_cpu":([0-9.]+).*/\1/')
        wall=$(echo "$js" | sed -E 's/.*"us_per_update_per_core":([0-9.]+).*/\1/')
        echo "$which $g $n $r $cpu $wall" >> "$out"
      done
    done
  done
done
loads+=("$(cut -d' ' -f1 /proc/loadavg)")
python3 - "$out" "$sizes" "$graphs" <<'PY'
import sys, statistics
rows = [l.split() for l in open(sys.argv[1])]
sizes = sys.argv[2].split(); graphs = sys.argv[3].split()
for col, name in ((4, "CPU time"), (5, "wall time")):
    print("us per update, %s (median of the runs):" % name)
    print("| graph | build | " + " | ".join("%s" % s for s in sizes) + " | 10,000 / 200 |")
    print("|---|---|" + "---|" * (len(sizes) + 1))
    for g in graphs:
        for w in ("old", "new"):
            med = {}
            for n in sizes:
                v = [float(r[col]) for r in rows if r[0] == w and r[1] == g and r[2] == n]
                med[n] = statistics.median(v) if v else float("nan")
            ratio = med["10000"] / med["200"] if "10000" in med and "200" in med else float("nan")
            print("| %s | %s | %s | %.2fx |" % (g.split("/")[-1], w, " | ".join("%.3f" % med[n] for n in sizes), ratio))
print("runs (us per update, CPU time, each run):")
for g in graphs:
    for n in sizes:
        for w in ("old", "new"):
            v = [r[4] for r in rows if r[0] == w and r[1] == g and r[2] == n]
            print("  %s %s %s: %s" % (g.split("/")[-1], n, w, " ".join(v)))
PY
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores;" \
     "L1d $(( $(getconf LEVEL1_DCACHE_SIZE) / 1024 )) KiB, L2 $(( $(getconf LEVEL2_CACHE_SIZE) / 1024 )) KiB," \
     "L3 $(( $(getconf LEVEL3_CACHE_SIZE) / 1048576 )) MiB (as the VM reports them)"
echo "load (1-minute) at the start of each run and at the end: ${loads[*]}"
