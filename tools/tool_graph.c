/* tools/tool_graph.c - see tool_graph.h. */
#include <stdio.h>
#include <string.h>

#include "tool_graph.h"
#include "stance/graphfile.h"
#include "io/lesson_setup.h"

stance_status tool_graph_open(tool_graph *tg, const char *path, const char *asset, stance_error *err) {
    memset(tg, 0, sizeof *tg);
    if (!path) {
        if (asset) {
            if (err) { err->status = STANCE_ERR_ARGUMENT; snprintf(err->message, sizeof err->message, "--asset needs --graph (the graph says which clip plays where)"); }
            return STANCE_ERR_ARGUMENT;
        }
        stance_status s = stance_builtin_create(NULL, &tg->builtin, err);
        if (s) return s;
        s = stance_builtin_lesson_graph(&tg->builtin, NULL, &tg->owned, err);
        if (s) { stance_builtin_destroy(&tg->builtin); return s; }
        tg->graph = tg->owned;
        tg->name = "built-in character";
        return STANCE_OK;
    }
    stance_graphfile_options opt;
    memset(&opt, 0, sizeof opt);
    opt.asset_override = asset;
    stance_graphfile *gf = NULL;
    stance_status s = stance_graphfile_load(path, &opt, &gf, err);
    if (s) return s;
    tg->file = gf;
    tg->graph = stance_graphfile_graph(gf);
    tg->name = path;
    return STANCE_OK;
}

void tool_graph_close(tool_graph *tg) {
    stance_graphfile_destroy(tg->file);
    stance_graph_destroy(tg->owned);
    if (tg->owned) stance_builtin_destroy(&tg->builtin);
    memset(tg, 0, sizeof *tg);
}

int tool_graph_layer_setup(const tool_graph *tg, stance_layer_setup *su, stance_error *err) {
    stance_status ss;
#ifdef STANCE_HAVE_JANSSON
    ss = tg->file ? stance_graphfile_layer_setup(tg->file, su, err) : stance_builtin_layer_setup(&tg->builtin, su, err);
#else
    ss = stance_builtin_layer_setup(&tg->builtin, su, err);
#endif
    if (!ss) return 0;
    fprintf(stderr, "stance: %s\n", err->message);
    return 1;
}

int tool_common_option(int argc, char **argv, int *i, tool_opts *o) {
    const char *a = argv[*i];
    const int more = *i + 1 < argc;
    if (!strcmp(a, "--json")) o->json = 1;
    else if (!strcmp(a, "--graph") && more) o->graph = argv[++*i];
    else if (!strcmp(a, "--asset") && more) o->asset = argv[++*i];
    else if (!strcmp(a, "--svg") && more) o->svg = argv[++*i];
    else return 0;
    return 1;
}
