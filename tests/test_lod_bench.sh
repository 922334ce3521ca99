#!/usr/bin/env bash
# stance bench --budget-ms (docs/lod.md): the plan given with --costs (the
# same on any machine), every character at rate 4, the skipped frames
# measured against full-rate twins of every character. References: the
# bench's own full-rate twins; what must hold whatever the timing:
#  - extrapolated: the update frames equal the twins (the controller
#    advances exactly on the skipped frames);
#  - ahead and ahead-stepped: less error on the skipped frames than
#    extrapolated, worst and mean; the calm measure at most the issue's;
#  - error-aware (--lod-guard-cm 0.1 with ahead): the frames it updates
#    off the plan equal the twins, and the skipped frames left have less
#    error, worst and mean, than ahead alone (the twins again the reference);
#  - the frame in batches of 64 (--lod-batch 1, the default) and one
#    character at a time (0) give the same figures (the same calls per
#    character), shown for all or for those on screen (the error is
#    measured for every twin either way);
#  - the error in pixels (twins on screen): above 0, over fewer joint
#    samples than the issue's measure, and no more than the worst cm error
#    times the pixels a metre spans at the nearest character (1080 px high,
#    60 degree vertical view; the spiral of docs/lod.md computed here);
#  - bad --lod-pose / --pop-cm / --lod-guard-cm values, ahead with summed
#    steps and a guard without ahead refused with one line.
src=${STANCE_SOURCE:?}
. "$src/tests/graph_errors.bash" # cli, tmp, bad(), fail
set +e                             # the refusals below are expected
passed=0
expect() { # expect STATUS OUT CMD...: exit status, one stderr line when refused
  local want=$1 out=$2; shift 2
  "$@" > "$out" 2> "$tmp/err"; local got=$?
  if [ "$got" -ne "$want" ]; then bad "$* exited $got, wanted $want"; cat "$tmp/err"; return; fi
  if [ "$want" -ne 0 ] && [ "$(wc -l < "$tmp/err")" -ne 1 ]; then bad "$*: wanted one line on stderr"; cat "$tmp/err"; return; fi
  passed=$((passed + 1))
}
lod=(bench --graph "$src/graphs/builtin.json" --characters 60 --threads 1 --frames 240 --budget-ms 0.01 --max-rate 4
     --costs 1.5,0.3 --json)
for p in extrapolate ahead ahead-stepped; do expect 0 "$tmp/$p.json" "$cli" "${lod[@]}" --lod-pose $p; done
expect 0 "$tmp/guard.json" "$cli" "${lod[@]}" --lod-pose ahead --lod-guard-cm 0.1
for b in 0 1; do for sh in all screen; do expect 0 "$tmp/batch$b$sh.json" "$cli" "${lod[@]}" --lod-batch $b --show $sh; done; done
"$py" - "$tmp" <<'EOF' && passed=$((passed + 1)) || bad "error checks"
import json, sys
d = {p: json.load(open(f"{sys.argv[1]}/{p}.json")) for p in ("extrapolate", "ahead", "ahead-stepped")}
x = d["extrapolate"]
assert x["share"] == {"4": 1.0} and x["twins"] == 60 and x["pose"] == "extrapolate", x
assert x["updated_cm_worst"] == 0.0, x["updated_cm_worst"]
for p in ("ahead", "ahead-stepped"):
    a = d[p]
    assert a["pose"] == p and a["share"] == {"4": 1.0}
    assert a["joint_samples"] == x["joint_samples"]
    assert a["error_cm_mean"] < 0.6 * x["error_cm_mean"], (p, a["error_cm_mean"], x["error_cm_mean"])
    assert a["error_cm_worst"] < x["error_cm_worst"], (p, a["error_cm_worst"], x["error_cm_worst"])
for a in d.values():
    assert 0 < a["calm_samples"] < a["joint_samples"] and a["pop_frames"] > 0
    assert a["calm_cm_worst"] <= a["error_cm_worst"]
g, a = json.load(open(f"{sys.argv[1]}/guard.json")), d["ahead"]
assert g["guard_cm"] == 0.1 and g["share"] == {"4": 1.0} and a["guard_cm"] == 0.0 and a["forced_per_frame"] == 0.0
assert 0.0 < g["forced_share"] < 1.0 and g["forced_cm_worst"] == 0.0, g
assert g["error_cm_worst"] < a["error_cm_worst"] and g["error_cm_mean"] < a["error_cm_mean"], (g, a)
keys = ("error_cm_worst", "error_cm_mean", "late_cm_worst", "late_cm_mean", "updated_cm_worst", "calm_cm_mean", "joint_samples",
        "error_px_worst", "error_px_mean", "px_samples", "updates_per_frame")
b = {k: json.load(open(f"{sys.argv[1]}/batch{k}.json")) for k in ("0all", "1all", "0screen", "1screen")}
for k, v in b.items():
    assert all(v[q] == x[q] for q in keys), (k, [(q, v[q], x[q]) for q in keys if v[q] != x[q]])
# pixels: the characters on a golden-angle spiral of radius 100 m, the eye at (0, 1.7, 0)
import math
n = x["characters"]
near = min(math.dist((100 * math.sqrt((i + 0.5) / n) * math.cos(2.39996322972865332 * i), 0.9,
                      100 * math.sqrt((i + 0.5) / n) * math.sin(2.39996322972865332 * i)), (0.0, 1.7, 0.0)) for i in range(n))
px_per_m = 1080 / (2 * near * math.tan(math.radians(30)))
assert x["screen_px"] == 1080 and x["fov_y_deg"] == 60.0
assert 0 < x["px_samples"] < x["joint_samples"] and x["error_px_worst"] > 0 and x["error_px_mean"] > 0, x
assert x["error_px_worst"] <= x["error_cm_worst"] / 100 * px_per_m * 1.0001, (x["error_px_worst"], x["error_cm_worst"], px_per_m)
print("  batches of 64 and one at a time, shown all or on screen: the same figures; in pixels %.3f / %.4f px (%d samples on screen)"
      % (x["error_px_worst"], x["error_px_mean"], x["px_samples"]))
print("  error-aware, 0.1 cm: %.1f %% of character-frames updated off the plan, skipped frames %.3f / %.4f cm"
      % (100 * g["forced_share"], g["error_cm_worst"], g["error_cm_mean"]))
print("  rate 4, 60 characters: extrapolated %.3f / %.4f cm, ahead %.3f / %.4f cm, ahead-stepped %.3f / %.4f cm (worst / mean)"
      % tuple(v for p in ("extrapolate", "ahead", "ahead-stepped") for v in (d[p]["error_cm_worst"], d[p]["error_cm_mean"])))
EOF
expect 2 "$tmp/out" "$cli" "${lod[@]}" --lod-pose sideways
expect 2 "$tmp/out" "$cli" "${lod[@]}" --pop-cm 0
expect 2 "$tmp/out" "$cli" "${lod[@]}" --lod-pose ahead --lod-guard-cm 0
expect 2 "$tmp/out" "$cli" "${lod[@]}" --lod-guard-cm 1
expect 2 "$tmp/out" "$cli" "${lod[@]}" --lod-pose ahead --lod-step summed
expect 2 "$tmp/out" "$cli" bench --graph "$src/graphs/builtin.json" --lod-pose ahead
echo "test_lod_bench: $passed passed$([ "$fail" -eq 0 ] || echo ", some failed")"
[ "$fail" -eq 0 ]
