/* src/io/retarget_map.c - the humanoid bone map (stance/retarget.h): the
 * name pass (joint names tokenized, side markers and rig prefixes dropped,
 * the rest matched against each slot's words) and the structural pass (legs
 * and arms from the tree and the bind pose). The JSON map file and the slot
 * names are retarget_mapfile.c's. */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/internal.h"
#include "io/retarget_internal.h"
#include "stance/retarget.h"


/* ---- names ------------------------------------------------------------ */

/* A sided part: its words (the name with side and prefixes removed,
 * lowercase, separators dropped). Offsets from the left slot. */
typedef struct part {
    int offset;
    const char *words[6];
} part;

static const part sided[] = {
    {0, {"upleg", "upperleg", "thigh", "hipupper", NULL}},
    {1, {"leg", "lowerleg", "calf", "shin", "knee", NULL}},
    {2, {"foot", "ankle", NULL}},
    {3, {"toebase", "toes", "toe", "ball", NULL}},
    {8, {"shoulder", "clavicle", "collar", NULL}},
    {9, {"arm", "upperarm", NULL}},
    {10, {"forearm", "lowerarm", "elbow", NULL}},
    {11, {"hand", "wrist", NULL}},
};

/* Tokens: runs of letters or digits; a lower-to-upper change or an
 * upper followed by upper+lower ("LHip") also splits. */
static int tokenize(const char *name, char tok[8][32]) {
    const char *s = name;
    const char *colon = strrchr(s, ':');
    if (colon) s = colon + 1;
    const char *bar = strrchr(s, '|');
    if (bar) s = bar + 1;
    int n = 0, len = 0;
    for (size_t i = 0;; i++) {
        unsigned char c = (unsigned char)s[i];
        int alnum = isalnum(c) != 0;
        int split = !alnum;
        if (alnum && len > 0 && i > 0) {
            unsigned char p = (unsigned char)s[i - 1], q = (unsigned char)s[i + 1];
            if (islower(p) && isupper(c)) split = 1;
            else if (isupper(p) && isupper(c) && islower(q)) split = 1;
            else if (isdigit(p) != isdigit(c) && !isdigit(c)) split = 1;
        }
        if (split && len > 0) {
            tok[n][len] = 0;
            if (++n == 8) return n;
            len = 0;
        }
        if (!c) break;
        if (alnum && len < 31) tok[n][len++] = (char)tolower(c);
    }
    return n;
}

/* The name's side (0 none, 1 left, 2 right) and its core words. */
static int name_core(const char *name, char *core, size_t cap) {
    char tok[8][32];
    int n = tokenize(name, tok), side = 0;
    core[0] = 0;
    for (int i = 0; i < n; i++) {
        const char *t = tok[i];
        if (!strcmp(t, "l") || !strcmp(t, "left")) { side = side ? side : 1; continue; }
        if (!strcmp(t, "r") || !strcmp(t, "right")) { side = side ? side : 2; continue; }
        if (!strcmp(t, "j") || !strcmp(t, "bip") || !strcmp(t, "c") || !strcmp(t, "mixamorig") ||
            !strcmp(t, "bip01") || !strcmp(t, "def") || !strcmp(t, "jnt") || !strcmp(t, "bn"))
            continue;
        /* a digit run of zeros and ones after a word (spine_01, neck1) is kept
         * as a number; "01" reads as "1" */
        if (isdigit((unsigned char)t[0])) t = t + strspn(t, "0");
        if (strlen(core) + strlen(t) + 1 < cap) strcat(core, t);
    }
    return side;
}

static int in_list(const char *w, const char *const *list) {
    for (; *list; list++)
        if (!strcmp(w, *list)) return 1;
    return 0;
}

static void set_slot(stance_humanoid_map *m, const int *depth, int slot, int joint, int how) {
    if (m->joint[slot] >= 0 && m->found[slot] == how && depth[m->joint[slot]] <= depth[joint]) return;
    m->joint[slot] = joint;
    m->found[slot] = how;
}

static void by_names(const stance_skeleton *s, const int *depth, stance_humanoid_map *m) {
    static const char *const hips[] = {"hips", "pelvis", "hip", NULL};
    static const char *const neck[] = {"neck", "neck1", NULL};
    static const char *const head[] = {"head", NULL};
    for (int j = 0; j < s->joint_count; j++) {
        char core[128];
        int side = name_core(stance_skeleton_joint_name(s, j), core, sizeof core);
        if (!side) {
            if (in_list(core, hips)) set_slot(m, depth, STANCE_SLOT_HIPS, j, STANCE_FOUND_NAME);
            else if (in_list(core, neck)) set_slot(m, depth, STANCE_SLOT_NECK, j, STANCE_FOUND_NAME);
            else if (in_list(core, head)) set_slot(m, depth, STANCE_SLOT_HEAD, j, STANCE_FOUND_NAME);
            continue;
        }
        int base = side == 1 ? STANCE_SLOT_LEFT_UPPER_LEG : STANCE_SLOT_RIGHT_UPPER_LEG;
        for (size_t p = 0; p < sizeof sided / sizeof sided[0]; p++) {
            if (!in_list(core, sided[p].words)) continue;
            int off = sided[p].offset;
            /* arms: left arm slots start 8 after the left leg's, right 8 after the right leg's */
            int slot = off < 4 ? base + off : (side == 1 ? STANCE_SLOT_LEFT_SHOULDER : STANCE_SLOT_RIGHT_SHOULDER) + off - 8;
            set_slot(m, depth, slot, j, STANCE_FOUND_NAME);
        }
    }
}

