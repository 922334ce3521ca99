#!/usr/bin/env bash
# `stance scenario --script FILE` (issue 26 item 5): a user's graph without
# the lesson's parameter names, driven by a script file of parameter changes.
# The reference is the lesson's own run: graphs/builtin.json with its
# parameters renamed (speed -> velocity, jump -> hop, plus an unused bool)
# and a script of the lesson's table (LESSON.md: 0 s 0 m/s, 1.5 s 1.5,
# 3.5 s 4.0, 5.5 s 0, jump at 7.0, 8.5 s 1.5, jump at 10.0, 11.5 s 0) must
# give every figure of every mode exactly as `stance scenario --graph
# graphs/builtin.json` does. Bad scripts: one line each, exit 1.
set -u
cli=${STANCE_CLI:?}
src=${STANCE_SOURCE:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
ok() { passed=$((passed + 1)); }
bad() { echo "FAIL: $*"; failed=$((failed + 1)); }

python3 - "$src/graphs/builtin.json" "$tmp/mine.json" <<'PY'
import json, sys
g = json.load(open(sys.argv[1]))
g.pop("$schema", None)
g["params"] = [{"name": "velocity", "type": "float", "value": 0, "damping": 0.1}, {"name": "hop", "type": "trigger"},
               {"name": "alert", "type": "bool"}]
ren = {"speed": "velocity", "jump": "hop"}
def walk(x):
    if isinstance(x, dict):
        for k, v in list(x.items()):
            if k == "param" and v in ren: x[k] = ren[v]
            else: walk(v)
    elif isinstance(x, list):
        for v in x: walk(v)
walk(g["machines"])
json.dump(g, open(sys.argv[2], "w"), indent=1)
PY
cat > "$tmp/lesson.json" <<'J'
{"duration": 13.5, "changes": [
  {"t": 0, "set": {"velocity": 0, "alert": false}},
  {"t": 1.5, "set": {"velocity": 1.5}},
  {"t": 3.5, "set": {"velocity": 4.0, "alert": true}},
  {"t": 5.5, "set": {"velocity": 0}},
  {"t": 7.0, "trigger": "hop"},
  {"t": 8.5, "set": {"velocity": 1.5}},
  {"t": 10.0, "set": {"velocity": 1.5}, "trigger": "hop"},
  {"t": 11.5, "set": {"velocity": 0}}
]}
J
# the graph file's asset "builtin" resolves anywhere
"$cli" scenario --graph "$src/graphs/builtin.json" --json > "$tmp/ref.json" || bad "lesson run"
if "$cli" scenario --graph "$tmp/mine.json" --script "$tmp/lesson.json" --json > "$tmp/got.json"; then
  python3 - "$tmp/ref.json" "$tmp/got.json" <<'PY' && ok || bad "script run equals the lesson's"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
assert b["duration_s"] == 13.5 and len(a["modes"]) == len(b["modes"]) == 6
for x, y in zip(a["modes"], b["modes"]):
    assert x == y, (x, y)
    print(f"  {y['mode']}: worst {y['worst_jump_cm']} cm at {y['at_s']} s ({y['transition']}), {y['transitions']} transitions, accel x{y['accel_ratio']}")
PY
else
  bad "script run"
fi
# a shorter script: its own duration, and the table names it
cat > "$tmp/short.json" <<'J'
{"duration": 4, "changes": [{"t": 0.5, "set": {"velocity": 2.0}}, {"t": 2.0, "trigger": "hop"}]}
J
"$cli" scenario --graph "$tmp/mine.json" --script "$tmp/short.json" --mode crossfade > "$tmp/out" &&
  grep -q "short.json (4.00 s at 60 Hz)" "$tmp/out" && grep -q "| crossfade |" "$tmp/out" && ok || { bad "short script"; cat "$tmp/out"; }
"$cli" scenario --graph "$tmp/mine.json" --script "$tmp/short.json" --mode crossfade --json |
  python3 -c 'import json,sys; d=json.load(sys.stdin); m=d["modes"][0]; assert d["duration_s"]==4.0 and m["transitions"]>=2, m' && ok || bad "short script: transitions"
"$cli" scenario --graph "$tmp/mine.json" --script "$tmp/short.json" --svg "$tmp/s.svg" > /dev/null &&
  python3 -c 'import sys,xml.dom.minidom as m; m.parse(sys.argv[1])' "$tmp/s.svg" && ok || bad "svg of a script"

# without a script, a user's graph is refused in one line that says what to do
"$cli" scenario --graph "$tmp/mine.json" > /dev/null 2> "$tmp/err"
[ $? -eq 1 ] && [ "$(grep -c . "$tmp/err")" -eq 1 ] && grep -q "give a script" "$tmp/err" && ok || { bad "no script"; cat "$tmp/err"; }

# layers and footlock on a graph without the lesson's "lesson_layers": one line saying what is skipped and what runs instead
python3 -c 'import json,sys; g=json.load(open(sys.argv[1])); g.pop("lesson_layers", None); json.dump(g, open(sys.argv[2], "w"))' \
  "$tmp/mine.json" "$tmp/nolesson.json"
for cmd in layers footlock; do
  "$cli" $cmd --graph "$tmp/nolesson.json" > /dev/null 2> "$tmp/err"
  rc=$?
  [ $rc -eq 1 ] && [ "$(grep -c . "$tmp/err")" -eq 1 ] && grep -q "figures are skipped" "$tmp/err" && grep -q "scenario --script" "$tmp/err" &&
    ok || { bad "$cmd without lesson_layers: rc $rc"; cat "$tmp/err"; }
done

# bad scripts: one line each naming the file, exit 1
expect() { # NAME TEXT PATTERN
  printf '%s' "$2" > "$tmp/$1.json"
  "$cli" scenario --graph "$tmp/mine.json" --script "$tmp/$1.json" > /dev/null 2> "$tmp/err"
  local rc=$?
  if [ $rc -eq 1 ] && [ "$(grep -c . "$tmp/err")" -eq 1 ] && grep -q "$1.json" "$tmp/err" && grep -q -- "$3" "$tmp/err"; then ok
  else bad "$1: rc $rc: $(cat "$tmp/err")"; fi
}
expect syntax '{"duration": 4, "changes": [' ':1:'
expect unknown '{"duration": 4, "changes": [{"t": 1, "set": {"velocty": 1}}]}' "did you mean 'velocity'"
expect back '{"duration": 4, "changes": [{"t": 2, "set": {"velocity": 1}}, {"t": 1, "set": {"velocity": 0}}]}' 'is before change 0'
expect booltype '{"duration": 4, "changes": [{"t": 1, "set": {"alert": 3}}]}' "'alert' is a bool parameter"
expect notrigger '{"duration": 4, "changes": [{"t": 1, "trigger": "velocity"}]}' 'is not a trigger'
expect duration '{"duration": 0, "changes": []}' 'duration 0 s is not in'
expect late '{"duration": 4, "changes": [{"t": 5, "set": {"velocity": 1}}]}' 'time 5 is not in'
expect key '{"duration": 4, "changes": [{"t": 1, "sett": {"velocity": 1}}]}' "unknown key 'sett'"
echo "scenario_script: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
