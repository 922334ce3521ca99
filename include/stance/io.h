/* stance/io.h - the tools-side library, libstance_io: graph files (JSON, or
 * a compiled graph in a .stance file), import from interchange files
 * (assimp), and C headers of a graph's ids.
 *
 * Link with `pkg-config --libs stance-io` or CMake's stance::io. Unlike the
 * runtime (stance/stance.h, libc and libm only) it reads files and depends
 * on Debian's jansson and assimp; a build without one of them answers
 * STANCE_ERR_UNSUPPORTED from the functions that need it. It links the
 * lesson library too (libstance_lesson: a graph file's "asset": "builtin"
 * is the built-in character), which stance-io.pc and stance::io bring. */
#ifndef STANCE_IO_H
#define STANCE_IO_H
#include "stance.h"
#include "import.h"
#include "graphfile.h"
#include "gen_header.h"
#include "retarget.h"
#endif