/* ---- structure -------------------------------------------------------- */

static void qrot(const float q[4], const float v[3], float out[3]) {
    float tx = 2 * (q[1] * v[2] - q[2] * v[1]), ty = 2 * (q[2] * v[0] - q[0] * v[2]), tz = 2 * (q[0] * v[1] - q[1] * v[0]);
    out[0] = v[0] + q[3] * tx + (q[1] * tz - q[2] * ty);
    out[1] = v[1] + q[3] * ty + (q[2] * tx - q[0] * tz);
    out[2] = v[2] + q[3] * tz + (q[0] * ty - q[1] * tx);
}

void rt_rest_positions(const stance_skeleton *s, float (*pos)[3], float (*rot)[4]) {
    float (*sc)[3] = malloc(sizeof *sc * (size_t)s->joint_count);
    for (int j = 0; j < s->joint_count; j++) {
        const stance_transform *t = &s->rest[j];
        int p = s->parents[j];
        if (p < 0 || !sc) {
            memcpy(pos[j], t->t, sizeof pos[j]);
            memcpy(rot[j], t->r, sizeof rot[j]);
            if (sc) memcpy(sc[j], t->s, sizeof sc[j]);
            continue;
        }
        float v[3] = {t->t[0] * sc[p][0], t->t[1] * sc[p][1], t->t[2] * sc[p][2]}, w[3];
        qrot(rot[p], v, w);
        for (int k = 0; k < 3; k++) pos[j][k] = pos[p][k] + w[k], sc[j][k] = sc[p][k] * t->s[k];
        const float *a = rot[p], *b = t->r;
        rot[j][0] = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
        rot[j][1] = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
        rot[j][2] = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
        rot[j][3] = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
    }
    free(sc);
}

static float dist(const float *a, const float *b) {
    float d0 = a[0] - b[0], d1 = a[1] - b[1], d2 = a[2] - b[2];
    return sqrtf(d0 * d0 + d1 * d1 + d2 * d2);
}

typedef struct tree {
    const stance_skeleton *s;
    float (*pos)[3];
    float *reach;   /* the longest path length (bind pose) below each joint */
    int *next;      /* the child on that path, -1 at a leaf */
} tree;

static int chain(const tree *t, int from, int *out, int cap) {
    int n = 0;
    for (int j = from; j >= 0 && n < cap; j = t->next[j]) out[n++] = j;
    return n;
}

static int on_chain(const int *c, int n, int j) {
    for (int i = 0; i < n; i++)
        if (c[i] == j) return 1;
    return 0;
}

/* The consecutive segments c[k]->c[k+1]->c[k+2] that look most like a limb's
 * two long bones (the largest shorter of the two); -1 when n < 3. */
static int limb_start(const tree *t, const int *c, int n) {
    int best = -1;
    float score = -1;
    for (int k = 0; k + 2 < n; k++) {
        float a = dist(t->pos[c[k]], t->pos[c[k + 1]]), b = dist(t->pos[c[k + 1]], t->pos[c[k + 2]]);
        float sc = a < b ? a : b;
        if (sc > score * 1.0001f) score = sc, best = k;
    }
    return best;
}

static void fill(stance_humanoid_map *m, int slot, int joint) {
    if (joint < 0 || m->joint[slot] >= 0) return;
    for (int i = 0; i < STANCE_HUMANOID_SLOTS; i++)
        if (m->joint[i] == joint) return; /* a joint plays one slot */
    m->joint[slot] = joint;
    m->found[slot] = STANCE_FOUND_STRUCTURE;
}

#define MAXC 64

