/* src/io/scenario_script.h - a user's scenario script file for `stance
 * scenario --script` (docs/graph-format.md, "Scripts"): parameter changes
 * over time, read with jansson into the lesson library's
 * stance_scenario_script. */
#ifndef STANCE_IO_SCENARIO_SCRIPT_H
#define STANCE_IO_SCENARIO_SCRIPT_H
#include "stance/graph.h"
#include "stance_lesson/lesson.h"

/* The script read from `path` for `graph`'s parameters. out->changes is
 * malloc'd (free it with stance_scenario_script_free). Each problem is one
 * message starting with the path: FILE:LINE:COL for a syntax error, else
 * FILE: changes[i]... naming the entry, with a suggestion for an unknown
 * parameter. Without jansson: STANCE_ERR_UNSUPPORTED. */
stance_status stance_scenario_script_load(const char *path, const stance_graph *graph, stance_scenario_script *out,
                                          stance_error *err);
void stance_scenario_script_free(stance_scenario_script *script);
#endif
