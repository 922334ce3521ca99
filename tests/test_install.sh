#!/usr/bin/env bash
# `make install` gives libraries an outside program links: the runtime
# (stance.pc, stance::stance; tests/core_alone.c links it alone), the builder
# library (stance-build.pc, stance::build: graph compilation, compression,
# the .stance writer), the lesson
# library (stance-lesson.pc, stance::lesson: the built-in character and the
# experiments) and the tools-side library (stance-io.pc, stance::io) that
# loads graph files and imports glTF, through pkg-config and through CMake's
# find_package(stance 0.1). Also: the licence (LICENSE in share/doc/stance,
# named in every .pc and CMake config file),  the versions of the .pc
# files, the CMake package and stance_version() are the project's, the shared
# libraries carry a SONAME, and find_package refuses another major version.
set -euo pipefail
build=${STANCE_BUILD:?}
src=${STANCE_SOURCE:?}
version=${STANCE_VERSION:?}
major=${version%%.*}
IFS=. read -r v_major v_minor v_patch <<<"$version"
vnum=$((v_major * 10000 + v_minor * 100 + v_patch))   # STANCE_VERSION_NUMBER: 0.2.0 = 200
robot="${STANCE_DATA:-}/robot_expressive/RobotExpressive.glb"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" > "$tmp/install.log"
san=""
[ "${STANCE_SANITIZE:-OFF}" = "ON" ] && san="-fsanitize=address,undefined"
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok   $1"; }
bad() { failed=$((failed + 1)); echo "FAIL $1"; }

cat > "$tmp/main.c" <<'C'
#include <stance_lesson/stance_lesson.h>
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
    for (int i = 0; i < 60; i++) stance_instance_update(inst, 1.0f / 60, ws, NULL);
    if (stance_version_number() != STANCE_VERSION_NUMBER) { puts("stance_version_number differs from the header's"); return 1; }
    printf("installed stance %s (%d): %d joints, hips at %.2f m\n", stance_version(), stance_version_number(), b.skeleton->joint_count,
           stance_instance_model_pose(inst)->ty[1]);
    stance_instance_destroy(inst);
    stance_workspace_destroy(ws);
    stance_graph_destroy(g);
    stance_builtin_destroy(&b);
    return 0;
}
C
# The tools side: a graph file driven into its Move state, and an import.
cat > "$tmp/io.c" <<'C'
#include <stance/io.h>
#include <stdio.h>
#include <string.h>
int main(int argc, char **argv) {
    stance_error err;
    if (argc < 2) return 2;
    stance_graphfile *gf;
    if (stance_graphfile_load(argv[1], NULL, &gf, &err)) { puts(err.message); return 1; }
    const stance_graph *g = stance_graphfile_graph(gf);
    stance_instance *inst;
    if (stance_instance_create(g, NULL, &inst, &err)) { puts(err.message); return 1; }
    stance_workspace *ws;
    if (stance_workspace_create(g, NULL, &ws, &err)) { puts(err.message); return 1; }
    if (stance_instance_set_float_by_name(inst, "speed", 3.0f, &err)) { puts(err.message); return 1; }
    for (int i = 0; i < 60; i++)
        if (stance_instance_update(inst, 1.0f / 60, ws, &err)) { puts(err.message); return 1; }
    stance_machine_status ms;
    stance_instance_machine_status(inst, 0, &ms, NULL);
    printf("graph: %d machines, %d states, in %s\n", stance_graph_machine_count(g), stance_graph_state_count(g),
           stance_graph_state_name(g, ms.state));
    stance_instance_destroy(inst);
    stance_workspace_destroy(ws);
    stance_graphfile_destroy(gf);
    if (argc > 2) {
        stance_asset a;
        if (stance_import_file(argv[2], NULL, NULL, &a, &err)) { puts(err.message); return 1; }
        printf("import: %d joints, %d clips\n", a.skeleton->joint_count, a.clip_count);
        stance_asset_destroy(&a);
    }
    return 0;
}
C
want_graph="graph: 4 machines, 6 states, in Move"
want_import="import: 43 joints, 14 clips"   # RobotExpressive.glb: its skin's joints, its animations
io_args=("$src/graphs/builtin.json")
if [ -f "$robot" ]; then io_args+=("$robot"); else
  [ -n "${CI:-}" ] && { echo "FAIL: CI and $robot is missing"; exit 1; }
  echo "skip: $robot is missing (the import part is not checked)"; want_import=""
