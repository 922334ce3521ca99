/* src/io/gltf_bake.h - the maths of the glTF import, on plain arrays (no file
 * reading, no tinygltf): affine transforms in double, glTF animation curves
 * evaluated as the specification says, and their baking onto the runtime's
 * linear key grid (the tolerance check and the interval halving). Used by
 * gltf.cpp; its transform maths also by the assimp path (import.c,
 * import_mesh.c). Tools side. */
#ifndef STANCE_IO_GLTF_BAKE_H
#define STANCE_IO_GLTF_BAKE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- transforms ------------------------------------------------------------- */

typedef struct stance_bake_xform {
    double t[3], r[4], s[3]; /* r is x y z w */
} stance_bake_xform;

typedef struct stance_bake_mat {
    double m[3][4]; /* rows of an affine matrix; the fourth row is 0 0 0 1 */
} stance_bake_mat;

void stance_bake_quat_mul(const double a[4], const double b[4], double out[4]);
void stance_bake_quat_rotate(const double q[4], const double v[3], double out[3]);
int stance_bake_quat_normalize(double q[4]); /* 0 when (near) zero or not finite */
stance_bake_mat stance_bake_mat_identity(void);
stance_bake_mat stance_bake_mat_mul(const stance_bake_mat *a, const stance_bake_mat *b);
stance_bake_mat stance_bake_mat_from_xform(const stance_bake_xform *x);
int stance_bake_mat_inverse(const stance_bake_mat *a, stance_bake_mat *out); /* 0 when singular */
/* Translation, rotation and signed scale (a mirror in x); 0 when a scale is
 * zero or a value is not finite. */
int stance_bake_decompose(const stance_bake_mat *m, stance_bake_xform *x);

/* One accessor component, decoded: normalized integers as the spec says
 * (max(c / 127, -1), c / 255, max(c / 32767, -1), c / 65535). ct is a glTF
 * componentType (5120..5126). */
double stance_bake_decode(const unsigned char *p, int ct, int normalized);

/* ---- the skeleton's space ----------------------------------------------------- */

/* How file values become the skeleton's: the transform above the skeleton
 * goes into joint 0 (its uniform scale into every translation), and the
 * import's scale multiplies translations. */
typedef struct stance_bake_space {
    stance_bake_xform above;   /* its scale is not used: push_scale */
    double push_scale;
    double scale;
    int above_identity;
} stance_bake_space;

void stance_bake_joint_t(const stance_bake_space *sp, int joint, const double in[3], double out[3]);
void stance_bake_joint_r(const stance_bake_space *sp, int joint, const double in[4], double out[4]);

/* ---- curves ------------------------------------------------------------------- */

enum { STANCE_BAKE_T = 0, STANCE_BAKE_R = 1, STANCE_BAKE_S = 2 };
enum { STANCE_BAKE_LINEAR = 0, STANCE_BAKE_STEP = 1, STANCE_BAKE_CUBICSPLINE = 2 };

/* One channel: `keys` strictly increasing times and their values, width 3
 * (translation, scale) or 4 (rotation) per element, one element per key (3
 * for CUBICSPLINE: in-tangent, value, out-tangent). LINEAR and STEP rotation
 * keys are unit quaternions. */
typedef struct stance_bake_curve {
    int joint, path, interp;
    size_t keys;
    const double *times, *values;
} stance_bake_curve;

/* The specification's value at time t (held before the first key and after
 * the last): STEP holds, LINEAR lerps (slerps rotations, the shorter way),
 * CUBICSPLINE is the Hermite spline with tangents times the key interval;
 * rotations normalized. 0 when a rotation comes out as zero (the identity is
 * written). */
int stance_bake_value(const stance_bake_curve *c, double t, double out[4]);
/* DCC tools hide a part by scaling it to 0; the runtime takes scales of at
 * least STANCE_MIN_SCALE in size (stance/base.h), so each component below it
 * is raised to it, its sign kept (0 and -0 become +STANCE_MIN_SCALE): the part
 * stays hidden. Returns how many components were raised. */
int stance_bake_raise_scale(float v[3]);
/* The same in the skeleton's space, rounded to floats as the runtime stores it. */
int stance_bake_value_f(const stance_bake_space *sp, const stance_bake_curve *c, double t, float out[4]);

/* Grid times added inside (a, b), in increasing order: `count` of them in
 * `times` (capacity `cap`, grown with realloc). */
typedef struct stance_bake_times {
    float *times;
    size_t count, cap;
} stance_bake_times;

/* Halves (a, b) until the runtime's interpolation of the baked keys (lerp,
 * nlerp) of every curve is within tol_u units / tol_r radians of the spec's
 * curve at 15 points inside each piece, at most 12 halvings deep. Appends
 * the added times; *unmet counts pieces left outside the tolerance (float
 * resolution). Returns 0, or -1 when more than max_count times or memory
 * ran out. */
int stance_bake_refine(const stance_bake_space *sp, const stance_bake_curve *const *curves, int curve_count, float a, float b,
                       double tol_u, double tol_r, stance_bake_times *out, size_t max_count, int *unmet);

#ifdef __cplusplus
}
#endif
#endif
