/* tests/test_graphfile_sync.c - sync groups (issue 26 item 4, docs/sync.md)
 * on RobotExpressive's Walking -> Running, with markers the test finds
 * itself and writes into the graph file it builds.
 *
 * Contacts: each foot's down times are where it becomes planted, the clip
 * sampled at 480 points a cycle: within its lowest + 10% of its height's
 * range and moving backward (the way the feet move at their lowest), at
 * the height's crossing (linear between samples); the markers "L" and "R" are put there,
 * and each clip's "speed" is the mean backward horizontal speed of its
 * planted feet (both clips play in place).
 *
 * Foot phase: at a clip time, which foot came down last and the fraction of
 * the way to the next contact (the test's own contact list, in double).
 * Phase error at the switch: the run's time after the switch against the run
 * time of the walk's foot phase, in 60 Hz frames, at 16 switch times over a
 * walking cycle, in every switch mode, with and without the group.
 *
 * Slide: the character moved by the caller along the walk at the clips'
 * speeds blended by the switch's eased progress; per foot, its horizontal
 * travel in the world while within 1.3% of a leg of the ground the clips
 * stand on, over the 0.4 s after the switch, per metre travelled. The bound
 * is the walk's own slide over its cycle, measured the same way.
 *
 * Errors: a group of one member, an unknown marker key and a marker past
 * its clip each give one FILE:LINE:COL message. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "real_files.h"
#include "ws.h"
#include "stance/io.h"
#include "stance/build.h"

#define HZ 60.0
#define BLEND 0.4
#define SWITCHES 16
#define SAMPLES 480

typedef struct contacts {
    int n;
    double t[8];
    int foot[8];     /* 0 = L, 1 = R */
    double speed;    /* ground speed, m/s */
    double dir[2];   /* forward (x, z) */
    double D;
    unsigned char planted[2][SAMPLES]; /* per foot and sample */
} contacts;

static const stance_asset *asset;
static stance_graphfile *base_gf;
static int foot_j[2], hip_j, knee_j;
static double leg, ground;
static char glb[1024];

static double frac(double x) { return x - floor(x); }

/* the model-space positions of both feet at time t of clip c */
static void feet_at(const stance_clip *c, double t, stance_pose *loc, stance_pose *mod, double out[2][3]) {
    stance_error err;
    CHECK_OK(stance_clip_sample(c, (float)t, NULL, loc, &err));
    CHECK_OK(stance_local_to_model(mod, loc, asset->skeleton, NULL, &err));
    for (int f = 0; f < 2; f++)
        out[f][0] = mod->tx[foot_j[f]], out[f][1] = mod->ty[foot_j[f]], out[f][2] = mod->tz[foot_j[f]];
}

static void find_contacts(const stance_clip *c, contacts *k) {
    const int J = asset->skeleton->joint_count;
    stance_pose loc, mod;
    stance_error err;
    CHECK_OK(stance_pose_create(&loc, J, NULL, &err));
    CHECK_OK(stance_pose_create(&mod, J, NULL, &err));
    static double h[2][SAMPLES], x[2][SAMPLES], z[2][SAMPLES];
    memset(k, 0, sizeof *k);
    k->D = c->duration;
    for (int i = 0; i < SAMPLES; i++) {
        double p[2][3];
        feet_at(c, k->D * i / SAMPLES, &loc, &mod, p);
        for (int f = 0; f < 2; f++) h[f][i] = p[f][1], x[f][i] = p[f][0], z[f][i] = p[f][2];
    }
    /* backward: the way the feet move at their lowest (where they stand) */
    double bx = 0, bz = 0;
    for (int f = 0; f < 2; f++) {
        int lo_i = 0;
        for (int i = 0; i < SAMPLES; i++)
            if (h[f][i] < h[f][lo_i]) lo_i = i;
        const int j = (lo_i + 1) % SAMPLES;
        bx += x[f][j] - x[f][lo_i], bz += z[f][j] - z[f][lo_i];
    }
    double vx = 0, vz = 0;
    int nv = 0;
    for (int f = 0; f < 2; f++) {
        double lo = 1e30, hi = -1e30;
        for (int i = 0; i < SAMPLES; i++) lo = fmin(lo, h[f][i]), hi = fmax(hi, h[f][i]);
        const double th = lo + 0.1 * (hi - lo);
        /* planted: low and moving backward */
        unsigned char pl[SAMPLES];
        for (int i = 0; i < SAMPLES; i++) {
            const int j = (i + 1) % SAMPLES;
            pl[i] = h[f][i] <= th && (x[f][j] - x[f][i]) * bx + (z[f][j] - z[f][i]) * bz > 0;
            k->planted[f][i] = pl[i];
        }
        for (int i = 0; i < SAMPLES; i++) {
            const int j = (i + 1) % SAMPLES;
            if (!pl[i] && pl[j] && k->n < 8) { /* down: at the height's crossing when it is the height that crossed */
                const double u = h[f][i] > th ? (h[f][i] - th) / (h[f][i] - h[f][j]) : 1.0;
                k->t[k->n] = k->D * (i + u) / SAMPLES, k->foot[k->n] = f, k->n++;
            }
            if (pl[i]) vx += x[f][j] - x[f][i], vz += z[f][j] - z[f][i], nv++;
        }
    }
    for (int a = 1; a < k->n; a++) /* by time */
        for (int b = a; b > 0 && k->t[b - 1] > k->t[b]; b--) {
            double t = k->t[b]; k->t[b] = k->t[b - 1], k->t[b - 1] = t;
            int f = k->foot[b]; k->foot[b] = k->foot[b - 1], k->foot[b - 1] = f;
        }
    const double step = k->D / SAMPLES, len = sqrt(vx * vx + vz * vz);
    k->speed = nv ? len / (nv * step) : 0.0;
    k->dir[0] = len > 0 ? -vx / len : 0, k->dir[1] = len > 0 ? -vz / len : 1;
    stance_pose_destroy(&loc), stance_pose_destroy(&mod);
}

