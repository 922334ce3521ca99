/* src/io/collada_clips.c - a streaming scan of a Collada file for its
 * <animation_clip name="..." id="..."> elements. assimp 5.2 imports each clip
 * as an animation named "combinedAnim_<i>", in file order; this gives the
 * importer the names the file's author gave them.
 *
 * Owns nothing beyond one call: a FILE and a fixed buffer. No XML parser:
 * the element's attributes are read up to its '>' (quotes ' or "). */
#include <stdio.h>
#include <string.h>

#include "collada_clips.h"

#define TAG "<animation_clip"
#define MAX_TAG 2048 /* bytes of one start tag that are looked at */

/* The value of attribute `attr` in the start tag `tag`, or 0. */
static int attribute(const char *tag, const char *attr, char out[64]) {
    size_t n = strlen(attr);
    for (const char *p = tag; (p = strstr(p, attr)) != NULL; p += n) {
        if (p > tag && p[-1] != ' ' && p[-1] != '\t' && p[-1] != '\n' && p[-1] != '\r') continue;
        const char *q = p + n;
        while (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r') q++;
        if (*q != '=') continue;
        q++;
        while (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r') q++;
        if (*q != '"' && *q != '\'') continue;
        char quote = *q++;
        size_t k = 0;
        while (q[k] && q[k] != quote) k++;
        if (!q[k] || k == 0) return 0;
        if (k > 63) k = 63;
        for (size_t i = 0; i < k; i++) out[i] = (unsigned char)q[i] < 32 ? '?' : q[i];
        out[k] = 0;
        return 1;
    }
    return 0;
}

int stance_collada_clip_names(const char *path, char (*names)[64], int cap) {
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    const size_t tl = sizeof TAG - 1;
    char tag[MAX_TAG + 1];
    size_t match = 0, len = 0;
    int count = 0, in_tag = 0, c;
    while ((c = fgetc(f)) != EOF) {
        if (in_tag) {
            if (c == '>') {
                tag[len] = 0;
                if (count < cap) {
                    names[count][0] = 0;
                    if (!attribute(tag, "name", names[count]) && !attribute(tag, "id", names[count]))
                        snprintf(names[count], 64, "clip%d", count);
                }
                count++;
                in_tag = 0, match = 0;
            } else if (len < MAX_TAG) {
                tag[len++] = (char)c;
            }
            continue;
        }
        if (c == TAG[match]) {
            if (++match == tl) {
                /* the name must end here: "<animation_clips" is not a clip */
                c = fgetc(f);
                if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '>' || c == '/') {
                    in_tag = c != '>', len = 0;
                    if (c == '>') { /* no attributes */
                        if (count < cap) snprintf(names[count], 64, "clip%d", count);
                        count++;
                    }
                }
                match = 0;
            }
        } else {
            match = c == TAG[0];
        }
    }
    fclose(f);
    return count;
}
