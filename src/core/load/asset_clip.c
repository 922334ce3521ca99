/* src/core/load/asset_clip.c - one CLIP section of a .stance file (the
 * layout is asset.c's header comment): the dense encodings (versions 1 and
 * 2) read here, the compressed ones (3 to 5) handed to asset_packed.c, the
 * events and root path to asset_events.c; the clip is built only through
 * stance_clip_create (or the packed twin), so a file goes through the
 * checks a caller's description would. Called by the asset loader (asset.c)
 * and the graph binder (graph_bind.c: a graph's delta clips). */
#include <string.h>

#include "core/load/asset_internal.h"

/* A loaded clip's dense data may not exceed this: it bounds what a small
 * file can make the loader allocate (the grid is stored per animated joint,
 * the clip per padded joint). */
#define MAX_CLIP_BYTES ((size_t)1 << 30)

stance_status st_asset_load_clip(reader *r, const stance_skeleton *sk, const stance_allocator *al, int index,
                                uint32_t version, stance_clip **out, stance_error *err) {
    char name[64];
    if (!r_name(r, name, sizeof name))
        return st_fail(err, STANCE_ERR_FORMAT, "clip %d: bad name", index);
    const int J = sk->joint_count;
    float duration = r_f32(r);
    uint32_t flags = r_u32(r);
    float root_speed = r_f32(r);
    uint32_t K = r_u32(r);
    if (r->bad || (flags & ~(FLAG_SLERP | FLAG_ROOT_JOINT0 | FLAG_ROOT_YAW | FLAG_ROOT_ROT | (version >= 3 ? FLAG_PACKED : 0u))) ||
        ((flags & (FLAG_ROOT_YAW | FLAG_ROOT_ROT)) && (flags & FLAG_ROOT_JOINT0)) ||
        ((flags & FLAG_ROOT_YAW) && (flags & FLAG_ROOT_ROT)))
        return st_fail(err, STANCE_ERR_FORMAT, "clip %d '%s': bad header or unknown flags", index, name);
    if (K < 1 || K > STANCE_MAX_KEYS || (!(flags & FLAG_PACKED) && r_left(r) / 4 < K))
        return st_fail(err, STANCE_ERR_FORMAT, "clip %d '%s': key count %u is not in 1..%d or larger than the section",
                       index, name, (unsigned)K, STANCE_MAX_KEYS);
    if (flags & FLAG_PACKED)
        return st_asset_load_packed_clip(r, sk, al, index, name, duration, flags, root_speed, K, version, out, err);
    scratch s = {al, {0}, {0}, 0};
    stance_status st = STANCE_OK;
    float *times = scratch_alloc(&s, sizeof(float) * K);
    unsigned char *anim = scratch_alloc(&s, (size_t)J);
    stance_track_desc *tracks = scratch_alloc(&s, sizeof(stance_track_desc) * 3 * (size_t)J);
    if (!times || !anim || !tracks) {
        st = st_fail(err, STANCE_ERR_MEMORY, "clip %d '%s': allocation failed", index, name);
        goto done;
    }
    r_f32n(r, times, K);
    r_take(r, anim, (size_t)J);
    uint32_t blocks[3];
    for (int ch = 0; ch < 3; ch++) blocks[ch] = r_u32(r);
    if (r->bad) {
        st = st_fail(err, STANCE_ERR_FORMAT, "clip %d '%s': section ends inside the key grid", index, name);
        goto done;
    }
    /* Count the stored floats; the section must hold them before we allocate. */
    size_t floats = 0;
    int track_count = 0;
    const int joint0_root = (flags & FLAG_ROOT_JOINT0) != 0;
    stance_track_desc *joint0_track = NULL; /* filled from the root path */
    for (int ch = 0; ch < 3; ch++) {
        if (blocks[ch] != 1 && blocks[ch] != K) {
            st = st_fail(err, STANCE_ERR_FORMAT, "clip %d '%s': channel %d stores %u keys, not 1 or %u",
                         index, name, ch, (unsigned)blocks[ch], (unsigned)K);
            goto done;
        }
        for (int j = 0; j < J; j++) {
            if (!(anim[j] & (1u << ch))) continue;
            track_count++;
            if (!(ch == 0 && j == 0 && joint0_root)) floats += (size_t)blocks[ch] * (ch == 1 ? 4u : 3u);
        }
    }
    for (int j = 0; j < J; j++)
        if (anim[j] & ~7u) {
            st = st_fail(err, STANCE_ERR_FORMAT, "clip %d '%s': joint %d has unknown channel bits", index, name, j);
            goto done;
        }
    if (r_left(r) / 4 < floats) {
        st = st_fail(err, STANCE_ERR_FORMAT, "clip %d '%s': %zu key values do not fit in the section", index, name, floats);
        goto done;
    }
    {
        /* What stance_clip_create would allocate: refuse absurd amplification. */
        size_t pc = (size_t)sk->padded_count, dense = 0;
        for (int ch = 0; ch < 3; ch++) {
            int any = 0;
            for (int j = 0; j < J; j++) any |= (anim[j] >> ch) & 1;
            dense += (any ? (size_t)K : 1u) * pc * (ch == 1 ? 16u : 12u);
        }
        if (dense > MAX_CLIP_BYTES) {
            st = st_fail(err, STANCE_ERR_FORMAT, "clip %d '%s': %u keys on %d joints need %zu bytes, more than %zu",
                         index, name, (unsigned)K, J, dense, MAX_CLIP_BYTES);
            goto done;
        }
    }
    float *values = scratch_alloc(&s, sizeof(float) * floats);
    if (!values) {
        st = st_fail(err, STANCE_ERR_MEMORY, "clip %d '%s': allocation of %zu values failed", index, name, floats);
        goto done;
    }
    float *v = values;
    int ti = 0;
    for (int ch = 0; ch < 3; ch++) {
        const size_t width = ch == 1 ? 4 : 3;
        for (int j = 0; j < J; j++) {
            if (!(anim[j] & (1u << ch))) continue;
            stance_track_desc *t = &tracks[ti++];
            t->joint = j;
            t->channel = (stance_channel)ch;
            t->key_count = (int)blocks[ch];
            t->times = times;
            t->values = v;
            if (ch == 0 && j == 0 && joint0_root) {
                joint0_track = t;
                continue;
            }
            r_f32n(r, v, (size_t)blocks[ch] * width);
            v += (size_t)blocks[ch] * width;
        }
    }
    if (K > 1 && blocks[0] == 1 && blocks[1] == 1 && blocks[2] == 1) {
        /* Every channel is stored once, so every track has one key and the
         * grid would come back as one time: one track carries them all. */
        stance_track_desc *t = NULL;
        for (int i = 0; i < track_count && !t; i++)
            if (&tracks[i] != joint0_track) t = &tracks[i];
        if (t) {
            const size_t width = t->channel == STANCE_CHANNEL_ROTATION ? 4 : 3;
            float *held = scratch_alloc(&s, sizeof(float) * width * K);
            if (!held) {
                st = st_fail(err, STANCE_ERR_MEMORY, "clip %d '%s': allocation of %u keys failed", index, name, (unsigned)K);
                goto done;
            }
            for (uint32_t k = 0; k < K; k++) memcpy(held + width * k, t->values, sizeof(float) * width);
            t->values = held;
            t->key_count = (int)K;
        }
    }
    uint32_t event_count = r_u32(r);
    if (r->bad || event_count > STANCE_MAX_EVENTS || r_left(r) / 6 < event_count) {
        st = st_fail(err, STANCE_ERR_FORMAT, "clip %d '%s': event count %u is not in 0..%d or larger than the section",
                     index, name, (unsigned)event_count, STANCE_MAX_EVENTS);
        goto done;
    }
    stance_event_desc events[STANCE_MAX_EVENTS];
    char event_names[STANCE_MAX_EVENTS][STANCE_EVENT_NAME];
    for (uint32_t i = 0; i < event_count; i++) {
        if (!r_name(r, event_names[i], STANCE_EVENT_NAME)) {
            st = st_fail(err, STANCE_ERR_FORMAT, "clip %d '%s': event %u has a bad name", index, name, (unsigned)i);
            goto done;
        }
        events[i].name = event_names[i];
        events[i].time = r_f32(r);
    }
    uint32_t root_n = r_u32(r);
    if (r->bad || root_n > STANCE_MAX_KEYS || r_left(r) / 16 < root_n ||
        (joint0_root && (root_n == 0 || !joint0_track))) {
        st = st_fail(err, STANCE_ERR_FORMAT, "clip %d '%s': bad root path (%u keys)", index, name, (unsigned)root_n);
        goto done;
    }
    float *root = NULL;
    if (root_n > 0) {
        root = scratch_alloc(&s, sizeof(float) * 4 * (size_t)root_n);
        if (!root) {
            st = st_fail(err, STANCE_ERR_MEMORY, "clip %d '%s': allocation of the root path failed", index, name);
            goto done;
        }
        r_f32n(r, root, 4 * (size_t)root_n);
    }
    float *yaw = NULL; /* FLAG_ROOT_YAW: root_n yaws; FLAG_ROOT_ROT: root_n quaternions */
    const size_t tw = (flags & FLAG_ROOT_ROT) ? 4u : 1u;
    if ((flags & (FLAG_ROOT_YAW | FLAG_ROOT_ROT)) && root_n > 0) {
        yaw = r_left(r) / 4 / tw >= root_n ? scratch_alloc(&s, sizeof(float) * tw * (size_t)root_n) : NULL;
        if (!yaw) {
            st = st_fail(err, STANCE_ERR_FORMAT, "clip %d '%s': the root %s is missing or could not be allocated", index, name,
                         tw == 1 ? "yaw" : "rotation");
            goto done;
        }
        r_f32n(r, yaw, tw * (size_t)root_n);
    }
    if (r->bad || r_left(r) != 0) {
        st = st_fail(err, STANCE_ERR_FORMAT, "clip %d '%s': section size does not match its content", index, name);
        goto done;
    }
    stance_clip_desc d;
    memset(&d, 0, sizeof d);
    d.name = name;
    d.duration = duration;
    d.track_count = track_count;
    d.tracks = tracks;
    d.event_count = (int)event_count;
    d.events = events;
    d.slerp = (flags & FLAG_SLERP) ? 1 : 0;
    if (joint0_track) { /* the path is joint 0's track: the clip derives it */
        joint0_track->key_count = (int)root_n;
        joint0_track->times = root;
        joint0_track->values = root + root_n;
    } else {
        d.root_key_count = (int)root_n;
        d.root_times = root;
        d.root_values = root ? root + root_n : NULL;
        if (flags & FLAG_ROOT_ROT) d.root_rotation = yaw;
        else d.root_yaw = yaw;
    }
    d.root_speed = root_speed;
    if (!st_finite(duration) || !(duration > 0.0f)) {
        st = st_fail(err, STANCE_ERR_VALUE, "clip %d '%s': duration %g is not a finite time > 0", index, name, (double)duration);
        goto done;
    }
    st = stance_clip_create(&d, sk, al, out, err);
done:
    scratch_release(&s);
    return st;
}

/* The asset's pointer arrays with their full counts at once (NULL entries:
 * destroy frees what a failure further on leaves). */