/* foot phase at clip time t: the index of the last contact and the fraction to the next */
static void phase_of(const contacts *k, double t, int *last, double *f) {
    int i = k->n - 1;
    for (int a = 0; a < k->n; a++)
        if (k->t[a] <= t) i = a;
    const double t0 = k->t[i], t1 = i + 1 < k->n ? k->t[i + 1] : k->t[0] + k->D;
    double since = t - t0;
    if (since < 0) since += k->D;
    *last = i, *f = since / (t1 - t0);
}

/* the run time whose foot phase is the walk's at tw */
static double matched(const contacts *walk, const contacts *run, double tw) {
    int i;
    double f;
    phase_of(walk, tw, &i, &f);
    for (int a = 0; a < run->n; a++)
        if (run->foot[a] == walk->foot[i]) {
            const double t0 = run->t[a], t1 = a + 1 < run->n ? run->t[a + 1] : run->t[0] + run->D;
            return fmod(t0 + f * (t1 - t0), run->D);
        }
    return 0.0;
}

/* The leader's step in a synced crossfade (rate matching, docs/sync.md):
 * the real time its current span between contacts takes is the weighted
 * mean of its own and the follower's matching span (rates 1 here), wf the
 * follower's weight. */
static double lead_step(const contacts *lead, const contacts *fol, double tl, double wf, double dt) {
    int i;
    double f;
    phase_of(lead, tl, &i, &f);
    const double sl = (i + 1 < lead->n ? lead->t[i + 1] : lead->t[0] + lead->D) - lead->t[i];
    for (int a = 0; a < fol->n; a++)
        if (fol->foot[a] == lead->foot[i]) {
            const double sf = (a + 1 < fol->n ? fol->t[a + 1] : fol->t[0] + fol->D) - fol->t[a];
            return dt * sl / ((1.0 - wf) * sl + wf * sf);
        }
    return dt;
}

static contacts walk_k, run_k;
static const stance_clip *walk_c, *run_c;

static const char *const mode_names[] = {"cut", "frozen", "crossfade", "inertialize"};

/* Walking's and Running's markers as the graph file writes them (the test's own contacts). */
static void markers_json(char mk[2][512]) {
    const contacts *ks[2] = {&walk_k, &run_k};
    for (int c = 0; c < 2; c++) {
        size_t at = 0;
        mk[c][0] = 0;
        for (int i = 0; i < ks[c]->n; i++)
            at += (size_t)snprintf(mk[c] + at, 512 - at, "%s{\"t\": %.6f, \"name\": \"%s\"}", i ? ", " : "",
                                   ks[c]->t[i], ks[c]->foot[i] ? "R" : "L");
    }
}

/* gf's graph compiled (the clips it plays) and loaded back into *loaded; the bytes to free with
 * stance_asset_free_bytes. */
static void compile_graph(const stance_graphfile *gf, stance_asset *loaded, void **bytes, size_t *size) {
    stance_error err;
    const stance_clip *used[8];
    const int nu = stance_graph_clips(stance_graphfile_graph(gf), used, 8);
    stance_asset view = *asset;
    view.clips = (stance_clip **)used, view.clip_count = nu;
    *bytes = NULL, *size = 0;
    CHECK_OK(stance_asset_save_graph_memory(&view, stance_graphfile_desc(gf), bytes, size, NULL, &err));
    memset(loaded, 0, sizeof *loaded);
    CHECK_OK(stance_asset_load_memory(*bytes, *size, NULL, loaded, &err));
}

/* What switches to what: Walk -> Run (clip states), Walk -> Move and Move
 * -> Walk (Move: a blend space of Walking at "mix" 0 and Running at 1, at
 * the variant's mix); the contacts of the clips whose markers lead before
 * the switch and the target's (a blend space's: its dominant entry's) and
 * the ground speeds the caller moves the character at. */
typedef struct variant {
    const char *name;
    int kind; /* 0 clip -> clip, 1 clip -> blend space, 2 blend space -> clip */
    double mix;
    const contacts *from, *to;
    double from_speed, to_speed;
} variant;

/* The graph file's text: Walk and Run, or Walk and Move (in the group
 * "locomotion" when synced), the variant's switch when speed >= 1 in
 * `mode`, the markers and speeds. */
