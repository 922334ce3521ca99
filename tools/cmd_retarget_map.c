/* tools/cmd_retarget_map.c - `stance retarget-map FILE [--map MAP.json]
 * [--names-off] [--json]`: the humanoid bone map found for a skeleton
 * (stance_humanoid_map_find): slot -> joint and how it was found (name,
 * structure, file), then the slots it could not map. Exit 0 when every
 * slot a humanoid needs is mapped, 1 when one is missing or on an error,
 * 2 on a usage error. */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "tool_json.h"
#include "stance/import.h"
#include "stance/retarget.h"

static const char *how_name(int how) {
    return how == STANCE_FOUND_NAME ? "name" : how == STANCE_FOUND_STRUCTURE ? "structure" : how == STANCE_FOUND_FILE ? "file" : "none";
}

int cmd_retarget_map(int argc, char **argv) {
    const char *file = NULL, *map = NULL;
    int json = 0, names_off = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json")) json = 1;
        else if (!strcmp(argv[i], "--names-off")) names_off = 1;
        else if (!strcmp(argv[i], "--map") && i + 1 < argc) map = argv[++i];
        else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("usage: stance retarget-map FILE [--map MAP.json] [--names-off] [--json]\n"
                   "  the humanoid bone map of FILE's skeleton (docs/retargeting.md): each slot's joint and how it\n"
                   "  was found (name, structure, file); --names-off maps from the structure alone\n");
            return 0;
        } else if (argv[i][0] == '-' || file) {
            fprintf(stderr, "stance retarget-map: unexpected argument '%s' (stance retarget-map --help)\n", argv[i]);
            return 2;
        } else file = argv[i];
    }
    if (!file) {
        fprintf(stderr, "usage: stance retarget-map FILE [--map MAP.json] [--names-off] [--json]\n");
        return 2;
    }
    stance_asset asset = {0};
    stance_error err;
    stance_import_warnings warnings;
    stance_import_options opt = {0};
    opt.warnings = &warnings;
    if (stance_open_file(file, &opt, NULL, &asset, &err) != STANCE_OK) {
        fprintf(stderr, "stance: %s\n", err.message);
        return 1;
    }
    stance_humanoid_map m;
    stance_humanoid_map_desc desc = {0};
    desc.map_file = map;
    desc.no_names = names_off;
    if (stance_humanoid_map_find(asset.skeleton, &desc, &m, &err) != STANCE_OK) {
        fprintf(stderr, "stance: %s\n", err.message);
        stance_asset_destroy(&asset);
        return 1;
    }
    int missing = 0;
    for (int i = 0; i < STANCE_HUMANOID_SLOTS; i++) missing += m.joint[i] < 0 && !stance_humanoid_slot_optional(i);
    if (json) {
        printf("{\"file\":");
        tool_put_json_string(stdout, file);
        printf(",\"slots\":{");
        int first = 1;
        for (int i = 0; i < STANCE_HUMANOID_SLOTS; i++) {
            if (m.joint[i] < 0) continue;
            printf("%s\"%s\":{\"joint\":", first ? "" : ",", stance_humanoid_slot_name(i));
            tool_put_json_string(stdout, stance_skeleton_joint_name(asset.skeleton, m.joint[i]));
            printf(",\"found\":\"%s\"}", how_name(m.found[i]));
            first = 0;
        }
        printf("},\"unmapped\":[");
        first = 1;
        for (int i = 0; i < STANCE_HUMANOID_SLOTS; i++)
            if (m.joint[i] < 0) printf("%s\"%s\"", first ? "" : ",", stance_humanoid_slot_name(i)), first = 0;
        printf("],\"missing_required\":%d}\n", missing);
    } else {
        printf("%s: %d joints\n", file, asset.skeleton->joint_count);
        for (int i = 0; i < STANCE_HUMANOID_SLOTS; i++) {
            if (m.joint[i] < 0) continue;
            printf("  %-16s ", stance_humanoid_slot_name(i));
            tool_put_plain(stdout, stance_skeleton_joint_name(asset.skeleton, m.joint[i]));
            printf("  (%s)\n", how_name(m.found[i]));
        }
        int un = 0;
        for (int i = 0; i < STANCE_HUMANOID_SLOTS; i++)
            if (m.joint[i] < 0) printf("%s%s%s", un++ ? ", " : "not mapped: ", stance_humanoid_slot_name(i),
                                       stance_humanoid_slot_optional(i) ? " (optional)" : "");
        printf("%s", un ? "\n" : "every slot mapped\n");
    }
    stance_asset_destroy(&asset);
    return missing ? 1 : 0;
}
