/* src/core/load/asset_events.c - the end of every CLIP section, dense or
 * compressed: the events and the root path (layout in asset.c's header
 * comment), counts checked against the bytes left before anything is
 * allocated. */
#include "core/load/asset_internal.h"

/* Events then the root path (both encodings end with them), and with
 * FLAG_ROOT_YAW the path's yaws (turn_width 1), with FLAG_ROOT_ROT its
 * rotations (turn_width 4; turn NULL: neither flag is set). */
stance_status st_asset_read_events_root(reader *r, scratch *s, int index, const char *name, stance_event_desc *events,
                                      char (*event_names)[STANCE_EVENT_NAME], uint32_t *event_count, uint32_t *root_n,
                                      float **root, float **turn, int turn_width, stance_error *err) {
    *event_count = r_u32(r);
    if (r->bad || *event_count > STANCE_MAX_EVENTS || r_left(r) / 6 < *event_count)
        return st_fail(err, STANCE_ERR_FORMAT, "clip %d '%s': event count %u is not in 0..%d or larger than the section",
                       index, name, (unsigned)*event_count, STANCE_MAX_EVENTS);
    for (uint32_t i = 0; i < *event_count; i++) {
        if (!r_name(r, event_names[i], STANCE_EVENT_NAME))
            return st_fail(err, STANCE_ERR_FORMAT, "clip %d '%s': event %u has a bad name", index, name, (unsigned)i);
        events[i].name = event_names[i];
        events[i].time = r_f32(r);
    }
    *root_n = r_u32(r);
    *root = NULL;
    if (r->bad || *root_n > STANCE_MAX_KEYS || r_left(r) / 16 < *root_n)
        return st_fail(err, STANCE_ERR_FORMAT, "clip %d '%s': bad root path (%u keys)", index, name, (unsigned)*root_n);
    if (*root_n > 0) {
        if (!(*root = scratch_alloc(s, sizeof(float) * 4 * (size_t)*root_n)))
            return st_fail(err, STANCE_ERR_MEMORY, "clip %d '%s': allocation of the root path failed", index, name);
        r_f32n(r, *root, 4 * (size_t)*root_n);
    }
    if (turn && *root_n > 0) {
        const char *what = turn_width == 1 ? "yaw" : "rotation";
        if (r_left(r) / 4 / (size_t)turn_width < *root_n)
            return st_fail(err, STANCE_ERR_FORMAT, "clip %d '%s': the root %s is missing", index, name, what);
        if (!(*turn = scratch_alloc(s, sizeof(float) * (size_t)turn_width * (size_t)*root_n)))
            return st_fail(err, STANCE_ERR_MEMORY, "clip %d '%s': allocation of the root %s failed", index, name, what);
        r_f32n(r, *turn, (size_t)turn_width * (size_t)*root_n);
    }
    if (r->bad || r_left(r) != 0)
        return st_fail(err, STANCE_ERR_FORMAT, "clip %d '%s': section size does not match its content", index, name);
    return STANCE_OK;
}
