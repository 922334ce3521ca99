/* MSVC CRT stand-in (tests/msvc_c11/README.md): stdlib.h (MSVC has no aligned_alloc) */
#pragma once
#include <stddef.h>
void *malloc(size_t size);
void *calloc(size_t n, size_t size);
void *realloc(void *p, size_t size);
void free(void *p);
void qsort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));
void *bsearch(const void *key, const void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));
int abs(int x);
long labs(long x);
_Noreturn void abort(void);
_Noreturn void exit(int status);
char *getenv(const char *name);
int atoi(const char *s);
long strtol(const char *s, char **end, int base);
unsigned long strtoul(const char *s, char **end, int base);
double strtod(const char *s, char **end);
float strtof(const char *s, char **end);
#define EXIT_SUCCESS 0
#define EXIT_FAILURE 1
