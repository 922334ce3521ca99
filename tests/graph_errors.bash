# tests/graph_errors.bash - sourced by the shell tests of graph file errors
# (test_notes_cli.sh, test_sync_cli.sh, test_curves_cli.sh; not a test
# itself: tests/*.sh are).
# check_broken NAME TOKEN WORDS [last]: `stance graph-check $tmp/NAME.json`
# must fail with one line, at the FILE:LINE:COLUMN of TOKEN in the file
# (its first occurrence; its last with a 4th argument), holding WORDS.
# Needs $cli, $tmp, $py and a function bad.
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
