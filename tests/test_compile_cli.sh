#!/usr/bin/env bash
# `stance compile` and `stance info` on compiled graphs: the file holds the
# graph's skeleton, the clips it plays and its graph; `info --json` describes
# the graph (its machines and states, layers and parameters, read here from
# graphs/builtin.json with python3 as the reference); the scenario on the
# compiled file prints the same table as on the JSON file; errors are one
# line with exit status 1, usage errors 2.
set -euo pipefail
cli=${STANCE_CLI:?}
src=${STANCE_SOURCE:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok   $1"; }
bad() { failed=$((failed + 1)); echo "FAIL $1"; }
expect_status() { # want, what, command...
  local want=$1 what=$2; shift 2
  local rc=0; "$@" > "$tmp/out" 2> "$tmp/err" || rc=$?
  if [ "$rc" = "$want" ]; then ok "$what"; else cat "$tmp/out" "$tmp/err"; bad "$what (exit $rc, wanted $want)"; fi
}

expect_status 0 "compile builtin.json" "$cli" compile "$src/graphs/builtin.json" -o "$tmp/c.stance"
grep -q "graph of .*builtin.json (2 parameters, 4 machines, 6 states, 4 layers), 23 joints, 7 of 7 clips, 7 compressed (largest error 0.00[0-9]* cm)$" "$tmp/out" \
  && ok "compile compresses by default, as import does" || { cat "$tmp/out"; bad "compile summary (compressed)"; }
# every clip of the file compressed, each within the 0.01 cm bound it was given, read back by info
"$cli" info "$tmp/c.stance" > "$tmp/info_c"
python3 - "$tmp/info_c" <<'PY' && ok "info: 7 clips, each compressed within 0.01 cm" || bad "info on the compressed compile"
import re, sys
errs = [float(m) for m in re.findall(r"largest error ([0-9.e-]+) cm", open(sys.argv[1]).read())]
assert len(errs) == 7 and all(0 < e <= 0.01 for e in errs), errs
PY
expect_status 0 "compile builtin.json --error-cm 0" "$cli" compile "$src/graphs/builtin.json" --error-cm 0 -o "$tmp/b.stance"
grep -q "graph of .*builtin.json (2 parameters, 4 machines, 6 states, 4 layers), 23 joints, 7 of 7 clips$" "$tmp/out" && ok "compile summary (exact)" || bad "compile summary (exact)"
# a .stance asset's clips are kept as stored: an exact import stays exact
expect_status 0 "import the built-in character exact" "$cli" import "$tmp/b.stance" -o "$tmp/exact.stance"
expect_status 0 "compile on a .stance asset" "$cli" compile "$src/graphs/builtin.json" --asset "$tmp/exact.stance" -o "$tmp/e.stance"
grep -q "7 of 7 clips$" "$tmp/out" && ok "a .stance asset's clips are kept as stored" || { cat "$tmp/out"; bad "compile recompressed a .stance asset"; }
expect_status 2 "compile --error-cm -1" "$cli" compile "$src/graphs/builtin.json" --error-cm -1 -o "$tmp/x.stance"
expect_status 0 "info --json on it" "$cli" info "$tmp/b.stance" --json
if python3 - "$src/graphs/builtin.json" "$tmp/out" <<'PY'
import json, sys
want = json.load(open(sys.argv[1]))
got = json.load(open(sys.argv[2]))
g = got["graph"]
assert [m["name"] for m in g["machines"]] == [m["name"] for m in want["machines"]], g["machines"]
assert [m["states"] for m in g["machines"]] == [[s["name"] for s in m["states"]] for m in want["machines"]]
assert [(l["name"], l["machine"], l["mode"]) for l in g["layers"]] == \
       [(l["name"], l["machine"], l.get("mode", "override")) for l in want["layers"]], g["layers"]
assert [(p["name"], p["type"]) for p in g["params"]] == [(p["name"], p["type"]) for p in want["params"]]
used = set()
for m in want["machines"]:
    for s in m["states"]:
        if "clip" in s: used.add(s["clip"])
        for k in ("blend1d", "blend2d"):
            if k in s: used.update(e["clip"] for e in s[k]["entries"])
assert sorted(c["name"] for c in got["clips"]) == sorted(used), (got["clips"], used)
PY
then ok "info --json describes the graph"; else bad "info --json describes the graph"; fi
expect_status 0 "info text" "$cli" info "$tmp/b.stance"
grep -q "^  machine Locomotion: Idle, Move, Jump$" "$tmp/out" && ok "info text lists states" || bad "info text lists states"
"$cli" scenario --graph "$src/graphs/builtin.json" --json > "$tmp/s_json" && "$cli" scenario --graph "$tmp/b.stance" --json > "$tmp/s_comp" \
  && [ "$(sed 's/^{"graph":"[^"]*",//' "$tmp/s_json")" = "$(sed 's/^{"graph":"[^"]*",//' "$tmp/s_comp")" ] && ok "scenario on the compiled graph = on the JSON graph" || bad "scenario on the compiled graph"
expect_status 0 "compile with --asset" "$cli" compile "$src/graphs/bullet_waste.json" --asset builtin -o "$tmp/w.stance"
expect_status 0 "gen-header from the compiled graph" "$cli" gen-header "$tmp/w.stance"
"$cli" gen-header "$src/graphs/bullet_waste.json" | sed 1,2d > "$tmp/h_json"; sed 1,2d "$tmp/out" > "$tmp/h_comp"
cmp -s "$tmp/h_json" "$tmp/h_comp" && ok "ids of the compiled graph = of the JSON graph" || { diff "$tmp/h_json" "$tmp/h_comp" | head; bad "ids of the compiled graph"; }
expect_status 0 "graph-check on the compiled graph" "$cli" graph-check "$tmp/b.stance"
grep -q "ok (compiled)" "$tmp/out" && grep -q "^  machine Locomotion: Idle, Move, Jump$" "$tmp/out" && ok "graph-check describes it" || bad "graph-check describes it"
# errors
expect_status 1 "layers on a compiled graph" "$cli" layers --graph "$tmp/b.stance"
grep -q "compiled graph keeps no" "$tmp/err" && ok "layers: says why" || bad "layers on a compiled graph: message"
expect_status 2 "compile without -o" "$cli" compile "$src/graphs/builtin.json"
expect_status 1 "compile a missing file" "$cli" compile "$tmp/none.json" -o "$tmp/x.stance"
grep -q "none.json" "$tmp/err" && [ ! -e "$tmp/x.stance" ] && ok "missing file: named, nothing written" || bad "missing file message"
expect_status 1 "compile a compiled graph" "$cli" compile "$tmp/b.stance" -o "$tmp/x.stance"
grep -q "compiled already" "$tmp/err" && ok "compiled already: said" || bad "compiled already message"
printf '{"version": 1, "asset": "builtin", "machines": [{"name": "M", "states": [{"name": "S", "clip": "wlak"}]}]}' > "$tmp/bad.json"
expect_status 1 "compile a graph with an unknown clip" "$cli" compile "$tmp/bad.json" -o "$tmp/x.stance"
grep -q "bad.json:1:.*unknown clip 'wlak'" "$tmp/err" && ok "unknown clip: FILE:LINE:COLUMN" || { cat "$tmp/err"; bad "unknown clip message"; }
expect_status 1 "compile to an unwritable path" "$cli" compile "$src/graphs/builtin.json" -o "$tmp/no/such/dir/x.stance"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
