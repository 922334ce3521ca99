#!/usr/bin/env bash
# libstance is src/core alone: it references nothing of the lesson library
# (libstance_lesson: the built-in character and the experiments) nor of the
# builder (libstance_build: graph compilation, the compressor, the writers),
# and a program links and runs a compiled graph against it alone.
#  1. every global symbol libstance_lesson defines is absent from libstance
#     (.a and .so, defined or undefined), and no stance_builtin_* /
#     stance_scenario* / stance_layers_* symbol is there at all;
#  2. the same for libstance_build: none of its symbols is in libstance, and
#     none of the builder's by name (stance_graph_create, the compressor,
#     every stance_asset_save_*, contact finding, the old graph form's
#     reader) nor the object files of the validator and the writers;
#  3. libstance.so needs neither libstance_lesson.so nor libstance_build.so;
#  4. tests/core_alone.c, built as the writer against libstance_build,
#     compiles a small graph into a .stance file; built as the reader with
#     <stance/stance.h> against libstance.a alone and against libstance.so
#     alone, it loads that file and runs it (the tip at 0.500 m);
#  5. <stance/stance.h> no longer declares the lesson's API: a program using
#     stance_builtin_create with it alone does not compile, and neither does
#     one calling stance_graph_create.
set -euo pipefail
build=${STANCE_BUILD:?}
src=${STANCE_SOURCE:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
san=""
[ "${STANCE_SANITIZE:-OFF}" = "ON" ] && san="-fsanitize=address,undefined"
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok   $1"; }
bad() { failed=$((failed + 1)); echo "FAIL $1"; }
for f in libstance.a libstance.so libstance_lesson.a libstance_build.a; do
  [ -f "$build/$f" ] || { echo "FAIL: $build/$f is missing"; exit 1; }
done

# 1. the lesson library's symbols, and none of them in the runtime
nm -g --defined-only "$build/libstance_lesson.a" 2>/dev/null | awk 'NF == 3 && $2 ~ /^[TDRBC]$/ { print $3 }' | sort -u > "$tmp/lesson.syms"
for want in stance_builtin_create stance_builtin_lesson_graph stance_scenario_run stance_scenario_step stance_layers_run; do
  grep -qxF "$want" "$tmp/lesson.syms" && ok "libstance_lesson defines $want" || bad "libstance_lesson does not define $want"
done
for lib in libstance.a libstance.so; do
  nm -g "$build/$lib" 2>/dev/null | awk 'NF >= 2 { print $NF }' | sort -u > "$tmp/core.syms"
  [ -s "$tmp/core.syms" ] || { bad "$lib has no symbols"; continue; }
  grep -q '^stance_instance_update$' "$tmp/core.syms" || bad "$lib lacks stance_instance_update (the symbol list is wrong)"
  common=$(comm -12 "$tmp/lesson.syms" "$tmp/core.syms")
  named=$(grep -E '^(stance_builtin_|stance_scenario|stance_layers_|stance_footlock_run$|stance_foot_slide$)' "$tmp/core.syms" || true)
  if [ -z "$common" ] && [ -z "$named" ]; then ok "$lib references no lesson symbol"
  else bad "$lib references lesson symbols: $(echo $common $named | tr '\n' ' ')"; fi
done

# 2. the builder's symbols, and none of them in the runtime
nm -g --defined-only "$build/libstance_build.a" 2>/dev/null | awk 'NF == 3 && $2 ~ /^[TDRBC]$/ { print $3 }' | sort -u > "$tmp/build.syms"
for want in stance_graph_create stance_clip_compress stance_asset_compress stance_asset_save_graph_memory stance_asset_save_memory \
            stance_contacts_create stance_build_load_asset_file; do
  grep -qxF "$want" "$tmp/build.syms" && ok "libstance_build defines $want" || bad "libstance_build does not define $want"
done
for lib in libstance.a libstance.so; do
  nm -g "$build/$lib" 2>/dev/null | awk 'NF >= 2 { print $NF }' | sort -u > "$tmp/core.syms"
  common=$(comm -12 "$tmp/build.syms" "$tmp/core.syms")
  named=$(grep -E '^(stance_graph_create|stance_clip_compress|stance_asset_compress|stance_asset_save_|stance_asset_free_bytes|stance_contacts_create|stance_contacts_destroy|stance_build_)' "$tmp/core.syms" || true)
  if [ -z "$common" ] && [ -z "$named" ]; then ok "$lib references no builder symbol"
  else bad "$lib references builder symbols: $(echo $common $named | tr '\n' ' ')"; fi
done
# the objects: no compressor, no graph validator / name resolver, no delta or contact builder, no writer
objs=$(ar t "$build/libstance.a")
builders=$(grep -E '^(clip_compress|clip_compress_vbr|graph_build|graph_deltas|graph_ik_build|graph_legacy|graph_write|asset_write|contacts)\.c\.o$' <<<"$objs" || true)
if [ -z "$builders" ] && grep -q '^graph_bind\.c\.o$' <<<"$objs"; then ok "libstance.a holds the binder and none of the builder's objects"
else bad "libstance.a objects: builder's '$(echo $builders)', binder present: $(grep -c '^graph_bind' <<<"$objs")"; fi

# 3. the shared runtime's dependencies
if readelf -d "$build/libstance.so" | grep NEEDED | grep -qE 'stance_lesson|stance_build'; then bad "libstance.so needs libstance_lesson or libstance_build"
else ok "libstance.so needs neither libstance_lesson nor libstance_build"; fi

# 4. a compiled graph, written by the builder, loaded and run by a program on the runtime alone
want="tip at 0.500 m"
if cc $san -std=c11 -Wall -Wextra -Werror -DCORE_ALONE_WRITE -I"$src/include" "$src/tests/core_alone.c" "$build/libstance_build.a" \
     "$build/libstance.a" -lm -o "$tmp/writer" && "$tmp/writer" "$tmp/rise.stance" | grep -qx compiled; then ok "the writer compiled rise.stance"
else bad "the writer (core_alone.c against libstance_build)"; fi
if cc $san -std=c11 -Wall -Wextra -Werror -I"$src/include" "$src/tests/core_alone.c" "$build/libstance.a" -lm -o "$tmp/static" \
   && out=$("$tmp/static" "$tmp/rise.stance") && grep -qF "$want" <<<"$out"; then ok "core_alone.c on libstance.a alone: $out"
else bad "core_alone.c on libstance.a alone"; fi
if cc $san -std=c11 -Wall -Wextra -Werror -I"$src/include" "$src/tests/core_alone.c" -L"$build" -lstance -lm -o "$tmp/shared" \
   && ! ldd "$tmp/shared" | grep -qE 'stance_lesson|stance_build' \
   && out=$(LD_LIBRARY_PATH="$build" "$tmp/shared" "$tmp/rise.stance") && grep -qF "$want" <<<"$out"; then ok "core_alone.c on libstance.so alone: $out"
else bad "core_alone.c on libstance.so alone"; fi

# 5. the runtime's header does not bring the lesson's API, nor the builder's
cat > "$tmp/uses_builtin.c" <<'C'
#include <stance/stance.h>
int main(void) {
    stance_builtin b;
    return stance_builtin_create(NULL, &b, NULL) != STANCE_OK;
}
C
if cc -std=c11 -Werror -I"$src/include" -c "$tmp/uses_builtin.c" -o "$tmp/uses_builtin.o" 2> "$tmp/cc.log"; then
  bad "<stance/stance.h> still declares stance_builtin"
else ok "<stance/stance.h> alone does not declare stance_builtin ($(grep -m1 -o "error: .*" "$tmp/cc.log"))"; fi
sed 's|#include <stance/stance.h>|#include <stance_lesson/stance_lesson.h>|' "$tmp/uses_builtin.c" > "$tmp/uses_lesson.c"
if cc -std=c11 -Wall -Wextra -Werror -I"$src/include" -c "$tmp/uses_lesson.c" -o "$tmp/uses_lesson.o"; then
  ok "<stance_lesson/stance_lesson.h> declares it"
else bad "<stance_lesson/stance_lesson.h> does not declare stance_builtin"; fi
cat > "$tmp/uses_create.c" <<'C'
#include <stance/stance.h>
int main(void) {
    stance_graph *g;
    return stance_graph_create(NULL, NULL, &g, NULL) != STANCE_OK;
}
C
if cc -std=c11 -Werror -I"$src/include" -c "$tmp/uses_create.c" -o "$tmp/uses_create.o" 2> "$tmp/cc.log"; then
  bad "<stance/stance.h> still declares stance_graph_create"
else ok "<stance/stance.h> alone does not declare stance_graph_create ($(grep -m1 -o "error: .*" "$tmp/cc.log"))"; fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
