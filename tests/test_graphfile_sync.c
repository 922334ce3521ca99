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

/* The graph file's text: Walk and Run (in the group "locomotion" when
 * synced), Walk -> Run when speed >= 1 in `mode`, the markers and speeds. */
static void graph_text(char *buf, size_t cap, int synced, const char *mode) {
    char mk[2][512];
    const contacts *ks[2] = {&walk_k, &run_k};
    for (int c = 0; c < 2; c++) {
        size_t at = 0;
        for (int i = 0; i < ks[c]->n; i++)
            at += (size_t)snprintf(mk[c] + at, sizeof mk[c] - at, "%s{\"t\": %.6f, \"name\": \"%s\"}", i ? ", " : "",
                                   ks[c]->t[i], ks[c]->foot[i] ? "R" : "L");
    }
    const char *sync = synced ? ", \"sync\": \"locomotion\"" : "";
    snprintf(buf, cap,
             "{\"version\": 1,\n"
             " \"params\": [{\"name\": \"speed\", \"type\": \"float\"}],\n"
             " \"machines\": [{\"name\": \"Loco\", \"entry\": \"Walk\", \"states\": [\n"
             "   {\"name\": \"Walk\", \"clip\": \"Walking\"%s},\n"
             "   {\"name\": \"Run\", \"clip\": \"Running\"%s}],\n"
             "  \"transitions\": [{\"from\": \"Walk\", \"to\": \"Run\", \"when\": [{\"param\": \"speed\", \"op\": \">=\", \"value\": 1}],\n"
             "    \"blend_time\": %g, \"mode\": \"%s\"}]}],\n"
             " \"clips\": {\"Walking\": {\"markers\": [%s], \"speed\": %.6f},\n"
             "           \"Running\": {\"markers\": [%s], \"speed\": %.6f}}}\n",
             sync, sync, BLEND, mode, mk[0], walk_k.speed, mk[1], run_k.speed);
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
    graph_text(text, sizeof text, 0, "crossfade");
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

/* One mode, synced or not: the worst phase error (frames) and the slide (cm/m). */
static void run_mode(int synced, int mode, double *worst_err, double *slide_cm, double *follow_err, double *follow_old) {
    stance_error err;
    char text[4096];
    graph_text(text, sizeof text, synced, mode_names[mode]);
    stance_graphfile *gf = load_text(text, &err);
    CHECK(gf != NULL);
    if (!gf) { fprintf(stderr, "%s\n", err.message); return; }
    const stance_graph *g = stance_graphfile_graph(gf);
    stance_workspace *ws = test_ws(g);
    const int speed = stance_graph_find_param(g, "speed"), run_state = stance_graph_find_state(g, "Run");
    *worst_err = 0;
    slider s;
    memset(&s, 0, sizeof s);
    for (int k = 0; k < SWITCHES; k++) {
        stance_instance *in = NULL;
        stance_instance_desc idesc = {STANCE_HISTORY_ALL};
        CHECK_OK(stance_instance_create_ex(g, &idesc, NULL, &in, &err));
        /* walk for a while, ending at the k-th of SWITCHES points of a cycle */
        const int pre = (int)(HZ * walk_k.D) + (int)floor(HZ * walk_k.D * k / SWITCHES);
        stance_machine_status st;
        for (int i = 0; i < pre; i++) CHECK_OK(stance_instance_update(in, (float)(1.0 / HZ), ws, &err));
        CHECK_OK(stance_instance_machine_status(in, 0, &st, &err));
        const double tw = fmod(frac(st.normalized_time) * walk_k.D + 1.0 / HZ, walk_k.D); /* the walk at the switch */
        CHECK_OK(stance_instance_set_float(in, speed, 2.0f, &err));
        CHECK_OK(stance_instance_update(in, (float)(1.0 / HZ), ws, &err));
        CHECK_OK(stance_instance_machine_status(in, 0, &st, &err));
        CHECK(st.state == run_state);
        const double tr = frac(st.normalized_time) * run_k.D, want = matched(&walk_k, &run_k, tw);
        double e = fabs(tr - want);
        if (run_k.D - e < e) e = run_k.D - e;
        *worst_err = fmax(*worst_err, e * HZ);
        /* the slide over the BLEND seconds after the switch, moved at the blended speed; in a synced
         * crossfade, the run's time against the test's own leader and follower (the higher eased
         * weight leads; the follower moves forward to the leader's foot phase) */
        double root[2] = {0, 0}, mw = tw, mr = tr, mw0 = tw, mr0 = tr;
        const int follow = synced && mode == 2;
        s.have = 0;
        int pl[2];
        planted_at(&run_k, tr, pl);
        slide_step(&s, stance_instance_model_pose(in), root, pl);
        for (int i = 0; i < (int)(BLEND * HZ); i++) {
            CHECK_OK(stance_instance_update(in, (float)(1.0 / HZ), ws, &err));
            CHECK_OK(stance_instance_machine_status(in, 0, &st, &err));
            const double p = st.transition >= 0 ? st.progress : 1.0, w = p * p * (3 - 2 * p);
            if (follow && st.transition >= 0) {
                for (int match_rates = 1; match_rates >= 0; match_rates--) { /* the rule, and the rule before rate matching */
                    double *lw = match_rates ? &mw : &mw0, *lr = match_rates ? &mr : &mr0;
                    if (w >= 0.5) {
                        *lr = fmod(*lr + (match_rates ? lead_step(&run_k, &walk_k, *lr, 1.0 - w, 1.0 / HZ) : 1.0 / HZ), run_k.D);
                        double d = matched(&run_k, &walk_k, *lr) - *lw; /* the walk follows: forward only */
                        d -= walk_k.D * floor(d / walk_k.D + 0.5);
                        if (d > 0) *lw = fmod(*lw + d, walk_k.D);
                    } else {
                        *lw = fmod(*lw + (match_rates ? lead_step(&walk_k, &run_k, *lw, w, 1.0 / HZ) : 1.0 / HZ), walk_k.D);
                        double d = matched(&walk_k, &run_k, *lw) - *lr;
                        d -= run_k.D * floor(d / run_k.D + 0.5);
                        if (d > 0) *lr = fmod(*lr + d, run_k.D);
                    }
                    double e2 = fabs(frac(st.normalized_time) * run_k.D - *lr);
                    if (run_k.D - e2 < e2) e2 = run_k.D - e2;
                    double *out = match_rates ? follow_err : follow_old;
                    *out = fmax(*out, e2 * HZ);
                }
            }
            const double v = walk_k.speed + (run_k.speed - walk_k.speed) * w;
            for (int a = 0; a < 2; a++) root[a] += v / HZ * walk_k.dir[a];
            s.travel += v / HZ;
            planted_at(&run_k, frac(st.normalized_time) * run_k.D, pl);
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
    printf("     %-12s %-22s %-22s\n", "mode", "phase error (frames)", "slide (cm/m)");
    for (int m = 0; m < 4; m++) {
        double e0 = 0, s0 = 0, e1 = 0, s1 = 0;
        double f0 = 0, f1 = 0, g0 = 0, g1 = 0;
        run_mode(0, m, &e0, &s0, &f0, &g0);
        run_mode(1, m, &e1, &s1, &f1, &g1);
        if (m == 2) {
            printf("     crossfade, synced: the run's time during the blend against the test's leader/follower with rate "
                   "matching: worst %.4f frames (against the same without rate matching: %.4f frames)\n", f1, g1);
            CHECK(f1 <= 0.01);
            CHECK(g1 > 0.01); /* rate matching changed the blend's timing */
        }
        printf("     %-12s %6.2f -> %-12.2f %6.2f -> %.2f\n", mode_names[m], e0, e1, s0, s1);
        CHECK(e1 <= 1.0);
        CHECK(s1 <= own);
    }
}

/* ---- the graph's queries and the compiled form ------------------------------------ */

static void test_queries_and_compiled(void) {
    stance_error err;
    char text[4096];
    graph_text(text, sizeof text, 1, "crossfade");
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
    const stance_clip *used[8];
    const int nu = stance_graph_clips(g, used, 8);
    stance_asset view = *asset;
    view.clips = (stance_clip **)used, view.clip_count = nu;
    void *bytes = NULL;
    size_t size = 0;
    CHECK_OK(stance_asset_save_graph_memory(&view, stance_graphfile_desc(gf), &bytes, &size, NULL, &err));
    stance_asset loaded;
    memset(&loaded, 0, sizeof loaded);
    CHECK_OK(stance_asset_load_memory(bytes, size, NULL, &loaded, &err));
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
}

int main(void) {
    if (!setup()) {
        stance_graphfile_destroy(base_gf);
        printf("     RobotExpressive not found or no JSON graph files: skipped\n");
        return in_ci() ? 1 : check_summary();
    }
    RUN(test_walk_to_run);
    RUN(test_queries_and_compiled);
    RUN(test_broken);
    stance_graphfile_destroy(base_gf);
    return check_summary();
}
