#!/usr/bin/env bash
# tests/test_io_badfiles.sh - `stance info` on files it must refuse: every
# glTF2 test file of assimp-testmodels that is malformed or holds no animated
# skeleton, assimp's invalid/ files, an empty file, a directory, a missing
# path, truncated and bit-flipped copies of RobotExpressive.glb and Fox.glb,
# and corrupted .stance files. Each run must exit 1 with exactly one line on
# stderr that starts with "stance: " and names the file, within 20 s, with
# no crash and no sanitizer report. Random bit flips in a GLB may leave a
# file that still imports: those may also exit 0, but never crash.
#
# Env: STANCE_CLI (the stance binary), STANCE_DATA (../shared/data), CI.
# Needs assimp-testmodels for the glTF2 and invalid/ files.
set -u
cli=${STANCE_CLI:-}
if [ -z "$cli" ] || [ ! -x "$cli" ]; then
    echo "STANCE_CLI is not set to the stance binary"
    exit 1
fi
data=${STANCE_DATA:-../shared/data}
models=/usr/share/assimp/models
in_ci=0
[ "${CI:-}" = "true" ] && in_ci=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0
skipped=0

fail() {
    failed=$((failed + 1))
    echo "FAIL $*"
}

# expect FILE [may_pass]: `stance info FILE` exits 1 with one stderr line
# naming FILE (or, with may_pass, exits 0).
expect() {
    local f=$1 may_pass=${2:-0} rc lines
    timeout 20 "$cli" info "$f" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    lines=$(wc -l <"$tmp/err")
    if [ "$rc" -ge 124 ]; then
        fail "$f: exit status $rc (timeout or crash)"
        sed -n '1,5p' "$tmp/err"
        return
    fi
    if grep -qE 'Sanitizer|runtime error:|==[0-9]+==' "$tmp/err"; then
        fail "$f: sanitizer report"
        sed -n '1,10p' "$tmp/err"
        return
    fi
    if [ "$rc" -eq 0 ] && [ "$may_pass" = 1 ]; then
        passed=$((passed + 1))
        return
    fi
    if [ "$rc" -ne 1 ] || [ "$lines" -ne 1 ]; then
        fail "$f: exit status $rc, $lines lines on stderr (want 1 and 1)"
        sed -n '1,5p' "$tmp/err"
        return
    fi
    if ! head -c 8 "$tmp/err" | grep -qF 'stance: ' || ! grep -qF -- "$f" "$tmp/err"; then
        fail "$f: the message does not start with 'stance: ' and name the file: $(cat "$tmp/err")"
        return
    fi
    passed=$((passed + 1))
}

missing() {
    if [ "$in_ci" = 1 ]; then
        fail "missing $1 (CI=true)"
    else
        echo "skip: missing $1"
        skipped=$((skipped + 1))
    fi
}

# flip FILE OFFSET BIT: flips one bit in place.
flip() {
    local b
    b=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
    # shellcheck disable=SC2059 # the format is the byte's octal escape
    printf "$(printf '\\%03o' $((b ^ (1 << $3))))" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

size_of() { wc -c <"$1" | tr -d ' '; }

# ---- paths that are not files ------------------------------------------------
: >"$tmp/empty.glb"
: >"$tmp/empty.stance"
mkdir "$tmp/dir.glb"
expect "$tmp/empty.glb"
expect "$tmp/empty.stance"
expect "$tmp/dir.glb"
expect "$tmp/missing.glb"
expect "$tmp/missing/dir/x.stance"
printf 'not a model at all\n' >"$tmp/text.gltf"
expect "$tmp/text.gltf"
printf 'STANCE\0\0' >"$tmp/magic_only.stance"
expect "$tmp/magic_only.stance"

# ---- assimp's own test files ---------------------------------------------------
if [ -d "$models/glTF2" ]; then
    # every glTF2 file is malformed or has no animated skeleton, except these
    while IFS= read -r f; do
        case "$f" in
        */simple_skin/simple_skin.gltf) expect "$f" 1 ;;
        *) expect "$f" ;;
        esac
    done < <(find "$models/glTF2" -type f \( -name '*.gltf' -o -name '*.glb' \) | sort)
    while IFS= read -r f; do
        expect "$f"
    done < <(find "$models/invalid" -type f ! -name '*.txt' | sort)
    # a mesh without bones or animation in other formats
    for f in "$models/OBJ/box.obj" "$models/STL/Spider_ascii.stl" "$models/PLY/cube.ply"; do
        [ -f "$f" ] && expect "$f"
    done
else
    missing "$models/glTF2 (Debian package assimp-testmodels)"
fi

