/* tools/workload.h - the reference sampling workload of bench/WORKLOAD.md,
 * built through the public API: used by `stance bench` and by the tests. */
#ifndef STANCE_TOOLS_WORKLOAD_H
#define STANCE_TOOLS_WORKLOAD_H
#include "stance/stance.h"

typedef struct workload_character {
    stance_cursor cursor[2];
    stance_pose local[2], blended, model;
    double offset[2];
} workload_character;

typedef struct workload {
    int joints, characters;
    stance_skeleton *skeleton;
    stance_clip *clips[3];
    workload_character *chars;
    void *pose_memory;
} workload;

stance_status workload_create(workload *w, int joints, int characters, stance_error *err);
void workload_destroy(workload *w);
/* The normalized time of a character's layer at frame f. */
float workload_time(const workload *w, int character, int layer, long frame);
/* One full update of every character for frame f: both clips sampled and
 * blended in one call (stance_clip_sample_blend2), then local-to-model. */
void workload_frame(workload *w, long frame);
/* The same update in the specification's separate calls (sample x2, blend,
 * local-to-model): the same poses, bit for bit. */
void workload_frame_separate(workload *w, long frame);
/* The three passes, each over all characters. */
void workload_pass_sample(workload *w, long frame);
void workload_pass_blend(workload *w);
void workload_pass_l2m(workload *w);
/* Sum over characters and joints of model-space x + y + z. */
double workload_check(const workload *w);
#endif