static void graph_text(char *buf, size_t cap, int synced, const char *mode, const variant *v) {
    char mk[2][512];
    markers_json(mk);
    const char *sync = synced ? ", \"sync\": \"locomotion\"" : "";
    const int kind = v ? v->kind : 0;
    char states[1024];
    if (kind == 0)
        snprintf(states, sizeof states,
                 " \"params\": [{\"name\": \"speed\", \"type\": \"float\"}],\n"
                 " \"machines\": [{\"name\": \"Loco\", \"entry\": \"Walk\", \"states\": [\n"
                 "   {\"name\": \"Walk\", \"clip\": \"Walking\"%s},\n"
                 "   {\"name\": \"Run\", \"clip\": \"Running\"%s}],\n"
                 "  \"transitions\": [{\"from\": \"Walk\", \"to\": \"Run\"", sync, sync);
    else
        snprintf(states, sizeof states,
                 " \"params\": [{\"name\": \"speed\", \"type\": \"float\"}, {\"name\": \"mix\", \"type\": \"float\"}],\n"
                 " \"machines\": [{\"name\": \"Loco\", \"entry\": \"%s\", \"states\": [\n"
                 "   {\"name\": \"Walk\", \"clip\": \"Walking\"%s},\n"
                 "   {\"name\": \"Move\", \"blend1d\": {\"param\": \"mix\", \"entries\": [{\"clip\": \"Walking\", \"x\": 0}, "
                 "{\"clip\": \"Running\", \"x\": 1}]}%s}],\n"
                 "  \"transitions\": [{\"from\": \"%s\", \"to\": \"%s\"", kind == 1 ? "Walk" : "Move", sync, sync,
                 kind == 1 ? "Walk" : "Move", kind == 1 ? "Move" : "Walk");
    snprintf(buf, cap,
             "{\"version\": 1,\n"
             "%s, \"when\": [{\"param\": \"speed\", \"op\": \">=\", \"value\": 1}],\n"
             "    \"blend_time\": %g, \"mode\": \"%s\"}]}],\n"
             " \"clips\": {\"Walking\": {\"markers\": [%s], \"speed\": %.6f},\n"
             "           \"Running\": {\"markers\": [%s], \"speed\": %.6f}}}\n",
             states, BLEND, mode, mk[0], walk_k.speed, mk[1], run_k.speed);
}

static stance_graphfile *load_text(const char *text, stance_error *err) {
    stance_graphfile_options opt = {NULL, asset};
    stance_graphfile *gf = NULL;
    if (stance_graphfile_load_string(text, "sync.json", NULL, &opt, &gf, err) != STANCE_OK) return NULL;
    return gf;
}

static int setup(void) {
    data_path(glb, sizeof glb, "robot_expressive/RobotExpressive.glb");
    size_t sz = 0;
    unsigned char *probe = read_all(glb, &sz);
    if (!probe) return 0;
    free(probe);
    char text[2048];
    snprintf(text, sizeof text, "{\"version\": 1, \"asset\": \"%s\", \"machines\": [{\"name\": \"M\", \"states\": "
             "[{\"name\": \"Walk\", \"clip\": \"Walking\"}]}]}", glb);
    stance_error err;
    const stance_status s = stance_graphfile_load_string(text, "base.json", NULL, NULL, &base_gf, &err);
    if (s == STANCE_ERR_UNSUPPORTED) {
        printf("     %s: skipped\n", err.message);
        return 0;
    }
    CHECK_OK(s);
    if (s) { fprintf(stderr, "%s\n", err.message); return 0; }
    asset = stance_graphfile_asset(base_gf);
    walk_c = stance_asset_find_clip(asset, "Walking"), run_c = stance_asset_find_clip(asset, "Running");
    foot_j[0] = stance_skeleton_find(asset->skeleton, "Foot.L"), foot_j[1] = stance_skeleton_find(asset->skeleton, "Foot.R");
    hip_j = stance_skeleton_find(asset->skeleton, "UpperLeg.L"), knee_j = stance_skeleton_find(asset->skeleton, "LowerLeg.L");
    CHECK(walk_c && run_c && foot_j[0] >= 0 && foot_j[1] >= 0 && hip_j >= 0 && knee_j >= 0);
    if (!walk_c || !run_c || foot_j[0] < 0 || foot_j[1] < 0 || hip_j < 0 || knee_j < 0) return 0;
    find_contacts(walk_c, &walk_k), find_contacts(run_c, &run_k);
    /* one down per foot per cycle, alternating */
    CHECK(walk_k.n == 2 && run_k.n == 2);
    CHECK(walk_k.foot[0] != walk_k.foot[1] && run_k.foot[0] != run_k.foot[1]);
    /* the leg (rest pose) and the ground: the lowest the feet go in either clip */
    const int J = asset->skeleton->joint_count;
    stance_pose loc, mod;
    CHECK_OK(stance_pose_create(&loc, J, NULL, &err));
    CHECK_OK(stance_pose_create(&mod, J, NULL, &err));
    CHECK_OK(stance_pose_set_rest(&loc, asset->skeleton, &err));
    CHECK_OK(stance_local_to_model(&mod, &loc, asset->skeleton, NULL, &err));
    const int js[3] = {hip_j, knee_j, foot_j[0]};
    leg = 0;
    for (int i = 0; i < 2; i++) {
        const double dx = mod.tx[js[i + 1]] - mod.tx[js[i]], dy = mod.ty[js[i + 1]] - mod.ty[js[i]], dz = mod.tz[js[i + 1]] - mod.tz[js[i]];
        leg += sqrt(dx * dx + dy * dy + dz * dz);
    }
    ground = 1e30;
    for (int c = 0; c < 2; c++)
        for (int i = 0; i < SAMPLES; i++) {
            double p[2][3];
            const stance_clip *cl = c ? run_c : walk_c;
            feet_at(cl, cl->duration * i / SAMPLES, &loc, &mod, p);
            ground = fmin(ground, fmin(p[0][1], p[1][1]));
        }
    stance_pose_destroy(&loc), stance_pose_destroy(&mod);
    printf("     Walking %.4f s: %s down %.4f, %s down %.4f, %.3f units/s; Running %.4f s: %s down %.4f, %s down %.4f, %.3f units/s;"
           " leg %.3f\n", walk_k.D, walk_k.foot[0] ? "R" : "L", walk_k.t[0], walk_k.foot[1] ? "R" : "L", walk_k.t[1],
           walk_k.speed, run_k.D, run_k.foot[0] ? "R" : "L", run_k.t[0], run_k.foot[1] ? "R" : "L", run_k.t[1], run_k.speed, leg);
    return 1;
}

