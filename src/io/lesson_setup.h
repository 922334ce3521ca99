/* src/io/lesson_setup.h - a graph file's "lesson_layers" section. */
#ifndef STANCE_IO_LESSON_SETUP_H
#define STANCE_IO_LESSON_SETUP_H
#include "stance/graphfile.h"
#include "stance_lesson/lesson.h"

/* Fills `out` from the section: {"walk": clip, "run": clip, "wave": clip,
 * "lean": clip or null, "spine": joint, "arm": joint, "elbow": joint,
 * "foot_l": joint, "foot_r": joint}. Names point into the graph file's
 * asset, so `out` is valid while gf lives. The section is read from the
 * file again (the graph loader keeps no JSON), so gf must come from
 * stance_graphfile_load, not from a string. */
stance_status stance_graphfile_layer_setup(const stance_graphfile *gf, stance_layer_setup *out, stance_error *err);
#endif
