/* src/io/retarget_live.c - run-time retargeting's bake (stance/retarget.h,
 * issue 27 item 3): from the offline plan (retarget.c: both maps, the bind
 * poses in model space, the rest-pose alignment, the leg ratio), the block a
 * retargeted clip carries (src/core/clip/clip_retarget.h): per mapped target
 * joint its source chain and its pre * g * post map (4x4), the pelvis'
 * translation rule, the carried IK feet; and the clip itself (the target's
 * rest pose as one key, the source's events and scaled root path, an exact
 * copy of the source clip); the foot contacts (the offline contact pass'
 * pelvis correction and foot goals per key, bake_contacts); and an ordinary
 * clip baked from one
 * (stance_retarget_clip_bake, for `stance compile`). The runtime's sampler is
 * clip_retarget.c. */
#include <stdlib.h>
#include <string.h>

#include "core/base/internal.h"
#include "core/clip/clip_retarget.h"
#include "core/math/qmath.h"
#include "io/retarget_internal.h"
#include "stance/build.h"

static void put_q(float *d, qm_quat q) { d[0] = q.x, d[1] = q.y, d[2] = q.z, d[3] = q.w; }
static void put_v(float *d, qm_vec3 v) { d[0] = v.x, d[1] = v.y, d[2] = v.z; }

/* a * b for quaternions (x y z w) in double */
static void dq_mul(const double *a, const double *b, double *o) {
    o[0] = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
    o[1] = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
    o[2] = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
    o[3] = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
}

/* An exact copy of `clip` (compressed or not) on its own key grid. */
static stance_status exact_copy(const stance_clip *clip, const stance_skeleton *sk, const stance_allocator *al,
                                stance_clip **out, stance_error *err) {
    const int J = sk->joint_count, K = clip->key_count > 0 ? clip->key_count : 1;
    stance_pose p;
    stance_status s = stance_pose_create(&p, J, NULL, err);
    if (s) return s;
    float *vals = malloc(sizeof(float) * 10 * (size_t)J * (size_t)K);
    float *times = malloc(sizeof(float) * (size_t)K);
    stance_track_desc *tr = malloc(sizeof *tr * 3 * (size_t)J);
    if (!vals || !times || !tr) s = st_fail(err, STANCE_ERR_MEMORY, "retarget: out of memory");
    for (int k = 0; k < K && !s; k++) {
        times[k] = clip->key_count > 0 ? clip->times[k] : 0.0f;
        s = stance_clip_sample(clip, times[k], NULL, &p, err);
        for (int j = 0; j < J && !s; j++) {
            float *t = vals + 3 * ((size_t)j * K + k), *r = vals + 3 * (size_t)J * K + 4 * ((size_t)j * K + k),
                  *c = vals + 7 * (size_t)J * K + 3 * ((size_t)j * K + k);
            t[0] = p.tx[j], t[1] = p.ty[j], t[2] = p.tz[j];
            r[0] = p.qx[j], r[1] = p.qy[j], r[2] = p.qz[j], r[3] = p.qw[j];
            if (k > 0 && r[0] * r[-4] + r[1] * r[-3] + r[2] * r[-2] + r[3] * r[-1] < 0.0f)
                r[0] = -r[0], r[1] = -r[1], r[2] = -r[2], r[3] = -r[3];
            c[0] = p.sx[j], c[1] = p.sy[j], c[2] = p.sz[j];
        }
    }
    if (!s) {
        for (int j = 0; j < J; j++) {
            tr[3 * j] = (stance_track_desc){j, STANCE_CHANNEL_TRANSLATION, K, times, vals + 3 * (size_t)j * K};
            tr[3 * j + 1] = (stance_track_desc){j, STANCE_CHANNEL_ROTATION, K, times, vals + 3 * (size_t)J * K + 4 * (size_t)j * K};
            tr[3 * j + 2] = (stance_track_desc){j, STANCE_CHANNEL_SCALE, K, times, vals + 7 * (size_t)J * K + 3 * (size_t)j * K};
        }
        stance_clip_desc cd = {0};
        cd.name = clip->name;
        cd.duration = clip->duration;
        cd.track_count = 3 * J;
        cd.tracks = tr;
        s = stance_clip_create(&cd, sk, al, out, err);
    }
    free(vals), free(times), free(tr);
    stance_pose_destroy(&p);
    return s;
}

