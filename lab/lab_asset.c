/* lab/lab_asset.c - views 2 and 3 of the lab: a .stance file's character.
 * View 3 plays its clips one at a time; view 2 runs its graph: the file's
 * compiled graph (GRPH section) or, without one, the lesson's graph built
 * from clips matched by name (idle, walk, run, jump, wave; any case), with a
 * mapping JavaScript can change. Both draw the file's skins and meshes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab.h"
#include "stance/asset.h"
#include "stance/build.h"

/* ---- views 2 and 3: a .stance file ------------------------------------------ */

#define LAB_ASSET_STATES 256
enum { ROLE_IDLE = 0, ROLE_WALK, ROLE_RUN, ROLE_JUMP, ROLE_WAVE, ROLE_COUNT };
static const char *const role_names[ROLE_COUNT] = {"idle", "walk", "run", "jump", "wave"};

static struct {
    stance_asset asset;
    unsigned char *bytes;
    size_t size;
    int p_clip, clip, states;
    int graph_kind;            /* 0 none, 1 the file's compiled graph, 2 the lesson's, from clips by name */
    int map[ROLE_COUNT];       /* clip index per role, -1 none */
    float mask[STANCE_MAX_JOINTS];
} as;

/* A buffer of `size` bytes for JavaScript to copy the file into. */
LAB_API unsigned char *lab_asset_buffer(int size) {
    free(as.bytes);
    as.bytes = NULL, as.size = 0;
    if (size <= 0 || size > (1 << 30)) { lab_fail("asset: bad size %d", size); return NULL; }
    as.bytes = malloc((size_t)size);
    if (!as.bytes) { lab_fail("asset: out of memory"); return NULL; }
    as.size = (size_t)size;
    return as.bytes;
}

static int has_word(const char *name, const char *word) {
    size_t n = strlen(word);
    for (const char *p = name; *p; p++) {
        size_t i = 0;
        while (i < n && p[i] && (p[i] >= 'A' && p[i] <= 'Z' ? p[i] + 32 : p[i]) == word[i]) i++;
        if (i == n) return 1;
    }
    return 0;
}

/* Foot joints: named "foot" (not a toe or an end site), the character's
 * left one on the +x side of the rest pose (side[] from rest_height). */
static void find_feet(const stance_skeleton *sk, const signed char *side, int feet[2]) {
    feet[0] = feet[1] = -1;
    for (int j = 0; j < sk->joint_count; j++) {
        const char *n = stance_skeleton_joint_name(sk, j);
        if (!has_word(n, "foot") || has_word(n, "end") || has_word(n, "toe")) continue;
        int k = side[j] > 0 ? 0 : 1;
        if (feet[k] < 0) feet[k] = j;
        else if (feet[1 - k] < 0) feet[1 - k] = j;
    }
}

/* The asset's skins and the skinned meshes bound to them (up to LAB_MAX_DRAW). */
static void view_asset_mesh(lab_view *v) {
    v->skin_count = as.asset.skin_count < LAB_MAX_DRAW ? as.asset.skin_count : LAB_MAX_DRAW;
    for (int i = 0; i < v->skin_count; i++) v->skins[i] = as.asset.skins[i];
    v->mesh_count = 0;
    for (int i = 0; i < as.asset.mesh_count && v->mesh_count < LAB_MAX_DRAW; i++)
        if (as.asset.meshes[i]->skin >= 0 && as.asset.meshes[i]->skin < v->skin_count) v->meshes[v->mesh_count++] = as.asset.meshes[i];
}

static void view_asset_setup(lab_view *v, int move_root) {
    v->height = lab_rest_height(as.asset.skeleton, v->side);
    find_feet(as.asset.skeleton, v->side, v->feet);
    v->move_root = move_root;
    view_asset_mesh(v);
    lab_update(v->inst, 0.0f, v->ws, NULL);
    lab_track_frame(v);
}

/* Clips for the lesson's roles by name, any case: idle, walk, run, jump, wave
 * (a clip name containing the word; "walk" also matches "walking"). */
static void asset_auto_map(void) {
    for (int r = 0; r < ROLE_COUNT; r++) {
        as.map[r] = -1;
        for (int i = 0; i < as.asset.clip_count && as.map[r] < 0; i++)
            if (has_word(as.asset.clips[i]->name, role_names[r])) as.map[r] = i;
    }
}

/* The lesson's graph (stance_builtin_lesson_graph's shape) on the file's clips:
 * Idle, Move (idle/walk/run over speed), Jump (if mapped); a wave override
 * layer on the upper body (if mapped), weight 0. Needs idle and walk or run. */
