/* tests/test_edges.c - one rule at each edge (issue 22): the limits of
 * stance/base.h refused with the one message wherever values enter (the
 * world root, poses, rest poses and their chains, clip keys, skins, meshes,
 * IK targets, a graph's chains), the world root and the footlock stage
 * agreeing on them, the worst case the limits allow (a chain of 1024 joints
 * at them, animated with every switch mode, an additive layer, a footlock
 * and the world root at the limits) giving finite, bounded poses and skin
 * matrices, a switch's transient held within the chain rule, the red
 * team's .stance files (a rest scale of -1.7e38, a name of bytes 0xff 0xfe),
 * and the one escaping of bytes in messages (references worked by hand from
 * the UTF-8 definition, RFC 3629). */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "builtin_feet.h"
#include "core/base/internal.h"
#include "stance/stance.h"
#include "stance/build.h"
#include "stance_lesson/stance_lesson.h"

static const float T = STANCE_MAX_TRANSLATION, S = STANCE_MAX_SCALE;

/* ---- the escaping ----------------------------------------------------------- */

static void escapes_to(const char *in, const char *want) {
    char out[256];
    const size_t n = st_escape(out, sizeof out, in);
    if (strcmp(out, want) || n != strlen(want)) fprintf(stderr, "  escape gave '%s', wanted '%s'\n", out, want);
    CHECK(!strcmp(out, want) && n == strlen(want));
}

static void test_escape(void) {
    escapes_to("walk_01", "walk_01");
    escapes_to("\xff\xfe", "\\xff\\xfe");                        /* never UTF-8 bytes */
    escapes_to("a\nb\tc\x7f", "a\\x0ab\\x09c\\x7f");            /* control bytes and DEL */
    escapes_to("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"); /* 2, 3, 4 bytes */
    escapes_to("\xc0\xaf", "\\xc0\\xaf");                        /* an overlong '/' */
    escapes_to("\xed\xa0\x80", "\\xed\\xa0\\x80");              /* a surrogate, U+D800 */
    escapes_to("\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80");     /* past U+10FFFF */
    escapes_to("\xe2\x82", "\\xe2\\x82");                        /* cut short at the end */
    escapes_to("\xe2\x82x", "\\xe2\\x82x");                      /* cut short by an ASCII byte */
    escapes_to("\xc2\x85", "\\xc2\\x85");                        /* a C1 control, U+0085 */
    escapes_to("\xc2\xa0", "\xc2\xa0");                          /* U+00A0, the first printable one */
    char small[6];
    CHECK(st_escape(small, sizeof small, "\xff\xff") == 4 && !strcmp(small, "\\xff")); /* never half an escape */
    CHECK(st_escape(small, 4, "ab\xc3\xa9") == 2 && !strcmp(small, "ab"));          /* never half a character */
    /* every message: st_fail escapes what it formats */
    stance_error err;
    st_fail(&err, STANCE_ERR_FORMAT, "name '%s'", "x\xff\x01y");
    CHECK(err.status == STANCE_ERR_FORMAT && !strcmp(err.message, "name 'x\\xff\\x01y'"));
    /* a long message of bytes to escape ends inside the buffer, whole escapes only */
    char many[300];
    memset(many, 0xfe, sizeof many - 1);
    many[sizeof many - 1] = 0;
    st_fail(&err, STANCE_ERR_FORMAT, "%s", many);
    const size_t n = strlen(err.message);
    CHECK(n < sizeof err.message && n % 4 == 0 && n >= sizeof err.message - 4);
    CHECK(!strncmp(err.message + n - 4, "\\xfe", 4));
}

/* ---- the limits at each edge ------------------------------------------------ */

static stance_builtin B;

static int pose_finite(const stance_pose *p) {
    const float *f = p->tx;
    for (size_t i = 0; i < (size_t)p->padded_count * 10; i++)
        if (!isfinite(f[i])) return 0;
    return 1;
}

/* The red team's roots: a scale of 1e-7 (set_root took it, the footlock
 * stage refused it, so every update failed) and translations of FLT_MAX
 * (taken, -inf in a foot's pose) are refused by set_root with the limit
 * named; the footlock stage takes every root set_root takes (at the limits
 * too: an update with a scale of exactly STANCE_MIN_SCALE works). */
