/* src/core/graph/graph_layout.c - the table of the compiled graph's arrays and of
 * their records' fields (graph_layout.h): what the GRPH section of format 2
 * stores, field by field, with each field's range. A field not listed is
 * derived when the graph is bound (a layer's mask pointer) or must be zero
 * (a footlock entry's ground callback). */
#include <math.h>

#include "core/graph/graph_layout.h"
#include "core/base/internal.h"
#include "stance/asset.h"

_Static_assert(sizeof(stance_param_type) == sizeof(int) && sizeof(stance_motion_type) == sizeof(int) &&
                   sizeof(stance_compare) == sizeof(int) && sizeof(stance_exit_mode) == sizeof(int) &&
                   sizeof(stance_switch_mode) == sizeof(int) && sizeof(stance_easing) == sizeof(int) &&
                   sizeof(stance_layer_mode) == sizeof(int) && sizeof(stance_layer_space) == sizeof(int) &&
                   sizeof(stance_additive_ref) == sizeof(int) && sizeof(stance_ik_kind) == sizeof(int) &&
                   sizeof(unsigned) == sizeof(int),
               "graph_layout.c stores these enums as i32");

#define T_MAX 3.4e38f /* any finite float */
#define F(S, f, l, h) {#f, (unsigned short)offsetof(S, f), GL_F32, 1, GL_FIXED, l, h}
#define FN(S, f, n, l, h) {#f, (unsigned short)offsetof(S, f), GL_F32, n, GL_FIXED, l, h}
#define I(S, f, l, h) {#f, (unsigned short)offsetof(S, f), GL_I32, 1, GL_FIXED, l, h}
#define IX(S, f, r, opt) {#f, (unsigned short)offsetof(S, f), GL_I32, 1, r, (opt) ? -1.0f : 0.0f, 0.0f}
#define IXN(S, f, n, r, opt) {#f, (unsigned short)offsetof(S, f), GL_I32, n, r, (opt) ? -1.0f : 0.0f, 0.0f}
#define NM(S, f) {#f, (unsigned short)offsetof(S, f), GL_NAME, 1, GL_FIXED, 0, 0}
#define CL(S, f) {#f, (unsigned short)offsetof(S, f), GL_CLIP, 1, GL_FIXED, 0, 0}
#define DL(S, f) {#f, (unsigned short)offsetof(S, f), GL_DELTA, 1, GL_FIXED, 0, 0}
#define U64(S, f) {#f, (unsigned short)offsetof(S, f), GL_U64, 1, GL_FIXED, 0, 0}
#define BOOL(S, f) I(S, f, 0, 1)
#define COUNT(x) ((int)(sizeof(x) / sizeof(x)[0]))
#define RANGE_MAX 1048576.0f /* a first index or a count: its range is checked against its array in graph_check.c */