static int asset_lesson_graph(stance_graph **out) {
    stance_error err = {0};
    const stance_skeleton *sk = as.asset.skeleton;
    const stance_clip *c[ROLE_COUNT];
    for (int r = 0; r < ROLE_COUNT; r++) c[r] = as.map[r] >= 0 && as.map[r] < as.asset.clip_count ? as.asset.clips[as.map[r]] : NULL;
    if (!c[ROLE_IDLE] || (!c[ROLE_WALK] && !c[ROLE_RUN])) return lab_fail("lesson graph: needs an idle clip and a walk or run clip");
    signed char side[STANCE_MAX_JOINTS];
    float h = lab_rest_height(sk, side), human = h / 1.8f; /* in place clips: a human's speeds, scaled to the height */
    float vw = c[ROLE_WALK] && c[ROLE_WALK]->root_speed > 0.0f ? c[ROLE_WALK]->root_speed : 1.4f * human;
    float vr = c[ROLE_RUN] && c[ROLE_RUN]->root_speed > 0.0f ? c[ROLE_RUN]->root_speed : 3.5f * human;
    if (vr <= vw) vr = vw * 2.0f;
    stance_blend_entry_desc move[3];
    int ne = 0;
    move[ne++] = (stance_blend_entry_desc){c[ROLE_IDLE], 0.0f, 0};
    if (c[ROLE_WALK]) move[ne++] = (stance_blend_entry_desc){c[ROLE_WALK], vw, 0};
    if (c[ROLE_RUN]) move[ne++] = (stance_blend_entry_desc){c[ROLE_RUN], vr, 0};
    const stance_param_desc params[] = {{"speed", STANCE_PARAM_FLOAT, 0.0f, 0.1f}, {"jump", STANCE_PARAM_TRIGGER, 0.0f, 0.0f}};
    const stance_state_desc states[] = {
        {.name = "Idle", .clip = c[ROLE_IDLE]},
        {.name = "Move", .type = STANCE_MOTION_BLEND1D, .entry_count = ne, .entries = move, .param_x = "speed"},
        {.name = "Jump", .clip = c[ROLE_JUMP], .once = 1},
    };
    const stance_condition_desc c_jump[] = {{.param = "jump", .op = STANCE_CMP_TRUE}};
    const stance_condition_desc c_moving[] = {{.param = "speed", .op = STANCE_CMP_GE, .value = 0.1f}};
    const stance_condition_desc c_still[] = {{.param = "speed", .op = STANCE_CMP_LT, .value = 0.1f}};
    const stance_transition_desc trans[] = {
        {.from = "Idle", .to = "Move", .condition_count = 1, .conditions = c_moving},
        {.from = "Move", .to = "Idle", .condition_count = 1, .conditions = c_still},
        {.from = "Idle", .to = "Jump", .condition_count = 1, .conditions = c_jump},
        {.from = "Move", .to = "Jump", .condition_count = 1, .conditions = c_jump},
        {.from = "Jump", .to = "Move", .condition_count = 1, .conditions = c_moving, .exit = STANCE_EXIT_AT_END},
        {.from = "Jump", .to = "Idle", .condition_count = 1, .conditions = c_still, .exit = STANCE_EXIT_AT_END},
    };
    const int jump = c[ROLE_JUMP] != NULL;
    const stance_state_desc wave_states[] = {{.name = "Wave", .clip = c[ROLE_WAVE]}};
    const stance_machine_desc machines[] = {
        {.name = "Locomotion", .state_count = jump ? 3 : 2, .states = states, .entry = "Idle",
         .transition_count = jump ? 6 : 2, .transitions = trans},
        {.name = "Waving", .state_count = 1, .states = wave_states},
    };
    int spine = -1;
    static const char *const upper[] = {"spine", "abdomen", "chest", "torso"};
    for (int k = 0; k < 4 && spine < 0; k++)
        for (int j = 0; j < sk->joint_count && spine < 0; j++)
            if (has_word(stance_skeleton_joint_name(sk, j), upper[k])) spine = j;
    if (spine >= 0 && stance_mask_subtree(sk, spine, 1.0f, 0, as.mask, &err)) return lab_fail("mask: %s", err.message);
    const stance_layer_desc layers[] = {
        {.name = "base", .machine = "Locomotion", .weight = 1.0f},
        {.name = "wave", .machine = "Waving", .mask = spine >= 0 ? as.mask : NULL, .priority = 1},
    };
    stance_graph_desc gd = {.skeleton = sk, .param_count = 2, .params = params, .machine_count = c[ROLE_WAVE] ? 2 : 1,
                            .machines = machines, .layer_count = c[ROLE_WAVE] ? 2 : 1, .layers = layers};
    if (stance_graph_create(&gd, NULL, out, &err)) return lab_fail("lesson graph: %s", err.message);
    return 0;
}