static void test_root_limits(void) {
    const stance_clip *walk = stance_builtin_clip(&B, "walk");
    stance_state_desc st = {.name = "play", .clip = walk};
    stance_machine_desc md = {.name = "m", .state_count = 1, .states = &st};
    stance_ik_desc k = builtin_feet();
    stance_graph_desc gd = {.skeleton = B.skeleton, .machine_count = 1, .machines = &md, .ik_count = 1, .ik = &k};
    stance_graph *g = NULL;
    stance_instance *inst = NULL;
    stance_workspace *ws = NULL;
    CHECK_OK(stance_graph_create(&gd, NULL, &g, NULL));
    CHECK_OK(stance_instance_create(g, NULL, &inst, NULL));
    CHECK_OK(stance_workspace_create(g, NULL, &ws, NULL));
    stance_error err;
    stance_transform r = stance_transform_identity();
    r.s[0] = r.s[1] = r.s[2] = 1e-7f;
    CHECK_STATUS(stance_instance_set_root(inst, &r, 0, &err), STANCE_ERR_VALUE);
    CHECK(strstr(err.message, "set root: scale") && strstr(err.message, "STANCE_MIN_SCALE"));
    r = stance_transform_identity();
    r.t[0] = r.t[1] = r.t[2] = FLT_MAX;
    CHECK_STATUS(stance_instance_set_root(inst, &r, 0, &err), STANCE_ERR_VALUE);
    CHECK(strstr(err.message, "set root: translation") && strstr(err.message, "STANCE_MAX_TRANSLATION"));
    r.t[0] = r.t[1] = r.t[2] = 2e6f;
    CHECK_STATUS(stance_instance_set_root(inst, &r, 0, &err), STANCE_ERR_VALUE);
    r = stance_transform_identity();
    r.s[1] = 2e6f;
    CHECK_STATUS(stance_instance_set_root(inst, &r, 0, &err), STANCE_ERR_VALUE);
    /* at the limits: taken, and the footlock stage runs on it */
    const float scales[3] = {STANCE_MIN_SCALE, -STANCE_MIN_SCALE, STANCE_MAX_SCALE};
    for (int i = 0; i < 3; i++) {
        r = stance_transform_identity();
        r.t[0] = T, r.t[1] = -T, r.t[2] = T;
        r.s[0] = r.s[1] = r.s[2] = scales[i];
        CHECK_OK(stance_instance_set_root(inst, &r, 1, &err));
        for (int f = 0; f < 10; f++) CHECK_OK(stance_instance_update(inst, 1.0f / 60, ws, NULL));
        CHECK(pose_finite(stance_instance_model_pose(inst)) && pose_finite(stance_instance_local_pose(inst)));
        const stance_footlock_state *fs = stance_instance_footlock_state(inst, 0);
        for (int leg = 0; leg < 2; leg++)
            for (int c = 0; c < 3; c++) CHECK(isfinite(fs->feet[leg].out[c]));
    }
    /* the stage alone takes the same rule with the same message */
    stance_footlock_desc fd;
    memset(&fd, 0, sizeof fd);
    fd.leg_count = 1;
    fd.legs[0] = (stance_leg_desc){stance_skeleton_find(B.skeleton, "upleg_l"), stance_skeleton_find(B.skeleton, "leg_l"),
                                   stance_skeleton_find(B.skeleton, "foot_l"), {0, 0, 0}};
    stance_footlock_state fst;
    memset(&fst, 0, sizeof fst);
    const float contact[1] = {1.0f};
    stance_pose lp, mp;
    CHECK_OK(stance_pose_create(&lp, B.skeleton->joint_count, NULL, NULL));
    CHECK_OK(stance_pose_create(&mp, B.skeleton->joint_count, NULL, NULL));
    stance_pose_set_rest(&lp, B.skeleton, NULL);
    stance_local_to_model(&mp, &lp, B.skeleton, NULL, NULL);
    r = stance_transform_identity();
    r.s[2] = 1e-7f;
    CHECK_STATUS(stance_footlock_apply(&fd, &fst, contact, &r, 0.0f, B.skeleton, &lp, &mp, &err), STANCE_ERR_VALUE);
    CHECK(strstr(err.message, "footlock: the root scale") && strstr(err.message, "STANCE_MIN_SCALE"));
    r.s[2] = STANCE_MIN_SCALE;
    CHECK_OK(stance_footlock_apply(&fd, &fst, contact, &r, 0.0f, B.skeleton, &lp, &mp, &err));
    stance_pose_destroy(&lp), stance_pose_destroy(&mp);
    stance_workspace_destroy(ws);
    stance_instance_destroy(inst);
    stance_graph_destroy(g);
}

