/* src/core/load/curves_bind.h - the compiled graph's "CURV" trailer (curves and
 * drives; src/build/graph_curves_build.c writes it) read into a bound graph
 * (curves_bind.c). Not public. */
#ifndef STANCE_CURVES_BIND_H
#define STANCE_CURVES_BIND_H

#include <stddef.h>

#include "core/graph/graph_internal.h"

/* body: the trailer after its "CURV" tag and size (size bytes); clips: the
 * file's, by index. Every count and value is checked (STANCE_ERR_FORMAT). */
stance_status st_curves_bind(stance_graph *g, const unsigned char *body, size_t size, const stance_clip *const *clips,
                             int clip_count, stance_error *err);

#endif
