#!/usr/bin/env bash
# stance as a package an engine takes (issue 24 item 7):
#  (a) the install tree on a machine view without the tools' libraries:
#      pkg-config disabled (CMAKE_DISABLE_FIND_PACKAGE_PkgConfig, an empty
#      PKG_CONFIG_LIBDIR) and /usr ignored by find_package
#      (CMAKE_IGNORE_PREFIX_PATH): find_package(stance 0.2 COMPONENTS
#      runtime) configures, builds a program on libstance alone (static,
#      as stance::stance is) that runs a compiled graph; COMPONENTS build
#      builds the writer of that graph; COMPONENTS io fails, saying what it
#      needs; an unknown component fails.
#  (b) add_subdirectory() of the source tree from an outside project: the
#      runtime builds and the program runs; the command line, the io
#      library and the tests are not built, the tools' libraries are not
#      looked up, and no stance file is compiled with -Werror.
# Every step in its own temporary directory (ctest may run this beside
# test_install, which installs from the same build tree).
set -euo pipefail
build=${STANCE_BUILD:?}
src=${STANCE_SOURCE:?}
version=${STANCE_VERSION:?}
minor=${version%.*}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok   $1"; }
bad() { failed=$((failed + 1)); echo "FAIL $1"; }
san=""
[ "${STANCE_SANITIZE:-OFF}" = "ON" ] && san="-fsanitize=address,undefined"

cmake --install "$build" --prefix "$tmp/prefix" > "$tmp/install.log"
mkdir -p "$tmp/nopc"
# the machine view: no pkg-config, nothing found under /usr
hidden=(-DCMAKE_DISABLE_FIND_PACKAGE_PkgConfig=ON "-DCMAKE_IGNORE_PREFIX_PATH=/usr;/usr/local" -DCMAKE_PREFIX_PATH="$tmp/prefix")
project() { # $1 dir, $2 components, $3 the targets' lines
  mkdir -p "$1"
  cat > "$1/CMakeLists.txt" <<CM
cmake_minimum_required(VERSION 3.21)
project(consumer C)
find_package(stance $minor REQUIRED COMPONENTS $2)
if(TARGET stance::io)
  message(FATAL_ERROR "COMPONENTS $2 defined stance::io")
endif()
$3
CM
}
configure() { # $1 dir; the log in $1.log
  PKG_CONFIG_LIBDIR="$tmp/nopc" PKG_CONFIG_PATH="" cmake -S "$1" -B "$1/build" "${hidden[@]}" > "$1.log" 2>&1
}

# ---- (a) runtime alone
project "$tmp/rt" runtime "add_executable(reader $src/tests/core_alone.c)
target_link_libraries(reader PRIVATE stance::stance)
target_compile_options(reader PRIVATE $san)
target_link_options(reader PRIVATE $san)"
project "$tmp/wr" build "add_executable(writer $src/tests/core_alone.c)
target_compile_definitions(writer PRIVATE CORE_ALONE_WRITE)
target_link_libraries(writer PRIVATE stance::build)
target_compile_options(writer PRIVATE $san)
target_link_options(writer PRIVATE $san)"
if configure "$tmp/rt" && cmake --build "$tmp/rt/build" > "$tmp/rt.build.log" 2>&1; then
  ok "find_package(stance $minor COMPONENTS runtime) without pkg-config and /usr: configured and built"
else cat "$tmp/rt.log" "$tmp/rt.build.log" 2>/dev/null | tail -30; bad "COMPONENTS runtime"; fi
if configure "$tmp/wr" && cmake --build "$tmp/wr/build" > "$tmp/wr.build.log" 2>&1; then
  ok "find_package(stance $minor COMPONENTS build) without pkg-config and /usr: configured and built"
else cat "$tmp/wr.log" "$tmp/wr.build.log" 2>/dev/null | tail -30; bad "COMPONENTS build"; fi
if [ -x "$tmp/wr/build/writer" ] && "$tmp/wr/build/writer" "$tmp/rise.stance" | grep -qx compiled \
   && [ -x "$tmp/rt/build/reader" ] && "$tmp/rt/build/reader" "$tmp/rise.stance" | grep -qx "runtime alone $version: tip at 0.500 m"; then
  ok "the runtime-only program runs the graph the writer compiled"
