#!/usr/bin/env bash
# Sync groups from the command line (issue 26 item 4, docs/sync.md): a
# broken file of each kind gives one FILE:LINE:COLUMN line at the offending
# token (found by the test in the text): a group of one member (naming the
# groups there are), an unknown marker key, a marker past
# its clip, a blend space member none of whose entries' clips has markers
# (one whose clips have them passes), a member whose clip has no markers. graphs/robot_sync.json passes `stance graph-check` (which lists
# the groups and markers), and `stance compile` carries it: `stance info
# --json` of the compiled file gives the file's groups, markers and speeds
# (as float32). The schema side is tests/test_schema.sh (every graphs/*.json).
src=${STANCE_SOURCE:?}
. "$src/tests/graph_errors.bash" # cli, data, tmp, bad, py; check_broken, robot_compile

# ---- broken files on the built-in asset (clips idle, walk, run) ----
write() { # name, states, clips section
  printf '{\n  "version": 1,\n  "asset": "builtin",\n  "machines": [{"name": "M", "states": [\n    %s\n  ]}],\n  "clips": {\n    %s\n  }\n}\n' "$2" "$3" > "$tmp/$1.json"
}
mk='"walk": {"markers": [{"t": 0.1, "name": "L"}]}, "run": {"markers": [{"t": 0.1, "name": "L"}]}'
write one_member '{"name": "W", "clip": "walk", "sync": "loco"}, {"name": "R", "clip": "run", "sync": "locomotion"}, {"name": "I", "clip": "idle", "sync": "locomotion"}' \
  "$mk, \"idle\": {\"markers\": [{\"t\": 0.1, \"name\": \"L\"}]}"
write marker_key '{"name": "W", "clip": "walk", "sync": "g"}, {"name": "R", "clip": "run", "sync": "g"}' \
  '"walk": {"markers": [{"t": 0.1, "nmae": "L"}]}, "run": {"markers": [{"t": 0.1, "name": "L"}]}'
write marker_past '{"name": "W", "clip": "walk", "sync": "g"}, {"name": "R", "clip": "run", "sync": "g"}' \
  '"walk": {"markers": [{"t": 42.5, "name": "L"}]}, "run": {"markers": [{"t": 0.1, "name": "L"}]}'
write blend_member '{"name": "W", "clip": "walk", "sync": "g"}, {"name": "B", "blend1d": {"param": "s", "entries": [{"clip": "walk", "x": 0}, {"clip": "run", "x": 1}]}, "sync": "g"}' "$mk"
sed -i 's/"version": 1,/"version": 1,\n  "params": [{"name": "s", "type": "float"}],/' "$tmp/blend_member.json"
write blend_unmarked '{"name": "R", "clip": "run", "sync": "g"}, {"name": "B", "blend1d": {"param": "s", "entries": [{"clip": "walk", "x": 0}, {"clip": "idle", "x": 1}]}, "sync": "g"}' \
  '"run": {"markers": [{"t": 0.1, "name": "L"}]}'
sed -i 's/"version": 1,/"version": 1,\n  "params": [{"name": "s", "type": "float"}],/' "$tmp/blend_unmarked.json"
write no_markers '{"name": "W", "clip": "walk", "sync": "g"}, {"name": "I", "clip": "idle", "sync": "g"}' "$mk"
check_broken one_member '"loco"' "sync group 'loco' has one member (state 'W'): a group needs two or more states (known: locomotion)"
check_broken marker_key '"nmae"' 'unknown key "nmae" in a marker'
check_broken marker_past '42.5' "marker 'L' at 42.5 s is past the end of clip 'walk'"
check_broken blend_unmarked '"g"' "blend space state 'B' is in sync group 'g' but none of its entries' clips has markers" last
# a blend space whose entries' clips have markers is a member (docs/sync.md)
"$cli" graph-check "$tmp/blend_member.json" > "$tmp/blend_member.out" 2>&1 || bad "a blend space member is refused: $(cat "$tmp/blend_member.out")"
grep -q "state B .*sync group g" "$tmp/blend_member.out" || bad "graph-check does not list B's group: $(cat "$tmp/blend_member.out")"
check_broken no_markers '"g"' "its clip 'idle' has no markers" last

# ---- RobotExpressive: graph-check, compile, info --json ----
if robot_compile robot_sync; then
  grep -q "state Walk .*sync group locomotion" "$tmp/check.out" || bad "graph-check does not list Walk's group: $(cat "$tmp/check.out")"
  grep -q "clip Running: L@0.2362 R@0.7194, speed 6.559 m/s" "$tmp/check.out" || bad "graph-check does not list Running's markers"
  "$py" - "$src/graphs/robot_sync.json" "$tmp/info.json" <<'PY' || fail=1
import json, struct, sys
f32 = lambda x: struct.unpack("<f", struct.pack("<f", x))[0]
doc = json.load(open(sys.argv[1]))
got = json.load(open(sys.argv[2]))["graph"]["sync"]
bad = 0
groups = {}
for m in doc["machines"]:
    for s in m["states"]:
        if "sync" in s: groups.setdefault(s["sync"], []).append(s["name"])
if got["groups"] != groups:
    print("FAIL groups %s, want %s" % (got["groups"], groups)); bad += 1
for clip, c in doc["clips"].items():
    g = got["clips"].get(clip)
    exp = sorted(c.get("markers", []), key=lambda m: m["t"])
    if g is None or [(m["name"], f32(m["t"])) for m in g["markers"]] != [(m["name"], f32(m["t"])) for m in exp] \
            or f32(g["speed"]) != f32(c.get("speed", 0)):
        print("FAIL clip %s: %s, want %s" % (clip, g, c)); bad += 1
print("ok   robot_sync.json: compile -> info --json gives its groups, markers and speeds" if not bad else "")
sys.exit(1 if bad else 0)
PY
fi
# ---- graphs/robot_every_key.json: every key issue 26 added, in one graph ----
if robot_compile robot_every_key; then
  grep -q "state Move .*sync group locomotion" "$tmp/check.out" || bad "graph-check does not list the blend space Move's group"
  grep -q "state Stroll .*sync group locomotion" "$tmp/check.out" || bad "graph-check does not list Stroll's group"
  grep -q BEVT "$tmp/r.stance" || bad "the compiled graph has no BEVT trailer for Move's \"events\": \"all\""
  "$py" -c 'import json,sys; g=json.load(open(sys.argv[1]))["graph"]["sync"]["groups"]; sys.exit(0 if sorted(g["locomotion"]) == ["Move", "Stroll"] else 1)' \
    "$tmp/info.json" || bad "info --json: the group is not Move and Stroll: $(cat "$tmp/info.json" | head -c 300)"
  [ $fail = 0 ] && echo "ok   robot_every_key.json: graph-check, compile (BEVT), info --json (the blend space's group)"
fi
[ $fail = 0 ] && echo "test_sync_cli: all ok"
exit $fail
