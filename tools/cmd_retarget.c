/* tools/cmd_retarget.c - `stance retarget SOURCE --to TARGET [--map MAP.json]
 * [--source-map MAP.json] [-o OUT.stance] [--report] [--compare] [--json] [--free-feet] [--fingers]
 * [--error-cm CM] [--vertex-cm CM] [--unit-cm CM]`: every clip of SOURCE
 * played on TARGET's skeleton (stance_retarget_asset), written with the
 * target's skeleton, skins and meshes, compressed like an import; --report
 * prints each clip's measures (stance_retarget_measure); --compare measures
 * TARGET's own clips against SOURCE's of the same names. SOURCE and TARGET
 * are anything stance_open_file reads, or "builtin" (the built-in
 * character). Owns only the arguments and the output. Errors are one line
 * on stderr, exit 1; usage errors exit 2. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "io/builtin_asset.h"
#include "stance/build.h"
#include "stance/import.h"
#include "stance/retarget.h"
#include "tool_json.h"

static int usage(FILE *f, int status) {
    fprintf(f, "usage: stance retarget SOURCE --to TARGET [-o OUT.stance] [--map MAP.json] [--source-map MAP.json]\n"
               "                       [--report] [--compare] [--json] [--free-feet] [--fingers] [--error-cm CM] [--vertex-cm CM] [--unit-cm CM]\n"
               "  SOURCE, TARGET  a .stance file, anything `stance import` reads, or builtin (the built-in character)\n"
               "  -o OUT      the target's skeleton, skins and meshes with SOURCE's clips retargeted\n"
               "  --map M     the target's bone map file; --source-map M the source's (docs/retargeting.md)\n"
               "  --report    per clip: limb direction error (mean, worst), foot slide while the source's foot\n"
               "              was planted, pelvis height ratio vs leg ratio, largest frame-to-frame turn\n"
               "  --json      the report as JSON\n"
               "  --compare   retarget nothing: measure TARGET's own clips against SOURCE's clips of the same\n"
               "              names (a round trip A -> B -> A against A)\n"
               "  --free-feet no foot IK (the source's directions exactly; feet may slide)\n"
               "  --fingers   also the fingers both have (thumb, index, middle, ring, little by name)\n"
               "  --error-cm, --vertex-cm, --unit-cm  compression, as `stance import` (default 0.01, 3, 100;\n"
               "              --error-cm 0 writes exact clips)\n");
    return status;
}

static int open_any(const char *path, stance_asset *out, stance_error *err) {
    if (!strcmp(path, "builtin")) return io_builtin_asset(out, err) != STANCE_OK;
    stance_import_warnings warnings;
    stance_import_options opt = {0};
    opt.warnings = &warnings;
    return stance_open_file(path, &opt, NULL, out, err) != STANCE_OK;
}

static void put_num(double v) {
    if (isfinite(v)) printf("%.6g", v);
    else printf("null");
}

static void report_clip(const stance_retarget_report *r, int json, int first) {
    if (json) {
        printf("%s{\"name\":", first ? "" : ",");
        tool_put_json_string(stdout, r->clip);
        printf(",\"frames\":%d,\"segments\":%d,\"direction_mean_deg\":", r->frames, r->segments);
        put_num(r->direction_mean_deg);
        printf(",\"direction_worst_deg\":");
        put_num(r->direction_worst_deg);
        printf(",\"worst_slot\":\"%s\",\"worst_time\":", stance_humanoid_slot_name(r->worst_slot));
        put_num(r->worst_time);
        printf(",\"slide_cm\":");
        put_num(r->slide_cm);
        printf(",\"slide_cm_per_m\":");
        if (r->slide_cm_per_m >= 0.0f) put_num(r->slide_cm_per_m);
        else printf("null");
        printf(",\"travel\":");
        put_num(r->travel);
        printf(",\"planted_frames\":%d,\"pelvis_ratio\":", r->planted_frames);
        put_num(r->pelvis_ratio);
        printf(",\"leg_ratio\":");
        put_num(r->leg_ratio);
        printf(",\"step_deg\":");
        put_num(r->step_deg);
        printf(",\"source_step_deg\":");
        put_num(r->source_step_deg);
        printf(",\"pelvis_drift_legs\":");
        put_num(r->pelvis_drift_legs);
        printf(",\"pelvis_drift_time\":");
        put_num(r->pelvis_drift_time);
        printf("}");
        return;
    }
    printf("  ");
    tool_put_plain(stdout, r->clip);
    printf(": direction %.3f deg mean, %.3f worst (%s at %.2f s); foot slide %.3f cm", (double)r->direction_mean_deg,
           (double)r->direction_worst_deg, r->worst_slot >= 0 ? stance_humanoid_slot_name(r->worst_slot) : "-",
           (double)r->worst_time, (double)r->slide_cm);
    if (r->slide_cm_per_m >= 0.0f) printf(" = %.3f cm/m", (double)r->slide_cm_per_m);
    printf(" over %d planted frames; pelvis ratio %.3f (legs %.3f); largest step %.2f deg (source %.2f); pelvis drift %.3f "
           "legs (%.2f s)\n",
           r->planted_frames, (double)r->pelvis_ratio, (double)r->leg_ratio, (double)r->step_deg,
           (double)r->source_step_deg, (double)r->pelvis_drift_legs, (double)r->pelvis_drift_time);
}

int cmd_retarget(int argc, char **argv) {
    const char *src = NULL, *dst = NULL, *out = NULL;
    stance_retarget_desc desc = {0};
    int report = 0, json = 0, compare = 0;
    double error_cm = 0.01, vertex_cm = 3.0, unit_cm = 100.0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int more = i + 1 < argc;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) return usage(stdout, 0);
        if (!strcmp(a, "--to") && more) dst = argv[++i];
        else if ((!strcmp(a, "-o") || !strcmp(a, "--output")) && more) out = argv[++i];
        else if (!strcmp(a, "--map") && more) desc.target_map = argv[++i];
        else if (!strcmp(a, "--source-map") && more) desc.source_map = argv[++i];
        else if (!strcmp(a, "--report")) report = 1;
        else if (!strcmp(a, "--compare")) compare = report = 1;
        else if (!strcmp(a, "--json")) json = 1;
        else if (!strcmp(a, "--free-feet")) desc.free_feet = 1;
        else if (!strcmp(a, "--fingers")) desc.fingers = 1;
        else if ((!strcmp(a, "--error-cm") || !strcmp(a, "--vertex-cm") || !strcmp(a, "--unit-cm")) && more) {
            char *end = NULL;
            double v = strtod(argv[++i], &end);
            int zero_ok = a[2] == 'e';
            if (!end || *end || !isfinite(v) || v < 0.0 || (!zero_ok && v == 0.0) || v > 1e6) {
                fprintf(stderr, "stance retarget: %s needs a number of centimetres %s\n", a, zero_ok ? ">= 0" : "> 0");
                return 2;
            }
            *(a[2] == 'e' ? &error_cm : a[2] == 'v' ? &vertex_cm : &unit_cm) = v;
        } else if (a[0] == '-' || src) {
            fprintf(stderr, "stance retarget: unexpected argument '%s' (stance retarget --help)\n", a);
            return 2;
        } else src = a;
    }
    if (!src || !dst || (!out && !report)) {
        fprintf(stderr, "stance retarget: needs SOURCE, --to TARGET and -o OUT or --report (stance retarget --help)\n");
        return 2;
    }
    stance_asset source = {0}, target = {0};
    stance_error err = {STANCE_OK, ""};
    if (open_any(src, &source, &err) || open_any(dst, &target, &err)) {
        fprintf(stderr, "stance: %s\n", err.message);
        stance_asset_destroy(&source);
        return 1;
    }
    stance_status s = compare ? STANCE_OK : stance_retarget_asset(&target, &source, &desc, &err);
    if (!s && !compare && error_cm > 0.0) {
        stance_compress_settings cs = {(float)(error_cm / unit_cm), (float)(vertex_cm / unit_cm), STANCE_IMPORT_DEFAULT_MEMORY};
        s = stance_asset_compress(&target, &cs, &err);
    }
    if (!s && out && !compare) s = stance_asset_save_file(&target, out, &err);
    if (!s && report) {
        if (json) {
            printf("{\"source\":");
            tool_put_json_string(stdout, src);
            printf(",\"target\":");
            tool_put_json_string(stdout, dst);
            printf(",\"clips\":[");
        } else {
            printf("%s -> %s:\n", src, dst);
        }
        for (int c = 0, shown = 0; c < target.clip_count && !s; c++) {
            const stance_clip *from = compare ? stance_asset_find_clip(&source, target.clips[c]->name) : source.clips[c];
            if (!from) continue;
            stance_retarget_report r;
            s = stance_retarget_measure(from, source.skeleton, target.clips[c], target.skeleton, &desc, &r, &err);
            if (!s) report_clip(&r, json, !shown++);
        }
        if (json && !s) printf("]}\n");
    }
    if (s) {
        fprintf(stderr, "stance: %s\n", err.message);
        stance_asset_destroy(&source), stance_asset_destroy(&target);
        return 1;
    }
    if (out && !compare && !json)
        printf("%s: %d clips -> %s (%d joints)\n", src, target.clip_count, out, target.skeleton->joint_count);
    stance_asset_destroy(&source), stance_asset_destroy(&target);
    return 0;
}
