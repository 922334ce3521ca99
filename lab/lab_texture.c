/* lab/lab_texture.c - the texture and vertex colour sections of a .stance file
 * the page loads (src/io/asset_textures.c reads them, as `stance info` does):
 * each mesh's base-colour image, whose PNG/JPEG bytes the browser decodes
 * (lab_import.js), and its vertex colours; and both put into a .stance the
 * page saves for that file (lab_looks_insert). Owns a copy of the file's
 * bytes, the last answer's JSON (kept until the next file) and the last
 * saved bytes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab.h"
#include "io/asset_textures.h"

static unsigned char *tx_bytes;
static size_t tx_size;
static char tx_json[STANCE_TEXTURE_MAX_IMAGES * 96 + STANCE_MAX_MESHES * 48 + 64]; /* (each entry fits its share) */

/* A buffer of `size` bytes for the file (JavaScript writes it), or NULL. */
LAB_API unsigned char *lab_textures_buffer(int size) {
    free(tx_bytes);
    tx_bytes = NULL, tx_size = 0;
    if (size <= 0 || !(tx_bytes = malloc((size_t)size))) return NULL;
    tx_size = (size_t)size;
    return tx_bytes;
}

/* The file's textures and vertex colours as JSON: {"images":[{"ptr","size","mime"}],
 * "meshes":[IMAGE or -1,..],"colors":[{"ptr","vertices"} or null,..]} ("images" empty when
 * it has no texture section, "colors" when it has no vertex colour section; a colour is 4
 * u16 little-endian, value / 65535); pointers into the buffer. "" and lab_error when a
 * section is corrupt. */
LAB_API const char *lab_textures_read(void) {
    stance_textures t;
    stance_error err = {STANCE_OK, ""};
    if (stance_textures_read(tx_bytes, tx_size, &t, &err)) {
        lab_fail("%s", err.message);
        return "";
    }
    size_t n = (size_t)snprintf(tx_json, sizeof tx_json, "{\"images\":[");
    for (int i = 0; i < t.image_count; i++)
        n += (size_t)snprintf(tx_json + n, sizeof tx_json - n, "%s{\"ptr\":%lu,\"size\":%zu,\"mime\":\"image/%s\"}", i ? "," : "",
                              (unsigned long)(size_t)t.images[i].bytes, t.images[i].size, stance_texture_kind_name(t.images[i].kind));
    n += (size_t)snprintf(tx_json + n, sizeof tx_json - n, "],\"meshes\":[");
    for (int i = 0; i < t.mesh_count; i++) n += (size_t)snprintf(tx_json + n, sizeof tx_json - n, "%s%d", i ? "," : "", t.mesh_image[i]);
    n += (size_t)snprintf(tx_json + n, sizeof tx_json - n, "],\"colors\":[");
    for (int i = 0; t.color_count && i < t.mesh_count; i++) {
        if (!t.mesh_colors[i]) n += (size_t)snprintf(tx_json + n, sizeof tx_json - n, "%snull", i ? "," : "");
        else n += (size_t)snprintf(tx_json + n, sizeof tx_json - n, "%s{\"ptr\":%lu,\"vertices\":%d}", i ? "," : "",
                                   (unsigned long)(size_t)t.mesh_colors[i], t.mesh_vertices[i]);
    }
    snprintf(tx_json + n, sizeof tx_json - n, "]}");
    return tx_json;
}

static unsigned char *lk_in;
static void *lk_saved;
static size_t lk_in_size, lk_saved_size;

/* A buffer of `size` bytes for a .stance the page saves (JavaScript writes it), or NULL. */
LAB_API unsigned char *lab_looks_buffer(int size) {
    free(lk_in);
    lk_in = NULL, lk_in_size = 0;
    if (size <= 0 || !(lk_in = malloc((size_t)size))) return NULL;
    lk_in_size = (size_t)size;
    return lk_in;
}

/* The bytes in lab_looks_buffer, a .stance the page wrote for the loaded file
 * (the editor's "Save .stance": its skeleton, skins and meshes, some clips, a
 * graph), with the loaded file's texture and vertex colour sections put in
 * (stance_textures_insert, as `stance import` writes them). Returns the new
 * size (the bytes at lab_looks_saved), 0 when the loaded file has neither
 * section (the bytes stay as they are), -1 (lab_error) when they do not fit
 * the saved file's meshes or it is not a .stance. */
LAB_API int lab_looks_insert(void) {
    free(lk_saved);
    lk_saved = NULL, lk_saved_size = 0;
    stance_textures t;
    stance_error err = {STANCE_OK, ""};
    if (!tx_bytes || stance_textures_read(tx_bytes, tx_size, &t, &err) || (t.image_count == 0 && t.color_count == 0)) return 0;
    if (!lk_in) return lab_fail("save: no bytes");
    if (stance_textures_insert(lk_in, lk_in_size, &t, &lk_saved, &lk_saved_size, &err)) return lab_fail("save: %s", err.message);
    if (lk_saved_size > 0x7fffffff) return lab_fail("save: too large");
    return (int)lk_saved_size;
}
LAB_API const unsigned char *lab_looks_saved(void) { return lk_saved; }
