/* src/io/import_common.c - what the assimp importer's files share (they call
 * these and these call none of them): warnings and the error prefix,
 * assimp strings, the kind of a non-joint node (camera, light, target), a
 * joint's local translation and rotation into the skeleton's space, the
 * memory budget left, case-insensitive names. import.c is the entry,
 * import_scene.c the skeleton and asset, import_clips.c the clips. */
#ifdef STANCE_HAVE_ASSIMP
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "gltf_bake.h"
#include "import_assimp.h"

/* ASCII case-insensitive comparison: 0 when equal. */
int st_imp_strcasecmp(const char *a, const char *b) {
    for (; *a && *b; a++, b++)
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b)) return 1;
    return *a || *b;
}

void st_imp_warn(importer *im, const char *fmt, ...) {
    stance_import_warnings *w = im->opt ? im->opt->warnings : NULL;
    if (!w) return;
    if (w->count < STANCE_IMPORT_WARNINGS) {
        char *msg = w->message[w->count];
        size_t cap = sizeof w->message[0];
        int n = snprintf(msg, cap, "%s: ", im->path);
        if (n < 0 || (size_t)n >= cap) n = 0;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg + n, cap - (size_t)n, fmt, ap);
        va_end(ap);
        st_escape_in_place(msg, cap); /* one printable line: assimp's messages may hold newlines */
    }
    w->count++;
}

/* The message of a runtime call's error (skeleton, clip) prefixed with the
 * file's path. */
void st_imp_prefix_error(importer *im, stance_status s) {
    if (!im->err) return;
    char msg[sizeof im->err->message];
    memcpy(msg, im->err->message, sizeof msg);
    msg[sizeof msg - 1] = 0;
    st_fail(im->err, s, "%s: %.200s", im->path, msg);
}

/* An aiString's bytes, bounded: its length is clamped to the buffer and cut
 * at the first zero byte. */
size_t st_imp_ai_len(const struct aiString *s) {
    size_t n = s->length < MAXLEN ? s->length : MAXLEN - 1;
    const char *z = memchr(s->data, 0, n);
    return z ? (size_t)(z - s->data) : n;
}

int st_imp_ai_eq(const struct aiString *a, const struct aiString *b) {
    size_t n = st_imp_ai_len(a);
    return n == st_imp_ai_len(b) && !memcmp(a->data, b->data, n);
}

/* A copy for messages: at most 63 bytes (st_fail and st_imp_warn escape
 * them, core/base/internal.h st_escape). */
const char *st_imp_ai_show(const struct aiString *s, char buf[64]) {
    size_t n = st_imp_ai_len(s);
    if (n > 63) n = 63;
    memcpy(buf, s->data, n);
    buf[n] = 0;
    return buf;
}

/* What a node is when it is not something a skeleton holds: a camera, a
 * light, or the target node of one ("<name>.Target", as 3ds Max writes
 * them), by the names in the scene's camera and light lists. NULL otherwise. */
const char *st_imp_object_kind(const struct aiScene *sc, const struct aiString *name) {
    for (unsigned i = 0; sc->mCameras && i < sc->mNumCameras; i++)
        if (sc->mCameras[i] && st_imp_ai_eq(&sc->mCameras[i]->mName, name)) return "camera";
    for (unsigned i = 0; sc->mLights && i < sc->mNumLights; i++)
        if (sc->mLights[i] && st_imp_ai_eq(&sc->mLights[i]->mName, name)) return "light";
    size_t n = st_imp_ai_len(name);
    if (n > 7 && !memcmp(name->data + n - 7, ".Target", 7)) {
        struct aiString base;
        memset(&base, 0, sizeof base);
        base.length = (ai_uint32)(n - 7);
        memcpy(base.data, name->data, n - 7);
        if (st_imp_object_kind(sc, &base)) return "camera or light target";
    }
    return NULL;
}

/* A joint's local translation / rotation into the skeleton's space. */
void st_imp_joint_t(const importer *im, int joint, const double in[3], float out[3]) {
    if (joint == 0 && !im->above_identity) {
        double v[3] = {in[0] * im->push_scale, in[1] * im->push_scale, in[2] * im->push_scale}, r[3];
        stance_bake_quat_rotate(im->above.r, v, r);
        for (int i = 0; i < 3; i++) out[i] = (float)(im->scale * (im->above.t[i] + r[i]));
    } else {
        double k = im->scale * (joint == 0 ? 1.0 : im->push_scale);
        for (int i = 0; i < 3; i++) out[i] = (float)(in[i] * k);
    }
}

void st_imp_joint_r(const importer *im, int joint, const double in[4], float out[4]) {
    double r[4] = {in[0], in[1], in[2], in[3]};
    if (joint == 0 && !im->above_identity) stance_bake_quat_mul(im->above.r, in, r);
    for (int i = 0; i < 4; i++) out[i] = (float)r[i];
}

size_t st_imp_budget_left(const importer *im, size_t temp) {
    return im->used + temp < im->budget ? im->budget - im->used - temp : 0;
}

#endif /* STANCE_HAVE_ASSIMP */