/* slide accumulator: per foot its last world position */
typedef struct slider {
    double last[2][3];
    int have, was[2];
    double slide, travel;
} slider;

/* the feet the clip of k plants at its time t */
static void planted_at(const contacts *k, double t, int out[2]) {
    const int i = (int)floor(frac(t / k->D) * SAMPLES) % SAMPLES;
    out[0] = k->planted[0][i], out[1] = k->planted[1][i];
}

/* a frame: the horizontal world travel of each foot the clip plants now and planted the frame before */
static void slide_step(slider *s, const stance_pose *mod, const double root[2], const int planted[2]) {
    double p[2][3];
    for (int f = 0; f < 2; f++)
        p[f][0] = mod->tx[foot_j[f]] + root[0], p[f][1] = mod->ty[foot_j[f]], p[f][2] = mod->tz[foot_j[f]] + root[1];
    for (int f = 0; f < 2 && s->have; f++)
        if (planted[f] && s->was[f]) s->slide += hypot(p[f][0] - s->last[f][0], p[f][2] - s->last[f][2]);
    memcpy(s->last, p, sizeof p);
    s->have = 1, s->was[0] = planted[0], s->was[1] = planted[1];
}

/* The walk played alone over its cycle, moved at its speed: cm per m. */
static double walk_own_slide(void) {
    stance_error err;
    char text[4096];
    graph_text(text, sizeof text, 0, "crossfade", NULL);
    stance_graphfile *gf = load_text(text, &err);
    CHECK(gf != NULL);
    if (!gf) return 0;
    stance_instance *in = NULL;
    CHECK_OK(stance_instance_create(stance_graphfile_graph(gf), NULL, &in, &err));
    const stance_graph *g = stance_graphfile_graph(gf);
    stance_workspace *ws = test_ws(g);
    slider s;
    memset(&s, 0, sizeof s);
    double root[2] = {0, 0};
    const int frames = (int)ceil(walk_k.D * HZ * 3);
    for (int i = 0; i < frames; i++) {
        CHECK_OK(stance_instance_update(in, (float)(1.0 / HZ), ws, &err));
        for (int a = 0; a < 2; a++) root[a] += walk_k.speed / HZ * walk_k.dir[a];
        s.travel += walk_k.speed / HZ;
        stance_machine_status st;
        int pl[2];
        CHECK_OK(stance_instance_machine_status(in, 0, &st, &err));
        planted_at(&walk_k, frac(st.normalized_time) * walk_k.D, pl);
        slide_step(&s, stance_instance_model_pose(in), root, pl);
    }
    stance_instance_destroy(in);
    stance_graphfile_destroy(gf);
    return 100.0 * s.slide / s.travel;
}

