/* src/core/base/names.c - edit distance and the "did you mean" hint of unknown
 * names, for every message of the project that names an unknown name. No
 * state, no allocation. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "core/base/names.h"

int st_edit_distance(const char *a, const char *b) {
    enum { CAP = 64 };
    size_t la = strlen(a), lb = strlen(b);
    if (la >= CAP || lb >= CAP) return INT_MAX;
    int rows[3][CAP + 1];
    int *pp = rows[0], *prev = rows[1], *cur = rows[2];
    for (size_t j = 0; j <= lb; j++) prev[j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        cur[0] = (int)i;
        for (size_t j = 1; j <= lb; j++) {
            int cost = a[i - 1] != b[j - 1];
            int v = prev[j - 1] + cost;
            if (prev[j] + 1 < v) v = prev[j] + 1;
            if (cur[j - 1] + 1 < v) v = cur[j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && pp[j - 2] + 1 < v)
                v = pp[j - 2] + 1;
            cur[j] = v;
        }
        int *t = pp;
        pp = prev;
        prev = cur;
        cur = t;
    }
    return prev[lb];
}

const char *st_closest_name(const char *name, st_name_at at, const void *set, int count, int *distance) {
    const char *best = NULL;
    int best_d = INT_MAX;
    for (int i = 0; name && i < count; i++) {
        const char *cand = at(set, i);
        if (!cand) continue;
        int d = st_edit_distance(name, cand);
        if (!best || d < best_d) best_d = d, best = cand;
    }
    if (distance) *distance = best_d;
    return best;
}

void st_suggest(char *buf, size_t cap, const char *name, st_name_at at, const void *set, int count) {
    if (!buf || cap == 0) return;
    buf[0] = 0;
    size_t len = name ? strlen(name) : 0;
    int limit = len < 4 ? 1 : len < 9 ? 2 : 3, best_d;
    const char *best = st_closest_name(name, at, set, count, &best_d);
    if (best && best_d <= limit) {
        snprintf(buf, cap, " (did you mean '%s'?)", best);
        return;
    }
    int known = 0;
    for (int i = 0; i < count; i++) known += at(set, i) != NULL;
    if (known == 0) {
        snprintf(buf, cap, " (there are none)");
        return;
    }
    if (known > 12) return;
    size_t used = (size_t)snprintf(buf, cap, " (known: ");
    for (int i = 0, listed = 0; i < count && used < cap; i++) {
        const char *cand = at(set, i);
        if (cand) used += (size_t)snprintf(buf + used, cap - used, "%s%s", listed++ ? ", " : "", cand);
    }
    if (used < cap) snprintf(buf + used, cap - used, ")");
}

const char *st_list_name_at(const void *set, int i) { return ((const char *const *)set)[i]; }

int st_list_count(const char *const *list) {
    int n = 0;
    while (list[n]) n++;
    return n;
}
