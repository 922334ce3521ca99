/* tools/tool_json.c - see tool_json.h. Owns nothing. */
#include "tool_json.h"

void tool_put_plain(FILE *f, const char *s) {
    for (; *s; s++) fputc((unsigned char)*s < 32 || *s == 127 ? '?' : *s, f);
}

/* Length of the valid UTF-8 sequence at s, or 0. */
static int utf8_len(const unsigned char *s) {
    int n = s[0] >= 0xF0 && s[0] <= 0xF4 ? 4 : s[0] >= 0xE0 ? 3 : s[0] >= 0xC2 && s[0] < 0xE0 ? 2 : 0;
    if (n == 0) return 0;
    for (int i = 1; i < n; i++)
        if ((s[i] & 0xC0) != 0x80) return 0;
    unsigned cp = n == 2 ? (s[0] & 0x1Fu) << 6 | (s[1] & 0x3Fu)
                : n == 3 ? (s[0] & 0x0Fu) << 12 | (s[1] & 0x3Fu) << 6 | (s[2] & 0x3Fu)
                         : (s[0] & 0x07u) << 18 | (s[1] & 0x3Fu) << 12 | (s[2] & 0x3Fu) << 6 | (s[3] & 0x3Fu);
    if ((n == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
        return 0;
    return n;
}

void tool_put_json_string(FILE *f, const char *str) {
    const unsigned char *s = (const unsigned char *)str;
    fputc('"', f);
    while (*s) {
        if (*s == '"' || *s == '\\') {
            fputc('\\', f), fputc(*s++, f);
        } else if (*s < 0x20 || *s == 0x7F) {
            fprintf(f, "\\u%04x", *s++);
        } else if (*s < 0x80) {
            fputc(*s++, f);
        } else {
            int n = utf8_len(s);
            if (n) fwrite(s, 1, (size_t)n, f), s += n;
            else fprintf(f, "\\u%04x", *s++);
        }
    }
    fputc('"', f);
}

void tool_put_joints_json(FILE *f, const stance_skeleton *sk) {
    fputc('[', f);
    for (int j = 0; j < sk->joint_count; j++) {
        fprintf(f, "%s{\"name\":", j ? "," : "");
        tool_put_json_string(f, stance_skeleton_joint_name(sk, j));
        fprintf(f, ",\"parent\":");
        if (sk->parents[j] < 0) fprintf(f, "null");
        else tool_put_json_string(f, stance_skeleton_joint_name(sk, sk->parents[j]));
        fputc('}', f);
    }
    fputc(']', f);
}
