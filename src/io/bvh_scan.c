/* src/io/bvh_scan.c - the BVH pre-scan: a streaming tokenizer over the
 * HIERARCHY section and the MOTION header that bounds what assimp would be
 * asked to build (assimp's BVH reader recurses once per joint level and is
 * quadratic in the joint count, and takes Frames and Frame Time on trust).
 *
 * Owns nothing beyond one call: a FILE and a fixed buffer. It never reads
 * the frame lines. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bvh_scan.h"
#include "core/base/internal.h"

typedef struct scanner {
    FILE *f;
    unsigned char buf[65536];
    size_t len, pos;
    long line;
    int eof;
} scanner;

static int next_char(scanner *s) {
    if (s->pos == s->len) {
        if (s->eof) return EOF;
        s->len = fread(s->buf, 1, sizeof s->buf, s->f);
        s->pos = 0;
        if (s->len == 0) {
            s->eof = 1;
            return EOF;
        }
    }
    return s->buf[s->pos++];
}

/* The next whitespace-separated word (cut to cap - 1 bytes), or 0 at the
 * end of the file. *line is the line it starts on. */
static int next_word(scanner *s, char *word, size_t cap, long *line) {
    int c;
    do {
        c = next_char(s);
        if (c == '\n') s->line++;
    } while (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v');
    if (c == EOF) return 0;
    *line = s->line;
    size_t n = 0;
    while (c != EOF && c != ' ' && c != '\t' && c != '\r' && c != '\n' && c != '\f' && c != '\v') {
        if (n + 1 < cap) word[n++] = (char)c;
        c = next_char(s);
    }
    if (c == '\n') s->line++;
    word[n] = 0;
    return 1;
}

/* A word cut short for a message (st_fail escapes its bytes). */
static const char *shown(const char *w, char out[40]) {
    size_t n = 0;
    for (; w[n] && n < 32; n++) out[n] = w[n];
    out[n] = 0;
    if (w[n]) memcpy(out + n, "...", 4);
    return out;
}

stance_status stance_bvh_prescan(const char *path, size_t max_memory, stance_error *err) {
    scanner *s = malloc(sizeof *s);
    if (!s) return st_fail(err, STANCE_ERR_MEMORY, "%s: out of memory", path);
    s->len = s->pos = 0;
    s->eof = 0;
    s->line = 1;
    s->f = fopen(path, "rb");
    if (!s->f) {
        int e = errno;
        free(s);
        return st_fail(err, STANCE_ERR_IO, "%s: cannot open: %s", path, strerror(e));
    }
    /* brace levels: 1 for a joint's block, 0 for an End Site's */
    unsigned char is_joint[STANCE_BVH_MAX_DEPTH + 2];
    int braces = 0, depth = 0, joints = 0, pending = 0; /* pending: 1 joint, 2 End Site, before its '{' */
    int motion = 0;
    long channels = 0, frames = -1, line = 1;
    char w[64], b[40];
    stance_status st = STANCE_OK;
    if (!next_word(s, w, sizeof w, &line) || strcmp(w, "HIERARCHY")) {
        st = st_fail(err, STANCE_ERR_FORMAT, "%s: BVH: the file does not start with HIERARCHY", path);
        goto done;
    }
    for (;;) {
        if (!next_word(s, w, sizeof w, &line)) {
            st = st_fail(err, STANCE_ERR_FORMAT, "%s: BVH: the file ends before %s", path,
                         frames < 0 ? "its MOTION section's Frames: line" : "its Frame Time: line");
            goto done;
        }
        if (motion) {
            /* only the two header lines matter here */
        } else if (!strcmp(w, "ROOT") || !strcmp(w, "JOINT")) {
            if (++joints > STANCE_BVH_MAX_JOINTS) {
                st = st_fail(err, STANCE_ERR_UNSUPPORTED, "%s: BVH: more than %d joints (line %ld)", path,
                             STANCE_BVH_MAX_JOINTS, line);
                goto done;
            }
            pending = 1;
            next_word(s, w, sizeof w, &line); /* its name, whatever it spells */
        } else if (!strcmp(w, "End")) {
            pending = 2;
            next_word(s, w, sizeof w, &line); /* "Site" */
        } else if (!strcmp(w, "{")) {
            if (!pending) {
                st = st_fail(err, STANCE_ERR_FORMAT, "%s: BVH: a '{' that opens no joint (line %ld)", path, line);
                goto done;
            }
            if (pending == 1 && ++depth > STANCE_BVH_MAX_DEPTH) {
                st = st_fail(err, STANCE_ERR_UNSUPPORTED, "%s: BVH: the hierarchy is deeper than %d joints (line %ld)",
                             path, STANCE_BVH_MAX_DEPTH, line);
                goto done;
            }
            is_joint[braces++] = pending == 1;
            pending = 0;
        } else if (!strcmp(w, "}")) {
            if (braces == 0) {
                st = st_fail(err, STANCE_ERR_FORMAT, "%s: BVH: a '}' with no '{' before it (line %ld)", path, line);
                goto done;
            }
            depth -= is_joint[--braces];
        } else if (!strcmp(w, "CHANNELS")) {
            char *end = NULL;
            long n = next_word(s, w, sizeof w, &line) ? strtol(w, &end, 10) : -1;
            if (!end || *end || n < 0 || n > 6) {
                st = st_fail(err, STANCE_ERR_FORMAT, "%s: BVH: CHANNELS %s is not a count of 0..6 (line %ld)", path,
                             shown(w, b), line);
                goto done;
            }
            channels += n;
        } else if (!strcmp(w, "MOTION")) {
            if (braces != 0 || joints == 0) {
                st = st_fail(err, STANCE_ERR_FORMAT, "%s: BVH: MOTION (line %ld) after %s", path, line,
                             joints == 0 ? "no joint" : "an unclosed '{'");
                goto done;
            }
            motion = 1;
            continue;
        }
        if (!motion) continue;
        if (!strcmp(w, "Frames:")) {
            char *end = NULL;
            errno = 0;
            long long n = next_word(s, w, sizeof w, &line) ? strtoll(w, &end, 10) : 0;
            if (!end || *end || errno || n < 1) {
                st = st_fail(err, STANCE_ERR_FORMAT, "%s: BVH: Frames: %s is not a frame count >= 1 (line %ld)", path,
                             shown(w, b), line);
                goto done;
            }
            /* assimp keeps each frame's channel values (as floats) and makes
             * one key per frame and channel group */
            double need = (double)n * ((double)channels * 4.0 + 64.0);
            if (need > (double)max_memory) {
                st = st_fail(err, STANCE_ERR_MEMORY,
                             "%s: BVH: %lld frames of %ld channels need about %.1f MB, over the memory budget of %.1f MB "
                             "(--max-memory)", path, n, channels, need / 1048576.0, (double)max_memory / 1048576.0);
                goto done;
            }
            frames = (long)n;
        } else if (!strcmp(w, "Frame")) {
            if (!next_word(s, w, sizeof w, &line) || strcmp(w, "Time:")) continue;
            if (frames < 0) {
                st = st_fail(err, STANCE_ERR_FORMAT, "%s: BVH: Frame Time: before Frames: (line %ld)", path, line);
                goto done;
            }
            char *end = NULL;
            double t = next_word(s, w, sizeof w, &line) ? strtod(w, &end) : NAN;
            if (!end || *end || !isfinite(t) || !(t > 0.0) || !isfinite((float)t) || !((float)t > 0.0f)) {
                st = st_fail(err, STANCE_ERR_FORMAT, "%s: BVH: Frame Time: %s is not a finite time > 0 (line %ld)", path,
                             shown(w, b), line);
                goto done;
            }
            break;
        }
    }
done:
    fclose(s->f);
    free(s);
    return st;
}
