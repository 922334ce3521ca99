/* stance/gen_header.h - writes a C header of enums for a graph's states,
 * layers, parameters and clip events, so gameplay code passes ids, never
 * strings (`stance gen-header`). */
#ifndef STANCE_GEN_HEADER_H
#define STANCE_GEN_HEADER_H
#include <stdio.h>
#include "graph.h"

#ifdef __cplusplus
extern "C" {
#endif


/* prefix: the enum prefix in upper case (NULL = "ANIM"); source: named in
 * the header's comment. Names become upper-case identifiers (other
 * characters -> '_'); states are MACHINE_STATE. Fails on a name clash. */
STANCE_API stance_status stance_write_id_header(FILE *out, const stance_graph *graph, const char *prefix, const char *source,
                                     stance_error *err);

#ifdef __cplusplus
}
#endif
#endif
