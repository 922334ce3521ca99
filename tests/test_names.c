/* tests/test_names.c - the project's one edit distance and "did you mean"
 * hint (src/core/base/names.c). References are worked by hand from the
 * definition of the optimal string alignment distance; the hint formats are
 * the ones docs/graph-format.md shows. */
#include <limits.h>
#include <string.h>

#include "check.h"
#include "core/base/names.h"
#include "stance/stance.h"
#include "stance_lesson/stance_lesson.h"

static void test_edit_distance(void) {
    CHECK(st_edit_distance("", "") == 0);
    CHECK(st_edit_distance("", "abc") == 3);          /* three insertions */
    CHECK(st_edit_distance("walk", "walk") == 0);
    CHECK(st_edit_distance("wlak", "walk") == 1);     /* one adjacent swap */
    CHECK(st_edit_distance("kitten", "sitting") == 3); /* k->s, e->i, +g */
    CHECK(st_edit_distance("ca", "abc") == 3);        /* OSA: no edit of a swapped pair (true Damerau: 2) */
    CHECK(st_edit_distance("blendtime", "blend_time") == 1);
    char long_name[80];
    memset(long_name, 'a', 70);
    long_name[70] = 0;
    CHECK(st_edit_distance(long_name, "a") == INT_MAX);
}

static const char *const names[] = {"idle", "walk", "run", NULL};
static const char *const many[] = {"a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8", "a9", "b1", "b2", "b3", "b4", NULL};

static void test_suggest(void) {
    char buf[200];
    st_suggest(buf, sizeof buf, "wlak", st_list_name_at, names, st_list_count(names));
    CHECK(!strcmp(buf, " (did you mean 'walk'?)"));
    st_suggest(buf, sizeof buf, "jump", st_list_name_at, names, 3);
    CHECK(!strcmp(buf, " (known: idle, walk, run)"));
    st_suggest(buf, sizeof buf, "x", st_list_name_at, names, 0);
    CHECK(!strcmp(buf, " (there are none)"));
    st_suggest(buf, sizeof buf, "zzzzzz", st_list_name_at, many, st_list_count(many));
    CHECK(!strcmp(buf, "")); /* too many to list, none close */
    /* short names allow one edit only: "rn" is 1 from "run" */
    st_suggest(buf, sizeof buf, "rn", st_list_name_at, names, 3);
    CHECK(!strcmp(buf, " (did you mean 'run'?)"));
    /* a small buffer is cut, still terminated */
    char small[12];
    st_suggest(small, sizeof small, "jump", st_list_name_at, names, 3);
    CHECK(strlen(small) == sizeof small - 1);
    int d = -1;
    CHECK(!strcmp(st_closest_name("runn", st_list_name_at, names, 3, &d), "run") && d == 1);
}

/* The runtime's messages carry the same hint as the graph file reader's (test_graphfile). */
static void test_one_format(void) {
    stance_builtin b;
    stance_error err;
    CHECK_OK(stance_builtin_create(NULL, &b, &err));
    stance_graph *g = NULL;
    CHECK_OK(stance_builtin_lesson_graph(&b, NULL, &g, &err));
    stance_instance *inst = NULL;
    CHECK_OK(stance_instance_create(g, NULL, &inst, &err));
    CHECK_STATUS(stance_instance_set_float_by_name(inst, "sped", 1.0f, &err), STANCE_ERR_NOT_FOUND);
    CHECK(!strcmp(err.message, "set_float_by_name: unknown parameter 'sped' (did you mean 'speed'?)"));
    CHECK_STATUS(stance_instance_set_float_by_name(inst, "height", 1.0f, &err), STANCE_ERR_NOT_FOUND);
    CHECK(!strcmp(err.message, "set_float_by_name: unknown parameter 'height' (known: speed, jump)"));
    CHECK(!strcmp(stance_graph_closest_param(g, "jmp"), "jump"));
    stance_instance_destroy(inst);
    stance_graph_destroy(g);
    stance_builtin_destroy(&b);
}

int main(void) {
    RUN(test_edit_distance);
    RUN(test_suggest);
    RUN(test_one_format);
    return check_summary();
}