/* One variant and mode, synced or not: the worst phase error (frames) and the slide (cm/m). */
static void run_mode(const variant *v, int synced, int mode, double *worst_err, double *slide_cm, double *follow_err,
                     double *follow_old) {
    stance_error err;
    char text[4096];
    graph_text(text, sizeof text, synced, mode_names[mode], v);
    stance_graphfile *gf = load_text(text, &err);
    CHECK(gf != NULL);
    if (!gf) { fprintf(stderr, "%s\n", err.message); return; }
    const stance_graph *g = stance_graphfile_graph(gf);
    stance_workspace *ws = test_ws(g);
    const contacts *from = v->from, *to = v->to;
    const int speed = stance_graph_find_param(g, "speed"), mix = stance_graph_find_param(g, "mix");
    const int target = stance_graph_find_state(g, v->kind == 0 ? "Run" : v->kind == 1 ? "Move" : "Walk");
    *worst_err = 0;
    slider s;
    memset(&s, 0, sizeof s);
    for (int k = 0; k < SWITCHES; k++) {
        stance_instance *in = NULL;
        stance_instance_desc idesc = {STANCE_HISTORY_ALL};
        CHECK_OK(stance_instance_create_ex(g, &idesc, NULL, &in, &err));
        if (mix >= 0) CHECK_OK(stance_instance_set_float(in, mix, (float)v->mix, &err));
        /* play for a while, ending at the k-th of SWITCHES points of a cycle */
        const int pre = (int)(HZ * from->D) + (int)floor(HZ * from->D * k / SWITCHES);
        stance_machine_status st;
        for (int i = 0; i < pre; i++) CHECK_OK(stance_instance_update(in, (float)(1.0 / HZ), ws, &err));
        CHECK_OK(stance_instance_machine_status(in, 0, &st, &err));
        const double tw = fmod(frac(st.normalized_time) * from->D + 1.0 / HZ, from->D); /* the leader at the switch */
        CHECK_OK(stance_instance_set_float(in, speed, 2.0f, &err));
        CHECK_OK(stance_instance_update(in, (float)(1.0 / HZ), ws, &err));
        CHECK_OK(stance_instance_machine_status(in, 0, &st, &err));
        CHECK(st.state == target);
        const double tr = frac(st.normalized_time) * to->D, want = matched(from, to, tw);
        double e = fabs(tr - want);
        if (to->D - e < e) e = to->D - e;
        *worst_err = fmax(*worst_err, e * HZ);
        /* the slide over the BLEND seconds after the switch, moved at the blended speed; in a synced
         * crossfade, the target's time against the test's own leader and follower (the higher eased
         * weight leads; the follower moves forward to the leader's foot phase) */
        double root[2] = {0, 0}, mw = tw, mr = tr, mw0 = tw, mr0 = tr;
        const int follow = synced && mode == 2;
        s.have = 0;
        int pl[2];
        planted_at(to, tr, pl);
        slide_step(&s, stance_instance_model_pose(in), root, pl);
        for (int i = 0; i < (int)(BLEND * HZ); i++) {
            CHECK_OK(stance_instance_update(in, (float)(1.0 / HZ), ws, &err));
            CHECK_OK(stance_instance_machine_status(in, 0, &st, &err));
            const double p = st.transition >= 0 ? st.progress : 1.0, w = p * p * (3 - 2 * p);
            if (follow && st.transition >= 0) {
                for (int match_rates = 1; match_rates >= 0; match_rates--) { /* the rule, and the rule before rate matching */
                    double *lw = match_rates ? &mw : &mw0, *lr = match_rates ? &mr : &mr0;
                    if (w >= 0.5) {
                        *lr = fmod(*lr + (match_rates ? lead_step(to, from, *lr, 1.0 - w, 1.0 / HZ) : 1.0 / HZ), to->D);
                        double d = matched(to, from, *lr) - *lw; /* the state left follows: forward only */
                        d -= from->D * floor(d / from->D + 0.5);
                        if (d > 0) *lw = fmod(*lw + d, from->D);
                    } else {
                        *lw = fmod(*lw + (match_rates ? lead_step(from, to, *lw, w, 1.0 / HZ) : 1.0 / HZ), from->D);
                        double d = matched(from, to, *lw) - *lr;
                        d -= to->D * floor(d / to->D + 0.5);
                        if (d > 0) *lr = fmod(*lr + d, to->D);
                    }
                    double e2 = fabs(frac(st.normalized_time) * to->D - *lr);
                    if (to->D - e2 < e2) e2 = to->D - e2;
                    double *out = match_rates ? follow_err : follow_old;
                    *out = fmax(*out, e2 * HZ);
                }
            }
            const double sp = v->from_speed + (v->to_speed - v->from_speed) * w;
            for (int a = 0; a < 2; a++) root[a] += sp / HZ * walk_k.dir[a];
            s.travel += sp / HZ;
            /* the feet planted by the contacts of what the pose mostly shows: the state left while a
             * crossfade's eased weight is under 0.5 (synced: at the test's own leader time; else at its
             * own clock), a frozen switch's still pose before that, the target otherwise */
            if (w < 0.5 && (mode == 1 || mode == 2))
                planted_at(from, mode == 1 ? tw : follow ? mw : fmod(tw + (i + 1) / HZ, from->D), pl);
            else
                planted_at(to, frac(st.normalized_time) * to->D, pl);
            slide_step(&s, stance_instance_model_pose(in), root, pl);
        }
        stance_instance_destroy(in);
    }
    *slide_cm = 100.0 * s.slide / s.travel;
    stance_graphfile_destroy(gf);
}

static void test_walk_to_run(void) {
    const double own = walk_own_slide();
    printf("     Walking's own slide: %.2f cm/m\n", own);
    const variant vs[] = {{"Walk -> Run", 0, 0, &walk_k, &run_k, walk_k.speed, run_k.speed},
                          {"Walk -> Move (blend space at Running)", 1, 1.0, &walk_k, &run_k, walk_k.speed, run_k.speed},
                          {"Move (blend space at Running) -> Walk", 2, 1.0, &run_k, &walk_k, run_k.speed, walk_k.speed},
                          {"Walk -> Move (blend space at mix 0.7: Running leads)", 1, 0.7, &walk_k, &run_k, walk_k.speed,
                           0.3 * walk_k.speed + 0.7 * run_k.speed}};
    for (int vi = 0; vi < 4; vi++) {
        const variant *v = &vs[vi];
        printf("     %s\n     %-12s %-22s %-22s\n", v->name, "mode", "phase error (frames)", "slide (cm/m)");
        for (int m = 0; m < 4; m++) {
            double e0 = 0, s0 = 0, e1 = 0, s1 = 0;
            double f0 = 0, f1 = 0, g0 = 0, g1 = 0;
            run_mode(v, 0, m, &e0, &s0, &f0, &g0);
            run_mode(v, 1, m, &e1, &s1, &f1, &g1);
            if (m == 2) {
                printf("     crossfade, synced: the target's time during the blend against the test's leader/follower with "
                       "rate matching: worst %.4f frames (against the same without rate matching: %.4f frames)\n", f1, g1);
                CHECK(f1 <= 0.01);
                CHECK(g1 > 0.01); /* rate matching changed the blend's timing */
            }
            printf("     %-12s %6.2f -> %-12.2f %6.2f -> %.2f\n", mode_names[m], e0, e1, s0, s1);
            CHECK(e1 <= 1.0);
            /* into the slower clip, a cut plays the walk alone (its slide is the walk's own over the 16 windows
             * after the switches), and inertialization moves the run's feet into the walk's over the blend:
             * the group lowers both, the bound holds for the blends that show the state left */
            if (v->kind == 2 && (m == 0 || m == 3)) CHECK(s1 < s0);
            else CHECK(s1 <= own);
        }
    }
}

