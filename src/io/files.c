#define _POSIX_C_SOURCE 200809L
/* src/io/files.c - whole-file read and write, and relative paths joined to a directory, for the tools. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/base/internal.h"
#include "io/files.h"

#define fail st_fail /* the runtime's error helper (core/base/internal.h) */

stance_status stance_io_read_file(const char *path, void **bytes, size_t *size, stance_error *err) {
    if (!path || !bytes || !size) return fail(err, STANCE_ERR_ARGUMENT, "read: NULL argument");
    *bytes = NULL;
    *size = 0;
    struct stat st;
    if (stat(path, &st) != 0) return fail(err, STANCE_ERR_IO, "cannot open: %s", strerror(errno));
    if (S_ISDIR(st.st_mode)) return fail(err, STANCE_ERR_IO, "is a directory");
    if (!S_ISREG(st.st_mode)) return fail(err, STANCE_ERR_IO, "is not a regular file");
    FILE *f = fopen(path, "rb");
    if (!f) return fail(err, STANCE_ERR_IO, "cannot open: %s", strerror(errno));
    size_t n = (size_t)st.st_size;
    unsigned char *buf = malloc(n ? n : 1);
    if (!buf) { fclose(f); return fail(err, STANCE_ERR_MEMORY, "cannot allocate %zu bytes", n); }
    size_t got = n ? fread(buf, 1, n, f) : 0;
    int bad = ferror(f);
    fclose(f);
    if (got != n || bad) { free(buf); return fail(err, STANCE_ERR_IO, "read %zu of %zu bytes", got, n); }
    *bytes = buf;
    *size = n;
    if (err) err->status = STANCE_OK, err->message[0] = 0;
    return STANCE_OK;
}

stance_status stance_io_write_file(const char *path, const void *bytes, size_t size, stance_error *err) {
    if (!path || (!bytes && size)) return fail(err, STANCE_ERR_ARGUMENT, "write: NULL argument");
    FILE *f = fopen(path, "wb");
    if (!f) return fail(err, STANCE_ERR_IO, "cannot create: %s", strerror(errno));
    size_t put = size ? fwrite(bytes, 1, size, f) : 0;
    int bad = fclose(f) != 0;
    if (put != size || bad) return fail(err, STANCE_ERR_IO, "write failed: %s", strerror(errno));
    if (err) err->status = STANCE_OK, err->message[0] = 0;
    return STANCE_OK;
}

char *io_join_path(const char *dir, const char *rel) {
    size_t a = dir && dir[0] && rel[0] != '/' ? strlen(dir) : 0, b = strlen(rel);
    char *s = malloc(a + b + 2);
    if (!s) return NULL;
    if (a) memcpy(s, dir, a), s[a++] = '/';
    memcpy(s + a, rel, b + 1);
    return s;
}
