/* tests/test_lab_time.c - the lab's time tape (lab/lab_time.c) built natively
 * with the lab's C and run under the sanitizers (`make test-asan`): the
 * built-in character on the lesson's graph stepped 700 frames by hand (speed
 * changes and jumps, so the 600-frame ring wraps), its model pose copied by
 * the test after each frame; every frame still held, shown again by its saved
 * state and replayed update, must equal that copy bit for bit; each frame's
 * jump must equal the scenario runner's (lab_sm_jump_cm); a switch replayed
 * under crossfade must differ from the recorded cut while its replay as
 * recorded equals the tape; going on from a rewound frame drops the newer
 * ones; bad frames and switches are refused. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "stance/stance.h"

/* from the lab C files (no header of their own for JavaScript's sake) */
int lab_init(void);
int lab_sm_step(float dt);
void lab_sm_set_speed(float speed);
void lab_sm_jump(void);
void lab_sm_script_start(void);
float lab_sm_script_time(void);
float lab_sm_jump_cm(void);
int lab_joint_count(int view);
const float *lab_pose(int view, int axis);
int lab_time_before(int view);
int lab_time_after(int view);
int lab_time_show(int view, int back);
int lab_time_count(int view);
int lab_time_cursor(int view);
int lab_time_capacity(void);
int lab_time_mismatches(int view);
const float *lab_time_series(int view, int joint, int what);
const float *lab_time_pose(int view, int back);
int lab_time_ghost(int view, int back, int mode, float blend, int easing);
int lab_time_ghost_advance(int view);
int lab_time_ghost_start(int view);
int lab_time_ghost_same(int view);
int lab_time_ghost_diff(int view);
float lab_time_ghost_jump(int view);
const float *lab_time_ghost_pose(int view, int back);

#define FRAMES 700

static float g_pose[FRAMES][3][STANCE_MAX_JOINTS];
static float g_jump[FRAMES];

static void copy_pose(int f, int n) {
    for (int a = 0; a < 3; a++) memcpy(g_pose[f][a], lab_pose(0, a), sizeof(float) * (size_t)n);
}
static int same_pose(int f, int n) {
    for (int a = 0; a < 3; a++)
        if (memcmp(g_pose[f][a], lab_pose(0, a), sizeof(float) * (size_t)n)) return 0;
    return 1;
}

