/* tools/info_graph.h - `stance info` on a compiled graph (.stance with a
 * GRPH section): its parameters, machines with their states, and layers. */
#ifndef STANCE_TOOLS_INFO_GRAPH_H
#define STANCE_TOOLS_INFO_GRAPH_H
#include <stdio.h>
#include "stance/instance.h"

/* Its parameters, machines and states, and layers, as text lines. */
void info_graph_text(FILE *f, const stance_graph *g);
/* {"params":[{"name","type"}],"machines":[{"name","states":[...]}],
 *  "layers":[{"name","machine","mode","priority"}]} */
void info_graph_json(FILE *f, const stance_graph *g);
#endif
