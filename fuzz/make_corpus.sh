#!/usr/bin/env bash
# fuzz/make_corpus.sh [--compiled] [DIR] - a seed corpus for fuzz/fuzz_asset.c: .stance
# files imported from the real assets (../shared/data) and from a few small
# animated files of assimp-testmodels (compressed at 0.01 and 1 cm, and exact), and a small version 2 file with a skin
# and meshes written by fuzz/v2_seed.py, the version 3 and 4 test files, and the shipped graphs compiled. Writes into DIR (default: a new temp
# directory) and prints the directory. Binary corpora are not committed.
# --compiled: only the shipped graphs (graphs/*.json) compiled, for
# fuzz/fuzz_compiled.c.
# Needs the stance CLI built with assimp: STANCE_CLI (default build/stance).
set -eu
cd "$(dirname "$0")/.."
cli=${STANCE_CLI:-build/stance}
data=${STANCE_DATA:-../shared/data}
compiled_only=0
if [ "${1:-}" = --compiled ]; then compiled_only=1; shift; fi
dir=${1:-$(mktemp -d)}
if [ ! -x "$cli" ]; then
    echo "make_corpus.sh: $cli is missing: build first (cmake -S . -B build && cmake --build build)" >&2
    exit 1
fi
mkdir -p "$dir"
n=0
# compiled graphs (a GRPH section beside the skeleton and clips): every shipped graph
for g in graphs/*.json; do
    out="$dir/compiled_$(basename "$g" .json).stance"
    if "$cli" compile "$g" -o "$out" >/dev/null 2>&1; then n=$((n + 1)); fi
done
if [ $compiled_only = 1 ]; then
    [ "$n" -gt 0 ] || { echo "make_corpus.sh: no graph compiled (is the CLI built with assimp and jansson?)" >&2; exit 1; }
    echo "$dir"
    exit 0
fi
for src in "$data/fox/Fox.glb" "$data/robot_expressive/RobotExpressive.glb" \
    /usr/share/assimp/models/glTF2/simple_skin/simple_skin.gltf \
    /usr/share/assimp/models/Collada/box_nested_animation.dae \
    /usr/share/assimp/models/FBX/animation_with_skeleton.fbx \
    /usr/share/assimp/models/X/anim_test.x; do
    [ -f "$src" ] || continue
    out="$dir/$(basename "$src" | tr '.' '_').stance"
    # compressed clips (the default, and a coarse 1 cm), and exact ones
    if "$cli" import "$src" -o "$out" >/dev/null 2>&1; then n=$((n + 1)); fi
    if "$cli" import "$src" --error-cm 1 -o "${out%.stance}_1cm.stance" >/dev/null 2>&1; then n=$((n + 1)); fi
    if "$cli" import "$src" --error-cm 0 -o "${out%.stance}_exact.stance" >/dev/null 2>&1; then n=$((n + 1)); fi
done
if python3 fuzz/v2_seed.py "$dir/v2_skin_mesh.stance"; then n=$((n + 1)); fi
# version 3 and 4 compressed files (the test fixtures)
if cp tests/data/builtin_v3.stance "$dir/builtin_v3.stance"; then n=$((n + 1)); fi
if cp tests/data/builtin_v4.stance "$dir/builtin_v4.stance"; then n=$((n + 1)); fi
if [ "$n" = 0 ]; then
    echo "make_corpus.sh: no seed could be made (is the CLI built with assimp?)" >&2
    exit 1
fi
echo "$dir"
