/* MSVC CRT stand-in (tests/msvc_c11/README.md): malloc.h */
#pragma once
#include <stddef.h>
void *_aligned_malloc(size_t size, size_t alignment);
void _aligned_free(void *memblock);
void *malloc(size_t size);
void free(void *p);
