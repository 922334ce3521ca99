#!/usr/bin/env bash
# tests/test_io_badfiles.sh - `stance info` on files it must refuse: every
# glTF2 test file of assimp-testmodels that is malformed or holds no animated
# skeleton, assimp's invalid/ files, an empty file, a directory, a missing
# path, truncated and bit-flipped copies of RobotExpressive.glb and Fox.glb,
# corrupted .stance files, and hostile BVH files (a 40,000-deep chain, a
# 100,000-joint flat skeleton, Frames: 0, Frame Time: inf, ...: refused by
# the pre-scan). Each run must exit 1 with exactly one line on
# stderr that starts with "stance: " and names the file, with no hang (the
# guard: $hang s), no crash and no sanitizer report. Random bit flips in a GLB may leave a
# file that still imports: those may also exit 0, but never crash.
#
# Env: STANCE_CLI (the stance binary), STANCE_DATA (../shared/data), CI.
# Needs assimp-testmodels for the glTF2 and invalid/ files.
set -u
# a guard against hangs only, far above any normal run (test_io_badfiles runs all its files in about 30 s under ASan)
hang=${STANCE_HANG_SECONDS:-120}
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
    timeout "$hang" "$cli" info "$f" >"$tmp/out" 2>"$tmp/err"
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
if [ -f "$src" ] && timeout "$hang" "$cli" import "$src" --error-cm 0 -o "$good" >/dev/null 2>"$tmp/err"; then
    # the good file reads, and reads as the import does (the import also
    # reports each clip's interpolation, which a .stance file does not keep)
    if timeout "$hang" "$cli" info "$good" >"$tmp/a" 2>&1 && timeout "$hang" "$cli" info "$src" >"$tmp/b" 2>/dev/null &&
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
    # header fields: magic, version (bit 2: version 7; bit 0 would make a valid version 2), flags, payload size, checksum; then payload
    for at in "0 0" "6 0" "7 7" "8 2" "9 0" "11 7" "12 0" "15 7" "16 0" "20 3" "23 7" "24 0" "31 7" \
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

# ---- hostile BVH files: refused by the pre-scan before assimp sees them ------------
# (assimp overflows its stack on the deep chain and is quadratic on the flat
# skeleton; Frames: 0 and a Frame Time of inf used to import)
python3 - "$tmp" <<'PYEOF'
import sys
d = sys.argv[1]
def chain(n, frames="1", frame_time="0.033333"):
    out = ["HIERARCHY", "ROOT j0", "{", "OFFSET 0 0 0", "CHANNELS 6 Xposition Yposition Zposition Zrotation Yrotation Xrotation"]
    for i in range(1, n):
        out += ["JOINT j%d" % i, "{", "OFFSET 0 1 0", "CHANNELS 3 Zrotation Yrotation Xrotation"]
    out += ["End Site", "{", "OFFSET 0 1 0", "}"] + ["}"] * n
    out += ["MOTION", "Frames: " + frames, "Frame Time: " + frame_time, " ".join(["0"] * (3 + 3 * n))]
    return "\n".join(out) + "\n"
def flat(n):
    out = ["HIERARCHY", "ROOT r", "{", "OFFSET 0 0 0", "CHANNELS 6 Xposition Yposition Zposition Zrotation Yrotation Xrotation"]
    for i in range(1, n):
        out += ["JOINT j%d" % i, "{", "OFFSET 0 1 0", "CHANNELS 3 Zrotation Yrotation Xrotation", "End Site", "{", "OFFSET 0 1 0", "}", "}"]
    out += ["}", "MOTION", "Frames: 1", "Frame Time: 0.033333", " ".join(["0"] * (3 + 3 * n))]
    return "\n".join(out) + "\n"
files = {"deep40000.bvh": chain(40000), "deep257.bvh": chain(257), "flat100000.bvh": flat(100000),
         "frames0.bvh": chain(3, frames="0"), "frames_neg.bvh": chain(3, frames="-4"),
         "frames_huge.bvh": chain(3, frames="99999999999"), "frametime_inf.bvh": chain(3, frame_time="inf"),
         "frametime_nan.bvh": chain(3, frame_time="nan"), "frametime_0.bvh": chain(3, frame_time="0"),
         "frametime_neg.bvh": chain(3, frame_time="-0.5"), "frametime_1e39.bvh": chain(3, frame_time="1e39"),
         "unbalanced.bvh": chain(3).replace("}\nMOTION", "MOTION"), "channels7.bvh": chain(3).replace("CHANNELS 3", "CHANNELS 7"),
         "no_motion.bvh": chain(3).split("MOTION")[0], "deep256.bvh": chain(256)}
for name, text in files.items():
    open(d + "/" + name, "w").write(text)
PYEOF
bvh_want() { # bvh_want FILE TEXT: exit 1, one line naming the file and TEXT (expect's hang guard catches a
    # pre-scan that runs away; how fast a refusal is belongs to a benchmark, not to this test)
    expect "$tmp/$1"
    if ! grep -qF -- "$2" "$tmp/err"; then fail "$1: the message lacks '$2': $(cat "$tmp/err")"; fi
}
bvh_want deep40000.bvh "deeper than 256 joints"
bvh_want deep257.bvh "deeper than 256 joints"
bvh_want flat100000.bvh "more than 4096 joints"
bvh_want frames0.bvh "Frames: 0 is not a frame count >= 1"
bvh_want frames_neg.bvh "Frames: -4"
bvh_want frames_huge.bvh "over the memory budget"
bvh_want frametime_inf.bvh "Frame Time: inf is not a finite time > 0"
bvh_want frametime_nan.bvh "Frame Time: nan"
bvh_want frametime_0.bvh "Frame Time: 0 is not"
bvh_want frametime_neg.bvh "Frame Time: -0.5"
bvh_want frametime_1e39.bvh "Frame Time: 1e39"
bvh_want unbalanced.bvh "unclosed"
bvh_want channels7.bvh "CHANNELS 7"
bvh_want no_motion.bvh "ends before"
# 256 levels pass the pre-scan (the skeleton is then within the runtime's limits)
if timeout "$hang" "$cli" info "$tmp/deep256.bvh" >/dev/null 2>"$tmp/err"; then passed=$((passed + 1)); else fail "deep256.bvh: $(cat "$tmp/err")"; fi

# ---- usage errors exit 2 ----------------------------------------------------------
for args in "info" "info --bogus x" "info a b" "import" "import x" "import x -o" "import x -o y --scale -1"; do
    # shellcheck disable=SC2086
    timeout "$hang" "$cli" $args >/dev/null 2>&1
    rc=$?
    if [ "$rc" = 2 ]; then passed=$((passed + 1)); else fail "stance $args: exit status $rc, want 2"; fi
done

[ "$skipped" -gt 0 ] && echo "$skipped parts skipped (see above)"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