/* stance_instance_play between members: clip -> blend space -> blend space -> clip, each target at
 * the phase matching the state it leaves (the test's own contacts); the compiled graph keeps a blend
 * space's group. */
static void test_play_and_blend_members(void) {
    char mk[2][512];
    markers_json(mk);
    char text[4096];
    snprintf(text, sizeof text,
             "{\"version\": 1, \"params\": [{\"name\": \"mix\", \"type\": \"float\"}],\n"
             " \"machines\": [{\"name\": \"Loco\", \"states\": [\n"
             "   {\"name\": \"Walk\", \"clip\": \"Walking\", \"sync\": \"loco\"},\n"
             "   {\"name\": \"Move\", \"blend1d\": {\"param\": \"mix\", \"entries\": [{\"clip\": \"Walking\", \"x\": 0}, "
             "{\"clip\": \"Running\", \"x\": 1}]}, \"sync\": \"loco\"},\n"
             "   {\"name\": \"Back\", \"blend1d\": {\"param\": \"mix\", \"entries\": [{\"clip\": \"Running\", \"x\": 0}, "
             "{\"clip\": \"Walking\", \"x\": 1}]}, \"sync\": \"loco\"}]}],\n"
             " \"clips\": {\"Walking\": {\"markers\": [%s]}, \"Running\": {\"markers\": [%s]}}}\n", mk[0], mk[1]);
    stance_error err;
    stance_graphfile *gf = load_text(text, &err);
    CHECK(gf != NULL);
    if (!gf) { fprintf(stderr, "%s\n", err.message); return; }
    const stance_graph *g = stance_graphfile_graph(gf);
    stance_workspace *ws = test_ws(g);
    /* at mix 0.8 Move's leading entry is Running and Back's is Walking */
    const char *order[4] = {"Walk", "Move", "Back", "Walk"};
    const contacts *kof[4] = {&walk_k, &run_k, &walk_k, &walk_k};
    const stance_switch_mode modes[3] = {STANCE_SWITCH_CROSSFADE, STANCE_SWITCH_CUT, STANCE_SWITCH_INERTIALIZE};
    double worst = 0;
    for (int mi = 0; mi < 3; mi++)
        for (int k = 0; k < 5; k++) {
            stance_instance *in = NULL;
            stance_instance_desc idesc = {STANCE_HISTORY_ALL};
            CHECK_OK(stance_instance_create_ex(g, &idesc, NULL, &in, &err));
            CHECK_OK(stance_instance_set_float(in, stance_graph_find_param(g, "mix"), 0.8f, &err));
            for (int step = 1; step < 4; step++) {
                const int frames = 20 + 7 * k + 3 * step;
                for (int i = 0; i < frames; i++) CHECK_OK(stance_instance_update(in, (float)(1.0 / HZ), ws, &err));
                stance_machine_status st;
                CHECK_OK(stance_instance_machine_status(in, 0, &st, &err));
                const double t0 = fmod(frac(st.normalized_time) * kof[step - 1]->D + 1.0 / HZ, kof[step - 1]->D);
                CHECK_OK(stance_instance_play(in, stance_graph_find_state(g, order[step]), modes[mi], STANCE_EASE_SMOOTHSTEP,
                                              0.3f, &err));
                CHECK_OK(stance_instance_update(in, (float)(1.0 / HZ), ws, &err));
                CHECK_OK(stance_instance_machine_status(in, 0, &st, &err));
                CHECK(st.state == stance_graph_find_state(g, order[step]));
                /* the target's time one step after the switch: its start plus that step, as the leader's is */
                const double want = fmod(matched(kof[step - 1], kof[step], fmod(t0 - 1.0 / HZ + kof[step - 1]->D, kof[step - 1]->D)) +
                                         1.0 / HZ, kof[step]->D);
                double e = fabs(frac(st.normalized_time) * kof[step]->D - want);
                if (kof[step]->D - e < e) e = kof[step]->D - e;
                worst = fmax(worst, e * HZ);
                for (int i = 0; i < 30; i++) CHECK_OK(stance_instance_update(in, (float)(1.0 / HZ), ws, &err));
            }
            stance_instance_destroy(in);
        }
    printf("     stance_instance_play Walk -> Move -> Back -> Walk (crossfade, cut, inertialize; 5 start times): worst phase "
           "error %.4f frames\n", worst);
    CHECK(worst <= 1.0);
    /* stance_graph_create checks the members too: without the clips' markers, the blend spaces are refused */
    {
        stance_graph_desc bad = *stance_graphfile_desc(gf);
        stance_machine_desc md = bad.machines[0];
        stance_state_desc sts[3];
        memcpy(sts, md.states, sizeof sts);
        sts[0].sync = NULL; /* Walk out of the group: Move and Back are its members */
        md.states = sts, bad.machines = &md, bad.clip_sync_count = 0, bad.clip_sync = NULL;
        stance_graph *gb = NULL;
        stance_error e2;
        const stance_status st2 = stance_graph_create(&bad, NULL, &gb, &e2);
        CHECK(st2 == STANCE_ERR_VALUE && strstr(e2.message, "blend space state 'Move' is in sync group 'loco' but none of its "
                                                              "entries' clips has markers"));
        if (st2 != STANCE_ERR_VALUE) fprintf(stderr, "     got: %s\n", e2.message);
        stance_graph_destroy(gb);
        /* and with Walking's markers only, Back (Running at 0, Walking at 1) and Move still have a marked entry */
        const stance_clip_sync_desc *all = stance_graphfile_desc(gf)->clip_sync;
        for (int i = 0; i < stance_graphfile_desc(gf)->clip_sync_count; i++)
            if (all[i].clip == run_c) {
                bad.clip_sync = all + (i == 0 ? 1 : 0), bad.clip_sync_count = 1;
            }
        CHECK_OK(stance_graph_create(&bad, NULL, &gb, &e2));
        stance_graph_destroy(gb);
    }
    /* the compiled graph keeps the blend spaces' group and plays the same */
    void *bytes;
    size_t size;
    stance_asset loaded;
    compile_graph(gf, &loaded, &bytes, &size);
    CHECK(loaded.graph != NULL);
    if (loaded.graph) {
        const stance_graph *gc = loaded.graph;
        const char *grp = stance_graph_state_sync(gc, stance_graph_find_state(gc, "Back"));
        CHECK(grp && !strcmp(grp, "loco"));
        stance_instance *a = NULL, *b = NULL;
        stance_workspace *wc = NULL;
        CHECK_OK(stance_workspace_create(gc, NULL, &wc, &err));
        CHECK_OK(stance_instance_create(g, NULL, &a, &err));
        CHECK_OK(stance_instance_create(gc, NULL, &b, &err));
        int same = 1;
        for (int i = 0; i < 90; i++) {
            if (i == 30) {
                CHECK_OK(stance_instance_play(a, stance_graph_find_state(g, "Move"), STANCE_SWITCH_CROSSFADE, STANCE_EASE_LINEAR, 0.3f, &err));
                CHECK_OK(stance_instance_play(b, stance_graph_find_state(gc, "Move"), STANCE_SWITCH_CROSSFADE, STANCE_EASE_LINEAR, 0.3f, &err));
            }
            CHECK_OK(stance_instance_update(a, (float)(1.0 / HZ), ws, &err));
            CHECK_OK(stance_instance_update(b, (float)(1.0 / HZ), wc, &err));
            stance_machine_status sa, sb;
            CHECK_OK(stance_instance_machine_status(a, 0, &sa, &err));
            CHECK_OK(stance_instance_machine_status(b, 0, &sb, &err));
            same &= sa.normalized_time == sb.normalized_time;
        }
        CHECK(same);
        stance_instance_destroy(a), stance_instance_destroy(b);
        stance_workspace_destroy(wc);
    }
    stance_asset_destroy(&loaded);
    stance_asset_free_bytes(bytes, size, NULL);
    stance_graphfile_destroy(gf);
}