static const gl_field f_head[] = {
    F(struct stance_graph, default_blend_time, 0.0f, 60.0f),
    F(struct stance_graph, deadblend_halflife, 0.0f, 60.0f),
};
static const gl_field f_param[] = {
    NM(g_param, name),
    I(g_param, type, STANCE_PARAM_FLOAT, STANCE_PARAM_TRIGGER),
    F(g_param, value, -T_MAX, T_MAX),
    F(g_param, damping, 0.0f, 60.0f),
};
static const gl_field f_machine[] = {
    NM(g_machine, name),
    I(g_machine, state_first, 0, STANCE_MAX_STATES),
    I(g_machine, state_count, 1, STANCE_MAX_STATES),
    IX(g_machine, entry, GL_R_STATE, 0),
    I(g_machine, any_first, 0, RANGE_MAX),
    I(g_machine, any_count, 0, RANGE_MAX),
    IX(g_machine, parent_state, GL_R_STATE, 1),
    IX(g_machine, layer, GL_R_LAYER, 1),
    IX(g_machine, root_layer, GL_R_LAYER, 1),
    IX(g_machine, step, GL_R_STEP, 1),
    I(g_machine, clip_cap, 1, STANCE_MAX_BLEND_ENTRIES),
    BOOL(g_machine, history),
    BOOL(g_machine, has_trans),
};
static const gl_field f_state[] = {
    NM(g_state, name),
    IX(g_state, machine, GL_R_MACHINE, 0),
    I(g_state, type, STANCE_MOTION_CLIP, STANCE_MOTION_MACHINE),
    CL(g_state, clip),
    BOOL(g_state, once),
    F(g_state, speed, -100.0f, 100.0f),
    IX(g_state, speed_param, GL_R_PARAM, 1),
    I(g_state, entry_first, 0, RANGE_MAX),
    I(g_state, entry_count, 0, STANCE_MAX_BLEND_ENTRIES),
    IX(g_state, param_x, GL_R_PARAM, 1),
    IX(g_state, param_y, GL_R_PARAM, 1),
    IX(g_state, sub_machine, GL_R_MACHINE, 1),
    I(g_state, trans_first, 0, RANGE_MAX),
    I(g_state, trans_count, 0, RANGE_MAX),
    IX(g_state, ref_pose, GL_R_REFPOSE, 1),
    DL(g_state, delta),
    I(g_state, delta_flags, 0, 65535),
    U64(g_state, delta_still),
    BOOL(g_state, speed_warp),
    F(g_state, fade_time, 0.0f, 60.0f),
    BOOL(g_state, same_scale),
};
static const gl_field f_trans[] = {
    IX(g_trans, from, GL_R_STATE, 1),
    IX(g_trans, to, GL_R_STATE, 0),
    I(g_trans, cond_first, 0, RANGE_MAX),
    I(g_trans, cond_count, 0, STANCE_MAX_CONDITIONS),
    I(g_trans, exit, STANCE_EXIT_NONE, STANCE_EXIT_AT_END),
    F(g_trans, exit_time, 0.0f, T_MAX),
    F(g_trans, blend_time, 0.0f, 60.0f),
    I(g_trans, mode, STANCE_SWITCH_CROSSFADE, STANCE_SWITCH_MODE_COUNT - 1),
    I(g_trans, easing, STANCE_EASE_SMOOTHSTEP, STANCE_EASE_LINEAR),
    BOOL(g_trans, uninterruptible),
    BOOL(g_trans, allow_self),
};
static const gl_field f_strn[] = {{"transition", 0, GL_I32, 1, GL_R_TRANS, 0, 0}};
static const gl_field f_cond[] = {
    IX(g_cond, param, GL_R_PARAM, 0),
    I(g_cond, op, STANCE_CMP_GE, STANCE_CMP_FALSE),
    F(g_cond, value, -T_MAX, T_MAX),
    F(g_cond, hysteresis, 0.0f, T_MAX),
    I(g_cond, group, 0, STANCE_MAX_CONDITIONS - 1),
};
static const gl_field f_entry[] = {
    CL(g_entry, clip),
    DL(g_entry, delta),
    F(g_entry, x, -T_MAX, T_MAX),
    F(g_entry, y, -T_MAX, T_MAX),
};
static const gl_field f_layer[] = {
    NM(g_layer, name),
    IX(g_layer, machine, GL_R_MACHINE, 0),
    F(g_layer, weight, 0.0f, 1.0f),
    I(g_layer, mode, STANCE_LAYER_OVERRIDE, STANCE_LAYER_ADDITIVE),
    I(g_layer, space, STANCE_SPACE_LOCAL, STANCE_SPACE_MESH),
    BOOL(g_layer, has_mask),
    I(g_layer, additive_ref, STANCE_ADDITIVE_FIRST_FRAME, STANCE_ADDITIVE_REF_CLIP_SYNC),
    CL(g_layer, ref_clip),
    IX(g_layer, ref_clip_pose, GL_R_REFPOSE, 1),
    I(g_layer, priority, -1000, 1000),
    BOOL(g_layer, fusable),
    IX(g_layer, step_first, GL_R_STEP, 0),
    IX(g_layer, step_last, GL_R_STEP, 0),
};
static const gl_field f_mask[] = {{"weight", 0, GL_F32, 1, GL_FIXED, 0.0f, 1.0f}};
static const gl_field f_step[] = {
    IX(g_step, machine, GL_R_MACHINE, 0),
    IX(g_step, parent, GL_R_MACHINE, 1),
    IX(g_step, parent_state, GL_R_STATE, 1),
    IX(g_step, first, GL_R_STEP, 0),
    IX(g_step, layer, GL_R_LAYER, 0),
    BOOL(g_step, has_trans),
};
static const gl_field f_scap[] = {{"scale", 0, GL_F32, 1, GL_FIXED, STANCE_MIN_SCALE, STANCE_MAX_SCALE}};
#define LEG(k) IX(g_ik, fd.legs[k].upper, GL_R_JOINT, 0), IX(g_ik, fd.legs[k].lower, GL_R_JOINT, 0), \
               IX(g_ik, fd.legs[k].foot, GL_R_JOINT, 0), FN(g_ik, fd.legs[k].hinge, 3, -T_MAX, T_MAX)
