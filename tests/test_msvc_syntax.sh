#!/usr/bin/env bash
# tests/test_msvc_syntax.sh - the runtime stays valid for MSVC's C11 mode as
# far as can be checked on Debian (no MSVC here): clang in MSVC mode
# (--target=x86_64-pc-windows-msvc and aarch64-pc-windows-msvc, so _MSC_VER
# is defined and src/core/base/platform.h takes its MSVC forms:
# __forceinline, __declspec(noinline), _BitScanForward64, __cpuid/_xgetbv,
# _aligned_malloc, _ReadWriteBarrier) parses every src/core/*/*.c and every
# public header with -std=c11 -pedantic-errors -Werror=vla. MSVC's own
# keywords are allowed (-Wno-language-extension-token: they are the MSVC
# forms); the C library's headers are tests/msvc_c11/ (declarations of the
# CRT's C11 functions, Debian has no MSVC headers; clang gives its own
# stddef.h, stdint.h, intrin.h, arm_neon.h ...).
# Then: no GCC-only name (__attribute__, __builtin_, __asm__) anywhere in
# src/core or include/ outside platform.h. Needs clang (scripts/deps.sh).
set -uo pipefail
src=${STANCE_SOURCE:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$src" || exit 1
command -v clang >/dev/null || { echo "test_msvc_syntax: clang is missing (scripts/deps.sh installs it)"; exit 1; }
fail=0 files=0
for target in x86_64-pc-windows-msvc aarch64-pc-windows-msvc; do
  for f in src/core/*/*.c include/stance/*.h; do
    files=$((files + 1))
    if ! out=$(clang --target=$target -std=c11 -fsyntax-only -pedantic-errors -Wno-language-extension-token -Werror=vla \
        -Wall -Wextra -Werror -Iinclude -Isrc -isystem tests/msvc_c11 -x c "$f" 2>&1); then
      echo "FAIL $target: $f"; echo "$out" | head -20; fail=1
    fi
  done
done
echo "test_msvc_syntax: $files parses (2 MSVC targets)"
# GCC-only names: only platform.h may hold them (comments included: the check
# is plain text), and the public export macro's GCC/Clang form in
# include/stance/base.h, beside its MSVC form (a public header cannot include
# src/core's platform.h)
bad=$(grep -rnE '__attribute__|__builtin_|__asm__' src/core include | grep -v '^src/core/base/platform.h:' \
      | grep -vE '^include/stance/base.h:[0-9]+:#  define STANCE_API __attribute__\(\(visibility\("default"\)\)\)$' || true)
if [ -n "$bad" ]; then
  echo "FAIL: GCC-only names outside src/core/base/platform.h:"; echo "$bad"; fail=1
fi
# a variable-length array or GCC extension in a public header would fail the parses above;
# the grep below catches what -pedantic does not see in unused macros
bad=$(grep -nE '\btypeof\b|__extension__|\(\{' include/stance/*.h)
if [ -n "$bad" ]; then echo "FAIL: GCC extensions in public headers:"; echo "$bad"; fail=1; fi
[ $fail -eq 0 ] && echo "ok   test_msvc_syntax"
exit $fail