/* View 2: the file's graph, else the lesson's from the mapping, else none. */
static int asset_graph_open(void) {
    lab_view *v = lab_view_slot(2);
    lab_view_close(v);
    as.graph_kind = 0;
    if (as.asset.graph) {
        if (lab_view_open(v, as.asset.graph, 0)) return -1;
        as.graph_kind = 1;
    } else {
        stance_graph *g = NULL;
        if (asset_lesson_graph(&g)) return -1;
        if (lab_view_open(v, g, 1)) return -1;
        as.graph_kind = 2;
    }
    view_asset_setup(v, 1);
    return 0;
}

/* State i of the clips' machine is named by clip i: its name cut to fit a
 * state name (63 bytes, at a UTF-8 character's start), "clip i" when it has
 * none, with " #i" (then " #i-2", " #i-3", ...) added while an earlier state
 * has the name. The tries are bounded: a name still taken then makes
 * stance_graph_create refuse the machine with its message. */
static void clip_state_name(stance_clip *const *clips, int i, char (*names)[64], size_t size) {
    char base[64];
    const char *src = clips[i]->name;
    size_t n = src ? strlen(src) : 0;
    if (n >= size) {
        n = size - 1;
        while (n > 0 && ((unsigned char)src[n] & 0xC0) == 0x80) n--; /* not inside a character */
    }
    if (n) memcpy(base, src, n), base[n] = 0;
    else snprintf(base, sizeof base, "clip %d", i);
    for (int r = 0; r <= i + 1; r++) {
        char tag[24] = "";
        if (r == 1) snprintf(tag, sizeof tag, " #%d", i);
        else if (r > 1) snprintf(tag, sizeof tag, " #%d-%d", i, r);
        size_t t = strlen(tag), keep = strlen(base);
        if (keep + t >= size) {
            keep = size - 1 - t;
            while (keep > 0 && ((unsigned char)base[keep] & 0xC0) == 0x80) keep--;
        }
        memcpy(names[i], base, keep);
        memcpy(names[i] + keep, tag, t + 1);
        int taken = 0;
        for (int k = 0; k < i && !taken; k++) taken = !strcmp(names[k], names[i]);
        if (!taken) return;
    }
}

/* Loads the bytes in the buffer. View 3 plays its clips one at a time (one
 * state per clip, named by its clip, up to 256, switched by the int parameter "clip" with a
 * 0.2 s crossfade); view 2 runs its graph (lab_asset_graph_kind). Returns the
 * clip count, or -1 (lab_error says why). */
LAB_API int lab_asset_load(void) {
    stance_error err = {0};
    if (!as.bytes) return lab_fail("asset: no bytes");
    stance_asset a;
    memset(&a, 0, sizeof a);
    if (stance_asset_load_memory(as.bytes, as.size, NULL, &a, &err)) return lab_fail("%s", err.message);
    if (a.clip_count < 1) { stance_asset_destroy(&a); return lab_fail("asset: the file has no clips"); }
    int n = a.clip_count < LAB_ASSET_STATES ? a.clip_count : LAB_ASSET_STATES;
    static char names[LAB_ASSET_STATES][64];
    static stance_state_desc states[LAB_ASSET_STATES];
    static stance_condition_desc conds[LAB_ASSET_STATES];
    static stance_transition_desc trans[LAB_ASSET_STATES];
    for (int i = 0; i < n; i++) {
        clip_state_name(a.clips, i, names, sizeof names[i]);
        states[i] = (stance_state_desc){.name = names[i], .clip = a.clips[i]};
        conds[i] = (stance_condition_desc){.param = "clip", .op = STANCE_CMP_EQ, .value = (float)i};
        trans[i] = (stance_transition_desc){.from = "*", .to = names[i], .condition_count = 1, .conditions = &conds[i],
                                            .blend_time = 0.2f};
    }
    const stance_param_desc params[] = {{"clip", STANCE_PARAM_INT, 0.0f, 0.0f}};
    stance_machine_desc md = {.name = "Clips", .state_count = n, .states = states, .transition_count = n, .transitions = trans};
    stance_graph_desc gd = {.skeleton = a.skeleton, .param_count = 1, .params = params, .machine_count = 1, .machines = &md};
    stance_graph *g = NULL;
    if (stance_graph_create(&gd, NULL, &g, &err)) { stance_asset_destroy(&a); return lab_fail("asset graph: %s", err.message); }
    lab_editor_release();
    lab_view_close(lab_view_slot(2));
    lab_view_close(lab_view_slot(3));
    stance_asset_destroy(&as.asset);
    as.asset = a;
    lab_view *v = lab_view_slot(3);
    if (lab_view_open(v, g, 1)) return -1;
    free(as.bytes);
    as.bytes = NULL, as.size = 0;
    as.p_clip = 0, as.clip = 0, as.states = n;
    /* a clip whose path is joint 0's own track moves the pose itself */
    view_asset_setup(v, !a.clips[0]->root_from_joint0);
    asset_auto_map();
    if (asset_graph_open()) lab_fail("%s", ""); /* no graph: the clips only */
    return a.clip_count;
}
/* For the editor (lab_editor.c): the asset, and view 2 running the graph it built. */
const stance_asset *lab_asset_loaded(void) { return lab_view_slot(3)->inst ? &as.asset : NULL; }
void lab_asset_view_edited(lab_view *v) {
    as.graph_kind = 3;
    view_asset_setup(v, 1);
}
/* 0: no graph (clips only), 1: the file's compiled graph, 2: the lesson's graph built from clips by name, 3: the
 * editor's (lab_editor.c). */
