/* stance/stance.h - the whole public API of the stance runtime. */
#ifndef STANCE_STANCE_H
#define STANCE_STANCE_H
#include "base.h"
#include "skeleton.h"
#include "pose.h"
#include "clip.h"
#include "builtin.h"
#include "graph.h"
#include "lesson.h"
#include "controller.h"
#include "skin.h"
#include "asset.h"
#include "ik.h"
#include "footlock.h"
#endif
