/* tests/heap_use.h - the bytes the C library's heap has handed out, for the
 * tests that check a loop allocates nothing (before == after): glibc's
 * mallinfo2 (native Linux and the ARM64 build under qemu). Other C
 * libraries (mingw's msvcrt under wine) have no such count: there
 * heap_use_known is 0 and the check is skipped with a message; the loop's
 * allocator-counted checks still run. */
#ifndef STANCE_TEST_HEAP_USE_H
#define STANCE_TEST_HEAP_USE_H

#include <stdio.h>
#if defined(__GLIBC__)
#include <malloc.h>
#define heap_use_known 1
static inline size_t heap_in_use(void) { return mallinfo2().uordblks; }
#else
#define heap_use_known 0
static inline size_t heap_in_use(void) {
    printf("  (the heap's own count is skipped: mallinfo2 is glibc's, this C library has none)\n");
    return 0;
}
#endif

#endif
