/* src/io/files.h - whole-file read and write, and joining a relative path to a directory, for the tools (not the runtime). */
#ifndef STANCE_IO_FILES_H
#define STANCE_IO_FILES_H
#include <stddef.h>
#include "stance/base.h"

/* Reads all of `path` into a malloc'd buffer (caller frees). Fails with a
 * clear message on a missing path, a directory, or a read error. */
stance_status stance_io_read_file(const char *path, void **bytes, size_t *size, stance_error *err);
/* Writes `size` bytes to `path` (replacing it). */
stance_status stance_io_write_file(const char *path, const void *bytes, size_t size, stance_error *err);
/* `rel` taken from `dir` (rel as is when it is absolute or dir is NULL or
 * ""), malloc'd; NULL when out of memory. */
char *io_join_path(const char *dir, const char *rel);
#endif
