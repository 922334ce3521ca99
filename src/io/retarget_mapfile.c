/* src/io/retarget_mapfile.c - the humanoid map file (docs/retargeting.md,
 * docs/retarget-map.schema.json): {"slots": {"left_hand": "Hand.L", ...}},
 * a joint name per slot (null unmaps it), read with jansson. Every problem
 * is one message FILE:LINE:COL: jansson's position for a syntax error, the
 * position of the offending key in the text for the others. Also the slot
 * names (stance_humanoid_slot_name). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/internal.h"
#include "core/base/names.h"
#include "io/files.h"
#include "io/retarget_internal.h"

static const char *const slot_names[STANCE_HUMANOID_SLOTS] = {
    "hips", "spine", "chest", "neck", "head",
    "left_upper_leg", "left_lower_leg", "left_foot", "left_toes",
    "right_upper_leg", "right_lower_leg", "right_foot", "right_toes",
    "left_shoulder", "left_upper_arm", "left_lower_arm", "left_hand",
    "right_shoulder", "right_upper_arm", "right_lower_arm", "right_hand",
};

static const char *const finger_names[STANCE_RETARGET_SLOTS - STANCE_SLOT_FINGERS] = {
    "left_thumb_1", "left_thumb_2", "left_thumb_3", "left_index_1", "left_index_2", "left_index_3",
    "left_middle_1", "left_middle_2", "left_middle_3", "left_ring_1", "left_ring_2", "left_ring_3",
    "left_little_1", "left_little_2", "left_little_3",
    "right_thumb_1", "right_thumb_2", "right_thumb_3", "right_index_1", "right_index_2", "right_index_3",
    "right_middle_1", "right_middle_2", "right_middle_3", "right_ring_1", "right_ring_2", "right_ring_3",
    "right_little_1", "right_little_2", "right_little_3",
};

const char *stance_humanoid_slot_name(int slot) {
    if (slot >= STANCE_SLOT_FINGERS && slot < STANCE_RETARGET_SLOTS) return finger_names[slot - STANCE_SLOT_FINGERS];
    return slot >= 0 && slot < STANCE_HUMANOID_SLOTS ? slot_names[slot] : "";
}

int stance_humanoid_slot_optional(int slot) {
    return slot == STANCE_SLOT_LEFT_TOES || slot == STANCE_SLOT_RIGHT_TOES || slot == STANCE_SLOT_LEFT_SHOULDER ||
           slot == STANCE_SLOT_RIGHT_SHOULDER || slot == STANCE_SLOT_NECK || slot == STANCE_SLOT_CHEST;
}

const char *const *rt_slot_names(void) { return slot_names; }

#ifdef STANCE_HAVE_JANSSON
#include <jansson.h>

/* Line and column (1-based) of the first `"key"` followed by a colon, from
 * `from`; of `from` itself when not found. */
static void key_position(const char *text, size_t size, size_t from, const char *key, int *line, int *col) {
    size_t klen = strlen(key), at = from;
    for (size_t i = from; i + klen + 2 <= size; i++) {
        if (text[i] != '"' || memcmp(text + i + 1, key, klen) || text[i + 1 + klen] != '"') continue;
        size_t k = i + klen + 2;
        while (k < size && (text[k] == ' ' || text[k] == '\t' || text[k] == '\n' || text[k] == '\r')) k++;
        if (k < size && text[k] == ':') { at = i; break; }
    }
    *line = 1, *col = 1;
    for (size_t i = 0; i < at && i < size; i++) {
        if (text[i] == '\n') (*line)++, *col = 1;
        else (*col)++;
    }
}

static const char *joint_name_at(const void *set, int i) {
    return stance_skeleton_joint_name((const stance_skeleton *)set, i);
}

