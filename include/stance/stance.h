/* stance/stance.h - the whole public API of the stance runtime (libstance:
 * src/core, C11 on libc and libm). The offline builder (graphs from
 * descriptions, compression, writing files) is stance/build.h. The built-in character and the lesson's
 * experiments are a library of their own, libstance_lesson
 * (<stance_lesson/stance_lesson.h>). */
#ifndef STANCE_STANCE_H
#define STANCE_STANCE_H
#include "base.h"
#include "skeleton.h"
#include "pose.h"
#include "clip.h"
#include "graph.h"
#include "events.h"
#include "params.h"
#include "instance.h"
#include "controller.h"
#include "skin.h"
#include "asset.h"
#include "ik.h"
#include "footlock.h"
#include "lod.h"
#endif