static void by_structure(const stance_skeleton *s, const int *depth, float (*pos)[3], stance_humanoid_map *m) {
    int n = s->joint_count;
    tree t = {s, pos, calloc((size_t)n, sizeof(float)), malloc(sizeof(int) * (size_t)n)};
    int *kids = calloc((size_t)n, sizeof(int)), *count = malloc(sizeof(int) * (size_t)n);
    if (!t.reach || !t.next || !kids || !count) goto done;
    for (int j = 0; j < n; j++) count[j] = 1;
    for (int j = 0; j < n; j++) t.next[j] = -1;
    for (int j = n - 1; j >= 0; j--) {
        int p = s->parents[j];
        if (p < 0) continue;
        kids[p]++;
        count[p] += count[j];
        float r = t.reach[j] + dist(pos[p], pos[j]);
        if (t.next[p] < 0 || r > t.reach[p]) t.reach[p] = r, t.next[p] = j;
    }
    int hips = m->joint[STANCE_SLOT_HIPS];
    if (hips < 0)
        for (int j = 0; j < n; j++)
            if (kids[j] >= 3 && (hips < 0 || depth[j] < depth[hips])) hips = j;
    if (hips < 0) goto done;
    fill(m, STANCE_SLOT_HIPS, hips);
    /* the spine: the child whose subtree holds the named head, else the one with the most joints (arms, head) */
    int spine = -1, head = m->joint[STANCE_SLOT_HEAD];
    float up[3] = {0, 1, 0};
    for (int j = 0; j < n; j++) {
        if (s->parents[j] != hips) continue;
        if (head >= 0 ? stance_skeleton_is_descendant(s, head, j) : (spine < 0 || count[j] > count[spine])) spine = j;
    }
    if (spine < 0) goto done;
    /* legs: the two other children of the hips reaching farthest; up is away from their ends */
    int leg[2] = {-1, -1};
    for (int j = 0; j < n; j++) {
        if (s->parents[j] != hips || j == spine) continue;
        int c[MAXC], cn = chain(&t, j, c, MAXC);
        if (cn < 3) continue;
        if (leg[0] < 0 || t.reach[j] > t.reach[leg[0]]) leg[1] = leg[0], leg[0] = j;
        else if (leg[1] < 0 || t.reach[j] > t.reach[leg[1]]) leg[1] = j;
    }
    if (leg[0] >= 0 && leg[1] >= 0) {
        int c[MAXC], e0 = c[chain(&t, leg[0], c, MAXC) - 1], e1 = c[chain(&t, leg[1], c, MAXC) - 1];
        float u[3], len = 0;
        for (int k = 0; k < 3; k++) u[k] = pos[hips][k] - 0.5f * (pos[e0][k] + pos[e1][k]), len += u[k] * u[k];
        if (len > 0) for (int k = 0; k < 3; k++) up[k] = u[k] / sqrtf(len);
    }
    /* the spine chain: to the named head, else always into the child whose subtree reaches highest */
    int sc[MAXC], sn = 0;
    if (head >= 0 && stance_skeleton_is_descendant(s, head, spine)) {
        int rev[MAXC], rn = 0;
        for (int j = head; j >= 0 && j != hips && rn < MAXC; j = s->parents[j]) rev[rn++] = j;
        for (int i = rn - 1; i >= 0; i--) sc[sn++] = rev[i];
    } else {
        tree h = {s, pos, malloc(sizeof(float) * (size_t)n), malloc(sizeof(int) * (size_t)n)};
        if (h.reach && h.next) {
            for (int j = 0; j < n; j++) h.reach[j] = pos[j][0] * up[0] + pos[j][1] * up[1] + pos[j][2] * up[2], h.next[j] = -1;
            for (int j = n - 1; j >= 0; j--) { /* children first: h.reach becomes each subtree's highest point */
                int p = s->parents[j];
                if (p >= 0 && (h.next[p] < 0 || h.reach[j] > h.reach[h.next[p]])) h.next[p] = j;
                if (p >= 0 && h.reach[j] > h.reach[p]) h.reach[p] = h.reach[j];
            }
            sn = chain(&h, spine, sc, MAXC);
        }
        free(h.reach);
        free(h.next);
        if (!sn) goto done;
    }
    if (leg[0] >= 0 && leg[1] >= 0) {
        int c0[MAXC], c1[MAXC], n0 = chain(&t, leg[0], c0, MAXC), n1 = chain(&t, leg[1], c1, MAXC);
        int k0 = limb_start(&t, c0, n0), k1 = limb_start(&t, c1, n1);
        int left0 = pos[c0[k0 + 1]][0] > pos[c1[k1 + 1]][0];
        for (int side = 0; side < 2; side++) {
            const int *c = (side == 0) == left0 ? c0 : c1;
            int cn = (side == 0) == left0 ? n0 : n1, k = (side == 0) == left0 ? k0 : k1;
            int base = side == 0 ? STANCE_SLOT_LEFT_UPPER_LEG : STANCE_SLOT_RIGHT_UPPER_LEG;
            fill(m, base, c[k]);
            fill(m, base + 1, c[k + 1]);
            fill(m, base + 2, c[k + 2]);
            if (k + 3 < cn) fill(m, base + 3, c[k + 3]);
        }
    }
    /* arms: the two branches off the spine chain (not the hips) reaching farthest */
    int arm[2] = {-1, -1};
    for (int j = 0; j < n; j++) {
        int p = s->parents[j];
        if (p < 0 || p == hips || !on_chain(sc, sn, p) || on_chain(sc, sn, j)) continue;
        if (arm[0] < 0 || t.reach[j] > t.reach[arm[0]]) arm[1] = arm[0], arm[0] = j;
        else if (arm[1] < 0 || t.reach[j] > t.reach[arm[1]]) arm[1] = j;
    }
    int chest = -1;
    if (arm[0] >= 0 && arm[1] >= 0) {
        int c[2][MAXC], cn[2], k[2];
        for (int a = 0; a < 2; a++) {
            cn[a] = chain(&t, arm[a], c[a], MAXC);
            k[a] = -1;
            /* the hand: the first joint with two or more children (the fingers) */
            for (int i = 2; i < cn[a] && k[a] < 0; i++)
                if (kids[c[a][i]] >= 2) k[a] = i - 2;
            if (k[a] < 0) k[a] = limb_start(&t, c[a], cn[a]);
        }
        if (k[0] >= 0 && k[1] >= 0) {
            int left0 = pos[c[0][k[0] + 2]][0] > pos[c[1][k[1] + 2]][0];
            for (int side = 0; side < 2; side++) {
                int a = (side == 0) == left0 ? 0 : 1;
                int base = side == 0 ? STANCE_SLOT_LEFT_SHOULDER : STANCE_SLOT_RIGHT_SHOULDER;
                if (k[a] >= 1) fill(m, base, c[a][k[a] - 1]);
                fill(m, base + 1, c[a][k[a]]);
                fill(m, base + 2, c[a][k[a] + 1]);
                fill(m, base + 3, c[a][k[a] + 2]);
            }
            int p0 = s->parents[arm[0]], p1 = s->parents[arm[1]];
            chest = depth[p0] > depth[p1] ? p0 : p1;
        }
    }
    /* the spine chain: spine = the hips' child on it, chest = the arms'
     * parent (else the neck's), neck and head above it */
    int ci = -1;
    for (int i = 0; i < sn; i++)
        if (sc[i] == chest) ci = i;
    int neck = m->joint[STANCE_SLOT_NECK];
    if (ci < 0 && neck >= 0)
        for (int i = 0; i < sn; i++)
            if (sc[i] == neck && i > 0) ci = i - 1;
    if (ci >= 0) {
        if (ci > 0) fill(m, STANCE_SLOT_SPINE, sc[0]);
        fill(m, STANCE_SLOT_CHEST, sc[ci]);
        if (ci + 2 < sn) fill(m, STANCE_SLOT_NECK, sc[ci + 1]);
        if (ci + 1 < sn) fill(m, STANCE_SLOT_HEAD, sc[sn - 1]);
    }
done:
    free(t.reach);
    free(t.next);
    free(kids);
    free(count);
}