/* Every other edge: the same rule, the same phrase. */
static void test_limits_everywhere(void) {
    stance_error err;
    /* a pose's joint */
    stance_pose p;
    CHECK_OK(stance_pose_create(&p, 2, NULL, NULL));
    stance_transform x = stance_transform_identity();
    x.s[0] = 0.0f;
    CHECK_STATUS(stance_pose_set(&p, 0, &x, NULL), STANCE_ERR_VALUE);
    x = stance_transform_identity();
    x.t[2] = -1.5e6f;
    CHECK_STATUS(stance_pose_set(&p, 0, &x, NULL), STANCE_ERR_VALUE);
    x.t[2] = -T;
    x.s[0] = -S, x.s[1] = STANCE_MIN_SCALE;
    CHECK_OK(stance_pose_set(&p, 0, &x, NULL));
    stance_pose_destroy(&p);
    /* a rest pose: each value, and the chain rule (1e6 x 2 down two joints) */
    const int parents[3] = {-1, 0, 1};
    const char *names[3] = {"a", "b", "c"};
    stance_transform rest[3] = {stance_transform_identity(), stance_transform_identity(), stance_transform_identity()};
    stance_skeleton_desc sd = {3, names, parents, rest};
    stance_skeleton *sk = NULL;
    rest[1].s[1] = -1.7e38f;
    CHECK_STATUS(stance_skeleton_create(&sd, NULL, &sk, &err), STANCE_ERR_VALUE);
    CHECK(strstr(err.message, "joint 1 'b' rest scale") && strstr(err.message, "STANCE_MAX_SCALE"));
    rest[1].s[1] = S, rest[2].s[0] = 2.0f;
    CHECK_STATUS(stance_skeleton_create(&sd, NULL, &sk, &err), STANCE_ERR_VALUE);
    CHECK(strstr(err.message, "joint 2 'c'") && strstr(err.message, "chain rule") && strstr(err.message, "2e+06"));
    rest[0].s[0] = rest[0].s[1] = rest[0].s[2] = 0.5f; /* 0.5 x 1e6 x 2 = 1e6: at the limit */
    rest[2].t[0] = T;
    CHECK_OK(stance_skeleton_create(&sd, NULL, &sk, &err));
    /* clip keys and root paths */
    const float times[2] = {0.0f, 1.0f};
    float keys[6] = {1, 1, 1, 1, 1e-7f, 1};
    stance_track_desc tr = {1, STANCE_CHANNEL_SCALE, 2, times, keys};
    stance_clip_desc cd = {.name = "k", .track_count = 1, .tracks = &tr};
    stance_clip *c = NULL;
    CHECK_STATUS(stance_clip_create(&cd, sk, NULL, &c, &err), STANCE_ERR_VALUE);
    CHECK(strstr(err.message, "key 1: scale") && strstr(err.message, "STANCE_MIN_SCALE"));
    keys[4] = 1.0f;
    tr.channel = STANCE_CHANNEL_TRANSLATION, keys[0] = 3e6f;
    CHECK_STATUS(stance_clip_create(&cd, sk, NULL, &c, &err), STANCE_ERR_VALUE);
    CHECK(strstr(err.message, "key 0: translation"));
    keys[0] = 1.0f;
    const float path[6] = {0, 0, 0, 0, 0, 2e6f};
    cd.root_key_count = 2, cd.root_times = times, cd.root_values = path;
    CHECK_STATUS(stance_clip_create(&cd, sk, NULL, &c, &err), STANCE_ERR_VALUE);
    CHECK(strstr(err.message, "root path key 1: translation"));
    /* inverse binds and mesh positions */
    const int sj[1] = {0};
    float ib[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    stance_skin_desc skd = {"s", 1, sj, ib};
    stance_skin *skin = NULL;
    ib[5] = 2e6f;
    CHECK_STATUS(stance_skin_create(&skd, sk, NULL, &skin, &err), STANCE_ERR_VALUE);
    CHECK(strstr(err.message, "inverse bind matrix 0 is not finite or beyond the limits (element (1, 1)"));
    ib[5] = 1.0f, ib[13] = -2e6f;
    CHECK_STATUS(stance_skin_create(&skd, sk, NULL, &skin, &err), STANCE_ERR_VALUE);
    CHECK(strstr(err.message, "element (1, 3)") && strstr(err.message, "STANCE_MAX_TRANSLATION"));
    ib[13] = 0.0f;
    CHECK_OK(stance_skin_create(&skd, sk, NULL, &skin, &err));
    const float pos[9] = {0, 0, 0, 1, 0, 0, 0, 1.5e6f, 0};
    const uint32_t idx[3] = {0, 1, 2};
    stance_mesh_desc md = {.name = "m", .skin = -1, .vertex_count = 3, .positions = pos, .index_count = 3, .indices = idx};
    stance_mesh *mesh = NULL;
    CHECK_STATUS(stance_mesh_create(&md, NULL, NULL, &mesh, &err), STANCE_ERR_VALUE);
    CHECK(strstr(err.message, "vertex 2 position: translation"));
    stance_skin_destroy(skin);
    stance_skeleton_destroy(sk);
    /* IK targets and poles: positions */
    stance_ik_desc k;
    memset(&k, 0, sizeof k);
    k.name = "arm", k.kind = STANCE_IK_TWO_BONE, k.leg_count = 1;
    k.legs[0] = (stance_ik_leg_desc){"upleg_l", "leg_l", "foot_l", NULL, NULL};
    stance_state_desc st = {.name = "idle", .clip = stance_builtin_clip(&B, "idle")};
    stance_machine_desc mdesc = {.name = "m", .state_count = 1, .states = &st};
    stance_graph_desc gd = {.skeleton = B.skeleton, .machine_count = 1, .machines = &mdesc, .ik_count = 1, .ik = &k};
    stance_graph *g = NULL;
    stance_instance *inst = NULL;
    CHECK_OK(stance_graph_create(&gd, NULL, &g, NULL));
    CHECK_OK(stance_instance_create(g, NULL, &inst, NULL));
    const float far[3] = {0, 2e6f, 0}, near[3] = {0, T, 0};
    CHECK_STATUS(stance_instance_set_ik_target(inst, 0, far, 1.0f, &err), STANCE_ERR_VALUE);
    CHECK(strstr(err.message, "set ik target: the target translation"));
    CHECK_STATUS(stance_instance_set_ik_pole(inst, 0, far, &err), STANCE_ERR_VALUE);
    CHECK_OK(stance_instance_set_ik_target(inst, 0, near, 1.0f, &err));
    CHECK_OK(stance_instance_set_ik_pole(inst, 0, near, &err));
    stance_instance_destroy(inst);
    stance_graph_destroy(g);
}

/* A graph whose clips multiply past the chain rule is refused; so is an
 * additive sync layer whose reference scale changes sign (its delta,
 * pose / reference, has no bound). */
static void test_graph_chain_rule(void) {
    const int parents[2] = {-1, 0};
    const char *names[2] = {"a", "b"};
    stance_skeleton_desc sd = {2, names, parents, NULL};
    stance_skeleton *sk = NULL;
    CHECK_OK(stance_skeleton_create(&sd, NULL, &sk, NULL));
    const float times[2] = {0.0f, 1.0f};
    const float big[6] = {1, 1, 1, S, S, S}, two[6] = {1, 1, 1, 2, 2, 2}, flip[6] = {1, 1, 1, -1, 1, 1};
    stance_track_desc ta = {0, STANCE_CHANNEL_SCALE, 2, times, big}, tb = {1, STANCE_CHANNEL_SCALE, 2, times, two};
    stance_track_desc tf = {1, STANCE_CHANNEL_SCALE, 2, times, flip};
    stance_clip_desc ca = {.name = "a", .track_count = 1, .tracks = &ta}, cb = {.name = "b", .track_count = 1, .tracks = &tb};
    stance_clip_desc cf = {.name = "flip", .track_count = 1, .tracks = &tf};
    stance_clip *a = NULL, *b = NULL, *fl = NULL;
    CHECK_OK(stance_clip_create(&ca, sk, NULL, &a, NULL)); /* each clip is legal alone */
    CHECK_OK(stance_clip_create(&cb, sk, NULL, &b, NULL));
    CHECK_OK(stance_clip_create(&cf, sk, NULL, &fl, NULL));
    stance_state_desc states[2] = {{.name = "A", .clip = a}, {.name = "B", .clip = b}};
    stance_machine_desc m = {.name = "m", .state_count = 2, .states = states};
    stance_graph_desc gd = {.skeleton = sk, .machine_count = 1, .machines = &m};
    stance_graph *g = NULL;
    stance_error err;
    CHECK_STATUS(stance_graph_create(&gd, NULL, &g, &err), STANCE_ERR_VALUE); /* a's 1e6 at a, b's 2 at b: 2e6 */
    CHECK(g == NULL && strstr(err.message, "joint 1 'b'") && strstr(err.message, "chain rule"));
    m.state_count = 1;
    CHECK_OK(stance_graph_create(&gd, NULL, &g, &err));
    stance_graph_destroy(g);
    /* a sync additive layer over a reference that flips b's scale */
    stance_state_desc base = {.name = "B", .clip = b}, add = {.name = "F", .clip = b};
    stance_machine_desc ms[2] = {{.name = "m", .state_count = 1, .states = &base}, {.name = "n", .state_count = 1, .states = &add}};
    stance_layer_desc ls[2] = {{.name = "base", .machine = "m", .weight = 1},
                               {.name = "add", .machine = "n", .weight = 1, .mode = STANCE_LAYER_ADDITIVE,
                                .additive_ref = STANCE_ADDITIVE_REF_CLIP_SYNC, .ref_clip = fl}};
    stance_graph_desc gl = {.skeleton = sk, .machine_count = 2, .machines = ms, .layer_count = 2, .layers = ls};
    CHECK_STATUS(stance_graph_create(&gl, NULL, &g, &err), STANCE_ERR_VALUE);
    CHECK(g == NULL && strstr(err.message, "layer 'add'") && strstr(err.message, "changes sign"));
    ls[1].ref_clip = b; /* a reference of one sign: 2 / 1 at most */
    CHECK_OK(stance_graph_create(&gl, NULL, &g, &err));
    stance_graph_destroy(g);
    stance_clip_destroy(a), stance_clip_destroy(b), stance_clip_destroy(fl);
    stance_skeleton_destroy(sk);
}

/* ---- the worst case ----------------------------------------------------------- */

#define N STANCE_MAX_JOINTS

/* The bound of stance/base.h's argument on a model-space translation. */
static double model_t_bound(void) { return sqrt(3.0) * 16.0 * 16.0 * T * (1.0 + (N - 1) * (double)S); }

static void check_bounded(const stance_pose *m, double *worst_t, double *worst_s) {
    for (int j = 0; j < m->joint_count; j++) {
        const double t = fmax(fabs(m->tx[j]), fmax(fabs(m->ty[j]), fabs(m->tz[j])));
        const double s = fmax(fabs(m->sx[j]), fmax(fabs(m->sy[j]), fabs(m->sz[j])));
        *worst_t = fmax(*worst_t, t), *worst_s = fmax(*worst_s, s);
    }
}

/* A chain of 1024 joints: every translation at the limit on all three axes
 * (keys at +T and -T), the first joint's scale at +-S (the chain rule's
 * limit: the others at 1), rotations that turn every joint; two such clips
 * switched every 20 frames by each switch mode, an additive layer at its
 * limit, a footlock on the chain's last three joints, the world root jumping
 * between the limits (scale S and STANCE_MIN_SCALE, translations +-T),
 * every inverse bind at its limit. Every pose value and skin matrix entry
 * stays finite and within the argument's bounds. */
static void test_worst_chain(void) {
    static int parents[N];
    static char name_mem[N][8];
    static const char *names[N];
    static stance_transform rest[N];
    for (int j = 0; j < N; j++) {
        parents[j] = j - 1;
        snprintf(name_mem[j], sizeof name_mem[j], "j%d", j);
        names[j] = name_mem[j];
        rest[j] = stance_transform_identity();
        rest[j].t[0] = rest[j].t[1] = rest[j].t[2] = T;
        rest[j].r[1] = sinf(0.01f * (float)j), rest[j].r[3] = cosf(0.01f * (float)j);
    }
    rest[0].s[0] = S, rest[0].s[1] = -S, rest[0].s[2] = S;
    stance_skeleton_desc sd = {N, names, parents, rest};
    stance_skeleton *sk = NULL;
    stance_error err;
    CHECK_OK(stance_skeleton_create(&sd, NULL, &sk, &err));
    if (!sk) return;
    /* clips: A holds +T then -T on every joint, the first joint's scale S then -S; B the reverse */
    static float tv[2][N][6], sv[2][6];
    static stance_track_desc tracks[2][N + 1];
    const float times[2] = {0.0f, 0.5f};
    stance_clip *clips[3] = {NULL, NULL, NULL};
    for (int c = 0; c < 2; c++) {
        const float sg = c ? -1.0f : 1.0f;
        for (int j = 0; j < N; j++) {
            for (int a = 0; a < 3; a++) tv[c][j][a] = sg * T, tv[c][j][3 + a] = -sg * T;
            tracks[c][j] = (stance_track_desc){j, STANCE_CHANNEL_TRANSLATION, 2, times, tv[c][j]};
        }
        for (int a = 0; a < 3; a++) sv[c][a] = sg * S, sv[c][3 + a] = -sg * S;
        tracks[c][N] = (stance_track_desc){0, STANCE_CHANNEL_SCALE, 2, times, sv[c]};
        stance_clip_desc cd = {.name = c ? "B" : "A", .track_count = N + 1, .tracks = tracks[c]};
        CHECK_OK(stance_clip_create(&cd, sk, NULL, &clips[c], &err));
    }
    /* the additive clip: from 0 to T on every joint (its delta against its first frame: 0 to T) */
    static float av[N][6];
    static stance_track_desc at[N];
    for (int j = 0; j < N; j++) {
        for (int a = 0; a < 3; a++) av[j][a] = 0.0f, av[j][3 + a] = T;
        at[j] = (stance_track_desc){j, STANCE_CHANNEL_TRANSLATION, 2, times, av[j]};
    }
    stance_clip_desc ad = {.name = "add", .track_count = N, .tracks = at};
    CHECK_OK(stance_clip_create(&ad, sk, NULL, &clips[2], &err));
    if (!clips[0] || !clips[1] || !clips[2]) return;
    stance_param_desc params[1] = {{"go", STANCE_PARAM_BOOL, 0, 0}};
    stance_condition_desc on = {.param = "go", .op = STANCE_CMP_TRUE}, off = {.param = "go", .op = STANCE_CMP_FALSE};
    stance_transition_desc trs[2] = {{.from = "A", .to = "B", .condition_count = 1, .conditions = &on, .blend_time = 0.2f},
                                     {.from = "B", .to = "A", .condition_count = 1, .conditions = &off, .blend_time = 0.2f}};
    stance_state_desc states[2] = {{.name = "A", .clip = clips[0]}, {.name = "B", .clip = clips[1]}};
    stance_state_desc adds = {.name = "Add", .clip = clips[2]};
    stance_machine_desc ms[2] = {{.name = "m", .state_count = 2, .states = states, .transition_count = 2, .transitions = trs},
                                 {.name = "a", .state_count = 1, .states = &adds}};
    stance_layer_desc ls[2] = {{.name = "base", .machine = "m", .weight = 1},
                               {.name = "add", .machine = "a", .weight = 1, .mode = STANCE_LAYER_ADDITIVE}};
    stance_ik_desc k;
    memset(&k, 0, sizeof k);
    k.name = "feet", k.kind = STANCE_IK_FOOTLOCK, k.leg_count = 1;
    k.legs[0] = (stance_ik_leg_desc){"j1020", "j1021", "j1022", NULL, NULL};
    stance_graph_desc gd = {.skeleton = sk, .param_count = 1, .params = params, .machine_count = 2, .machines = ms,
                            .layer_count = 2, .layers = ls, .ik_count = 1, .ik = &k};
    stance_graph *g = NULL;
    CHECK_OK(stance_graph_create(&gd, NULL, &g, &err));
    if (!g) { fprintf(stderr, "  %s\n", err.message); return; }
    static int skin_joints[N];
    static float ib[16 * N];
    for (int j = 0; j < N; j++) {
        skin_joints[j] = j;
        float *m = ib + 16 * j;
        for (int e = 0; e < 12; e++) m[e] = (e % 4 == 3) ? 0.0f : (e & 1 ? -S : S);
        m[12] = m[13] = m[14] = T, m[15] = 1.0f;
    }
    stance_skin_desc skd = {"all", N, skin_joints, ib};
    stance_skin *skin = NULL;
    CHECK_OK(stance_skin_create(&skd, sk, NULL, &skin, &err));
    static float mats[16 * N];
    stance_instance *inst = NULL;
    stance_workspace *ws = NULL;
    const stance_instance_desc all = {.history = STANCE_HISTORY_ALL}; /* the velocity modes run as themselves */
    CHECK_OK(stance_instance_create_ex(g, &all, NULL, &inst, NULL));
    CHECK_OK(stance_workspace_create(g, NULL, &ws, NULL));
    if (!inst || !ws || !skin) return;
    const int modes[] = {STANCE_SWITCH_INERTIALIZE, STANCE_SWITCH_INERTIALIZE_SIMPLE, STANCE_SWITCH_DEADBLEND,
                         STANCE_SWITCH_CROSSFADE, STANCE_SWITCH_FROZEN};
    double worst_t = 0.0, worst_s = 0.0, worst_m = 0.0;
    int bad = 0, frames = 0;
    for (size_t mo = 0; mo < sizeof modes / sizeof modes[0]; mo++) {
        CHECK_OK(stance_instance_override_switch(inst, modes[mo], 0.2f, -1, NULL));
        for (int f = 0; f < 60; f++, frames++) {
            if (f % 20 == 0) CHECK_OK(stance_instance_set_bool(inst, 0, (f / 20) & 1, NULL));
            if (f % 7 == 0) { /* the world root jumps between the limits */
                stance_transform r = stance_transform_identity();
                const float sc = (f / 7) & 1 ? STANCE_MIN_SCALE : S;
                r.t[0] = (f / 7) & 2 ? T : -T, r.t[1] = T, r.t[2] = -T;
                r.s[0] = r.s[1] = r.s[2] = sc;
                CHECK_OK(stance_instance_set_root(inst, &r, 0, NULL));
            }
            CHECK_OK(stance_instance_update(inst, f % 5 == 4 ? 1e-5f : 1.0f / 60, ws, NULL));
            const stance_pose *mp = stance_instance_model_pose(inst);
            bad += !pose_finite(mp) + !pose_finite(stance_instance_local_pose(inst));
            check_bounded(mp, &worst_t, &worst_s);
            CHECK_OK(stance_skin_matrices(skin, mp, mats, N, NULL));
            for (int e = 0; e < 16 * N; e++) {
                bad += !isfinite(mats[e]);
                worst_m = fmax(worst_m, fabs(mats[e]));
            }
            const stance_footlock_state *fs = stance_instance_footlock_state(inst, 0);
            for (int c = 0; c < 3; c++) bad += !isfinite(fs->feet[0].out[c]);
        }
    }
    printf("     %d frames of a 1024-joint chain at the limits: largest |model t| %.3g (bound %.3g), |model s| %.3g, "
           "|skin entry| %.3g\n", frames, worst_t, model_t_bound(), worst_s, worst_m);
    CHECK(bad == 0);
    CHECK(worst_s <= S);
    CHECK(worst_t <= model_t_bound());
    CHECK(worst_m <= 3.0 * S * S + 3.0 * S * T + model_t_bound());
    CHECK(worst_t > 1e14); /* the chain did reach far: the test is at the limits */
    stance_workspace_destroy(ws);
    stance_instance_destroy(inst);
    stance_skin_destroy(skin);
    stance_graph_destroy(g);
    for (int c = 0; c < 3; c++) stance_clip_destroy(clips[c]);
    stance_skeleton_destroy(sk);
}

/* Scales that flip sign every key (60 keys a second) on a chain of 64
 * joints, each at 1e6^(1/64) in size (the chain rule's limit): a velocity
 * mode's transient (the extrapolated old pose of dead blending, the
 * offsets of inertialization) would take each joint's scale many times
 * past it, and the product down the chain past FLT_MAX; the graph's cap
 * holds it at the clips' largest, so the model scales stay within S. */
static void test_transient_cap(void) {
    enum { C = 64, K = 120 };
    static int parents[C];
    for (int j = 0; j < C; j++) parents[j] = j - 1;
    stance_skeleton_desc sd = {C, NULL, parents, NULL};
    stance_skeleton *sk = NULL;
    CHECK_OK(stance_skeleton_create(&sd, NULL, &sk, NULL));
    const float q = powf(S, 1.0f / C) * (1.0f - 1e-6f);
    static float times[K], vals[2][C][3 * K];
    static stance_track_desc tracks[2][C];
    stance_clip *clips[2] = {NULL, NULL};
    for (int k = 0; k < K; k++) times[k] = (float)k / 60.0f;
    for (int c = 0; c < 2; c++) {
        for (int j = 0; j < C; j++) {
            for (int k = 0; k < K; k++)
                for (int a = 0; a < 3; a++) vals[c][j][3 * k + a] = ((k + c) & 1) ? -q : q;
            tracks[c][j] = (stance_track_desc){j, STANCE_CHANNEL_SCALE, K, times, vals[c][j]};
        }
        stance_clip_desc cd = {.name = c ? "B" : "A", .track_count = C, .tracks = tracks[c]};
        CHECK_OK(stance_clip_create(&cd, sk, NULL, &clips[c], NULL));
    }
    stance_param_desc params[1] = {{"go", STANCE_PARAM_BOOL, 0, 0}};
    stance_condition_desc on = {.param = "go", .op = STANCE_CMP_TRUE}, off = {.param = "go", .op = STANCE_CMP_FALSE};
    stance_transition_desc trs[2] = {{.from = "A", .to = "B", .condition_count = 1, .conditions = &on, .blend_time = 0.3f},
                                     {.from = "B", .to = "A", .condition_count = 1, .conditions = &off, .blend_time = 0.3f}};
    stance_state_desc states[2] = {{.name = "A", .clip = clips[0]}, {.name = "B", .clip = clips[1]}};
    stance_machine_desc m = {.name = "m", .state_count = 2, .states = states, .transition_count = 2, .transitions = trs};
    stance_graph_desc gd = {.skeleton = sk, .param_count = 1, .params = params, .machine_count = 1, .machines = &m};
    stance_graph *g = NULL;
    stance_instance *inst = NULL;
    stance_workspace *ws = NULL;
    CHECK_OK(stance_graph_create(&gd, NULL, &g, NULL));
    const stance_instance_desc all = {.history = STANCE_HISTORY_ALL}; /* the velocity modes run as themselves */
    CHECK_OK(stance_instance_create_ex(g, &all, NULL, &inst, NULL));
    CHECK_OK(stance_workspace_create(g, NULL, &ws, NULL));
    if (!inst || !ws) return;
    const int modes[] = {STANCE_SWITCH_DEADBLEND, STANCE_SWITCH_INERTIALIZE, STANCE_SWITCH_INERTIALIZE_SIMPLE};
    double worst_t = 0.0, worst_s = 0.0;
    int bad = 0;
    for (size_t mo = 0; mo < sizeof modes / sizeof modes[0]; mo++) {
        CHECK_OK(stance_instance_override_switch(inst, modes[mo], 0.3f, -1, NULL));
        for (int f = 0; f < 60; f++) {
            if (f % 6 == 3) CHECK_OK(stance_instance_set_bool(inst, 0, (f / 6) & 1, NULL));
            CHECK_OK(stance_instance_update(inst, 1.0f / 60, ws, NULL));
            bad += !pose_finite(stance_instance_model_pose(inst));
            check_bounded(stance_instance_model_pose(inst), &worst_t, &worst_s);
        }
    }
    printf("     scales flipping on a 64-joint chain through 3 velocity modes: largest |model s| %.4g (limit %g)\n",
           worst_s, (double)S);
    CHECK(bad == 0 && worst_s <= S);
    stance_workspace_destroy(ws);
    stance_instance_destroy(inst);
    stance_graph_destroy(g);
    stance_clip_destroy(clips[0]), stance_clip_destroy(clips[1]);
    stance_skeleton_destroy(sk);
}

/* ---- .stance files ---------------------------------------------------------------- */

/* A two-joint asset with one clip ("walk"), saved: SKEL is the first section
 * (its head at byte 32, its body at 48), CLIP the next. */
static unsigned char *small_file(size_t *size, stance_asset *a) {
    static const char *names[2] = {"root", "spine"};
    static const int parents[2] = {-1, 0};
    stance_transform rest[2] = {stance_transform_identity(), stance_transform_identity()};
    rest[1].t[1] = 0.5f;
    stance_skeleton_desc sd = {2, names, parents, rest};
    memset(a, 0, sizeof *a);
    CHECK_OK(stance_skeleton_create(&sd, NULL, &a->skeleton, NULL));
    static const float times[2] = {0.0f, 1.0f}, keys[6] = {0, 0.5f, 0, 0, 0.6f, 0};
    stance_track_desc tr = {1, STANCE_CHANNEL_TRANSLATION, 2, times, keys};
    stance_clip_desc cd = {.name = "walk", .track_count = 1, .tracks = &tr};
    static stance_clip *clips[1];
    CHECK_OK(stance_clip_create(&cd, a->skeleton, NULL, &clips[0], NULL));
    a->clip_count = 1, a->clips = clips;
    unsigned char *bytes = NULL;
    CHECK_OK(stance_asset_save_memory(a, (void **)&bytes, size, NULL, NULL));
    return bytes;
}
static void small_free(unsigned char *bytes, size_t size, stance_asset *a) {
    stance_asset_free_bytes(bytes, size, NULL);
    stance_clip_destroy(a->clips[0]);
    stance_skeleton_destroy(a->skeleton);
}
/* The header's checksum of the payload, after an edit (little-endian u64 at 24). */
static void rechecksum(unsigned char *b, size_t size) {
    uint64_t c = stance_asset_checksum(b + 32, size - 32);
    for (int i = 0; i < 8; i++) b[24 + i] = (unsigned char)(c >> (8 * i));
}

/* The red team's file: a rest scale of -1.7e38 (finite: the loader took it,
 * and the skin matrices came out infinite) is refused at load, with the
 * limit named, as stance_skeleton_create refuses it. */
static void test_file_rest_scale(void) {
    stance_asset a;
    size_t size = 0;
    unsigned char *b = small_file(&size, &a);
    if (!b) return;
    /* joint 0: u8 4, "root", i32 parent, t[3], r[4], then s[3] */
    const size_t s0 = 48 + 4 + 1 + 4 + 4 + 12 + 16;
    float f;
    memcpy(&f, b + s0, 4);
    CHECK(!memcmp(b + 32, "SKEL", 4) && b[52] == 4 && !memcmp(b + 53, "root", 4) && f == 1.0f);
    f = -1.7e38f;
    memcpy(b + s0, &f, 4);
    rechecksum(b, size);
    stance_asset out;
    stance_error err;
    CHECK_STATUS(stance_asset_load_memory(b, size, NULL, &out, &err), STANCE_ERR_VALUE);
    CHECK(out.skeleton == NULL && strstr(err.message, "joint 0 'root' rest scale") && strstr(err.message, "STANCE_MAX_SCALE"));
    small_free(b, size, &a);
}

/* A name from a file is quoted escaped: clip 0's name made bytes 0xff 0xfe
 * "lk" and its flags unknown, the error quotes the name as the text
 * \xff\xfe and holds no byte >= 0x80 or control byte (before, the raw
 * bytes went into the message). */
static void test_file_name_escaped(void) {
    stance_asset a;
    size_t size = 0;
    unsigned char *b = small_file(&size, &a);
    if (!b) return;
    uint64_t skel = 0;
    for (int i = 7; i >= 0; i--) skel = skel << 8 | b[40 + i];
    const size_t clip = 48 + (size_t)skel; /* the CLIP section's head */
    CHECK(!memcmp(b + clip, "CLIP", 4) && b[clip + 16] == 4 && !memcmp(b + clip + 17, "walk", 4));
    b[clip + 17] = 0xff, b[clip + 18] = 0xfe;
    b[clip + 17 + 4 + 4 + 3] = 0x80; /* flags (after the name and the duration): an unknown bit */
    rechecksum(b, size);
    stance_asset out;
    stance_error err;
    CHECK_STATUS(stance_asset_load_memory(b, size, NULL, &out, &err), STANCE_ERR_FORMAT);
    CHECK(strstr(err.message, "clip 0 '\\xff\\xfelk'") != NULL);
    int raw = 0;
    for (const unsigned char *p = (const unsigned char *)err.message; *p; p++) raw += *p >= 0x80 || *p < 0x20;
    CHECK(raw == 0);
    if (raw || !strstr(err.message, "\\xff")) fprintf(stderr, "  message: %s\n", err.message);
    small_free(b, size, &a);
}

int main(void) {
    CHECK_OK(stance_builtin_create(NULL, &B, NULL));
    RUN(test_escape);
    RUN(test_root_limits);
    RUN(test_limits_everywhere);
    RUN(test_graph_chain_rule);
    RUN(test_worst_chain);
    RUN(test_transient_cap);
    RUN(test_file_rest_scale);
    RUN(test_file_name_escaped);
    stance_builtin_destroy(&B);
    return check_summary();
}