/* Source joints from below `top` (-1: from the root) down to j, top first,
 * appended to chain[*n]; their count. */
static int path_down(const stance_skeleton *sk, int top, int j, int *chain, int *n) {
    int tmp[STANCE_MAX_JOINTS > 512 ? 512 : STANCE_MAX_JOINTS], c = 0;
    for (int q = j; q >= 0 && q != top && c < (int)(sizeof tmp / sizeof tmp[0]); q = sk->parents[q]) tmp[c++] = q;
    for (int i = 0; i < c; i++) chain[*n + i] = tmp[c - 1 - i];
    *n += c;
    return c;
}

/* The nearest common ancestor of a and b (-1: none, or a is -1). */
static int common(const stance_skeleton *sk, int a, int b) {
    for (int q = a; q >= 0; q = sk->parents[q])
        if (q == b || stance_skeleton_is_descendant(sk, b, q)) return q;
    return -1;
}

static stance_status bake(const rt_plan *p, const stance_clip *clip, stance_clip *out, const stance_allocator *al,
                          stance_error *err) {
    const stance_skeleton *ts = p->t.sk, *ss = p->s.sk;
    int ej[STANCE_RETARGET_MAX_ENTRIES], es[STANCE_RETARGET_MAX_ENTRIES], ne = 0;
    qm_quat ea[STANCE_RETARGET_MAX_ENTRIES];
    for (int j = 0; j < ts->joint_count && ne < STANCE_RETARGET_MAX_ENTRIES; j++) {
        int i = p->tslot[j];
        if (i < 0 && j != p->t.pelvis) continue;
        ej[ne] = j;
        es[ne] = i >= 0 ? p->s.joint[i] : p->s.pelvis;
        ea[ne] = i >= 0 ? rt_q(p->align[i]) : qm_qid();
        ne++;
    }
    /* the chains: at most three paths per entry, each at most the source's
     * depth; then need[] (at most the source's joints) */
    int cap = 3 * ne * ss->joint_count + ss->joint_count;
    size_t off_e = (sizeof(st_retarget) + 31) & ~(size_t)31, off_c = off_e + sizeof(st_rt_entry) * (size_t)ne;
    size_t off_s = (off_c + sizeof(int) * (size_t)cap + 15) & ~(size_t)15, off_t = off_s + sizeof(float) * 3 * (size_t)cap;
    size_t bytes = off_t + sizeof(float) * 3 * (size_t)cap;
    unsigned char *mem = st_alloc(al, bytes, 32);
    if (!mem) return st_fail(err, STANCE_ERR_MEMORY, "retarget: out of memory");
    st_retarget *rt = (st_retarget *)mem;
    rt->bytes = bytes;
    rt->entries = (st_rt_entry *)(mem + off_e);
    rt->chain = (int *)(mem + off_c);
    rt->chain_scale = (float(*)[3])(mem + off_s);
    rt->chain_t = (float(*)[3])(mem + off_t);
    rt->entry_count = ne;
    rt->top = -1;
    rt->k = p->k;
    /* rest scales (accumulated) of both skeletons */
    float(*ssc)[3] = malloc(sizeof *ssc * (size_t)ss->joint_count), (*tsc)[3] = malloc(sizeof *tsc * (size_t)ts->joint_count);
    if (!ssc || !tsc) {
        free(ssc), free(tsc), st_free(al, mem, bytes);
        return st_fail(err, STANCE_ERR_MEMORY, "retarget: out of memory");
    }
    for (int pass = 0; pass < 2; pass++) {
        const stance_skeleton *sk = pass ? ts : ss;
        float(*sc)[3] = pass ? tsc : ssc;
        for (int j = 0; j < sk->joint_count; j++)
            for (int c = 0; c < 3; c++) sc[j][c] = (sk->parents[j] >= 0 ? sc[sk->parents[j]][c] : 1.0f) * sk->rest[j].s[c];
    }
    int n = 0;
    stance_status s = STANCE_OK;
    for (int e = 0; e < ne && !s; e++) {
        st_rt_entry *x = &rt->entries[e];
        const int j = ej[e], sj = es[e], par = ts->parents[j];
        x->joint = j, x->parent = -1, x->carrier = -1;
        for (int q = par; q >= 0 && x->parent < 0; q = ts->parents[q])
            for (int f = 0; f < e; f++)
                if (ej[f] == q) x->parent = f;
        const int pe = x->parent, spt = pe >= 0 ? es[pe] : -1;
        const int c = spt >= 0 ? common(ss, spt, sj) : -1;
        x->up = n, x->up_count = spt >= 0 ? path_down(ss, c, spt, rt->chain, &n) : 0;
        x->down = n, x->down_count = path_down(ss, c, sj, rt->chain, &n);
        for (int m = x->down; m < n; m++) {
            int pj = ss->parents[rt->chain[m]];
            for (int d = 0; d < 3; d++) rt->chain_scale[m][d] = pj >= 0 ? ssc[pj][d] : 1.0f;
        }
        /* the source joints between this slot's and the next one's */
        int i = p->tslot[j], sn = i >= 0 && p->next[i] >= 0 ? p->s.joint[p->next[i]] : -1;
        x->aim = n;
        if (sn >= 0 && ss->parents[sn] != sj && stance_skeleton_is_descendant(ss, sn, sj)) {
            x->aim_count = path_down(ss, sj, sn, rt->chain, &n);
            qm_vec3 v = rt_v(ss->rest[sn].t);
            for (int m = n - 1; m >= x->aim; m--) memcpy(rt->chain_t[m], ss->rest[rt->chain[m]].t, sizeof(float) * 3);
            for (int m = n - 2; m >= x->aim; m--) v = qm_add(rt_v(ss->rest[rt->chain[m]].t), qm_qrot(rt_q(ss->rest[rt->chain[m]].r), v));
            if (qm_len3(v) > 1e-6f * p->s.leg) put_v(x->cb, qm_norm3(v));
            else n = x->aim, x->aim_count = 0; /* no length: nothing to aim */
        }
        x->paim = pe >= 0 && rt->entries[pe].aim_count > 0;
        /* pre = inverse(R_T,bind(parent)) inverse(A_pe) R_S,bind(spt);
         * post = inverse(R_S,bind(sj)) A R_T,bind(j) */
        qm_quat tpar = par >= 0 ? rt_q(p->t.rot[par]) : qm_qid();
        qm_quat pre = qm_qconj(tpar);
        if (pe >= 0) pre = qm_qmul(qm_qmul(pre, qm_qconj(ea[pe])), rt_q(p->s.rot[spt]));
        qm_quat post = qm_qmul(qm_qmul(qm_qconj(rt_q(p->s.rot[sj])), ea[e]), rt_q(p->t.rot[j]));
        pre = qm_qnorm(pre), post = qm_qnorm(post);
        for (int col = 0; col < 4; col++) { /* pre * e_col * post, in double */
            double ecol[4] = {col == 0, col == 1, col == 2, col == 3}, a[4], r[4];
            double pq[4] = {pre.x, pre.y, pre.z, pre.w}, qq[4] = {post.x, post.y, post.z, post.w};
            dq_mul(pq, ecol, a), dq_mul(a, qq, r);
            for (int row = 0; row < 4; row++) x->m[4 * row + col] = (float)r[row];
        }
        /* model space from the parent entry (the joints between at rest) */
        qm_quat pbr = pe >= 0 ? rt_q(p->t.rot[ej[pe]]) : qm_qid();
        qm_vec3 pbp = pe >= 0 ? rt_v(p->t.pos[ej[pe]]) : qm_v3(0, 0, 0);
        put_q(x->cpar, qm_qnorm(qm_qmul(qm_qconj(pbr), tpar)));
        x->cpar_id = pe < 0 ? par < 0 : ej[pe] == par;
        if (x->cpar_id) put_q(x->cpar, qm_qid());
        put_v(x->off, qm_qrot(qm_qconj(pbr), qm_sub(rt_v(p->t.pos[j]), pbp)));
        qm_vec3 ppos = par >= 0 ? rt_v(p->t.pos[par]) : qm_v3(0, 0, 0);
        put_q(x->pinv_rot, qm_qconj(tpar)), put_v(x->ppos, ppos);
        for (int d = 0; d < 3; d++) x->pinv_scale[d] = par >= 0 ? 1.0f / tsc[par][d] : 1.0f;
        const int moved = j == p->t.pelvis || (i >= 0 && p->carried[i]);
        if (moved && pe >= 0) /* its translation is made local to a parent at rest */
            s = st_fail(err, STANCE_ERR_UNSUPPORTED, "retarget at run time: target joint '%s' is placed in model space "
                        "but has a mapped joint above it (use `stance retarget` offline)", stance_skeleton_joint_name(ts, j));
        if (i >= 0 && p->carried[i]) {
            int cj = p->t.joint[p->prev[i]];
            for (int f = 0; f < ne; f++)
                if (ej[f] == cj) x->carrier = f;
            put_v(x->carry, rt_v(p->carry[i]));
            rt->carried++;
        }
        if (j == p->t.pelvis) {
            rt->top = e;
            /* c + k p + Q w: the sockets' midpoint follows the source's
             * (across: from the bind pose; up: its height above the
             * source's lowest foot onto the target's feet), the pelvis
             * where its turn puts it */
            float ground = 0.0f;
            if (!s) s = rt_source_ground(p, clip, &ground, err);
            qm_vec3 os = qm_sub(rt_v(p->s.socket), rt_v(p->s.pos[sj])), ot = qm_sub(rt_v(p->t.socket), rt_v(p->t.pos[j]));
            qm_vec3 cc = qm_sub(rt_v(p->t.socket), qm_scale(rt_v(p->s.socket), p->k));
            cc.y = p->t.floor - p->k * ground;
            qm_quat ib = qm_qconj(rt_q(p->s.rot[sj]));
            put_v(rt->c, cc), put_v(rt->w1, qm_qrot(ib, qm_scale(os, p->k))), put_v(rt->w2, qm_qrot(ib, qm_qrot(ea[e], ot)));
            if (x->up_count)
                s = st_fail(err, STANCE_ERR_UNSUPPORTED, "retarget at run time: the target's pelvis has a mapped joint above it");
        }
    }
    /* the chains name source joints: each joint read once (need[]) */
    int *slot = malloc(sizeof *slot * (size_t)ss->joint_count);
    if (!slot && !s) s = st_fail(err, STANCE_ERR_MEMORY, "retarget: out of memory");
    for (int j = 0; slot && j < ss->joint_count; j++) slot[j] = -1;
    rt->need = rt->chain + n; /* after the chains, within cap */
    /* the joints whose rotations turn vectors (the top's chain, the aim
     * chains) first: those the sampler normalizes (need_unit) */
    unsigned char *unit = calloc((size_t)n + 1, 1);
    if (!unit && !s) s = st_fail(err, STANCE_ERR_MEMORY, "retarget: out of memory");
    for (int e = 0; e < ne && !s; e++) {
        const st_rt_entry *x = &rt->entries[e];
        if (e == rt->top) memset(unit + x->down, 1, (size_t)x->down_count);
        memset(unit + x->aim, 1, (size_t)x->aim_count);
    }
    for (int pass = 0; pass < 2 && !s; pass++) {
        for (int m = 0; m < n && !s; m++) {
            int j = rt->chain[m];
            if (unit[m] != (pass == 0)) continue;
            if (slot[j] < 0) {
                if (rt->need_count == STANCE_RETARGET_MAX_NEED)
                    s = st_fail(err, STANCE_ERR_UNSUPPORTED, "retarget at run time: more than %d source joints to read",
                                STANCE_RETARGET_MAX_NEED);
                else
                    slot[j] = rt->need_count, rt->need[rt->need_count++] = j;
            }
        }
        if (pass == 0) rt->need_unit = rt->need_count;
    }
    for (int m = 0; m < n && !s; m++) rt->chain[m] = slot[rt->chain[m]];
    free(slot), free(unit);
    for (int e = 0; e < ne && !s; e++)
        if (p->tslot[ej[e]] >= 0 && p->carried[p->tslot[ej[e]]] && rt->entries[e].carrier < 0)
            s = st_fail(err, STANCE_ERR_UNSUPPORTED, "retarget at run time: target joint '%s' has no carrier",
                        stance_skeleton_joint_name(ts, ej[e]));
    /* the carriers and the entries above them keep their model transforms */
    for (int e = 0; e < ne && !s; e++)
        for (int f = rt->entries[e].carrier; f >= 0; f = rt->entries[f].parent) rt->entries[f].model = 1;
    free(ssc), free(tsc);
    if (!s) s = exact_copy(clip, ss, al, (stance_clip **)&rt->source, err);
    if (s) {
        st_free(al, mem, bytes);
        return s;
    }
    out->retarget = rt;
    return STANCE_OK;
}