static stance_status apply(const char *path, const char *text, size_t size, const stance_skeleton *s,
                           stance_humanoid_map *m, stance_error *err) {
    json_error_t je;
    json_t *doc = json_loadb(text, size, JSON_REJECT_DUPLICATES, &je);
    if (!doc)
        return st_fail(err, STANCE_ERR_FORMAT, "%s:%d:%d: invalid JSON: %s", path, je.line > 0 ? je.line : 1,
                       je.column > 0 ? je.column : 1, je.text);
    int line = 1, col = 1;
    stance_status st = STANCE_OK;
    if (!json_is_object(doc)) {
        size_t i = 0;
        while (i < size && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r')) i++;
        key_position(text, size, i, "\001", &line, &col);
        st = st_fail(err, STANCE_ERR_FORMAT, "%s:%d:%d: a map file is a JSON object with \"slots\"", path, line, col);
        goto out;
    }
    const char *key;
    json_t *v;
    json_object_foreach(doc, key, v) {
        if (!strcmp(key, "$schema") && json_is_string(v)) continue;
        if (strcmp(key, "slots")) {
            key_position(text, size, 0, key, &line, &col);
            st = st_fail(err, STANCE_ERR_FORMAT, "%s:%d:%d: unknown key '%s' (a map file has \"slots\" and \"$schema\")", path, line, col, key);
            goto out;
        }
    }
    json_t *slots = json_object_get(doc, "slots");
    if (!json_is_object(slots)) {
        key_position(text, size, 0, "slots", &line, &col);
        st = st_fail(err, STANCE_ERR_FORMAT, "%s:%d:%d: %s", path, line, col,
                     slots ? "\"slots\" must be an object of slot: joint name" : "the map file has no \"slots\" object");
        goto out;
    }
    size_t from = 0; /* the offset of "slots": its keys are searched for after it */
    while (from + 7 <= size && strncmp(text + from, "\"slots\"", 7)) from++;
    stance_humanoid_map r = *m;
    json_object_foreach(slots, key, v) {
        int slot = -1;
        for (int i = 0; i < STANCE_HUMANOID_SLOTS; i++)
            if (!strcmp(key, rt_slot_names()[i])) slot = i;
        key_position(text, size, from, key, &line, &col);
        if (slot < 0) {
            char hint[200];
            st_suggest(hint, sizeof hint, key, st_list_name_at, rt_slot_names(), STANCE_HUMANOID_SLOTS);
            st = st_fail(err, STANCE_ERR_FORMAT, "%s:%d:%d: unknown slot '%s'%s", path, line, col, key, hint);
            goto out;
        }
        if (json_is_null(v)) {
            r.joint[slot] = -1, r.found[slot] = STANCE_FOUND_FILE;
            continue;
        }
        if (!json_is_string(v)) {
            st = st_fail(err, STANCE_ERR_FORMAT, "%s:%d:%d: slot '%s' must be a joint name (a string) or null", path, line, col, key);
            goto out;
        }
        int j = stance_skeleton_find(s, json_string_value(v));
        if (j < 0) {
            char hint[200];
            st_suggest(hint, sizeof hint, json_string_value(v), joint_name_at, s, s->joint_count);
            st = st_fail(err, STANCE_ERR_NOT_FOUND, "%s:%d:%d: slot '%s': the skeleton has no joint '%s'%s", path, line, col, key,
                         json_string_value(v), hint);
            goto out;
        }
        for (int i = 0; i < STANCE_HUMANOID_SLOTS; i++)
            if (i != slot && r.joint[i] == j) r.joint[i] = -1, r.found[i] = STANCE_FOUND_NONE; /* a joint plays one slot */
        r.joint[slot] = j, r.found[slot] = STANCE_FOUND_FILE;
    }
    *m = r;
out:
    json_decref(doc);
    return st;
}

stance_status rt_apply_map_file(const char *path, const stance_skeleton *s, stance_humanoid_map *m, stance_error *err) {
    void *bytes = NULL;
    size_t size = 0;
    stance_error e = {0};
    stance_status st = stance_io_read_file(path, &bytes, &size, &e);
    if (st) return st_fail(err, st, "%s: %s", path, e.message); /* the path first, as every file message */
    st = apply(path, (const char *)bytes, size, s, m, err);
    free(bytes);
    return st;
}
#else
stance_status rt_apply_map_file(const char *path, const stance_skeleton *s, stance_humanoid_map *m, stance_error *err) {
    (void)s, (void)m;
    return st_fail(err, STANCE_ERR_UNSUPPORTED, "%s: map files need jansson (built without it)", path);
}
#endif
