#!/usr/bin/env bash
# docs/graph.schema.json (JSON Schema draft 2020-12) is a valid schema; every
# shipped graph and every JSON example of docs/graph-format.md validates
# against it (Debian python3-jsonschema); and a few mistakes the loader
# rejects, the schema rejects too: an unknown key, a wrong type, an unknown
# mode, a missing required key. The loader (`stance graph-check`) is run on
# each mistake as well, so the two agree.
set -euo pipefail
cli=${STANCE_CLI:?}
src=${STANCE_SOURCE:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
py=python3
[ -x /usr/bin/python3 ] && py=/usr/bin/python3   # Debian's, where python3-jsonschema installs
"$py" -c 'import jsonschema' 2>/dev/null || { echo "FAIL: python3-jsonschema is missing (scripts/deps.sh installs it)"; exit 1; }
# the mistakes, made from graphs/builtin.json by python (which also writes them for the loader)
"$py" - "$src" "$tmp" <<'PY'
import copy, glob, json, os, re, sys
import jsonschema
src, tmp = sys.argv[1], sys.argv[2]
schema = json.load(open(os.path.join(src, "docs/graph.schema.json")))
jsonschema.Draft202012Validator.check_schema(schema)
v = jsonschema.Draft202012Validator(schema)
failed = 0
def check(name, doc, want_valid):
    global failed
    errs = sorted(v.iter_errors(doc), key=lambda e: list(e.path))
    if (not errs) == want_valid:
        print("ok  ", name, "" if want_valid else "(rejected: %s)" % errs[0].message[:80])
    else:
        failed += 1
        print("FAIL", name, "valid" if not errs else errs[0].message)
graphs = sorted(glob.glob(os.path.join(src, "graphs/*.json")))
assert len(graphs) >= 4, graphs
for g in graphs:
    doc = json.load(open(g))
    check(os.path.basename(g), doc, True)
    if doc.get("$schema") != "../docs/graph.schema.json":
        failed += 1
        print("FAIL", os.path.basename(g), "does not name the schema in \"$schema\"")
md = open(os.path.join(src, "docs/graph-format.md")).read()
examples = re.findall(r"```json\n(.*?)```", md, re.S)
assert examples, "docs/graph-format.md has no ```json example"
for i, text in enumerate(examples):
    check("graph-format.md example %d" % (i + 1), json.loads(text), True)
base = json.load(open(os.path.join(src, "graphs/builtin.json")))
base["asset"] = "builtin"
def mistake(name, edit):
    doc = copy.deepcopy(base)
    edit(doc)
    check(name, doc, False)
    json.dump(doc, open(os.path.join(tmp, name + ".json"), "w"), indent=1)
mistake("unknown_key", lambda d: d["machines"][0]["transitions"][0].update(blendtime=0.2))
mistake("unknown_top_key", lambda d: d.update(layer=[]))
mistake("wrong_type", lambda d: d["machines"][0]["states"][2].update(once="yes"))
mistake("wrong_type_number", lambda d: d.update(default_blend_time="fast"))
mistake("unknown_mode", lambda d: d["machines"][0]["transitions"][1].update(mode="crossfad"))
mistake("unknown_layer_mode", lambda d: d["layers"][1].update(mode="add"))
mistake("missing_to", lambda d: d["machines"][0]["transitions"][0].pop("to"))
mistake("two_motions", lambda d: d["machines"][0]["states"][0].update(machine="Waving"))
mistake("trigger_value", lambda d: d["params"][1].update(value=1))
# comments and "$schema" stay valid
ok = copy.deepcopy(base)
ok["machines"][0]["_note"] = "a comment"
check("comments", ok, True)
sys.exit(1 if failed else 0)
PY
rc=$?
passed=0 failed=0
for f in "$tmp"/*.json; do
  name=$(basename "$f" .json)
  if "$cli" graph-check "$f" > "$tmp/out" 2> "$tmp/err"; then echo "FAIL the loader accepts $name"; failed=$((failed + 1))
  else passed=$((passed + 1)); echo "ok   the loader rejects $name: $(cut -c1-100 "$tmp/err")"; fi
done
"$cli" graph-check "$src/graphs/builtin.json" > /dev/null && passed=$((passed + 1)) || { echo "FAIL the loader refuses \"\$schema\""; failed=$((failed + 1)); }
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$rc" -eq 0 ]
