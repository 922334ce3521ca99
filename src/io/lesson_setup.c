/* src/io/lesson_setup.c - reads a graph file's "lesson_layers" section: which
 * of its asset's clips and joints the lesson's layer experiments use
 * (`stance layers --graph FILE`). Tools side, on jansson. */
#include <stdio.h>
#include <string.h>

#include "io/lesson_setup.h"
#ifdef STANCE_HAVE_JANSSON
#include <jansson.h>
#endif

static stance_status fail(stance_error *err, stance_status s, const char *file, const char *what, const char *name) {
    if (err) {
        err->status = s;
        snprintf(err->message, sizeof err->message, "%s: \"lesson_layers\": %s%s%s%s", file, what,
                 name ? " '" : "", name ? name : "", name ? "'" : "");
    }
    return s;
}

stance_status stance_graphfile_layer_setup(const stance_graphfile *gf, stance_layer_setup *out, stance_error *err) {
    if (!gf || !out) return fail(err, STANCE_ERR_ARGUMENT, "?", "NULL argument", NULL);
    const char *file = stance_graphfile_name(gf);
    if (!stance_graphfile_desc(gf))
        return fail(err, STANCE_ERR_UNSUPPORTED, file,
                    "a compiled graph keeps no \"lesson_layers\"; give its JSON graph file", NULL);
#ifndef STANCE_HAVE_JANSSON
    return fail(err, STANCE_ERR_UNSUPPORTED, file, "built without jansson", NULL);
#else
    json_error_t je;
    json_t *root = json_load_file(file, 0, &je);
    if (!root) return fail(err, STANCE_ERR_FORMAT, file, "cannot read the file again", NULL);
    json_t *sec = json_object_get(root, "lesson_layers");
    stance_status s = STANCE_OK;
    memset(out, 0, sizeof *out);
    const stance_asset *asset = stance_graphfile_asset(gf);
    out->skeleton = stance_graphfile_skeleton(gf);
    if (!json_is_object(sec)) {
        s = fail(err, STANCE_ERR_NOT_FOUND, file, "none, so the lesson's figures are skipped (clips walk, run, wave, lean; joints spine, "
                 "arm, elbow, foot_l, foot_r); any graph: scenario --script, footlock --clip C --feet L,R", NULL);
        goto done;
    }
    const char *clip_keys[4] = {"walk", "run", "wave", "lean"};
    const stance_clip **clips[4] = {&out->walk, &out->run, &out->wave, &out->lean};
    for (int i = 0; i < 4; i++) {
        json_t *v = json_object_get(sec, clip_keys[i]);
        if (i == 3 && (!v || json_is_null(v))) continue; /* no lean: one is made from the rest pose */
        if (!json_is_string(v)) { s = fail(err, STANCE_ERR_FORMAT, file, "expected a clip name for", clip_keys[i]); goto done; }
        *clips[i] = stance_asset_find_clip(asset, json_string_value(v));
        if (!*clips[i]) { s = fail(err, STANCE_ERR_NOT_FOUND, file, "the asset has no clip named", json_string_value(v)); goto done; }
    }
    const char *joint_keys[5] = {"spine", "arm", "elbow", "foot_l", "foot_r"};
    const char **joints[5] = {&out->spine, &out->arm, &out->elbow, &out->foot_l, &out->foot_r};
    for (int i = 0; i < 5; i++) {
        json_t *v = json_object_get(sec, joint_keys[i]);
        if (!json_is_string(v)) { s = fail(err, STANCE_ERR_FORMAT, file, "expected a joint name for", joint_keys[i]); goto done; }
        int j = stance_skeleton_find(out->skeleton, json_string_value(v));
        if (j < 0) { s = fail(err, STANCE_ERR_NOT_FOUND, file, "the skeleton has no joint named", json_string_value(v)); goto done; }
        *joints[i] = stance_skeleton_joint_name(out->skeleton, j); /* lives as long as the skeleton */
    }
done:
    json_decref(root);
    if (!s && err) err->status = STANCE_OK, err->message[0] = 0;
    return s;
#endif
}
