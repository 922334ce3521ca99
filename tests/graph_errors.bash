# tests/graph_errors.bash - sourced, right after `src=${STANCE_SOURCE:?}`, by
# the shell tests of graph files' new keys (test_notes_cli.sh,
# test_sync_cli.sh, test_curves_cli.sh; test_lod_bench.sh for the first
# lines; not a test itself: tests/*.sh are).
# It sets what they share: cli, data, tmp (removed on exit), fail, bad(), py;
# check_broken (a broken file's one message) and robot_compile (a shipped
# graph on RobotExpressive through graph-check, compile and info --json).
set -euo pipefail
cli=${STANCE_CLI:?}
data=${STANCE_DATA:-$src/../shared/data}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
py=python3
[ -x /usr/bin/python3 ] && py=/usr/bin/python3

# check_broken NAME TOKEN WORDS [last]: `stance graph-check $tmp/NAME.json`
# must fail with one line, at the FILE:LINE:COLUMN of TOKEN in the file
# (its first occurrence; its last with a 4th argument), holding WORDS.
check_broken() {
  local f="$tmp/$1.json"
  if "$cli" graph-check "$f" > "$tmp/out" 2> "$tmp/err"; then bad "$1: accepted"; return; fi
  local where lines
  where=$("$py" -c 'import sys; t=open(sys.argv[1]).read(); i=t.rindex(sys.argv[2]) if len(sys.argv) > 3 else t.index(sys.argv[2]); print("%d:%d" % (t.count("\n",0,i)+1, i-t.rfind("\n",0,i)))' "$f" "$2" ${4:+last})
  lines=$(wc -l < "$tmp/err")
  if [ "$lines" != 1 ]; then bad "$1: $lines lines: $(cat "$tmp/err")"; return; fi
  grep -q "^$f:$where: " "$tmp/err" || { bad "$1: not at $where: $(cat "$tmp/err")"; return; }
  grep -qF "$3" "$tmp/err" || { bad "$1: no '$3': $(cat "$tmp/err")"; return; }
  echo "ok   $1: $(cat "$tmp/err")"
}

# robot_compile NAME: graphs/NAME.json on RobotExpressive: `stance graph-check`
# (its output in $tmp/check.out), `stance compile` to $tmp/r.stance and
# `stance info --json` of it to $tmp/info.json; a failure is bad(). Returns 1
# (with a line) when the data is missing, which CI=true counts as a failure.
robot_compile() {
  local glb="$data/robot_expressive/RobotExpressive.glb" g="$src/graphs/$1.json"
  if [ ! -f "$glb" ]; then
    if [ "${CI:-}" = true ]; then bad "missing $glb (CI=true)"; else echo "skip: $glb is missing"; fi
    return 1
  fi
  "$cli" graph-check "$g" --asset "$glb" > "$tmp/check.out" 2> "$tmp/err" || bad "graph-check $1.json: $(grep -v warning "$tmp/err")"
  "$cli" compile "$g" --asset "$glb" -o "$tmp/r.stance" > "$tmp/out" 2> "$tmp/err" || bad "compile: $(grep -v warning "$tmp/err")"
  "$cli" info "$tmp/r.stance" --json > "$tmp/info.json" 2> /dev/null || bad "info --json"
}