/* The foot contacts (clip_retarget.h, st_rt_fix): the offline retarget with
 * its contact pass (stance_retarget_clip) against this clip's free-feet
 * pose, per key of the offline grid (the source's keys, or 60 a second
 * where that is sparser): the pelvis' model turn and shift, then, with
 * those applied, each foot's offset to where the offline pass put it. The
 * sampler solves each leg to that goal. */
static stance_status bake_contacts(const rt_plan *p, const stance_clip *clip, const stance_retarget_desc *desc,
                                   stance_clip *rc, const stance_allocator *al, stance_error *err) {
    st_retarget *rt = (st_retarget *)rc->retarget;
    st_rt_fix *fx = &rt->fix;
    const stance_skeleton *ts = p->t.sk;
    static const int legs[2][3] = {{STANCE_SLOT_LEFT_UPPER_LEG, STANCE_SLOT_LEFT_LOWER_LEG, STANCE_SLOT_LEFT_FOOT},
                                   {STANCE_SLOT_RIGHT_UPPER_LEG, STANCE_SLOT_RIGHT_LOWER_LEG, STANCE_SLOT_RIGHT_FOOT}};
    if (rt->top < 0) return st_fail(err, STANCE_ERR_UNSUPPORTED, "retarget at run time: no pelvis to keep the feet with");
    const int hj = rt->entries[rt->top].joint;
    for (int l = 0; l < 2; l++)
        for (int a = 0; a < 3; a++) {
            int j = p->t.joint[legs[l][a]], e = -1;
            for (int f = 0; f < rt->entry_count; f++)
                if (rt->entries[f].joint == j) e = f;
            if (e < 0) return st_fail(err, STANCE_ERR_UNSUPPORTED, "retarget at run time: no entry for the target's %s",
                                      stance_humanoid_slot_name(legs[l][a]));
            fx->legs[l][a] = e;
            /* the IK reads the leg's model transforms */
            if (a < 2 || rt->entries[e].carrier < 0)
                for (int f = e; f >= 0; f = rt->entries[f].parent) rt->entries[f].model = 1;
        }
    if (rt->entries[fx->legs[0][2]].carrier >= 0 && rt->entries[fx->legs[0][2]].carrier != fx->legs[0][1])
        return st_fail(err, STANCE_ERR_UNSUPPORTED, "retarget at run time: the left foot is not carried by its lower leg");
    if (rt->entries[fx->legs[1][2]].carrier >= 0 && rt->entries[fx->legs[1][2]].carrier != fx->legs[1][1])
        return st_fail(err, STANCE_ERR_UNSUPPORTED, "retarget at run time: the right foot is not carried by its lower leg");
    /* when the pelvis turns, the entries next below it keep their model
     * rotations and the joints no entry names between (CMU's LHipJoint),
     * or below it with none under them, turn with it (as the offline pass) */
    for (int f = 0; f < rt->entry_count; f++) rt->entries[f].pchild = rt->entries[f].parent == rt->top;
    /* the grid: the offline retargeter's */
    const stance_clip *src = rt->source;
    const float dur = src->duration;
    int n = src->key_count > 0 ? src->key_count : 1;
    float rate = 0.0f;
    if (dur > 0.0f && (float)n < dur * 60.0f && dur < 3600.0f) {
        rate = 60.0f;
        n = (int)ceilf(dur * 60.0f) + 1;
        if (n > 1 && (float)(n - 2) / 60.0f >= dur) n--;
    }
    stance_retarget_desc d = {0};
    if (desc) d = *desc;
    d.free_feet = 0;
    stance_clip *oc = NULL;
    stance_pose lo, mo, lr, mr;
    memset(&lo, 0, sizeof lo), memset(&mo, 0, sizeof mo), memset(&lr, 0, sizeof lr), memset(&mr, 0, sizeof mr);
    const size_t bytes = sizeof(float) * ST_RT_FIX_FLOATS * (size_t)n;
    float *keys = st_alloc(al, bytes, 16), *feet = malloc(sizeof(float) * 6 * (size_t)n);
    stance_status s = !keys || !feet ? st_fail(err, STANCE_ERR_MEMORY, "retarget: out of memory") : STANCE_OK;
    if (!s) s = stance_retarget_clip(clip, p->s.sk, ts, &d, NULL, &oc, err);
    if (!s) s = stance_pose_create(&lo, ts->joint_count, NULL, err);
    if (!s) s = stance_pose_create(&mo, ts->joint_count, NULL, err);
    if (!s) s = stance_pose_create(&lr, ts->joint_count, NULL, err);
    if (!s) s = stance_pose_create(&mr, ts->joint_count, NULL, err);
    const int fj[2] = {rt->entries[fx->legs[0][2]].joint, rt->entries[fx->legs[1][2]].joint};
    fx->key_count = n, fx->rate = rate, fx->duration = dur, fx->keys = keys, fx->bytes = bytes;
    keys = NULL;
    for (int stage = 0; stage < 2 && !s; stage++) {
        fx->stage = stage;
        for (int k = 0; k < n && !s; k++) {
            const float t = rate > 0.0f ? fminf((float)k / rate, dur) : src->key_count > 0 ? src->times[k] : 0.0f;
            float *v = fx->keys + (size_t)ST_RT_FIX_FLOATS * (size_t)k;
            s = stance_clip_sample(rc, t, NULL, &lr, err);
            if (!s) s = stance_local_to_model(&mr, &lr, ts, NULL, err);
            if (s) break;
            if (stage == 0) {
                s = stance_clip_sample(oc, t, NULL, &lo, err);
                if (!s) s = stance_local_to_model(&mo, &lo, ts, NULL, err);
                if (s) break;
                qm_quat dq = qm_qnorm(qm_qmul(qm_q(mo.qx[hj], mo.qy[hj], mo.qz[hj], mo.qw[hj]),
                                              qm_qconj(qm_q(mr.qx[hj], mr.qy[hj], mr.qz[hj], mr.qw[hj]))));
                if (k > 0 && dq.x * v[-13] + dq.y * v[-12] + dq.z * v[-11] + dq.w * v[-10] < 0.0f) dq = qm_qneg(dq);
                put_q(v, dq);
                put_v(v + 4, qm_v3(mo.tx[hj] - mr.tx[hj], mo.ty[hj] - mr.ty[hj], mo.tz[hj] - mr.tz[hj]));
                for (int l = 0; l < 2; l++) put_v(feet + 6 * k + 3 * l, qm_v3(mo.tx[fj[l]], mo.ty[fj[l]], mo.tz[fj[l]]));
                memset(v + 7, 0, sizeof(float) * 6);
            } else {
                for (int l = 0; l < 2; l++)
                    put_v(v + 7 + 3 * l, qm_v3(feet[6 * k + 3 * l] - mr.tx[fj[l]], feet[6 * k + 3 * l + 1] - mr.ty[fj[l]],
                                               feet[6 * k + 3 * l + 2] - mr.tz[fj[l]]));
            }
        }
    }
    fx->stage = 2;
    free(feet);
    if (keys) st_free(al, keys, bytes);
    stance_clip_destroy(oc);
    stance_pose_destroy(&lo), stance_pose_destroy(&mo), stance_pose_destroy(&lr), stance_pose_destroy(&mr);
    return s;
}

