#!/usr/bin/env bash
# tests/test_lsan.sh - the LeakSanitizer suppression (tests/lsan.supp) hides
# libassimp's own leaks and never stance's. In the sanitizer build (make
# test-asan) it runs tests/lsan_probe.c twice with the suppressions:
#   clean: only assimp's leak on a BVH parse error -> exits 0, no report;
#   leak:  plus an instance leaked through stance's allocator -> LSan reports
#          it (stance_instance_create in the stack) and nothing in libassimp.
# In other builds there is nothing to check and it says so.
set -u
if [ "${STANCE_SANITIZE:-OFF}" != "ON" ]; then echo "test_lsan: not a sanitizer build, nothing to check"; exit 0; fi
probe="$STANCE_BUILD/tests/lsan_probe"
supp="$STANCE_SOURCE/tests/lsan.supp"
[ -x "$probe" ] || { echo "test_lsan: $probe missing (needs assimp)"; exit 0; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
ASAN_OPTIONS=detect_leaks=1:detect_stack_use_after_return=0 LSAN_OPTIONS=suppressions=$supp:print_suppressions=1 \
    "$probe" "$tmp/a.bvh" clean >"$tmp/clean.out" 2>&1
rc=$?
if [ $rc -ne 0 ] || grep -q "ERROR: LeakSanitizer" "$tmp/clean.out"; then
    echo "FAIL: the assimp-only run reported a leak (rc $rc):"; cat "$tmp/clean.out"; fail=1
elif ! grep -q "libassimp.so" "$tmp/clean.out"; then
    echo "FAIL: the suppression was not used (no libassimp leak seen):"; cat "$tmp/clean.out"; fail=1
else
    echo "ok   assimp's leak on a BVH parse error is suppressed"
fi
ASAN_OPTIONS=detect_leaks=1:detect_stack_use_after_return=0 LSAN_OPTIONS=suppressions=$supp \
    "$probe" "$tmp/b.bvh" >"$tmp/leak.out" 2>&1
rc=$?
if [ $rc -eq 0 ] || ! grep -q "ERROR: LeakSanitizer" "$tmp/leak.out" || ! grep -q "stance_instance_create" "$tmp/leak.out"; then
    echo "FAIL: stance's leak was not reported (rc $rc):"; cat "$tmp/leak.out"; fail=1
elif grep -q "libassimp\.so[^ ]*+0x" "$tmp/leak.out"; then
    echo "FAIL: a libassimp leak was reported despite the suppression:"; cat "$tmp/leak.out"; fail=1
else
    echo "ok   a leak through stance's allocator is still reported"
fi
exit $fail
