# tests/broken_file.bash - sourced by the CLI tests of graph file errors
# (test_notes_cli.sh, test_curves_cli.sh; not a test itself): check_broken
# NAME TOKEN WORDS [AFTER] runs `stance graph-check` on $tmp/NAME.json and
# wants it refused in one line, at the FILE:LINE:COLUMN of TOKEN (its first
# occurrence, or the first after the text AFTER), holding WORDS. Needs $cli,
# $tmp, $py and bad().
check_broken() {
  local f="$tmp/$1.json"
  if "$cli" graph-check "$f" > "$tmp/out" 2> "$tmp/err"; then bad "$1: accepted"; return; fi
  local where
  where=$("$py" -c 'import sys; t=open(sys.argv[1]).read(); s=t.index(sys.argv[3]) if sys.argv[3] else 0; i=t.index(sys.argv[2], s); print("%d:%d" % (t.count("\n",0,i)+1, i-t.rfind("\n",0,i)))' "$f" "$2" "${4:-}")
  local lines
  lines=$(wc -l < "$tmp/err")
  if [ "$lines" != 1 ]; then bad "$1: $lines lines: $(cat "$tmp/err")"; return; fi
  grep -q "^$f:$where: " "$tmp/err" || { bad "$1: not at $where: $(cat "$tmp/err")"; return; }
  grep -qF "$3" "$tmp/err" || { bad "$1: no '$3': $(cat "$tmp/err")"; return; }
  echo "ok   $1: $(cat "$tmp/err")"
}