stance_status stance_retarget_clip_runtime(const stance_clip *clip, const stance_skeleton *source,
                                           const stance_skeleton *target, const stance_retarget_desc *desc,
                                           const stance_allocator *allocator, stance_clip **out, stance_error *err) {
    if (!out) return st_fail(err, STANCE_ERR_ARGUMENT, "stance_retarget_clip_runtime: NULL out");
    *out = NULL;
    if (!clip || !source || !target)
        return st_fail(err, STANCE_ERR_ARGUMENT, "stance_retarget_clip_runtime: NULL clip or skeleton");
    if (clip->retarget)
        return st_fail(err, STANCE_ERR_ARGUMENT, "stance_retarget_clip_runtime: clip '%s' is retargeted already", clip->name);
    if (clip->joint_count != source->joint_count)
        return st_fail(err, STANCE_ERR_ARGUMENT, "retarget: clip '%s' has %d joints, the source skeleton %d", clip->name,
                       clip->joint_count, source->joint_count);
    stance_status s = st_check_allocator(allocator, "stance_retarget_clip_runtime", err);
    if (s) return s;
    rt_plan p;
    s = rt_plan_make(&p, source, target, desc, err);
    if (s) return s;
    /* the clip: the target's rest pose (one key), slerp so the fused paths
     * leave it to stance_clip_sample; the source's events; the root path
     * scaled by k */
    const int J = target->joint_count;
    float *rest = malloc(sizeof(float) * 4 * (size_t)J), t0 = 0.0f, *root = NULL;
    stance_track_desc *tr = malloc(sizeof *tr * (size_t)J);
    stance_event_desc *ev = malloc(sizeof *ev * (size_t)(clip->event_count + 1));
    if (clip->root_key_count > 0) root = malloc(sizeof(float) * 3 * (size_t)clip->root_key_count);
    if (!rest || !tr || !ev || (clip->root_key_count > 0 && !root)) s = st_fail(err, STANCE_ERR_MEMORY, "retarget: out of memory");
    if (!s) {
        for (int j = 0; j < J; j++) {
            memcpy(rest + 4 * j, target->rest[j].r, sizeof(float) * 4);
            tr[j] = (stance_track_desc){j, STANCE_CHANNEL_ROTATION, 1, &t0, rest + 4 * j};
        }
        for (int e = 0; e < clip->event_count; e++) ev[e].name = clip->events[e].name, ev[e].time = clip->events[e].time;
        stance_clip_desc cd = {0};
        cd.name = clip->name;
        cd.duration = clip->duration > 0.0f ? clip->duration : 1e-3f;
        cd.track_count = J;
        cd.tracks = tr;
        cd.event_count = clip->event_count;
        cd.events = ev;
        cd.slerp = 1;
        if (clip->root_key_count > 0) {
            for (int i = 0; i < 3 * clip->root_key_count; i++) root[i] = clip->root_values[i] * p.k;
            cd.root_key_count = clip->root_key_count;
            cd.root_times = clip->root_times;
            cd.root_values = root;
            cd.root_yaw = clip->root_yaw;
            cd.root_rotation = clip->root_rotation;
            cd.root_speed = clip->root_speed * p.k;
        }
        s = stance_clip_create(&cd, target, allocator, out, err);
    }
    if (!s) s = bake(&p, clip, *out, &(*out)->allocator, err);
    if (!s && !p.free_feet) s = bake_contacts(&p, clip, desc, *out, &(*out)->allocator, err);
    if (s && *out) {
        stance_clip_destroy(*out);
        *out = NULL;
    }
    free(rest), free(tr), free(ev), free(root);
    rt_plan_free(&p);
    return s;
}

