/* stance_lesson/stance_lesson.h - the whole public API of libstance_lesson
 * (src/builtin, src/lesson): the built-in character (builtin.h) and the
 * lesson's experiments (lesson.h: the transition script and its measures,
 * the layer experiments, foot sliding and the foot-locking run), with the
 * runtime's API they are written on (<stance/stance.h>).
 *
 * Link with `pkg-config --libs stance-lesson` or CMake's stance::lesson
 * (both bring the runtime, libstance). The runtime itself knows nothing of
 * this library: a game links libstance alone. */
#ifndef STANCE_LESSON_STANCE_LESSON_H
#define STANCE_LESSON_STANCE_LESSON_H
#include "../stance/stance.h"
#include "builtin.h"
#include "lesson.h"
#endif
