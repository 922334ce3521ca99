#!/usr/bin/env bash
# Why glTF LINEAR rotations are baked as extra nlerp keys rather than the
# clip's slerp flag: instructions per stance_clip_sample (callgrind) of one
# imported clip sampled with its own flag (nlerp, the keys the importer added
# to stay within 1e-4 rad of slerp) and with the flag forced to slerp.
# usage: scripts/slerp_cost.sh [build dir] [file.glb] [clip]
set -euo pipefail
build=${1:-build}
file=${2:-../shared/data/robot_expressive/RobotExpressive.glb}
clip=${3:-Running}
command -v valgrind >/dev/null || { echo "slerp_cost: valgrind is not installed" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/sb.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "stance/import.h"
#include "stance/asset.h"
int main(int argc, char **argv) {
    if (argc < 4) return 2;
    stance_asset a;
    stance_error e;
    if (stance_import_file(argv[1], NULL, NULL, &a, &e)) { fprintf(stderr, "%s\n", e.message); return 1; }
    const stance_clip *c = stance_asset_find_clip(&a, argv[2]);
    if (!c) { fprintf(stderr, "no clip %s\n", argv[2]); return 1; }
    stance_clip forced;
    memcpy(&forced, c, sizeof forced);
    forced.slerp = atoi(argv[3]);
    stance_pose p;
    stance_pose_create(&p, a.skeleton->joint_count, NULL, NULL);
    stance_cursor cur = {0, 0};
    for (int i = 0; i < 10000; i++) stance_clip_sample(&forced, (float)(i % 600) / 600.0f * c->duration, &cur, &p, NULL);
    printf("%d keys, %zu bytes of keys\n", c->key_count, stance_clip_data_bytes(c));
    stance_pose_destroy(&p);
    stance_asset_destroy(&a);
    return 0;
}
C
src=$(cd "$(dirname "$0")/.." && pwd)
cc -O2 -std=c11 -I "$src/include" -I "$src/src" "$tmp/sb.c" -o "$tmp/sb" \
  "$build/libstance_io.a" "$build/libstance_lesson.a" "$build/libstance.a" $(pkg-config --libs assimp tinygltf) -lstdc++ -lm
for s in 0 1; do
  valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.$s" --toggle-collect=stance_clip_sample \
    "$tmp/sb" "$file" "$clip" $s > "$tmp/out.$s" 2> /dev/null
  ir=$(grep -E '^summary:' "$tmp/cg.$s" | awk '{print $2}')
  echo "$clip, $( [ $s = 0 ] && echo nlerp || echo slerp ): $(( ir / 10000 )) instructions per sample; $(cat "$tmp/out.$s")"
done
