/* tests/ws.h - a workspace for tests that update instances and controllers
 * one after the other on one thread: remade when a graph does not fit the
 * current one, freed at exit. */
#ifndef STANCE_TESTS_WS_H
#define STANCE_TESTS_WS_H
#include <stdlib.h>

#include "stance/stance.h"

static stance_workspace *test_ws_;
static void test_ws_free_(void) { stance_workspace_destroy(test_ws_); test_ws_ = NULL; }
static inline stance_workspace *test_ws(const stance_graph *g) {
    static int registered;
    if (!registered) { atexit(test_ws_free_); registered = 1; }
    if (!test_ws_ || stance_workspace_fits(test_ws_, g, NULL) != STANCE_OK) {
        stance_workspace_destroy(test_ws_);
        test_ws_ = NULL;
        if (stance_workspace_create(g, NULL, &test_ws_, NULL) != STANCE_OK) return NULL;
    }
    return test_ws_;
}
#define TEST_WS_INST(inst) test_ws(stance_instance_graph(inst))
#define TEST_WS_CTL(ctl) test_ws(stance_controller_graph(ctl))
#endif
