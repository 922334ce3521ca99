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
/* The lesson's layer experiment setup for the graph: from the graph file's
 * lesson_layers, or the built-in character's. Prints the error and returns 1
 * when there is none. */
int tool_graph_layer_setup(const tool_graph *tg, stance_layer_setup *su, stance_error *err);

/* The options every graph command takes: --json, --graph F, --asset F,
 * --svg OUT. tool_common_option consumes argv[*i] (and its value) when it is
 * one of them and returns 1; else 0. */
typedef struct tool_opts {
    const char *graph, *asset, *svg;
    int json;
} tool_opts;
int tool_common_option(int argc, char **argv, int *i, tool_opts *o);
#endif
