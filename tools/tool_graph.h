/* tools/tool_graph.h - opens the graph a command works on: a graph file
 * (with --asset overriding its asset), or the built-in character's lesson
 * graph when no file is given. */
#ifndef STANCE_TOOLS_TOOL_GRAPH_H
#define STANCE_TOOLS_TOOL_GRAPH_H
#include "stance/stance.h"
#include "stance_lesson/stance_lesson.h"

typedef struct tool_graph {
    const stance_graph *graph;
    const char *name;            /* for messages and reports */
    stance_builtin builtin;      /* when built in */
    stance_graph *owned;         /* the built-in lesson graph */
    void *file;                  /* a stance_graphfile */
} tool_graph;

stance_status tool_graph_open(tool_graph *tg, const char *path, const char *asset, stance_error *err);
void tool_graph_close(tool_graph *tg);
#endif
