#!/usr/bin/env bash
# C++ users: a .cpp that includes stance/stance.h, stance/io.h and
# stance_lesson/stance_lesson.h (the installed headers) builds with -Wall -Wextra -Werror -pedantic under g++
# and clang++, links the installed libraries and runs.
set -euo pipefail
build=${STANCE_BUILD:?}
src=${STANCE_SOURCE:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" > "$tmp/install.log"
san=""
[ "${STANCE_SANITIZE:-OFF}" = "ON" ] && san="-fsanitize=address,undefined"
cat > "$tmp/user.cpp" <<'CPP'
#include <stance/stance.h>
#include <stance/io.h>
#include <stance_lesson/stance_lesson.h>
#include <cstdio>
#include <cstring>
int main(int argc, char **argv) {
    if (argc < 2) return 2;
    stance_error err;
    stance_graphfile *gf = nullptr;
    if (stance_graphfile_load(argv[1], nullptr, &gf, &err) != STANCE_OK) { std::puts(err.message); return 1; }
    stance_instance *inst = nullptr;
    if (stance_instance_create(stance_graphfile_graph(gf), nullptr, &inst, &err) != STANCE_OK) { std::puts(err.message); return 1; }
    stance_workspace *ws = nullptr;
    if (stance_workspace_create(stance_graphfile_graph(gf), nullptr, &ws, &err) != STANCE_OK) { std::puts(err.message); return 1; }
    stance_instance_set_float_by_name(inst, "speed", 2.0f, &err);
    for (int i = 0; i < 30; i++)
        if (stance_instance_update(inst, 1.0f / 60, ws, NULL) != STANCE_OK) return 1;
    const stance_pose *pose = stance_instance_model_pose(inst);
    std::printf("C++ user of stance %s: %d joints\n", stance_version(), pose->joint_count);
    stance_instance_destroy(inst);
    stance_workspace_destroy(ws);
    stance_graphfile_destroy(gf);
    stance_scenario_result r;   /* the lesson library: the script on the same graph file */
    if (stance_graphfile_load(argv[1], nullptr, &gf, &err) != STANCE_OK) { std::puts(err.message); return 1; }
    if (stance_scenario_run(stance_graphfile_graph(gf), STANCE_SWITCH_CUT, 0.25f, STANCE_EASE_SMOOTHSTEP, &r, nullptr, nullptr, &err) != STANCE_OK) {
        std::puts(err.message); return 1;
    }
    std::printf("C++ user of stance_lesson: %d transitions\n", r.transitions);
    stance_graphfile_destroy(gf);
    return std::strcmp(stance_version(), "") == 0;
}
CPP
passed=0 failed=0
pcdir=$(ls -d "$tmp"/prefix/lib*/pkgconfig | head -1)
for cxx in g++ clang++; do
  if ! command -v $cxx >/dev/null; then echo "FAIL: $cxx is missing (scripts/deps.sh installs it)"; failed=$((failed + 1)); continue; fi
  for std in c++11 c++17; do
    # under ASan the libraries carry gcc's sanitizer runtime, which clang's
    # cannot share a process with: clang++ then compiles and g++ links
    cc_san=$san linker=$cxx
    if [ -n "$san" ] && [ "$cxx" = clang++ ]; then cc_san="" linker=g++; fi
    if $cxx $cc_san -std=$std -Wall -Wextra -Werror -pedantic -c "$tmp/user.cpp" \
         $(PKG_CONFIG_PATH="$pcdir" pkg-config --cflags stance-io stance-lesson) -o "$tmp/user.o" \
       && $linker $san "$tmp/user.o" $(PKG_CONFIG_PATH="$pcdir" pkg-config --libs stance-io stance-lesson) -o "$tmp/user" \
       && LD_LIBRARY_PATH="$(dirname "$pcdir")" "$tmp/user" "$src/graphs/builtin.json" | grep -q "^C++ user of stance_lesson: [1-9]"; then
      passed=$((passed + 1)); echo "ok   $cxx -std=$std"
    else failed=$((failed + 1)); echo "FAIL $cxx -std=$std"; fi
  done
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