/* ---- the graph's queries and the compiled form ------------------------------------ */

static void test_queries_and_compiled(void) {
    stance_error err;
    char text[4096];
    graph_text(text, sizeof text, 1, "crossfade", NULL);
    stance_graphfile *gf = load_text(text, &err);
    CHECK(gf != NULL);
    if (!gf) return;
    const stance_graph *g = stance_graphfile_graph(gf);
    stance_clip_marker mk[4];
    CHECK(stance_graph_clip_markers(g, walk_c, mk, 4) == walk_k.n);
    for (int i = 0; i < walk_k.n; i++) {
        CHECK_NEAR(mk[i].time, walk_k.t[i], 1e-5);
        CHECK(!strcmp(mk[i].name, walk_k.foot[i] ? "R" : "L"));
    }
    CHECK_NEAR(stance_graph_clip_speed(g, run_c), run_k.speed, 1e-5);
    CHECK(!strcmp(stance_graph_state_sync(g, stance_graph_find_state(g, "Run")), "locomotion"));
    CHECK(stance_graph_state_sync(g, -1) == NULL && stance_graph_state_sync(NULL, 0) == NULL);
    /* JSON -> compiled -> bound: the same markers, speeds and groups */
    void *bytes;
    size_t size;
    stance_asset loaded;
    compile_graph(gf, &loaded, &bytes, &size);
    if (loaded.graph) {
        const stance_graph *gc = loaded.graph;
        const stance_clip *wc = stance_asset_find_clip(&loaded, "Walking");
        stance_clip_marker mc[4];
        CHECK(stance_graph_clip_markers(gc, wc, mc, 4) == walk_k.n);
        for (int i = 0; i < walk_k.n; i++) CHECK(mc[i].time == mk[i].time && !strcmp(mc[i].name, mk[i].name));
        CHECK(stance_graph_clip_speed(gc, wc) == stance_graph_clip_speed(g, walk_c));
        CHECK(!strcmp(stance_graph_state_sync(gc, stance_graph_find_state(gc, "Walk")), "locomotion"));
    }
    stance_asset_destroy(&loaded);
    stance_asset_free_bytes(bytes, size, NULL);
    stance_graphfile_destroy(gf);
}

