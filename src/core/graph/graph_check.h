/* src/core/graph/graph_check.h - the rules of a bound graph (graph_check.c),
 * run by the binder (load/graph_bind.c) on every graph it binds. Not public
 * API. */
#ifndef STANCE_GRAPH_CHECK_H
#define STANCE_GRAPH_CHECK_H

#include "core/graph/graph_internal.h"

/* The rules of a bound graph beyond each field's range (graph_check.c):
 * ranges inside their arrays, the machine tree, the post order, the
 * transition lists, the derived flags, the delta clips, the scale caps and
 * the chain rule, the IK entries and contacts. strn, anyt: the lengths of
 * state_trans and any_trans. */
stance_status gc_check(const stance_graph *g, int strn, int anyt, stance_error *err);

#endif