else bad "the runtime-only program runs"; fi
if [ -x "$tmp/rt/build/reader" ] && ! ldd "$tmp/rt/build/reader" | grep -q 'libstance'; then
  ok "stance::stance is the static library (no libstance*.so in ldd)"
else bad "stance::stance linked a shared library"; fi
# io is a component of its own: asked for on this view it fails and says why
project "$tmp/io" io "add_executable(io_user $src/tests/core_alone.c)
target_link_libraries(io_user PRIVATE stance::io)"
if configure "$tmp/io"; then bad "COMPONENTS io configured without pkg-config"
elif grep -q "stance::io needs" "$tmp/io.log"; then ok "COMPONENTS io refused: $(grep -o 'stance::io needs[^.]*' "$tmp/io.log" | head -1)"
else tail -20 "$tmp/io.log"; bad "COMPONENTS io failed without saying what it needs"; fi
project "$tmp/unk" "runtime widgets" ""
if configure "$tmp/unk"; then bad "COMPONENTS widgets accepted"
elif grep -q "No component 'widgets'" "$tmp/unk.log"; then ok "an unknown component refused"
else tail -20 "$tmp/unk.log"; bad "an unknown component: no message"; fi

# ---- (b) add_subdirectory
mkdir -p "$tmp/sub"
cat > "$tmp/sub/CMakeLists.txt" <<CM
cmake_minimum_required(VERSION 3.21)
project(engine C)
add_subdirectory("$src" stance)
add_executable(engine_reader "$src/tests/core_alone.c")
target_link_libraries(engine_reader PRIVATE stance::stance)
CM
if cmake -S "$tmp/sub" -B "$tmp/sub/build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_EXPORT_COMPILE_COMMANDS=ON > "$tmp/sub.log" 2>&1 \
   && cmake --build "$tmp/sub/build" -j2 > "$tmp/sub.build.log" 2>&1; then
  ok "add_subdirectory(stance): configured and built"
else tail -30 "$tmp/sub.log" "$tmp/sub.build.log"; bad "add_subdirectory build"; fi
if [ -x "$tmp/sub/build/engine_reader" ] && [ -f "$tmp/rise.stance" ] \
   && "$tmp/sub/build/engine_reader" "$tmp/rise.stance" | grep -qx "runtime alone $version: tip at 0.500 m"; then
  ok "add_subdirectory: the engine's program runs the graph"
else bad "add_subdirectory: the program runs"; fi
built=$(cd "$tmp/sub/build/stance" && find . -maxdepth 2 -type f \( -name 'stance' -o -name 'test_*' -o -name 'libstance_*' -o -name 'libstance.so*' \) | tr '\n' ' ')
[ -z "$built" ] && [ -f "$tmp/sub/build/stance/libstance.a" ] && ok "add_subdirectory: libstance.a alone built (no CLI, io, tests, shared libraries)" \
  || bad "add_subdirectory built more than the runtime: $built"
if grep -q "assimp importer" "$tmp/sub.log"; then bad "add_subdirectory looked up the tools' libraries"
else ok "add_subdirectory: the tools' libraries not looked up"; fi
cc_json="$tmp/sub/build/compile_commands.json"
if [ -f "$cc_json" ] && grep -q 'src/core/frame/instance.c' "$cc_json" && ! grep -q -- '-Werror' "$cc_json"; then
  ok "add_subdirectory: no -Werror (stance is not the top project)"
else bad "add_subdirectory: -Werror in the compile commands (or none recorded)"; fi
if [ -f "$tmp/sub/build/stance/lab_sources.txt" ]; then bad "add_subdirectory: the lab's source list was written"
elif grep -qs 'add_test' "$tmp/sub/build/stance/tests/CTestTestfile.cmake" "$tmp/sub/build/stance/CTestTestfile.cmake"; then
  bad "add_subdirectory: the tests were configured"
else ok "add_subdirectory: no lab list, no tests configured"; fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
