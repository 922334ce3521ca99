#!/usr/bin/env bash
# Curves from the command line (issue 26): broken graph files give one
# FILE:LINE:COLUMN message each, at the offending token (found by the test
# in the text), with a suggestion where one exists: an unknown curve in a
# layer's weight, in a condition and in a blend space's position, keys out of
# order, a key past the clip's end, a value outside a float's range, a
# binding naming both a parameter and a curve, a weight bound on the base
# layer. Then graphs/robot_curves.json (every new key) passes `stance
# graph-check` on RobotExpressive; `stance compile` carries its curves:
# `stance info --json` of the compiled file lists the file's keys (compared
# as float32 by python) and the curve ids; `stance gen-header` names them.
# The schema side is tests/test_schema.sh (every graphs/*.json).
src=${STANCE_SOURCE:?}
. "$src/tests/graph_errors.bash" # cli, data, tmp, bad, py; check_broken, robot_compile

# ---- the broken files (the built-in asset: no data needed) ----
write() { # name, base layer's extra keys, the wave layer's weight, a condition, the blend space's param, the curves
  cat > "$tmp/$1.json" <<JSON
{
  "version": 1,
  "asset": "builtin",
  "params": [{"name": "speed", "type": "float", "damping": 0.1}],
  "machines": [
    {"name": "Locomotion", "states": [{"name": "Idle", "clip": "idle"},
      {"name": "Move", "blend1d": {"param": $5, "entries": [{"clip": "walk", "x": 0}, {"clip": "run", "x": 1}]}}],
     "transitions": [{"from": "Idle", "to": "Move", "when": [$4]}]},
    {"name": "Waving", "states": [{"name": "Wave", "clip": "wave"}]}
  ],
  "layers": [{"name": "base", "machine": "Locomotion"$2},
             {"name": "wave", "machine": "Waving", "weight": $3}],
  "clips": {"wave": {"curves": {$6}}, "walk": {"curves": {"Stride": [[0, 0], [0.2, 1]]}}}
}
JSON
}
ok_curve='"WaveWeight": [[0, 0], [0.3, 1], [0.6, 0]]'
ok_cond='{"param": "speed", "op": ">=", "value": 0.1}'
write good '' '{"curve": "WaveWeight"}' "$ok_cond" '{"curve": "Stride"}' "$ok_curve"
"$cli" graph-check "$tmp/good.json" > "$tmp/out" 2> "$tmp/err" || bad "the good file: $(cat "$tmp/err")"
write unknown_weight '' '{"curve": "WaveWieght"}' "$ok_cond" '"speed"' "$ok_curve"
write unknown_condition '' '0.5' '{"curve": "Strid", "op": ">", "value": 0.5}' '"speed"' "$ok_curve"
write unknown_blend '' '0.5' "$ok_cond" '{"curve": "stride"}' "$ok_curve"
write key_order '' '0.5' "$ok_cond" '"speed"' '"WaveWeight": [[0, 0], [0.3, 1], [0.25, 0]]'
write key_past '' '0.5' "$ok_cond" '"speed"' '"WaveWeight": [[0, 0], [99.5, 1]]'
write key_huge '' '0.5' "$ok_cond" '"speed"' '"WaveWeight": [[0, 0], [0.3, 1e39]]'
write both '' '{"param": "speed", "curve": "WaveWeight"}' "$ok_cond" '"speed"' "$ok_curve"
write base_bound ', "weight": {"curve": "WaveWeight"}' '0.5' "$ok_cond" '"speed"' "$ok_curve"
check_broken unknown_weight '"WaveWieght"' "unknown curve 'WaveWieght' (did you mean 'WaveWeight'?)"
check_broken unknown_condition '"Strid"' "unknown curve 'Strid' (did you mean 'Stride'?)"
check_broken unknown_blend '"stride"' "unknown curve 'stride' (did you mean 'Stride'?)"
check_broken key_order '0.25' 'times must increase'
check_broken key_past '99.5' "outside clip 'wave'"
check_broken key_huge '1e39' 'not a finite float'
check_broken both '{"param": "speed", "curve"' 'one of them'
check_broken base_bound '{"curve": "WaveWeight"}' 'its weight is always 1'

# ---- RobotExpressive: graph-check, compile, info --json, gen-header ----
if robot_compile robot_curves; then
  "$cli" gen-header "$tmp/r.stance" > "$tmp/ids.h" 2> /dev/null || bad "gen-header"
  grep -q "ANIM_CURVE_WAVEWEIGHT = " "$tmp/ids.h" || bad "gen-header: no ANIM_CURVE_WAVEWEIGHT"
  "$py" - "$src/graphs/robot_curves.json" "$tmp/info.json" <<'PY' || fail=1
import json, struct, sys
f32 = lambda x: struct.unpack("<f", struct.pack("<f", x))[0]
want = {c: n["curves"] for c, n in json.load(open(sys.argv[1]))["clips"].items() if "curves" in n}
info = json.load(open(sys.argv[2]))["graph"]
bad, names = 0, []
for clip, curves in want.items():
    got = info["clips"].get(clip, {}).get("curves", {})
    for name, keys in curves.items():
        names.append(name) if name not in names else None
        g = got.get(name)
        if g is None or len(g) != len(keys) or any(f32(a) != f32(b) for ka, kb in zip(g, keys) for a, b in zip(ka, kb)):
            print("FAIL %s curve %s: %s vs %s" % (clip, name, g, keys)); bad += 1
if info.get("curves") != names:
    print("FAIL curve ids %s, want %s" % (info.get("curves"), names)); bad += 1
if not bad:
    print("ok   compiled robot_curves: %d curves' keys as the file has them, ids %s" % (sum(len(c) for c in want.values()), names))
sys.exit(1 if bad else 0)
PY
fi
[ $fail = 0 ] && echo "all passed"
exit $fail
