/* tests/builtin_feet.h - the built-in character's two legs as a footlock
 * entry of a graph (stance_graph_desc.ik), for the tests that lock its feet. */
#ifndef STANCE_TESTS_BUILTIN_FEET_H
#define STANCE_TESTS_BUILTIN_FEET_H
#include <string.h>

#include "stance/stance.h"
#include "stance/build.h"

static inline stance_ik_desc builtin_feet(void) {
    stance_ik_desc k;
    memset(&k, 0, sizeof k);
    k.name = "feet";
    k.kind = STANCE_IK_FOOTLOCK;
    k.leg_count = 2;
    k.legs[0] = (stance_ik_leg_desc){"upleg_l", "leg_l", "foot_l", NULL, NULL};
    k.legs[1] = (stance_ik_leg_desc){"upleg_r", "leg_r", "foot_r", NULL, NULL};
    return k;
}
#endif
