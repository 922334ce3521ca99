/* tools/workload.c - the reference sampling workload (bench/WORKLOAD.md),
 * exactly as specified: skeleton of four chains, three 31-key clips, N
 * characters blending two layers 0.3/0.7, then local-to-model. The full
 * update samples and blends in one call (stance_clip_sample_blend2), as a
 * user would; workload_frame_separate and the passes make the three calls
 * of the specification (sample, sample, blend), as ozz-animation's do. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "workload.h"
#include "core/base/platform.h" /* st_aligned_alloc / st_aligned_free */

#define KEYS 31
#define TAU 6.28318530717958647692

stance_status workload_create(workload *w, int J, int N, stance_error *err) {
    memset(w, 0, sizeof *w);
    if (J < 2 || J > STANCE_MAX_JOINTS || N < 1 || N > 1000000) {
        if (err) { err->status = STANCE_ERR_ARGUMENT; strcpy(err->message, "workload: joints must be 2..1024, characters 1..1000000"); }
        return STANCE_ERR_ARGUMENT;
    }
    w->joints = J, w->characters = N;
    int *parents = malloc(sizeof(int) * (size_t)J);
    stance_transform *rest = malloc(sizeof(stance_transform) * (size_t)J);
    float *times = malloc(sizeof(float) * KEYS);
    float *values = malloc(sizeof(float) * (size_t)J * KEYS * 10);
    stance_track_desc *tracks = malloc(sizeof(stance_track_desc) * (size_t)J * 3);
    stance_status s = STANCE_ERR_MEMORY;
    if (!parents || !rest || !times || !values || !tracks) goto done;
    parents[0] = -1;
    rest[0] = stance_transform_identity();
    int j = 1;
    for (int l = 0; l < 4; l++) {
        int len = (J - 1) / 4 + (l < (J - 1) % 4 ? 1 : 0);
        for (int i = 0; i < len; i++, j++) {
            parents[j] = i == 0 ? 0 : j - 1;
            rest[j] = stance_transform_identity();
            rest[j].t[1] = 0.1f;
        }
    }
    stance_skeleton_desc sd = {.joint_count = J, .parents = parents, .rest = rest};
    s = stance_skeleton_create(&sd, NULL, &w->skeleton, err);
    if (s) goto done;
    for (int k = 0; k < KEYS; k++) times[k] = (float)k / 30.0f;
    for (int a = 0; a < 3; a++) {
        float *tv = values, *rv = values + (size_t)J * KEYS * 3, *sv = values + (size_t)J * KEYS * 7;
        for (int jj = 0; jj < J; jj++) {
            for (int k = 0; k < KEYS; k++) {
                double p = 0.7 * jj + 2.1 * a, wt = TAU * times[k];
                float *t = tv + ((size_t)jj * KEYS + (size_t)k) * 3;
                t[0] = (float)(0.02 * sin(wt + p));
                t[1] = (float)(0.1 + 0.02 * cos(wt + p));
                t[2] = (float)(0.01 * sin(2 * wt + p));
                double q[4] = {0.30 * sin(wt + p), 0.25 * sin(2 * wt + 1.3 * p), 0.20 * cos(wt + 0.5 * p), 1.0};
                double l = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
                float *r = rv + ((size_t)jj * KEYS + (size_t)k) * 4;
                for (int c = 0; c < 4; c++) r[c] = (float)(q[c] / l);
                float *sc = sv + ((size_t)jj * KEYS + (size_t)k) * 3;
                sc[0] = sc[1] = sc[2] = 1.0f;
            }
            tracks[jj * 3 + 0] = (stance_track_desc){jj, STANCE_CHANNEL_TRANSLATION, KEYS, times, tv + (size_t)jj * KEYS * 3};
            tracks[jj * 3 + 1] = (stance_track_desc){jj, STANCE_CHANNEL_ROTATION, KEYS, times, rv + (size_t)jj * KEYS * 4};
            tracks[jj * 3 + 2] = (stance_track_desc){jj, STANCE_CHANNEL_SCALE, KEYS, times, sv + (size_t)jj * KEYS * 3};
        }
        const char *names[3] = {"clip0", "clip1", "clip2"};
        stance_clip_desc cd = {.name = names[a], .duration = 1.0f, .track_count = J * 3, .tracks = tracks};
        s = stance_clip_create(&cd, w->skeleton, NULL, &w->clips[a], err);
        if (s) goto done;
    }
    w->chars = calloc((size_t)N, sizeof(workload_character));
    size_t pb = stance_pose_bytes(J);
    w->pose_memory = st_aligned_alloc(64, pb * 4 * (size_t)N);
    if (!w->chars || !w->pose_memory) { s = STANCE_ERR_MEMORY; goto done; }
    for (int i = 0; i < N; i++) {
        workload_character *c = &w->chars[i];
        unsigned char *m = (unsigned char *)w->pose_memory + pb * 4 * (size_t)i;
        stance_pose_init(&c->local[0], J, m, pb, NULL);
        stance_pose_init(&c->local[1], J, m + pb, pb, NULL);
        stance_pose_init(&c->blended, J, m + 2 * pb, pb, NULL);
        stance_pose_init(&c->model, J, m + 3 * pb, pb, NULL);
        double o0 = 0.6180339887 * i, o1 = 0.4142135624 * i + 0.5;
        c->offset[0] = o0 - floor(o0);
        c->offset[1] = o1 - floor(o1);
    }
    s = STANCE_OK;
done:
    free(parents), free(rest), free(times), free(values), free(tracks);
    if (s) workload_destroy(w);
    return s;
}