fi
check_io() { # $1 = program, $2 = what
  local out
  if ! out=$(LD_LIBRARY_PATH="$libroot" "$1" "${io_args[@]}"); then echo "$out"; bad "$2 runs"; return; fi
  if grep -qxF "$want_graph" <<<"$out" && { [ -z "$want_import" ] || grep -qxF "$want_import" <<<"$out"; }; then ok "$2"
  else printf 'got:\n%s\nwanted:\n%s\n%s\n' "$out" "$want_graph" "$want_import"; bad "$2"; fi
}

pcdir=$(ls -d "$tmp"/prefix/lib*/pkgconfig | head -1)
libroot=$(dirname "$pcdir")
export PKG_CONFIG_PATH="$pcdir"
# ---- pkg-config: the static libraries, as CMake's targets (docs/install.md);
# LD_LIBRARY_PATH only for the io library's importers' own shared libraries
# the builder (pkg-config stance-build) compiles a graph that the runtime alone (pkg-config stance) loads and runs
if cc $san -std=c11 -Wall -Wextra -Werror -DCORE_ALONE_WRITE "$src/tests/core_alone.c" $(pkg-config --cflags --libs stance-build) \
     -o "$tmp/writer_pc" && LD_LIBRARY_PATH="$libroot" "$tmp/writer_pc" "$tmp/rise.stance" | grep -qx compiled; then
  ok "pkg-config stance-build (the writer)"
else bad "pkg-config stance-build (the writer)"; fi
if cc $san -std=c11 -Wall -Wextra -Werror "$src/tests/core_alone.c" $(pkg-config --cflags --libs stance) -o "$tmp/core_pc" \
   && ! ldd "$tmp/core_pc" | grep -q 'libstance' \
   && LD_LIBRARY_PATH="$libroot" "$tmp/core_pc" "$tmp/rise.stance" | grep -q "runtime alone $version: tip at 0.500 m"; then
  ok "pkg-config stance (the runtime alone)"
else bad "pkg-config stance (the runtime alone)"; fi
if cc $san -std=c11 -Wall -Wextra -Werror "$tmp/main.c" $(pkg-config --cflags --libs stance-lesson) -o "$tmp/viapc" \
   && LD_LIBRARY_PATH="$libroot" "$tmp/viapc" | grep -q "installed stance $version ($vnum): "; then ok "pkg-config stance-lesson"; else bad "pkg-config stance-lesson"; fi
if cc $san -std=c11 -Wall -Wextra -Werror "$tmp/io.c" $(pkg-config --cflags --libs stance-io) -o "$tmp/io_pc" \
   && ! ldd "$tmp/io_pc" | grep -q 'libstance'; then
  check_io "$tmp/io_pc" "pkg-config stance-io"
else bad "pkg-config stance-io build"; fi
for pc in stance stance-build stance-lesson stance-io; do
  v=$(pkg-config --modversion $pc)
  [ "$v" = "$version" ] && ok "$pc.pc version $v" || bad "$pc.pc version $v, wanted $version"