/* ---- broken files: one FILE:LINE:COL message each ------------------------------- */

static void expect_error(const char *text, const char *want_at, const char *want) {
    stance_error err;
    memset(&err, 0, sizeof err);
    stance_graphfile *gf = load_text(text, &err);
    CHECK(gf == NULL);
    stance_graphfile_destroy(gf);
    const int ok = !strncmp(err.message, want_at, strlen(want_at)) && strstr(err.message, want) && !strchr(err.message, '\n');
    if (!ok) fprintf(stderr, "     got: %s\n     wanted: %s... %s\n", err.message, want_at, want);
    CHECK(ok);
    printf("     %s\n", err.message);
}

static void test_broken(void) {
    const char *head = "{\"version\": 1,\n"
                       " \"machines\": [{\"name\": \"M\", \"states\": [\n"
                       "   {\"name\": \"Walk\", \"clip\": \"Walking\", \"sync\": \"loco\"},\n";
    char text[2048];
    /* a group of one member: at its "sync" (line 3, column 47) */
    snprintf(text, sizeof text, "%s   {\"name\": \"Run\", \"clip\": \"Running\", \"sync\": \"locomotion\"}]}],\n"
             " \"clips\": {\"Walking\": {\"markers\": [{\"t\": 0.1, \"name\": \"L\"}]},\n"
             "           \"Running\": {\"markers\": [{\"t\": 0.1, \"name\": \"L\"}]}}}\n", head);
    expect_error(text, "sync.json:3:48:", "sync group 'loco' has one member (state 'Walk')");
    /* an unknown marker key */
    snprintf(text, sizeof text, "%s   {\"name\": \"Run\", \"clip\": \"Running\", \"sync\": \"loco\"}]}],\n"
             " \"clips\": {\"Walking\": {\"markers\": [{\"time\": 0.1, \"name\": \"L\"}]},\n"
             "           \"Running\": {\"markers\": [{\"t\": 0.1, \"name\": \"L\"}]}}}\n", head);
    expect_error(text, "sync.json:5:37:", "unknown key \"time\" in a marker");
    /* a marker past the clip */
    snprintf(text, sizeof text, "%s   {\"name\": \"Run\", \"clip\": \"Running\", \"sync\": \"loco\"}]}],\n"
             " \"clips\": {\"Walking\": {\"markers\": [{\"t\": 0.1, \"name\": \"L\"}]},\n"
             "           \"Running\": {\"markers\": [{\"t\": 9.5, \"name\": \"L\"}]}}}\n", head);
    expect_error(text, "sync.json:6:42:", "marker 'L' at 9.5 s is past the end of clip 'Running'");
    /* a member whose clip has no markers */
    snprintf(text, sizeof text, "%s   {\"name\": \"Run\", \"clip\": \"Running\", \"sync\": \"loco\"}]}],\n"
             " \"clips\": {\"Walking\": {\"markers\": [{\"t\": 0.1, \"name\": \"L\"}]}}}\n", head);
    expect_error(text, "sync.json:4:47:", "its clip 'Running' has no markers");
    /* a blend space none of whose entries' clips has markers */
    snprintf(text, sizeof text, "%s   {\"name\": \"Move\", \"blend1d\": {\"param\": \"mix\", \"entries\": [{\"clip\": \"Running\", "
             "\"x\": 0}, {\"clip\": \"Idle\", \"x\": 1}]}, \"sync\": \"loco\"}]}],\n"
             " \"params\": [{\"name\": \"mix\", \"type\": \"float\"}],\n"
             " \"clips\": {\"Walking\": {\"markers\": [{\"t\": 0.1, \"name\": \"L\"}]}}}\n", head);
    expect_error(text, "sync.json:4:126:", "blend space state 'Move' is in sync group 'loco' but none of its entries' clips has markers");
    /* a state playing a nested machine */
    snprintf(text, sizeof text, "%s   {\"name\": \"Sub\", \"machine\": \"N\", \"sync\": \"loco\"}]},\n"
             "  {\"name\": \"N\", \"states\": [{\"name\": \"R\", \"clip\": \"Running\"}]}],\n"
             " \"clips\": {\"Walking\": {\"markers\": [{\"t\": 0.1, \"name\": \"L\"}]}}}\n", head);
    expect_error(text, "sync.json:4:44:", "state 'Sub' is in sync group 'loco' but plays a nested machine");
}

int main(void) {
    if (!setup()) {
        stance_graphfile_destroy(base_gf);
        printf("     RobotExpressive not found or no JSON graph files: skipped\n");
        return in_ci() ? 1 : check_summary();
    }
    RUN(test_walk_to_run);
    RUN(test_play_and_blend_members);
    RUN(test_queries_and_compiled);
    RUN(test_broken);
    stance_graphfile_destroy(base_gf);
    return check_summary();
}