static const gl_field f_ik[] = {
    NM(g_ik, name),
    I(g_ik, kind, STANCE_IK_FOOTLOCK, STANCE_IK_KIND_COUNT - 1),
    I(g_ik, fd.leg_count, 0, STANCE_FOOT_MAX),
    LEG(0), LEG(1), LEG(2), LEG(3),
    IX(g_ik, fd.pelvis, GL_R_JOINT, 1),
    F(g_ik, fd.blend_time, 0.0f, T_MAX),
    F(g_ik, fd.plant_time, 0.0f, T_MAX),
    F(g_ik, fd.softness, 0.0f, 1.0f),
    F(g_ik, fd.release_speed, 0.0f, T_MAX),
    I(g_ik, fd.blended, 0, 0),
    I(g_ik, chain_count, 0, STANCE_AIM_MAX_CHAIN),
    IXN(g_ik, chain, STANCE_AIM_MAX_CHAIN, GL_R_JOINT, 0),
    FN(g_ik, forward, 3, -T_MAX, T_MAX),
    FN(g_ik, max_angles, STANCE_AIM_MAX_CHAIN, 0.0f, 3.14159265f),
    IX(g_ik, l2m_from, GL_R_JOINT, 1),
    IX(g_ik, l2m_to, GL_R_JOINT, 0),
};
static const gl_field f_ikclip[] = {{"clip", 0, GL_CLIP, 1, GL_FIXED, 0, 0}};

/* What the writer writes: the counts of the arrays as the graph uses them. */
static int n_one(const stance_graph *g) { return (void)g, 1; }
static int n_param(const stance_graph *g) { return g->param_count; }
static int n_machine(const stance_graph *g) { return g->machine_count; }
static int n_state(const stance_graph *g) { return g->state_count; }
static int n_trans(const stance_graph *g) { return g->trans_count; }
static int n_strn(const stance_graph *g) {
    int n = 0;
    for (int s = 0; s < g->state_count; s++) n += g->states[s].trans_count;
    return n;
}
static int n_anyt(const stance_graph *g) {
    int n = 0;
    for (int m = 0; m < g->machine_count; m++) n += g->machines[m].any_count;
    return n;
}
static int n_cond(const stance_graph *g) { return g->cond_count; }
static int n_delta(const stance_graph *g) { return g->delta_count; }
static int n_entry(const stance_graph *g) { return g->entry_count; }
static int n_layer(const stance_graph *g) { return g->layer_count; }
static int n_mask(const stance_graph *g) { return g->layer_count * st_pad8(g->skeleton->joint_count); }
static int n_refpose(const stance_graph *g) { return g->ref_pose_count; }
static int n_step(const stance_graph *g) { return g->step_count; }
static int n_scap(const stance_graph *g) { return 2 * st_pad8(g->skeleton->joint_count); }
static int n_ik(const stance_graph *g) { return g->ik_count; }
static int n_ikclip(const stance_graph *g) { return g->ik_clip_count; }
static int n_contacts(const stance_graph *g) { return g->ik_count * g->ik_clip_count; }

#define G(f) offsetof(struct stance_graph, f)
#define ROW(tag, what, kind, ref, base, count_at, elem, fields, cap, count) \
    {tag, what, kind, ref, base, count_at, 0, elem, fields, COUNT(fields), cap, count}
#define ROWF(tag, what, kind, ref, base, elem, fields, cap, count) /* a list of the file's length */ \
    {tag, what, kind, ref, base, -1, 1, elem, fields, COUNT(fields), cap, count}
#define ROWX(tag, what, kind, ref, base, count_at, elem, cap, count) \
    {tag, what, kind, ref, base, count_at, 0, elem, NULL, 0, cap, count}
#define MAXT (STANCE_MAX_MACHINES * 4096) /* transitions: 4096 a machine */

