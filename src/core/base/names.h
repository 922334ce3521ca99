/* src/core/base/names.h - the project's one edit distance and its one "did you
 * mean" message, used by the runtime (graph.c, instance.c) and the graph
 * file reader (src/io). Not public API. */
#ifndef STANCE_NAMES_H
#define STANCE_NAMES_H

#include <stddef.h>

/* The i-th name of a set (NULL entries are skipped). */
typedef const char *(*st_name_at)(const void *set, int i);

/* Optimal string alignment distance: insertions, deletions, substitutions
 * and adjacent swaps cost one each. Names of 64 bytes or more: INT_MAX. */
int st_edit_distance(const char *a, const char *b);

/* The name of the set closest to `name` (the first of equals), or NULL when
 * the set is empty; *distance (may be NULL) gets its distance. */
const char *st_closest_name(const char *name, st_name_at at, const void *set, int count, int *distance);

/* The hint an unknown name gets, appended to its message: " (did you mean
 * 'x'?)" when a name is close (1 edit for names under 4 bytes, 2 under 9,
 * else 3), otherwise " (known: a, b, c)" when there are at most 12, " (there
 * are none)" when there are none, else "". Always NUL-terminated. */
void st_suggest(char *buf, size_t cap, const char *name, st_name_at at, const void *set, int count);

/* st_name_at for a NULL-terminated array of strings, and its count. */
const char *st_list_name_at(const void *set, int i);
int st_list_count(const char *const *list);

#endif