done
for lib in stance stance_build stance_lesson stance_io; do
  so=$(readelf -d "$libroot/lib$lib.so" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
  [ "$so" = "lib$lib.so.$major" ] && ok "lib$lib.so SONAME $so" || bad "lib$lib.so SONAME '$so', wanted lib$lib.so.$major"
done

if cmp -s "$tmp/prefix/share/stance/graph.schema.json" "$src/docs/graph.schema.json"; then ok "share/stance/graph.schema.json"
else bad "share/stance/graph.schema.json is not installed"; fi
# the licence: its text in share/doc/stance, named in every package file
if cmp -s "$tmp/prefix/share/doc/stance/LICENSE" "$src/LICENSE" && grep -q '^MIT License$' "$src/LICENSE"; then ok "share/doc/stance/LICENSE"
else bad "share/doc/stance/LICENSE is not installed"; fi
nfiles=0
for f in "$pcdir"/*.pc "$libroot"/cmake/stance/stanceConfig*.cmake; do
  nfiles=$((nfiles + 1))
  grep -q 'SPDX-License-Identifier: MIT' "$f" && grep -q 'share/doc/stance/LICENSE' "$f" \
    || bad "$(basename "$f") does not name the licence (MIT, share/doc/stance/LICENSE)"
done
[ "$nfiles" -eq 6 ] && ok "the licence named in the 4 .pc files and the 2 CMake config files" || bad "$nfiles package files, wanted 6"
# ---- find_package(stance 0.2), no COMPONENTS (all of them): the static libraries
mkdir -p "$tmp/proj"
cat > "$tmp/proj/CMakeLists.txt" <<CM
cmake_minimum_required(VERSION 3.25)
project(outside C)
find_package(stance ${version%.*} REQUIRED)
if(NOT stance_VERSION VERSION_EQUAL "$version")
  message(FATAL_ERROR "find_package found stance \${stance_VERSION}, wanted $version")
endif()
add_executable(outside_core $src/tests/core_alone.c)
target_link_libraries(outside_core PRIVATE stance::stance)
add_executable(outside_writer $src/tests/core_alone.c)
target_compile_definitions(outside_writer PRIVATE CORE_ALONE_WRITE)
target_link_libraries(outside_writer PRIVATE stance::build)
add_executable(outside $tmp/main.c)
target_link_libraries(outside PRIVATE stance::lesson)
add_executable(outside_io $tmp/io.c)
target_link_libraries(outside_io PRIVATE stance::io)
foreach(t outside_core outside_writer outside outside_io)
  target_compile_options(\${t} PRIVATE $san)
  target_link_options(\${t} PRIVATE $san)
endforeach()
CM
if cmake -S "$tmp/proj" -B "$tmp/proj/build" -DCMAKE_PREFIX_PATH="$tmp/prefix" > "$tmp/cmake.log" \
   && cmake --build "$tmp/proj/build" > "$tmp/build.log" && "$tmp/proj/build/outside" | grep -q "installed stance $version ($vnum): " \
   && "$tmp/proj/build/outside_writer" "$tmp/rise_cm.stance" | grep -qx compiled \
   && "$tmp/proj/build/outside_core" "$tmp/rise_cm.stance" | grep -q "runtime alone $version: tip at 0.500 m"; then
  ok "find_package stance::build (the writer), stance::stance (the runtime alone) and stance::lesson"
  check_io "$tmp/proj/build/outside_io" "find_package stance::io"
else
  cat "$tmp/cmake.log" "$tmp/build.log"; bad "find_package build"
fi
# stanceConfigVersion.cmake refuses the next major version
mkdir -p "$tmp/proj2"
cat > "$tmp/proj2/CMakeLists.txt" <<CM
cmake_minimum_required(VERSION 3.25)
project(outside2 C)
find_package(stance $((major + 1)).0 QUIET)
if(stance_FOUND)
  message(FATAL_ERROR "find_package(stance $((major + 1)).0) accepted \${stance_VERSION}")
endif()
CM
if cmake -S "$tmp/proj2" -B "$tmp/proj2/build" -DCMAKE_PREFIX_PATH="$tmp/prefix" > "$tmp/cmake2.log" 2>&1; then
  ok "find_package(stance $((major + 1)).0) refused"; else cat "$tmp/cmake2.log"; bad "find_package(stance $((major + 1)).0) refused"; fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
