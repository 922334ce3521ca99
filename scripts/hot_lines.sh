#!/usr/bin/env bash
# The cache lines of an instance that the crowd's steady-state updates touch
# (loads and stores, from valgrind's lackey trace of scripts/hot_lines.c:
# `stance bench --graph`'s crowd, 1 thread). Prints, per graph, the lines
# touched per update (mean over the updates), their union over the frames,
# and the offsets of the touched ranges in the instance's block.
# usage: scripts/hot_lines.sh [BUILD_DIR [GRAPH...]]   (default build, graphs/builtin.json graphs/robot.json)
#   SOURCE_DIR  the tree whose tools/ are compiled (default: this one); CHARACTERS (6), WARM (60), FRAMES (12);
#   LOD=skip: the LOD crowd's skipped frames (advance and pose blend) instead of its updates
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
src=${SOURCE_DIR:-$here}
build=$(cd "${1:-$src/build}" && pwd)
shift $(( $# < 1 ? $# : 1 ))
graphs=("$@")
[ ${#graphs[@]} -gt 0 ] || graphs=(graphs/builtin.json graphs/robot.json)
command -v valgrind >/dev/null || { echo "hot_lines: valgrind is not installed" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
libs=()
for l in stance_io stance_lesson stance_build stance; do libs+=("$build/lib$l.a"); done
(cd "$src" && ${CC:-cc} -std=c11 -O2 -Iinclude -Isrc -Itools "$here/scripts/hot_lines.c" tools/crowd.c tools/tool_graph.c \
   "${libs[@]}" $(pkg-config --libs jansson tinygltf assimp 2>/dev/null || echo -ljansson -ltinygltf -lassimp) -lstdc++ -lpthread -lm -o "$tmp/hot_lines")
for g in "${graphs[@]}"; do
  (cd "$src" && valgrind --tool=lackey --trace-mem=yes "$tmp/hot_lines" "$g" ${CHARACTERS:-6} ${WARM:-60} ${FRAMES:-12} ${LOD:-} 2>&1 >/dev/null) |
    python3 "$here/scripts/hot_lines.py" "$g" $([ "${LOD:-}" = skip ] && echo 1 || echo 3)
done