static void test_tape(void) {
    CHECK(lab_init() == 0);
    const int n = lab_joint_count(0), cap = lab_time_capacity();
    CHECK(n > 0 && n <= STANCE_MAX_JOINTS && cap == 600);
    int switches = 0;
    for (int f = 0; f < FRAMES; f++) {
        /* the inputs: walk, run, a jump, stand, walk again */
        if (f == 10) lab_sm_set_speed(1.5f);
        if (f == 150) lab_sm_set_speed(4.0f);
        if (f == 260) lab_sm_jump();
        if (f == 420) lab_sm_set_speed(0.0f);
        if (f == 560) lab_sm_set_speed(2.0f);
        CHECK(lab_time_before(0) == 0);
        CHECK(lab_sm_step(1.0f / 60.0f) >= 0);
        CHECK(lab_time_after(0) == 0);
        copy_pose(f, n);
        g_jump[f] = lab_sm_jump_cm();
        if (g_jump[f] >= 0.0f) switches++;
    }
    CHECK(switches >= 4);
    CHECK(lab_time_count(0) == cap);
    /* the tape's frames, oldest first, are the last `cap` frames */
    const int first = FRAMES - cap;
    static float jump[600]; /* lab_time_series's buffer is reused by the next call */
    memcpy(jump, lab_time_series(0, 0, 8), sizeof jump);
    int mism = 0, tape_switches = 0;
    for (int i = 0; i < cap; i++) {
        if (memcmp(&jump[i], &g_jump[first + i], sizeof(float))) mism++;
        if (jump[i] >= 0.0f) tape_switches++;
    }
    CHECK(mism == 0 && tape_switches >= 2);
    /* the joint series and the recorded poses: the test's copies */
    const float *y = lab_time_series(0, n - 1, 1);
    int ybad = 0;
    for (int i = 0; i < cap; i++) ybad += memcmp(&y[i], &g_pose[first + i][1][n - 1], sizeof(float)) != 0;
    CHECK(ybad == 0);
    /* every frame held, shown again: bit for bit the test's copy */
    int bad = 0;
    for (int back = cap - 1; back >= 0; back--) {
        if (lab_time_show(0, back) != 1 || !same_pose(FRAMES - 1 - back, n)) bad++;
        const float *p = lab_time_pose(0, back);
        if (!p || memcmp(&p[3 * (n - 1) + 1], &g_pose[FRAMES - 1 - back][1][n - 1], sizeof(float))) bad++;
    }
    CHECK(bad == 0 && lab_time_mismatches(0) == 0 && lab_time_cursor(0) == 0);

    /* the first switch held, replayed under crossfade (the lab's runner switches by cut) */
    int sw = -1;
    for (int i = 0; i < cap && sw < 0; i++)
        if (jump[i] >= 0.0f) sw = i;
    const int swback = cap - 1 - sw;
    CHECK(lab_time_ghost(0, swback, STANCE_SWITCH_CROSSFADE, 0.25f, STANCE_EASE_SMOOTHSTEP) == 0);
    const int gframes = lab_time_ghost_advance(0);
    CHECK(gframes == swback + 1 && swback > 120); /* every frame held from the switch on (not only its first 2 s) */
    CHECK(lab_time_ghost_pose(0, 0) != NULL && lab_time_ghost_pose(0, swback) != NULL && lab_time_ghost_pose(0, swback + 1) == NULL);
    CHECK(lab_time_ghost_same(0) == gframes && lab_time_ghost_diff(0) == 0);
    const float *gp = lab_time_ghost_pose(0, swback - 3), *rp = lab_time_pose(0, swback - 3);
    float far = 0.0f;
    for (int j = 0; gp && rp && j < n; j++)
        far = fmaxf(far, sqrtf((gp[3 * j] - rp[3 * j]) * (gp[3 * j] - rp[3 * j]) + (gp[3 * j + 1] - rp[3 * j + 1]) * (gp[3 * j + 1] - rp[3 * j + 1]) +
                               (gp[3 * j + 2] - rp[3 * j + 2]) * (gp[3 * j + 2] - rp[3 * j + 2])));
    CHECK(gp && rp && far > 0.001f);
    CHECK(lab_time_ghost_jump(0) >= 0.0f && lab_time_ghost_jump(0) != jump[sw]);
    printf("switch %d frames back: %.2f cm as recorded (cut), %.2f cm under crossfade; poses 3 frames on %.2f cm apart\n",
           swback, (double)jump[sw], (double)lab_time_ghost_jump(0), (double)(far * 100.0f));

    /* go on from 100 frames back: the newer frames are dropped, the run continues from it */
    CHECK(lab_time_show(0, 100) == 1 && lab_time_cursor(0) == 100);
    CHECK(lab_time_before(0) == 0 && lab_sm_step(1.0f / 60.0f) >= 0 && lab_time_after(0) == 0);
    CHECK(lab_time_count(0) == cap - 100 + 1 && lab_time_cursor(0) == 0);
    CHECK(lab_time_ghost_start(0) == -1 && lab_time_ghost_advance(0) == 0); /* the ghost went with the frames dropped */

    /* the lesson's script (its runner sets speed and jump inside its step): 300 frames, each shown again */
    lab_sm_script_start();
    for (int f = 0; f < 300; f++) {
        CHECK(lab_time_before(0) == 0 && lab_sm_step(1.0f / 60.0f) >= 0 && lab_time_after(0) == 0);
        copy_pose(f, n);
    }
    CHECK(lab_sm_script_time() > 4.9f && lab_time_count(0) == 300);
    const float *sj = lab_time_series(0, 0, 8);
    int script_switches = 0;
    for (int i = 0; i < 300; i++) script_switches += sj[i] >= 0.0f;
    int sbad = 0;
    for (int back = 299; back >= 0; back--) sbad += lab_time_show(0, back) != 1 || !same_pose(299 - back, n);
    CHECK(sbad == 0 && script_switches >= 1 && lab_time_mismatches(0) == 0);

    /* refused */
    CHECK(lab_time_show(0, cap) < 0 && lab_time_show(0, -1) < 0 && lab_time_show(9, 0) < 0 && lab_time_before(-1) < 0);
    CHECK(lab_time_ghost(0, 0, 99, 0.25f, 0) < 0 && lab_time_ghost(0, 0, 0, NAN, 0) < 0 && lab_time_ghost(0, cap, 0, 0.25f, 0) < 0);
    CHECK(lab_time_ghost_pose(0, -1) == NULL && lab_time_pose(0, cap) == NULL);
}

int main(void) {
    RUN(test_tape);
    return check_summary();
}
