#!/usr/bin/env bash
# libstance is src/core alone: it references nothing of the lesson library
# (libstance_lesson: the built-in character and the experiments) and a
# program links and runs against it alone.
#  1. every global symbol libstance_lesson defines is absent from libstance
#     (.a and .so, defined or undefined), and no stance_builtin_* /
#     stance_scenario* / stance_layers_* symbol is there at all;
#  2. libstance.so does not need libstance_lesson.so;
#  3. tests/core_alone.c builds with <stance/stance.h> against libstance.a
#     alone and against libstance.so alone, and runs (the tip at 0.500 m);
#  4. <stance/stance.h> no longer declares the lesson's API: a program using
#     stance_builtin_create with it alone does not compile.
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
for f in libstance.a libstance.so libstance_lesson.a; do
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

# 2. the shared runtime's dependencies
if readelf -d "$build/libstance.so" | grep NEEDED | grep -q stance_lesson; then bad "libstance.so needs libstance_lesson"
else ok "libstance.so does not need libstance_lesson"; fi

# 3. a program on the runtime alone
want="tip at 0.500 m"
if cc $san -std=c11 -Wall -Wextra -Werror -I"$src/include" "$src/tests/core_alone.c" "$build/libstance.a" -lm -o "$tmp/static" \
   && out=$("$tmp/static") && grep -qF "$want" <<<"$out"; then ok "core_alone.c on libstance.a alone: $out"
else bad "core_alone.c on libstance.a alone"; fi
if cc $san -std=c11 -Wall -Wextra -Werror -I"$src/include" "$src/tests/core_alone.c" -L"$build" -lstance -lm -o "$tmp/shared" \
   && ! ldd "$tmp/shared" | grep -q stance_lesson \
   && out=$(LD_LIBRARY_PATH="$build" "$tmp/shared") && grep -qF "$want" <<<"$out"; then ok "core_alone.c on libstance.so alone: $out"
else bad "core_alone.c on libstance.so alone"; fi

# 4. the runtime's header does not bring the lesson's API
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
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