void workload_destroy(workload *w) {
    for (int a = 0; a < 3; a++) stance_clip_destroy(w->clips[a]);
    stance_skeleton_destroy(w->skeleton);
    free(w->chars);
    st_aligned_free(w->pose_memory);
    memset(w, 0, sizeof *w);
}

float workload_time(const workload *w, int i, int layer, long f) {
    static const double speed[2] = {1.0, 1.15};
    double t = w->chars[i].offset[layer] + speed[layer] * (double)f / 60.0;
    return (float)(t - floor(t));
}

static const float weights[2] = {0.3f, 0.7f};

void workload_frame(workload *w, long f) {
    for (int i = 0; i < w->characters; i++) {
        workload_character *c = &w->chars[i];
        stance_clip_sample_blend2(&c->blended, w->clips[i % 3], workload_time(w, i, 0, f), &c->cursor[0],
                                  w->clips[(i + 1) % 3], workload_time(w, i, 1, f), &c->cursor[1], weights, 0.0f,
                                  w->skeleton, NULL, NULL);
        stance_local_to_model(&c->model, &c->blended, w->skeleton, NULL, NULL);
    }
}

void workload_frame_separate(workload *w, long f) {
    for (int i = 0; i < w->characters; i++) {
        workload_character *c = &w->chars[i];
        stance_clip_sample(w->clips[i % 3], workload_time(w, i, 0, f), &c->cursor[0], &c->local[0], NULL);
        stance_clip_sample(w->clips[(i + 1) % 3], workload_time(w, i, 1, f), &c->cursor[1], &c->local[1], NULL);
        const stance_pose *in[2] = {&c->local[0], &c->local[1]};
        stance_pose_blend(&c->blended, in, weights, 2, 0.0f, w->skeleton, NULL);
        stance_local_to_model(&c->model, &c->blended, w->skeleton, NULL, NULL);
    }
}

void workload_pass_sample(workload *w, long f) {
    for (int i = 0; i < w->characters; i++) {
        workload_character *c = &w->chars[i];
        stance_clip_sample(w->clips[i % 3], workload_time(w, i, 0, f), &c->cursor[0], &c->local[0], NULL);
        stance_clip_sample(w->clips[(i + 1) % 3], workload_time(w, i, 1, f), &c->cursor[1], &c->local[1], NULL);
    }
}

void workload_pass_blend(workload *w) {
    for (int i = 0; i < w->characters; i++) {
        workload_character *c = &w->chars[i];
        const stance_pose *in[2] = {&c->local[0], &c->local[1]};
        stance_pose_blend(&c->blended, in, weights, 2, 0.0f, w->skeleton, NULL);
    }
}

void workload_pass_l2m(workload *w) {
    for (int i = 0; i < w->characters; i++)
        stance_local_to_model(&w->chars[i].model, &w->chars[i].blended, w->skeleton, NULL, NULL);
}

double workload_check(const workload *w) {
    double sum = 0.0;
    for (int i = 0; i < w->characters; i++) {
        const stance_pose *m = &w->chars[i].model;
        for (int j = 0; j < w->joints; j++) sum += (double)m->tx[j] + (double)m->ty[j] + (double)m->tz[j];
    }
    return sum;
}