# ---- damaged copies of the real assets ------------------------------------------
RANDOM=20240601
for rel in robot_expressive/RobotExpressive.glb fox/Fox.glb; do
    src="$data/$rel"
    if [ ! -f "$src" ]; then
        missing "$src"
        continue
    fi
    base=$(basename "$src" .glb)
    n=$(size_of "$src")
    # truncations: inside the header, the JSON chunk, the binary chunk, the end
    for cut in 1 4 11 12 19 20 21 100 1000 4000 $((n / 3)) $((n / 2)) $((n - 1000)) $((n - 4)) $((n - 1)); do
        head -c "$cut" "$src" >"$tmp/${base}_cut$cut.glb"
        expect "$tmp/${base}_cut$cut.glb"
    done
    # flips in the GLB header and chunk headers are always fatal
    for at in "0 1" "3 6" "4 1" "5 0" "8 3" "9 2" "11 7" "12 4" "13 1" "16 0" "19 6"; do
        # shellcheck disable=SC2086 # two words: offset and bit
        set -- $at
        cp "$src" "$tmp/${base}_hdr$1_$2.glb"
        flip "$tmp/${base}_hdr$1_$2.glb" "$1" "$2"
        expect "$tmp/${base}_hdr$1_$2.glb"
    done
    # random flips anywhere (1 to 8 bits): they may leave a valid file
    for i in $(seq 1 30); do
        g="$tmp/${base}_flip$i.glb"
        cp "$src" "$g"
        for _ in $(seq 1 $((1 + i % 8))); do
            if [ $((i % 2)) = 0 ]; then
                off=$(((RANDOM * 32768 + RANDOM) % n)) # anywhere
            else
                off=$((20 + (RANDOM * 32768 + RANDOM) % 4000)) # in the JSON
            fi
            flip "$g" "$off" $((RANDOM % 8))
        done
        expect "$g" 1
    done
done

# ---- corrupted .stance files ---------------------------------------------------------
src="$data/fox/Fox.glb"
good="$tmp/fox.stance"
if [ -f "$src" ] && timeout 20 "$cli" import "$src" -o "$good" >/dev/null 2>"$tmp/err"; then
    # the good file reads, and reads as the import does (the import also
    # reports each clip's interpolation, which a .stance file does not keep)
    if timeout 20 "$cli" info "$good" >"$tmp/a" 2>&1 && timeout 20 "$cli" info "$src" >"$tmp/b" 2>/dev/null &&
        diff <(tail -n +2 "$tmp/a") <(tail -n +2 "$tmp/b" | grep -v '^    interpolation: ') >/dev/null; then
        passed=$((passed + 1))
    else
        fail "$good: info differs from the imported file's"
    fi
    n=$(size_of "$good")
    for cut in 1 7 8 31 32 33 47 48 49 60 100 1000 $((n / 2)) $((n - 4)) $((n - 1)); do
        head -c "$cut" "$good" >"$tmp/cut$cut.stance"
        expect "$tmp/cut$cut.stance"
    done
    cp "$good" "$tmp/long.stance"
    printf 'x' >>"$tmp/long.stance"
    expect "$tmp/long.stance"
    # header fields: magic, version, flags, payload size, checksum; then payload
    for at in "0 0" "6 0" "7 7" "8 0" "9 0" "11 7" "12 0" "15 7" "16 0" "20 3" "23 7" "24 0" "31 7" \
        "32 0" "40 2" "48 0" "51 7" $((n - 1))" 0"; do
        # shellcheck disable=SC2086 # two words: offset and bit
        set -- $at
        cp "$good" "$tmp/flip$1_$2.stance"
        flip "$tmp/flip$1_$2.stance" "$1" "$2"
        expect "$tmp/flip$1_$2.stance"
    done
    for i in $(seq 1 20); do
        g="$tmp/rand$i.stance"
        cp "$good" "$g"
        flip "$g" $(((RANDOM * 32768 + RANDOM) % n)) $((RANDOM % 8))
        expect "$g"
    done
    # the magic followed by the rest of another file
    { printf 'STANCE\0\0'; tail -c +9 "$src"; } >"$tmp/glb_body.stance"
    expect "$tmp/glb_body.stance"
else
    if [ -f "$src" ] && grep -q "without assimp" "$tmp/err" 2>/dev/null; then
        echo "skip: .stance corruptions (built without assimp: no way to make a .stance here)"
        skipped=$((skipped + 1))
        [ "$in_ci" = 1 ] && fail "built without assimp (CI=true)"
    elif [ -f "$src" ]; then
        fail "stance import $src failed: $(cat "$tmp/err")"
    else
        missing "$src"
    fi
fi

# ---- usage errors exit 2 ----------------------------------------------------------
for args in "info" "info --bogus x" "info a b" "import" "import x" "import x -o" "import x -o y --scale -1"; do
    # shellcheck disable=SC2086
    timeout 20 "$cli" $args >/dev/null 2>&1
    rc=$?
    if [ "$rc" = 2 ]; then passed=$((passed + 1)); else fail "stance $args: exit status $rc, want 2"; fi
done

[ "$skipped" -gt 0 ] && echo "$skipped parts skipped (see above)"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
