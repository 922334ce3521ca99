/* src/io/import_units.c - how long an imported file's model unit is
 * (stance_import_unit_cm, stance/import.h): the unit error bounds given in
 * centimetres (stance import --error-cm, --vertex-cm) are converted with.
 * Formats with a unit (glTF: metres by its specification; FBX and Collada as
 * the importer leaves them, metres) give it; a BVH file has none, so its
 * unit is found from its skeleton's rest pose (docs/compression.md says how
 * and why). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/base/internal.h"
#include "stance/import.h"
#include "stance/pose.h"

/* The rest pose's joints' largest extent along one axis (model units). */
static stance_status rest_extent(const stance_skeleton *sk, double *out, stance_error *err) {
    stance_pose l, m;
    stance_status s = stance_pose_create(&l, sk->joint_count, NULL, err);
    if (s) return s;
    if ((s = stance_pose_create(&m, sk->joint_count, NULL, err))) {
        stance_pose_destroy(&l);
        return s;
    }
    stance_pose_set_rest(&l, sk, NULL);
    stance_local_to_model(&m, &l, sk, NULL, NULL);
    double lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0}, best = 0.0;
    for (int j = 0; j < sk->joint_count; j++) {
        const double p[3] = {m.tx[j], m.ty[j], m.tz[j]};
        for (int a = 0; a < 3; a++) {
            if (j == 0 || p[a] < lo[a]) lo[a] = p[a];
            if (j == 0 || p[a] > hi[a]) hi[a] = p[a];
        }
    }
    for (int a = 0; a < 3; a++) best = hi[a] - lo[a] > best ? hi[a] - lo[a] : best;
    stance_pose_destroy(&l);
    stance_pose_destroy(&m);
    *out = best;
    return STANCE_OK;
}

static int is_bvh(const char *path) {
    const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
    if (dot && (!slash || dot > slash)) {
        const char *e = dot + 1;
        if ((e[0] | 32) == 'b' && (e[1] | 32) == 'v' && (e[2] | 32) == 'h' && !e[3]) return 1;
    }
    char head[16] = {0};
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    size_t got = fread(head, 1, sizeof head - 1, f);
    fclose(f);
    size_t i = 0;
    while (i < got && (head[i] == ' ' || head[i] == '\t' || head[i] == '\r' || head[i] == '\n')) i++;
    return got - i >= 9 && !memcmp(head + i, "HIERARCHY", 9);
}

stance_status stance_import_unit_cm(const char *path, const stance_asset *asset, float *unit_cm, char *how,
                                    size_t how_size, stance_error *err) {
    if (unit_cm) *unit_cm = 0.0f;
    if (how && how_size) how[0] = '\0';
    if (!path || !asset || !asset->skeleton || !unit_cm)
        return st_fail(err, STANCE_ERR_ARGUMENT, "import unit: path, asset (with its skeleton) and unit_cm are required");
    if (!is_bvh(path)) {
        *unit_cm = 100.0f;
        if (how && how_size) snprintf(how, how_size, "metres (the file's format)");
        return st_ok(err);
    }
    double extent = 0.0;
    stance_status s = rest_extent(asset->skeleton, &extent, err);
    if (s) return s;
    if (!(extent > 0.0) || !isfinite(extent))
        return st_fail(err, STANCE_ERR_VALUE, "%s: BVH has no unit and its rest pose has no extent to find one from "
                       "(give --unit-cm)", path);
    /* a unit under which the rest pose is a person's size, else the extent read as 1.5 m */
    static const struct { const char *name; double cm; } units[] = {
        {"metres", 100.0}, {"centimetres", 1.0}, {"millimetres", 0.1}, {"inches", 2.54}};
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        const double metres = extent * units[i].cm / 100.0;
        if (metres >= STANCE_UNIT_PERSON_MIN_M && metres <= STANCE_UNIT_PERSON_MAX_M) {
            *unit_cm = (float)units[i].cm;
            if (how && how_size)
                snprintf(how, how_size, "%s (BVH has no unit; its rest pose spans %.4g units, %.3g m in %s)",
                         units[i].name, extent, metres, units[i].name);
            return st_ok(err);
        }
    }
    *unit_cm = (float)(100.0 * STANCE_UNIT_PERSON_M / extent);
    if (!(*unit_cm > 0.0f) || !isfinite(*unit_cm))
        return st_fail(err, STANCE_ERR_VALUE, "%s: BVH rest pose spans %g units: no unit found (give --unit-cm)", path, extent);
    if (how && how_size)
        snprintf(how, how_size, "%.4g cm per unit (BVH has no unit; its rest pose spans %.4g units, read as %.3g m)",
                 (double)*unit_cm, extent, STANCE_UNIT_PERSON_M);
    return st_ok(err);
}
