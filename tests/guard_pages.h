/* tests/guard_pages.h - memory between two inaccessible pages, for tests
 * that must fault on any read or write outside a buffer: guarded_alloc maps
 * whole pages, makes the first and the last inaccessible, and places the
 * buffer flush against the end guard (at_end 1) or the start guard (0).
 * POSIX mmap/mprotect, or VirtualAlloc/VirtualProtect on Windows. */
#ifndef STANCE_TESTS_GUARD_PAGES_H
#define STANCE_TESTS_GUARD_PAGES_H

#include <stddef.h>

#ifdef _WIN32
#include <windows.h>
#else
#include <sys/mman.h>
#include <unistd.h>
#if !defined(MAP_ANONYMOUS) && defined(MAP_ANON)
#define MAP_ANONYMOUS MAP_ANON
#endif
#endif

typedef struct guarded {
    unsigned char *map; /* the whole mapping: guard, buffer's pages, guard */
    size_t map_bytes;
    void *p; /* the buffer */
} guarded;

static size_t guard_page_size(void) {
#ifdef _WIN32
    SYSTEM_INFO si;
    GetSystemInfo(&si);
    return (size_t)si.dwPageSize;
#else
    return (size_t)sysconf(_SC_PAGESIZE);
#endif
}

/* bytes (> 0) between guards; NULL on failure. With at_end the buffer's
 * start is aligned as bytes is (a pose's bytes are a multiple of 32). */
static void *guarded_alloc(guarded *g, size_t bytes, int at_end) {
    const size_t page = guard_page_size(), inner = (bytes + page - 1) / page * page;
    g->map_bytes = inner + 2 * page, g->p = NULL;
#ifdef _WIN32
    g->map = (unsigned char *)VirtualAlloc(NULL, g->map_bytes, MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE);
    if (!g->map) return NULL;
    DWORD old;
    if (!VirtualProtect(g->map, page, PAGE_NOACCESS, &old) ||
        !VirtualProtect(g->map + page + inner, page, PAGE_NOACCESS, &old)) {
        VirtualFree(g->map, 0, MEM_RELEASE), g->map = NULL;
        return NULL;
    }
#else
    void *m = mmap(NULL, g->map_bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) {
        g->map = NULL;
        return NULL;
    }
    g->map = (unsigned char *)m;
    if (mprotect(g->map + page, inner, PROT_READ | PROT_WRITE)) {
        munmap(g->map, g->map_bytes), g->map = NULL;
        return NULL;
    }
#endif
    g->p = g->map + page + (at_end ? inner - bytes : 0);
    return g->p;
}

static void guarded_free(guarded *g) {
    if (!g->map) return;
#ifdef _WIN32
    VirtualFree(g->map, 0, MEM_RELEASE);
#else
    munmap(g->map, g->map_bytes);
#endif
    g->map = NULL, g->p = NULL;
}

#endif
