/* tests/random_pose.h - the seeded random numbers and random poses that the
 * kernel tests (test_simd, test_fused) feed their references with. Define
 * RANDOM_POSE_SEED before including it; one copy per test program. */
#ifndef STANCE_TESTS_RANDOM_POSE_H
#define STANCE_TESTS_RANDOM_POSE_H

#include "core/math/qmath.h"
#include "stance/stance.h"

#ifndef RANDOM_POSE_SEED
#error "define RANDOM_POSE_SEED before including random_pose.h"
#endif

static unsigned rng = RANDOM_POSE_SEED;
static float frand(float lo, float hi) {
    rng = rng * 1664525u + 1013904223u;
    return lo + (hi - lo) * (float)(rng >> 8) / 16777216.0f;
}

/* every joint: translation in [-1, 1], a unit rotation, scale in [0.5, 1.5] */
static void random_pose(stance_pose *p) {
    for (int j = 0; j < p->joint_count; j++) {
        qm_quat q = qm_qnorm(qm_q(frand(-1, 1), frand(-1, 1), frand(-1, 1), frand(-1, 1)));
        stance_transform t = {{frand(-1, 1), frand(-1, 1), frand(-1, 1)}, {q.x, q.y, q.z, q.w},
                              {frand(0.5f, 1.5f), frand(0.5f, 1.5f), frand(0.5f, 1.5f)}};
        stance_pose_set(p, j, &t, NULL);
    }
}

#endif
