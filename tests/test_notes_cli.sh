#!/usr/bin/env bash
# Clip notes from the command line (issue 26): graphs/robot_events.json (every
# new key: events with payloads and min_weight, windows) passes `stance
# graph-check` on RobotExpressive and `stance compile` carries it: `stance
# info --json` of the compiled file lists the file's events, payloads and
# windows (values compared as float32 by python); and four broken files give
# one FILE:LINE:COLUMN message each, at the offending token (found by the
# test in the text): an unknown clip (with its suggestion), a window from >
# to, an event past the clip's end, a payload of an unknown type, a blend
# space's unknown "events" choice (and "all" passes). The schema
# side is tests/test_schema.sh (every graphs/*.json).
src=${STANCE_SOURCE:?}
. "$src/tests/graph_errors.bash" # cli, data, tmp, bad, py; check_broken, robot_compile

# ---- the broken files (the built-in asset: no data needed) ----
write() { # name, clips section
  printf '{\n  "version": 1,\n  "asset": "builtin",\n  "machines": [{"name": "M", "states": [{"name": "W", "clip": "walk"}]}],\n  "clips": {\n    %s\n  }\n}\n' "$2" > "$tmp/$1.json"
}
write unknown_clip '"wakl": {"events": [{"t": 0.1, "name": "step"}]}'
write window_order '"walk": {"windows": [{"name": "can_cancel", "from": 0.8, "to": 0.2}]}'
write past_end '"walk": {"events": [{"t": 12.5, "name": "step"}]}'
write payload_type '"walk": {"events": [{"t": 0.1, "name": "step", "payload": {"bool": true}}]}'
printf '{\n  "version": 1,\n  "asset": "builtin",\n  "params": [{"name": "s", "type": "float"}],\n  "machines": [{"name": "M", "states": [{"name": "B", "blend1d": {"param": "s", "events": "al",\n    "entries": [{"clip": "walk", "x": 0}, {"clip": "run", "x": 1}]}}]}]\n}\n' > "$tmp/blend_events.json"
sed 's/"al"/"all"/' "$tmp/blend_events.json" > "$tmp/blend_events_ok.json"
"$cli" graph-check "$tmp/blend_events_ok.json" > "$tmp/ok.out" 2>&1 || bad "\"events\": \"all\" refused: $(cat "$tmp/ok.out")"
check_broken blend_events '"al"' "unknown blend events 'al' (did you mean 'all'?)"
check_broken unknown_clip '"wakl"' "did you mean 'walk'"
check_broken window_order '0.8' '"from" must not be after "to"'
check_broken past_end '12.5' 'past the end of clip'
check_broken payload_type '"bool"' 'unknown key "bool" in a payload'

# ---- RobotExpressive: graph-check, compile, info --json ----
if robot_compile robot_events; then
  "$py" - "$src/graphs/robot_events.json" "$tmp/info.json" <<'PY' || fail=1
import json, struct, sys
f32 = lambda x: struct.unpack("<f", struct.pack("<f", x))[0]
want = json.load(open(sys.argv[1]))["clips"]
got = json.load(open(sys.argv[2]))["graph"]["clips"]
bad = 0
for clip, notes in want.items():
    g = got.get(clip)
    if g is None:
        print("FAIL clip %s missing from info" % clip); bad += 1; continue
    ev = [e for e in g["events"] if e["authored"]]
    exp = sorted(notes.get("events", []), key=lambda e: e["t"])
    if len(ev) != len(exp):
        print("FAIL %s: %d events, want %d" % (clip, len(ev), len(exp))); bad += 1; continue
    for a, b in zip(ev, exp):
        pa, pb = a.get("payload", {}), b.get("payload", {})
        ok = (a["name"] == b["name"] and f32(a["t"]) == f32(b["t"]) and f32(a["min_weight"]) == f32(b.get("min_weight", 0))
              and set(pa) == set(pb) and pa.get("int") == pb.get("int") and pa.get("string") == pb.get("string")
              and ("float" not in pb or f32(pa["float"]) == f32(pb["float"])))
        if not ok:
            print("FAIL %s event %s: %s vs %s" % (clip, b["name"], a, b)); bad += 1
    w = g["windows"]
    exp = notes.get("windows", [])
    if len(w) != len(exp) or any(a["name"] != b["name"] or f32(a["from"]) != f32(b["from"]) or f32(a["to"]) != f32(b["to"])
                                 for a, b in zip(w, exp)):
        print("FAIL %s windows: %s vs %s" % (clip, w, exp)); bad += 1
print("ok   compiled robot_events: %d clips' events, payloads and windows as the file has them" % len(want) if not bad else "")
sys.exit(1 if bad else 0)
PY
fi
[ $fail = 0 ] && echo "all passed"
exit $fail