stance_status stance_retarget_clip_bake(const stance_clip *clip, const stance_skeleton *target,
                                        const stance_allocator *allocator, stance_clip **out, stance_error *err) {
    if (!out) return st_fail(err, STANCE_ERR_ARGUMENT, "stance_retarget_clip_bake: NULL out");
    *out = NULL;
    if (!clip || !target) return st_fail(err, STANCE_ERR_ARGUMENT, "stance_retarget_clip_bake: NULL clip or skeleton");
    if (!clip->retarget)
        return st_fail(err, STANCE_ERR_ARGUMENT, "stance_retarget_clip_bake: clip '%s' is not retargeted at run time", clip->name);
    if (clip->joint_count != target->joint_count)
        return st_fail(err, STANCE_ERR_ARGUMENT, "stance_retarget_clip_bake: clip '%s' has %d joints, the skeleton %d",
                       clip->name, clip->joint_count, target->joint_count);
    stance_status s = st_check_allocator(allocator, "stance_retarget_clip_bake", err);
    if (s) return s;
    const st_retarget *rt = clip->retarget;
    const stance_clip *src = rt->source;
    /* the source's key grid and, where it is sparser than 60 keys a second,
     * the ticks of 60 a second too (the contacts' grid, bake_contacts): so
     * the clip equals the run-time one at each of both grids' keys, and
     * between two of them the source and the contacts' corrections are
     * each one interpolation */
    const int sk = src->key_count > 0 ? src->key_count : 1;
    const float dur = clip->duration;
    const int dense = dur > 0.0f && (float)sk < dur * 60.0f && dur < 3600.0f;
    const int ticks = dense ? (int)ceilf(dur * 60.0f) + 1 : 0;
    const int ne = rt->entry_count, rows = sk + ticks + 1; /* rows: each track's stride; n: its keys */
    float *times = malloc(sizeof(float) * (size_t)rows);
    float *rv = malloc(sizeof(float) * 4 * (size_t)rows * (size_t)ne), *tv = malloc(sizeof(float) * 3 * (size_t)rows * (size_t)ne);
    stance_track_desc *tr = malloc(sizeof *tr * 2 * (size_t)ne);
    stance_event_desc *ev = malloc(sizeof *ev * (size_t)(clip->event_count + 1));
    stance_pose p;
    memset(&p, 0, sizeof p);
    if (!times || !rv || !tv || !tr || !ev) s = st_fail(err, STANCE_ERR_MEMORY, "retarget: out of memory");
    int n = 0;
    for (int i = 0, q = 0; !s && (i < sk || q < ticks);) { /* merged; a tick within 0.1 ms of a source key is that key */
        const float ts = i < sk ? (src->key_count > 0 ? src->times[i] : 0.0f) : INFINITY;
        const float tq = q < ticks ? fminf((float)q / 60.0f, dur) : INFINITY;
        float t = ts <= tq ? ts : tq;
        if (fabsf(ts - tq) < 1e-4f) t = ts, i++, q++;
        else if (ts < tq) i++;
        else q++;
        if (n > 0 && !(t > times[n - 1])) continue;
        times[n++] = t;
    }
    if (!s && dense && times[n - 1] < dur) times[n++] = dur;
    if (!s) s = stance_pose_create(&p, target->joint_count, NULL, err);
    for (int k = 0; k < n && !s; k++) {
        s = stance_clip_sample(clip, times[k], NULL, &p, err);
        for (int e = 0; e < ne && !s; e++) {
            int j = rt->entries[e].joint;
            float *r = rv + 4 * ((size_t)e * (size_t)rows + (size_t)k), *t = tv + 3 * ((size_t)e * (size_t)rows + (size_t)k);
            r[0] = p.qx[j], r[1] = p.qy[j], r[2] = p.qz[j], r[3] = p.qw[j];
            if (k > 0 && r[0] * r[-4] + r[1] * r[-3] + r[2] * r[-2] + r[3] * r[-1] < 0.0f)
                r[0] = -r[0], r[1] = -r[1], r[2] = -r[2], r[3] = -r[3];
            t[0] = p.tx[j], t[1] = p.ty[j], t[2] = p.tz[j];
        }
    }
    if (!s) {
        int tc = 0;
        for (int e = 0; e < ne; e++) {
            const st_rt_entry *x = &rt->entries[e];
            tr[tc++] = (stance_track_desc){x->joint, STANCE_CHANNEL_ROTATION, n, times, rv + 4 * (size_t)e * (size_t)rows};
            if (e == rt->top || x->carrier >= 0)
                tr[tc++] = (stance_track_desc){x->joint, STANCE_CHANNEL_TRANSLATION, n, times, tv + 3 * (size_t)e * (size_t)rows};
        }
        for (int e = 0; e < clip->event_count; e++) ev[e].name = clip->events[e].name, ev[e].time = clip->events[e].time;
        stance_clip_desc cd = {0};
        cd.name = clip->name;
        cd.duration = dur;
        cd.track_count = tc;
        cd.tracks = tr;
        cd.event_count = clip->event_count;
        cd.events = ev;
        if (clip->root_key_count > 0 && !clip->root_from_joint0) {
            cd.root_key_count = clip->root_key_count;
            cd.root_times = clip->root_times;
            cd.root_values = clip->root_values;
            cd.root_yaw = clip->root_yaw;
            cd.root_rotation = clip->root_rotation;
            cd.root_speed = clip->root_speed;
        }
        s = stance_clip_create(&cd, target, allocator, out, err);
    }
    stance_pose_destroy(&p);
    free(times), free(rv), free(tv), free(tr), free(ev);
    return s;
}
