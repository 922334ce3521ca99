/* src/core/graph/graph_identity.h - a graph's identity for saved instance
 * states (graph_identity.c): a 64-bit hash of what an instance's state is
 * laid out by and refers to. Not public. */
#ifndef STANCE_GRAPH_IDENTITY_H
#define STANCE_GRAPH_IDENTITY_H

#include <stddef.h>
#include <stdint.h>

#include "core/graph/graph_internal.h"

/* FNV-1a (64-bit) of n bytes, continuing from h (start: GR_FNV_SEED). */
#define GR_FNV_SEED 0xcbf29ce484222325ull
uint64_t gr_fnv(uint64_t h, const void *bytes, size_t n);

/* The hash of the graph's shape: its skeleton (joint count, parents,
 * names), its parameters (names, types), machines (names, state ranges,
 * entry, clip capacity, history), states (names, machine, type, clip,
 * nested machine, the clips it plays: names, durations, key counts, event
 * counts and names), transitions' count, layers (names, machine) and IK
 * entries (names, kinds, legs). Two graphs built from the same
 * description get the same identity; an instance saved on one restores on
 * the other. */
uint64_t gr_identity(const stance_graph *g);

#endif