LAB_API int lab_asset_graph_kind(void) { return lab_view_slot(2)->inst ? as.graph_kind : 0; }
LAB_API int lab_asset_role_count(void) { return ROLE_COUNT; }
LAB_API const char *lab_asset_role_name(int role) { return role >= 0 && role < ROLE_COUNT ? role_names[role] : ""; }
LAB_API int lab_asset_role_clip(int role) { return role >= 0 && role < ROLE_COUNT && lab_view_slot(3)->inst ? as.map[role] : -1; }
/* Maps a role to a clip (-1: none) and rebuilds the lesson's graph (a file
 * with its own graph keeps it). */
LAB_API int lab_asset_map(int role, int clip) {
    if (!lab_view_slot(3)->inst) return lab_fail("no asset loaded");
    if (role < 0 || role >= ROLE_COUNT || clip < -1 || clip >= as.asset.clip_count) return lab_fail("asset: bad mapping %d %d", role, clip);
    as.map[role] = clip;
    if (as.asset.graph) return 0;
    return asset_graph_open();
}
LAB_API int lab_asset_clip_count(void) { return lab_view_slot(3)->inst ? as.states : 0; }
LAB_API const char *lab_asset_clip_name(int i) { return lab_view_slot(3)->inst && i >= 0 && i < as.states ? as.asset.clips[i]->name : ""; }
LAB_API float lab_asset_clip_duration(int i) { return lab_view_slot(3)->inst && i >= 0 && i < as.states ? as.asset.clips[i]->duration : 0.0f; }
LAB_API int lab_asset_play(int i) {
    lab_view *v = lab_view_slot(3);
    if (!v->inst || i < 0 || i >= as.states) return lab_fail("asset: no clip %d", i);
    as.clip = i;
    v->move_root = !as.asset.clips[i]->root_from_joint0;
    if (!v->move_root) v->root[0] = v->root[1] = v->root[2] = 0.0f;
    stance_error err;
    return stance_instance_set_int(v->inst, as.p_clip, i, &err) ? lab_fail("asset: clip %d: %s", i, err.message) : 0;
}
/* One update of view 2 (the graph) or 3 (the clips); returns the base machine's state or -1. */
LAB_API int lab_asset_step(int view, float dt) {
    lab_view *v = view == 2 || view == 3 ? lab_view_at(view) : NULL;
    if (!v) return lab_fail("no asset loaded");
    if (!(dt >= 0.0f && dt <= 0.25f)) return lab_fail("dt %g out of range", (double)dt);
    stance_error err;
    if (lab_update(v->inst, dt, v->ws, &err)) return lab_fail("asset: %s", err.message);
    lab_track_frame(v);
    stance_machine_status ms;
    stance_instance_machine_status(v->inst, stance_graph_layer_machine(v->graph, 0), &ms, NULL);
    return ms.state;
}
/* The current clip's playback position in seconds (within one loop). */
LAB_API float lab_asset_clip_time(void) {
    lab_view *v = lab_view_slot(3);
    if (!v->inst) return 0.0f;
    stance_machine_status ms;
    stance_instance_machine_status(v->inst, 0, &ms, NULL);
    return (ms.normalized_time - floorf(ms.normalized_time)) * as.asset.clips[as.clip]->duration;
}