stance_status stance_humanoid_map_find(const stance_skeleton *skeleton, const stance_humanoid_map_desc *desc,
                                       stance_humanoid_map *out, stance_error *err) {
    if (!skeleton || !out) return st_fail(err, STANCE_ERR_ARGUMENT, "humanoid map: %s is NULL", skeleton ? "out" : "skeleton");
    stance_humanoid_map_desc d = desc ? *desc : (stance_humanoid_map_desc){0};
    if (d.no_names != 0 && d.no_names != 1)
        return st_fail(err, STANCE_ERR_ARGUMENT, "humanoid map: desc->no_names is %d (0 or 1)", d.no_names);
    stance_humanoid_map m;
    for (int i = 0; i < STANCE_HUMANOID_SLOTS; i++) m.joint[i] = -1, m.found[i] = STANCE_FOUND_NONE;
    int n = skeleton->joint_count;
    int *depth = malloc(sizeof(int) * (size_t)n);
    float (*pos)[3] = malloc(sizeof *pos * (size_t)n);
    float (*rot)[4] = malloc(sizeof *rot * (size_t)n);
    if (!depth || !pos || !rot) {
        free(depth), free(pos), free(rot);
        return st_fail(err, STANCE_ERR_MEMORY, "humanoid map: out of memory");
    }
    for (int j = 0; j < n; j++) depth[j] = skeleton->parents[j] < 0 ? 0 : depth[skeleton->parents[j]] + 1;
    rt_rest_positions(skeleton, pos, rot);
    if (!d.no_names) by_names(skeleton, depth, &m);
    by_structure(skeleton, depth, pos, &m);
    free(depth), free(pos), free(rot);
    if (d.map_file) {
        stance_status s = rt_apply_map_file(d.map_file, skeleton, &m, err);
        if (s) return s;
    }
    *out = m;
    return st_ok(err);
}