const gl_row gl_rows[GL_ROWS] = {
    [GL_HEAD] = ROW("HEAD", "head", GL_RECORDS, GL_FIXED, GL_SELF, -1, sizeof(struct stance_graph), f_head, 1, n_one),
    [GL_PARM] = ROW("PARM", "parameter", GL_RECORDS, GL_R_PARAM, G(params), G(param_count), sizeof(g_param), f_param,
                    STANCE_MAX_PARAMS, n_param),
    [GL_MACH] = ROW("MACH", "machine", GL_RECORDS, GL_R_MACHINE, G(machines), G(machine_count), sizeof(g_machine),
                    f_machine, STANCE_MAX_MACHINES, n_machine),
    [GL_DELT] = ROWX("DELT", "delta clip", GL_DELTAS, GL_FIXED, G(deltas), G(delta_count), sizeof(stance_clip *),
                     STANCE_MAX_STATES * (STANCE_MAX_BLEND_ENTRIES + 1), n_delta),
    [GL_STAT] = ROW("STAT", "state", GL_RECORDS, GL_R_STATE, G(states), G(state_count), sizeof(g_state), f_state,
                    STANCE_MAX_STATES, n_state),
    [GL_TRAN] = ROW("TRAN", "transition", GL_RECORDS, GL_R_TRANS, G(trans), G(trans_count), sizeof(g_trans), f_trans,
                    MAXT, n_trans),
    [GL_STRN] = ROWF("STRN", "state transition", GL_RECORDS, GL_R_STRN, G(state_trans), sizeof(int), f_strn, MAXT, n_strn),
    [GL_ANYT] = ROWF("ANYT", "any-state transition", GL_RECORDS, GL_R_ANYT, G(any_trans), sizeof(int), f_strn, MAXT, n_anyt),
    [GL_COND] = ROW("COND", "condition", GL_RECORDS, GL_R_COND, G(conds), G(cond_count), sizeof(g_cond), f_cond,
                    MAXT * STANCE_MAX_CONDITIONS, n_cond),
    [GL_ENTR] = ROW("ENTR", "blend entry", GL_RECORDS, GL_R_ENTRY, G(entries), G(entry_count), sizeof(g_entry), f_entry,
                    STANCE_MAX_STATES * STANCE_MAX_BLEND_ENTRIES, n_entry),
    [GL_LAYR] = ROW("LAYR", "layer", GL_RECORDS, GL_R_LAYER, G(layers), G(layer_count), sizeof(g_layer), f_layer,
                    STANCE_MAX_LAYERS, n_layer),
    [GL_MASK] = ROW("MASK", "mask weight", GL_RECORDS, GL_FIXED, G(masks), -1, sizeof(float), f_mask,
                    STANCE_MAX_LAYERS * STANCE_MAX_JOINTS, n_mask),
    [GL_REFP] = ROWX("REFP", "reference pose", GL_POSES, GL_R_REFPOSE, G(ref_poses), G(ref_pose_count), sizeof(stance_pose),
                     STANCE_MAX_STATES + STANCE_MAX_LAYERS, n_refpose),
    [GL_STEP] = ROW("STEP", "program step", GL_RECORDS, GL_R_STEP, G(steps), G(step_count), sizeof(g_step), f_step,
                    STANCE_MAX_MACHINES, n_step),
    [GL_SCAP] = ROW("SCAP", "scale cap", GL_RECORDS, GL_FIXED, G(scale_cap), -1, sizeof(float), f_scap,
                    2 * STANCE_MAX_JOINTS, n_scap),
    [GL_IKEN] = ROW("IKEN", "ik entry", GL_RECORDS, GL_FIXED, G(ik), G(ik_count), sizeof(g_ik), f_ik, STANCE_MAX_IK, n_ik),
    [GL_IKCL] = ROW("IKCL", "ik clip", GL_RECORDS, GL_FIXED, G(ik_clips), G(ik_clip_count), sizeof(const stance_clip *),
                    f_ikclip, STANCE_MAX_CLIPS, n_ikclip),
    [GL_CTCT] = ROWX("CTCT", "contacts", GL_CONTACTS, GL_FIXED, G(contacts), -1, sizeof(stance_contacts *),
                     STANCE_MAX_IK * STANCE_MAX_CLIPS, n_contacts),
};

size_t gl_record_bytes(const gl_row *row) {
    size_t n = 0;
    for (int i = 0; i < row->field_count; i++) {
        const gl_field *f = &row->fields[i];
        n += f->kind == GL_NAME ? G_NAME : f->kind == GL_U64 ? 8u : 4u * f->n;
    }
    return n;
}
