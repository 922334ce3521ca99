#!/usr/bin/env bash
# `make install` gives a library that an outside program links: through
# pkg-config, and through CMake's find_package(stance).
set -euo pipefail
build=${STANCE_BUILD:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" > "$tmp/install.log"
san=""
[ "${STANCE_SANITIZE:-OFF}" = "ON" ] && san="-fsanitize=address,undefined"
cat > "$tmp/main.c" <<'C'
#include <stance/stance.h>
#include <stdio.h>
int main(void) {
    stance_builtin b;
    stance_error err;
    if (stance_builtin_create(NULL, &b, &err)) { puts(err.message); return 1; }
    stance_graph *g;
    if (stance_builtin_lesson_graph(&b, NULL, &g, &err)) { puts(err.message); return 1; }
    stance_instance *inst;
    if (stance_instance_create(g, NULL, &inst, &err)) { puts(err.message); return 1; }
    stance_workspace *ws;
    if (stance_workspace_create(g, NULL, &ws, &err)) { puts(err.message); return 1; }
    stance_instance_set_float_by_name(inst, "speed", 1.5f, &err);
    for (int i = 0; i < 60; i++) stance_instance_update(inst, 1.0f / 60, ws);
    printf("installed stance: %d joints, hips at %.2f m\n", b.skeleton->joint_count, stance_instance_model_pose(inst)->ty[1]);
    stance_instance_destroy(inst);
    stance_workspace_destroy(ws);
    stance_graph_destroy(g);
    stance_builtin_destroy(&b);
    return 0;
}
C
passed=0 failed=0
# pkg-config: the shared library, found at run time through LD_LIBRARY_PATH
libdir=$(ls -d "$tmp"/prefix/lib*/pkgconfig | head -1)
if PKG_CONFIG_PATH="$libdir" cc $san -std=c11 "$tmp/main.c" $(PKG_CONFIG_PATH="$libdir" pkg-config --cflags --libs --static stance) -o "$tmp/viapc" \
   && LD_LIBRARY_PATH="$(dirname "$libdir")" "$tmp/viapc"; then passed=$((passed + 1)); else echo "FAIL: pkg-config build"; failed=$((failed + 1)); fi
# find_package
mkdir -p "$tmp/proj"
cat > "$tmp/proj/CMakeLists.txt" <<CM
cmake_minimum_required(VERSION 3.25)
project(outside C)
find_package(stance REQUIRED)
add_executable(outside $tmp/main.c)
target_link_libraries(outside PRIVATE stance::stance)
target_compile_options(outside PRIVATE $san)
target_link_options(outside PRIVATE $san)
CM
if cmake -S "$tmp/proj" -B "$tmp/proj/build" -DCMAKE_PREFIX_PATH="$tmp/prefix" > "$tmp/cmake.log" \
   && cmake --build "$tmp/proj/build" > "$tmp/build.log" && "$tmp/proj/build/outside"; then
  passed=$((passed + 1))
else
  echo "FAIL: find_package build"; cat "$tmp/cmake.log" "$tmp/build.log"; failed=$((failed + 1))
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
