/* src/io/gltf_clips.cpp - glTF animations baked into stance clips.
 *
 * Owns one animation's import: channels checked against the spec (target
 * node and path, sampler, accessor types and counts, times increasing),
 * every curve evaluated as the spec says (gltf_bake.c) on the clip's key
 * grid, with STEP hold keys and resampling where the runtime's
 * interpolation would leave the tolerance; a bad animation drops only its
 * clip (ClipProblem), unless strict. The animation's "extras" events become
 * the clip's own events; its payloads, thresholds, windows, curves, markers
 * and speed become the asset's clip notes (extras_notes). */
#include "gltf_imp.hpp"

namespace stance_gltf __attribute__((visibility("hidden"))) {

/* ---- clips ---------------------------------------------------------------- */

struct Chan {
    int index;                   /* in the animation */
    int joint, kind, interp;
    const std::vector<double> *times, *values; /* values: 1 or 3 (cubic) elements per key */
    int width;                   /* 3 or 4 */
    size_t keys;
    stance_bake_curve curve;     /* set once the key data is read */
};

/* The spec's value in the skeleton's space, as the runtime stores it (floats). */
bool eval_final(const Imp &im, const Chan &c, double t, float out[4]) { return stance_bake_value_f(&im.space, &c.curve, t, out) != 0; }

std::string clip_name(Imp &im, const tinygltf::Animation &an, int index, const std::vector<std::string> &done) {
    std::string name = an.name;
    name = name.substr(0, strnlen(name.c_str(), name.size()));
    if (name.empty()) name = "clip" + std::to_string(index);
    if (name.size() > 63) {
        im.warn("clip name '%s' cut to 63 bytes", show(name).c_str());
        name.resize(63);
    }
    for (size_t k = 0, tries = 0; k < done.size(); k++) {
        if (done[k] != name) continue;
        std::string base = name.substr(0, 50);
        name = base + "~" + std::to_string(++tries % 100000);
        im.warn("two clips are named '%s': the second is now '%s'", show(base).c_str(), show(name).c_str());
        k = (size_t)-1;
    }
    return name;
}

/* The animation's "extras": {"events": [{"t": seconds, "name": "..."}]}, a
 * user property glTF carries (docs/import.md), as the clip's own events. A
 * malformed event, one outside [0, duration] or past STANCE_MAX_EVENTS is
 * left out with a warning; the clip is kept. `names` owns the strings. */
static void extras_events(Imp &im, const tinygltf::Animation &an, const std::string &clip, float duration,
                          std::vector<stance_event_desc> &out, std::vector<std::string> &names) {
    const tinygltf::Value &ex = an.extras;
    if (!ex.IsObject() || !ex.Has("events")) return;
    const tinygltf::Value &ev = ex.Get("events");
    if (!ev.IsArray()) {
        im.warn("clip '%s': extras \"events\" is not an array; ignored", show(clip).c_str());
        return;
    }
    names.reserve(ev.ArrayLen());
    for (size_t i = 0; i < ev.ArrayLen(); i++) {
        const tinygltf::Value &e = ev.Get((int)i);
        if (e.IsObject() && (e.Has("payload") || e.Has("min_weight"))) continue; /* a note: extras_notes */
        const bool ok = e.IsObject() && e.Has("t") && e.Get("t").IsNumber() && e.Has("name") && e.Get("name").IsString();
        const double t = ok ? e.Get("t").GetNumberAsDouble() : 0.0;
        const std::string nm = ok ? e.Get("name").Get<std::string>() : std::string();
        if (!ok || nm.empty() || nm.size() >= STANCE_EVENT_NAME || memchr(nm.data(), 0, nm.size())) {
            im.warn("clip '%s': extras event %zu is not {\"t\": seconds, \"name\": 1..%d bytes}; left out", show(clip).c_str(), i,
                    STANCE_EVENT_NAME - 1);
            continue;
        }
        if (!(t >= 0.0 && t <= (double)duration)) {
            im.warn("clip '%s': extras event '%s' at %g s is outside the clip (0..%g s); left out", show(clip).c_str(),
                    show(nm).c_str(), t, (double)duration);
            continue;
        }
        if (out.size() >= (size_t)STANCE_MAX_EVENTS) {
            im.warn("clip '%s': more than %d extras events; the rest left out", show(clip).c_str(), STANCE_MAX_EVENTS);
            break;
        }
        names.push_back(nm);
        out.push_back(stance_event_desc{nullptr, (float)t});
    }
    for (size_t i = 0; i < out.size(); i++) out[i].name = names[i].c_str();
}

/* A tinygltf value as JSON text (objects' keys in tinygltf's order, which is
 * sorted; numbers exact: %.17g); deeper than 32 levels is null. */
static void put_json(std::string &out, const tinygltf::Value &v, int depth) {
    char num[40];
    if (depth > 32) {
        out += "null";
    } else if (v.IsObject()) {
        out += '{';
        const std::vector<std::string> keys = v.Keys();
        for (size_t i = 0; i < keys.size(); i++) {
            if (i) out += ", ";
            put_json(out, tinygltf::Value(keys[i]), depth + 1);
            out += ": ";
            put_json(out, v.Get(keys[i]), depth + 1);
        }
        out += '}';
    } else if (v.IsArray()) {
        out += '[';
        for (size_t i = 0; i < v.ArrayLen(); i++) {
            if (i) out += ", ";
            put_json(out, v.Get((int)i), depth + 1);
        }
        out += ']';
    } else if (v.IsString()) {
        out += '"';
        for (unsigned char ch : v.Get<std::string>()) {
            if (ch == '"' || ch == '\\') out += '\\', out += (char)ch;
            else if (ch < 0x20) snprintf(num, sizeof num, "\\u%04x", ch), out += num;
            else out += (char)ch;
        }
        out += '"';
    } else if (v.IsBool()) {
        out += v.Get<bool>() ? "true" : "false";
    } else if (v.IsInt()) {
        snprintf(num, sizeof num, "%d", v.Get<int>()), out += num;
    } else if (v.IsNumber() && std::isfinite(v.GetNumberAsDouble())) {
        snprintf(num, sizeof num, "%.17g", v.GetNumberAsDouble()), out += num;
    } else {
        out += "null";
    }
}

/* The animation's "extras" beyond its plain events: "windows", "curves",
 * "markers", "speed" and the events with a "payload" or "min_weight", as
 * the graph file's "clips" sidecar writes them, appended to `out` as one
 * entry `"CLIP": {...}` of the asset's clip notes (stance_asset.clip_notes;
 * checked when a graph reads them, docs/import.md). Other keys are ignored. */
void extras_notes(const tinygltf::Animation &an, const std::string &clip, std::string &out) {
    static const char *const keys[] = {"windows", "curves", "markers", "speed"};
    const tinygltf::Value &ex = an.extras;
    if (!ex.IsObject()) return;
    std::string body;
    if (ex.Has("events") && ex.Get("events").IsArray()) {
        const tinygltf::Value &ev = ex.Get("events");
        std::string list;
        for (size_t i = 0; i < ev.ArrayLen(); i++) {
            const tinygltf::Value &e = ev.Get((int)i);
            if (!e.IsObject() || (!e.Has("payload") && !e.Has("min_weight"))) continue;
            if (!list.empty()) list += ",\n      ";
            put_json(list, e, 0);
        }
        if (!list.empty()) body += "\"events\": [" + list + "]";
    }
    for (const char *k : keys) {
        if (!ex.Has(k)) continue;
        if (!body.empty()) body += ",\n    ";
        body += '"', body += k, body += "\": ";
        put_json(body, ex.Get(k), 0);
    }
    if (body.empty()) return;
    if (!out.empty()) out += ",\n  ";
    put_json(out, tinygltf::Value(clip), 0);
    out += ": {\n    " + body + "}";
}

/* Builds one clip. ClipProblem for a bad animation; im.fail for the file. */
stance_clip *build_clip(Imp &im, int ai, const std::string &name, const stance_skeleton *sk, const stance_allocator *al,
                        stance_import_clip_report *rep) {
    const tinygltf::Animation &an = im.model.animations[(size_t)ai];
    const int N = (int)im.model.nodes.size();
    std::vector<Chan> chans;
    std::vector<char> used((size_t)sk->joint_count * 3, 0);
    /* first pass: references, types and counts; nothing read yet */
    for (size_t ci = 0; ci < an.channels.size(); ci++) {
        const tinygltf::AnimationChannel &ch = an.channels[ci];
        const int n = ch.target_node;
        std::string nname = n >= 0 && n < N ? show(im.model.nodes[(size_t)n].name) : std::string("?");
        if (n < 0) {
            im.warn("clip '%s', channel %zu: no target node: ignored", show(name).c_str(), ci);
            continue;
        }
        if (n >= N) clip_fail("channel %zu targets node %d, which does not exist", ci, n);
        const int kind = path_kind(ch.target_path);
        if (ch.target_path == "weights") {
            im.warn("clip '%s', channel %zu (node '%s'): morph-target weights ignored", show(name).c_str(), ci, nname.c_str());
            continue;
        }
        if (kind < 0) clip_fail("channel %zu (node '%s'): unknown target path '%s'", ci, nname.c_str(), show(ch.target_path).c_str());
        char what[160];
        snprintf(what, sizeof what, "channel %zu (node '%s' %s)", ci, nname.c_str(), kPathName[kind]);
        if (ch.sampler < 0 || (size_t)ch.sampler >= an.samplers.size())
            clip_fail("%s: sampler %d does not exist (%zu samplers)", what, ch.sampler, an.samplers.size());
        const tinygltf::AnimationSampler &sm = an.samplers[(size_t)ch.sampler];
        int interp = sm.interpolation.empty() || sm.interpolation == "LINEAR" ? INTERP_LINEAR
                     : sm.interpolation == "STEP"                             ? INTERP_STEP
                     : sm.interpolation == "CUBICSPLINE"                      ? INTERP_CUBIC
                                                                              : -1;
        if (interp < 0) clip_fail("%s: unknown interpolation '%s' (glTF has LINEAR, STEP, CUBICSPLINE)", what, show(sm.interpolation).c_str());
        if (sm.input < 0 || (size_t)sm.input >= im.model.accessors.size() || sm.output < 0 || (size_t)sm.output >= im.model.accessors.size())
            clip_fail("%s: sampler %d input %d or output %d is not an accessor", what, ch.sampler, sm.input, sm.output);
        const tinygltf::Accessor &in = im.model.accessors[(size_t)sm.input], &out = im.model.accessors[(size_t)sm.output];
        if (in.type != TINYGLTF_TYPE_SCALAR || in.componentType != CT_FLOAT || in.normalized)
            clip_fail("%s: input accessor %d is %s %s, key times need SCALAR FLOAT", what, sm.input, type_name(in.type), ct_name(in.componentType));
        const int want = kind == PATH_R ? TINYGLTF_TYPE_VEC4 : TINYGLTF_TYPE_VEC3;
        bool ct_ok = out.componentType == CT_FLOAT && !out.normalized;
        if (kind == PATH_R && out.normalized &&
            (out.componentType == CT_BYTE || out.componentType == CT_UBYTE || out.componentType == CT_SHORT || out.componentType == CT_USHORT))
            ct_ok = true;
        if (out.type != want || !ct_ok)
            clip_fail("%s: output accessor %d is %s %s%s, %s needs %s", what, sm.output, type_name(out.type), out.normalized ? "normalized " : "",
                      ct_name(out.componentType), kPathName[kind],
                      kind == PATH_R ? "VEC4 FLOAT or normalized BYTE/UNSIGNED_BYTE/SHORT/UNSIGNED_SHORT" : "VEC3 FLOAT");
        if (in.count < 1) clip_fail("%s: input accessor %d has no keys", what, sm.input);
        if (in.count > (size_t)STANCE_MAX_KEYS) clip_fail("%s: %zu keys, more than %d", what, in.count, STANCE_MAX_KEYS);
        if (interp == INTERP_CUBIC && in.count < 2) clip_fail("%s: CUBICSPLINE needs at least 2 keys, the input has %zu", what, in.count);
        const size_t per = interp == INTERP_CUBIC ? 3 : 1;
        if (out.count != in.count * per)
            clip_fail("%s: %s with %zu key times needs %zu output values, the output accessor has %zu", what, kInterpName[interp], in.count,
                      in.count * per, out.count);
        int j = im.node_joint[(size_t)n];
        if (j < 0) {
            im.warn("clip '%s', %s: node is not a joint of the skeleton: ignored", show(name).c_str(), what);
            continue;
        }
        if (used[(size_t)j * 3 + (size_t)kind]) clip_fail("%s: a second channel for the same node and path", what);
        used[(size_t)j * 3 + (size_t)kind] = 1;
        Chan c;
        c.index = (int)ci, c.joint = j, c.kind = kind, c.interp = interp;
        c.times = c.values = nullptr;
        c.width = kind == PATH_R ? 4 : 3;
        c.keys = in.count;
        chans.push_back(c);
    }
    if (chans.empty()) clip_fail("moves no joint of the skeleton");

    /* the memory budget, before reading: the accessors (as doubles), the
     * resampled tracks and the clip, with at least the longest input's keys */
    std::map<int, size_t> acc_bytes;
    size_t kmin = 0, track_floats = 0;
    int floats_per_joint[3] = {0, 0, 0};
    for (const Chan &c : chans) {
        const tinygltf::AnimationSampler &sm = an.samplers[(size_t)an.channels[(size_t)c.index].sampler];
        acc_bytes[sm.input] = c.keys * 8;
        acc_bytes[sm.output] = c.keys * (c.interp == INTERP_CUBIC ? 3 : 1) * (size_t)c.width * 8;
        kmin = std::max(kmin, c.keys);
        track_floats += (size_t)c.width;
        floats_per_joint[c.kind] = c.width;
    }
    const size_t pc = (size_t)sk->padded_count;
    const double per_key = 4.0 * ((double)track_floats + (double)pc * (floats_per_joint[0] + floats_per_joint[1] + floats_per_joint[2]) + 1.0);
    double need = (double)im.used + (double)kmin * per_key;
    for (const auto &kv : acc_bytes) need += (double)kv.second;
    if (need > (double)im.budget)
        im.fail(STANCE_ERR_MEMORY, "clip '%s': %zu keys x %d joints need at least %.0f MiB, more than the memory budget of %zu MiB (max_memory)",
                show(name).c_str(), kmin, sk->joint_count, need / 1048576.0, mib(im.budget));

    /* read and check the key data */
    std::map<int, std::vector<double>> data;
    unsigned interps = 0;
    for (Chan &c : chans) {
        const tinygltf::AnimationSampler &sm = an.samplers[(size_t)an.channels[(size_t)c.index].sampler];
        char what[160];
        snprintf(what, sizeof what, "channel %d (joint '%s' %s)", c.index, show(im.joint_name[(size_t)c.joint]).c_str(), kPathName[c.kind]);
        bool fresh_in = !data.count(sm.input), fresh_out = !data.count(sm.output);
        std::vector<double> &T = data[sm.input];
        if (fresh_in) read_clip_accessor(im, sm.input, T, what);
        for (size_t k = 0; k < c.keys; k++) {
            if (!std::isfinite(T[k]) || T[k] < 0.0 || T[k] > kMaxTime)
                clip_fail("%s: key %zu time %g is not a finite time in [0, %g] s", what, k, T[k], kMaxTime);
            if (k > 0 && !(T[k] > T[k - 1])) clip_fail("%s: key %zu time %g is not after key %zu (%g)", what, k, T[k], k - 1, T[k - 1]);
        }
        std::vector<double> &V = data[sm.output];
        if (fresh_out) read_clip_accessor(im, sm.output, V, what);
        for (size_t i = 0; i < V.size(); i++)
            if (!std::isfinite(V[i]) || std::fabs(V[i]) > 3e38) clip_fail("%s: output value %zu is not a finite float", what, i / (size_t)c.width);
        if (c.kind == PATH_R && c.interp != INTERP_CUBIC)
            for (size_t k = 0; k < c.keys; k++) {
                double *q = &V[k * 4];
                if (!quat_normalize(q)) clip_fail("%s: key %zu rotation cannot be normalized", what, k);
            }
        c.times = &T, c.values = &V;
        c.curve = stance_bake_curve{c.joint, c.kind, c.interp, c.keys, T.data(), V.data()};
        interps |= 1u << c.interp;
    }

    /* the grid: every key time, STEP hold keys, and resampling */
    std::vector<float> grid;
    for (const Chan &c : chans)
        for (size_t k = 0; k < c.keys; k++) {
            float t = (float)(*c.times)[k];
            grid.push_back(t);
        }
    std::sort(grid.begin(), grid.end());
    grid.erase(std::unique(grid.begin(), grid.end()), grid.end());
    const size_t file_keys = grid.size();
    for (const Chan &c : chans) {
        if (c.interp != INTERP_STEP) continue;
        for (size_t k = 1; k < c.keys; k++) {
            float t = (float)(*c.times)[k], h = nextafterf(t, 0.0f);
            if (h > (float)(*c.times)[k - 1]) grid.push_back(h);
        }
    }
    std::sort(grid.begin(), grid.end());
    grid.erase(std::unique(grid.begin(), grid.end()), grid.end());
    std::vector<const stance_bake_curve *> check;
    for (const Chan &c : chans)
        if (c.interp == INTERP_CUBIC || (c.interp == INTERP_LINEAR && c.kind == PATH_R)) check.push_back(&c.curve);
    if (!check.empty()) {
        std::vector<float> fine;
        int unmet = 0;
        struct Added : stance_bake_times {
            ~Added() { free(times); }
        } added;
        added.times = nullptr, added.count = added.cap = 0;
        fine.push_back(grid[0]);
        for (size_t i = 0; i + 1 < grid.size(); i++) {
            added.count = 0;
            int r = stance_bake_refine(&im.space, check.data(), (int)check.size(), grid[i], grid[i + 1], im.tol_u, im.tol_r, &added,
                                       (size_t)STANCE_MAX_KEYS, &unmet);
            if (!r) fine.insert(fine.end(), added.times, added.times + added.count);
            fine.push_back(grid[i + 1]);
            if (r || fine.size() > (size_t)STANCE_MAX_KEYS) clip_fail("resampling needs more than %d keys", STANCE_MAX_KEYS);
        }
        grid.swap(fine);
        if (unmet)
            im.warn("clip '%s': %d key intervals stay outside the tolerance after %d halvings (float resolution)", show(name).c_str(), unmet,
                    kMaxDepth);
    }
    const size_t K = grid.size();
    if (K > (size_t)STANCE_MAX_KEYS) clip_fail("%zu keys after baking, more than %d", K, STANCE_MAX_KEYS);
    need = (double)im.used + (double)K * per_key;
    if (need > (double)im.budget)
        im.fail(STANCE_ERR_MEMORY, "clip '%s': %zu baked keys x %d joints need %.0f MiB, more than the memory budget of %zu MiB (max_memory)",
                show(name).c_str(), K, sk->joint_count, need / 1048576.0, mib(im.budget));
    std::vector<std::vector<float>> vals(chans.size());
    std::vector<stance_track_desc> tracks(chans.size());
    int raised = 0;
    for (size_t i = 0; i < chans.size(); i++) {
        const Chan &c = chans[i];
        vals[i].resize(K * (size_t)c.width);
        for (size_t k = 0; k < K; k++) {
            float *v = &vals[i][k * (size_t)c.width];
            if (!eval_final(im, c, grid[k], v))
                clip_fail("channel %d (joint '%s' rotation): the CUBICSPLINE rotation at %g s is zero and cannot be normalized", c.index,
                          show(im.joint_name[(size_t)c.joint]).c_str(), (double)grid[k]);
            if (!st_finite_n(v, (size_t)c.width))
                clip_fail("channel %d (joint '%s' %s): a value overflows a float", c.index, show(im.joint_name[(size_t)c.joint]).c_str(),
                          kPathName[c.kind]);
            if (c.kind == STANCE_BAKE_S) raised += stance_bake_raise_scale(v);
        }
        if (raised) {
            im.warn("clip '%s', channel %d (joint '%s' scale): %d scale values below %g raised to it (a scale of 0 hides a part; "
                    "%g keeps it hidden within the runtime's limits, stance/base.h)",
                    show(name).c_str(), c.index, show(im.joint_name[(size_t)c.joint]).c_str(), raised, (double)STANCE_MIN_SCALE,
                    (double)STANCE_MIN_SCALE);
            raised = 0;
        }
        stance_track_desc &t = tracks[i];
        t.joint = c.joint;
        t.channel = (stance_channel)c.kind;
        t.key_count = (int)K;
        t.times = grid.data();
        t.values = vals[i].data();
    }
    {   /* exact or dropped under an uneven scale */
        st_scale_ctx sc = scale_ctx(im);
        stance_error se = {STANCE_OK, ""};
        sc.err = &se;
        if (st_imp_check_clip(&sc, sk, name.c_str(), tracks.data(), (int)tracks.size())) {
            const char *m = se.message;
            size_t pl = strlen(im.path);
            if (!strncmp(m, im.path, pl) && !strncmp(m + pl, ": ", 2)) m += pl + 2;
            if (se.status == STANCE_ERR_MEMORY) im.fail(STANCE_ERR_MEMORY, "out of memory");
            clip_fail("%s", m);
        }
    }
    stance_clip_desc d;
    memset(&d, 0, sizeof d);
    d.name = name.c_str();
    d.duration = grid[K - 1] > 0.0f ? grid[K - 1] : 1.0f / 30.0f; /* a single pose at t = 0: one frame */
    d.track_count = (int)tracks.size();
    d.tracks = tracks.data();
    std::vector<stance_event_desc> events;
    std::vector<std::string> event_names;
    extras_events(im, an, name, d.duration, events, event_names);
    d.event_count = (int)events.size();
    d.events = events.empty() ? nullptr : events.data();
    stance_error e = {STANCE_OK, ""};
    stance_clip *clip = nullptr;
    stance_status s = stance_clip_create(&d, sk, al, &clip, &e);
    if (s) clip_fail("%.200s", e.message);
    if (rep) {
        snprintf(rep->name, sizeof rep->name, "%s", name.c_str());
        rep->interpolations = interps;
        rep->file_keys = (int)file_keys;
        rep->keys_added = (int)K - (int)file_keys;
    }
    return clip;
}

} /* namespace stance_gltf */
