#!/usr/bin/env bash
# Root motion at import and foot locking on what users bring (issue 25, items
# 1 and 2): walk, run and jog cycles (and a walk whose planted feet drift) written by tests/rootmotion_files.py as
# BVH, glTF and Collada files (travel in the hips track, no root bone,
# centimetres or metres, a walk whose loop is 4 mm off, a jog that turns),
# imported with `--root-motion hips` and measured by `stance footlock --json`:
# sliding with locking <= 1 cm/m, largest joint angle change <= 30 deg, pelvis
# drop <= 5% of the leg, the root path's travel per cycle within 1% of the
# hips' net travel per cycle (the generator's own figure). Also: the same
# figures in file units and scaled (scale-free thresholds), CMU 01_01 (Debian
# assimp-testmodels) likewise, and RobotExpressive's Walking and Running at or
# below the figures before this work (27.097 -> 0.560 and 2.163 -> 1.571 cm/m:
# `stance footlock --graph graphs/robot.json --json` on main at 6df1ada).
set -u
cli=${STANCE_CLI:?}
src=${STANCE_SOURCE:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
ok() { passed=$((passed + 1)); }
bad() { echo "FAIL: $*"; failed=$((failed + 1)); }

python3 "$src/tests/rootmotion_files.py" "$tmp" > "$tmp/ref.txt" || { echo "FAIL: generator"; exit 1; }
ref() { awk -v f="$1" -v c="$2" '$1 == f { print $c }' "$tmp/ref.txt"; }
clip_of() { "$cli" info "$1" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["clips"][0]["name"])'; }

# measure FILE SCALE [SECONDS [IMPORT-FLAG]]: import with --root-motion $MODE (default hips), footlock JSON into $tmp/FILE_SCALE.json
measure() {
  local f=$1 scale=$2 secs=${3:-} flag=${4:-}
  local out="$tmp/${f}_$scale.stance"
  if ! "$cli" import "$tmp/$f" -o "$out" --scale "$scale" --root-motion "${MODE:-hips}" $flag --error-cm 0 > /dev/null 2> "$tmp/err"; then
    bad "$f: import"; cat "$tmp/err"; return 1
  fi
  local clip; clip=$(clip_of "$out")
  if ! "$cli" footlock --asset "$out" --clip "$clip" --feet LeftFoot,RightFoot ${secs:+--seconds $secs} --json > "$tmp/${f}_$scale.json" 2> "$tmp/err"; then
    bad "$f: footlock"; cat "$tmp/err"; return 1
  fi
}

# check FILE SCALE: the figures of the issue, against the generator's travel (metres x 1/scale units)
check() {
  local f=$1 scale=$2
  local travel; travel=$(ref "$f" 2)
  python3 - "$tmp/${f}_$scale.json" "$travel" "$scale" "$f" <<'EOF' && ok || bad "$4 at --scale $3: figures"
import json, sys
d = json.load(open(sys.argv[1])); travel_m = float(sys.argv[2]); scale = float(sys.argv[3])
cm_file = sys.argv[4] in ("walk_cm.bvh", "walk_cm.dae", "jog_turn.bvh", "walk_drift.bvh")  # written in centimetres (walk_cm.gltf: under a 0.01 node)
units = travel_m * (100.0 if cm_file else 1.0) * scale
s = d["slide_cm_per_m"]
print(f"  {sys.argv[4]:14s} x{scale:<6g} root {d['root']}: slide {s['off']:.3f} -> {s['on']:.3f} cm/m, angle {d['max_joint_angle_change_deg']:.2f} deg, "
      f"pelvis drop {100 * d['pelvis_drop_legs']:.2f}% of the leg, travel {d['root_travel_per_cycle']:.5f} (hips {units:.5f}), "
      f"contacts {[len(c['times']) for c in d['contacts']]}")
assert d["root"] == "path"
assert s["on"] <= 1.0, "slide with locking"
assert d["max_joint_angle_change_deg"] <= 30.0, "angle change"
assert d["pelvis_drop_legs"] <= 0.05, "pelvis drop"
assert abs(d["root_travel_per_cycle"] - units) <= 0.01 * units, "root path travel"
assert all(len(c["times"]) >= 1 for c in d["contacts"]), "contacts per foot"
EOF
}

# the cycles, in metres (and the centimetre files scaled to metres at import)
for f in walk_cm.bvh walk_cm.dae; do measure "$f" 0.01 && check "$f" 0.01; done
for f in walk_m.bvh walk_cm.gltf walk_m.gltf run.bvh run.gltf run.dae; do measure "$f" 1 && check "$f" 1; done
# the jog turns 20 deg a cycle: with --root-yaw the root path turns, over 5 cycles (4 s)
for f in jog_turn.gltf jog_turn.dae; do measure "$f" 1 4 --root-yaw && check "$f" 1; done
measure jog_turn.bvh 0.01 4 --root-yaw && check jog_turn.bvh 0.01
# without it (translation only) the path carries the turn over one cycle; over several the
# pose's heading restarts at each wrap while the path keeps its direction: it slides more
measure jog_turn.gltf 1 0.8 && check jog_turn.gltf 1
measure jog_turn.gltf 1 4 && python3 - "$tmp/jog_turn.gltf_1.json" <<'EOF' && ok || bad "jog without yaw over 4 s slides more"
import json, sys
d = json.load(open(sys.argv[1]))
print(f"  jog_turn.gltf without --root-yaw over 4 s: slide {d['slide_cm_per_m']}")
assert d["slide_cm_per_m"]["on"] > 1.0
EOF
# a walk whose planted feet slide 3 cm per metre of travel (the generator's drift): without locking
# it slides (> 3 cm/m: what the figures above prove is then mended, not merely kept), with locking
# the figures of the issue hold
for f in walk_drift.gltf walk_drift.dae; do measure "$f" 1 && check "$f" 1; done
measure walk_drift.bvh 0.01 && check walk_drift.bvh 0.01
python3 - "$tmp"/walk_drift.gltf_1.json "$tmp"/walk_drift.dae_1.json "$tmp"/walk_drift.bvh_0.01.json <<'EOF' && ok || bad "walk_drift: slides without locking"
import json, sys
for p in sys.argv[1:]:
    s = json.load(open(p))["slide_cm_per_m"]
    assert s["off"] >= 3.0 and s["on"] <= 1.0, (p, s)
EOF
# a straight walk with --root-yaw: within the figures too (its pelvis does not turn)
measure walk_m.gltf 1 4 --root-yaw && check walk_m.gltf 1

# scale-free: a centimetre file in its own units gives the same sliding, angles and drop share
measure walk_cm.bvh 1 && python3 - "$tmp/walk_cm.bvh_1.json" "$tmp/walk_cm.bvh_0.01.json" <<'EOF' && ok || bad "walk_cm.bvh: file units vs metres"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for k in ("off", "on"): assert abs(a["slide_cm_per_m"][k] - b["slide_cm_per_m"][k]) <= 0.01, k
assert abs(a["max_joint_angle_change_deg"] - b["max_joint_angle_change_deg"]) <= 0.05
assert abs(a["pelvis_drop_legs"] - b["pelvis_drop_legs"]) <= 1e-4
assert [c["times"] for c in a["contacts"]] == [c["times"] for c in b["contacts"]]
assert abs(a["leg_length"] / b["leg_length"] - 100) < 1e-3
EOF

# --root-motion and --root-joint: errors are one line, the in-place clip keeps the pose at time 0
"$cli" import "$tmp/walk_m.bvh" -o "$tmp/x.stance" --root-motion sideways > /dev/null 2>&1; [ $? -eq 2 ] && ok || bad "--root-motion sideways: usage"
"$cli" import "$tmp/walk_m.bvh" -o "$tmp/x.stance" --root-motion hips --root-joint Nobody > /dev/null 2> "$tmp/err"
[ $? -eq 1 ] && [ "$(wc -l < "$tmp/err")" -eq 1 ] && grep -q "no joint named 'Nobody'" "$tmp/err" && ok || bad "--root-joint Nobody"
"$cli" import "$tmp/walk_m.bvh" -o "$tmp/named.stance" --root-motion hips --root-joint Hips --error-cm 0 > /dev/null && ok || bad "--root-joint Hips"
"$cli" import "$tmp/walk_m.bvh" -o "$tmp/plain.stance" --error-cm 0 > /dev/null && ok || bad "plain import"
"$cli" sample "$tmp/named.stance" --times 0 --json > "$tmp/a.json" 2>/dev/null && "$cli" sample "$tmp/plain.stance" --times 0 --json > "$tmp/b.json" 2>/dev/null &&
python3 - "$tmp/a.json" "$tmp/b.json" <<'EOF' && ok || bad "pose at time 0 unchanged by extraction"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
def flat(x):
    if isinstance(x, dict): return [v for k in sorted(x) for v in flat(x[k])]
    if isinstance(x, list): return [v for e in x for v in flat(e)]
    return [x] if isinstance(x, (int, float)) else []
fa, fb = flat(a), flat(b)
assert len(fa) == len(fb) and max(abs(p - q) for p, q in zip(fa, fb)) < 1e-4
EOF

# CMU 01_01 (Debian assimp-testmodels): file units and --scale 0.05644 give the same sliding
cmu=/usr/share/assimp/models/BVH/01_01.bvh
if [ -f "$cmu" ]; then
  for sc in 1 0.05644; do
    "$cli" import "$cmu" -o "$tmp/cmu_$sc.stance" --scale $sc --root-motion hips --error-cm 0 > /dev/null &&
      "$cli" footlock --asset "$tmp/cmu_$sc.stance" --clip Motion --feet LeftFoot,RightFoot --json > "$tmp/cmu_$sc.json" || bad "cmu at $sc"
  done
  python3 - "$tmp/cmu_1.json" "$tmp/cmu_0.05644.json" <<'EOF' && ok || bad "CMU 01_01: file units vs --scale 0.05644"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
print(f"  CMU 01_01: slide {a['slide_cm_per_m']} (file units) vs {b['slide_cm_per_m']} (x0.05644), angle {a['max_joint_angle_change_deg']} / {b['max_joint_angle_change_deg']} deg")
for k in ("off", "on"): assert abs(a["slide_cm_per_m"][k] - b["slide_cm_per_m"][k]) <= 0.01, k
assert abs(a["max_joint_angle_change_deg"] - b["max_joint_angle_change_deg"]) <= 0.05
assert [c["times"] for c in a["contacts"]] == [c["times"] for c in b["contacts"]]
EOF
else
  echo "  (no /usr/share/assimp/models/BVH/01_01.bvh: assimp-testmodels not installed; skipped)"
fi

# RobotExpressive Walking and Running: at or below the figures before (see the head)
if [ -f "${STANCE_DATA:-}/robot_expressive/RobotExpressive.glb" ] && "$cli" info "$STANCE_DATA/robot_expressive/RobotExpressive.glb" > /dev/null 2>&1; then
  "$cli" footlock --graph "$src/graphs/robot.json" --json > "$tmp/robot.json" && python3 - "$tmp/robot.json" <<'EOF' && ok || bad "RobotExpressive figures"
import json, sys
c = {x["name"]: x for x in json.load(open(sys.argv[1]))["clips"]}
w, r = c["Walking"], c["Running"]
print(f"  RobotExpressive Walking {w['slide_cm_per_m']}, Running {r['slide_cm_per_m']}")
assert w["slide_cm_per_m"]["on"] <= 0.560 and r["slide_cm_per_m"]["on"] <= 1.571
assert w["max_joint_angle_change_deg"] <= 37.39 and r["max_joint_angle_change_deg"] <= 7.72
EOF
fi

# an Unreal-style rig (a static Armature node, a `root` bone carrying the travel, the hips below): --root-motion root finds
# the root bone by itself and gives the walk's figures
for f in walk_root.gltf walk_root.dae walk_root.bvh; do MODE=root measure "$f" 1 && check "$f" 1; done
"$cli" import "$tmp/walk_root.gltf" -o "$tmp/root_hips.stance" --root-motion hips --error-cm 0 > /dev/null && ok || bad "walk_root.gltf --root-motion hips"

# --root-motion root on a file whose hips are joint 0 (no bone above the pelvis): refused with one clear line suggesting hips
if "$cli" import "$tmp/walk_m.bvh" -o "$tmp/noroot.stance" --root-motion root > /dev/null 2> "$tmp/err"; then
  bad "walk_m.bvh --root-motion root: imported without a root bone"
elif [ "$(grep -c . "$tmp/err")" -eq 1 ] && grep -q -- "--root-motion hips" "$tmp/err"; then
  ok; echo "  walk_m.bvh --root-motion root: $(cat "$tmp/err")"
else
  bad "walk_m.bvh --root-motion root: message"; cat "$tmp/err"
fi
echo "rootmotion: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
