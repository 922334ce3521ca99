/* src/io/asset_textures.h - the .stance texture and vertex colour sections
 * ("txtr" and "vcol", optional sections of format version 6,
 * docs/stance-format.md): each mesh's base-colour image, the PNG or JPEG
 * bytes as the source file stores them, and its vertex colours, for viewers
 * (the lab). The runtime never reads it (its loader skips optional sections);
 * `stance import` writes it, `stance info` and the lab read it. Tools side. */
#ifndef STANCE_IO_ASSET_TEXTURES_H
#define STANCE_IO_ASSET_TEXTURES_H
#include <stddef.h>

#include "stance/asset.h"
#include "stance/build.h"
#include "stance/import.h"

#define STANCE_TEXTURE_MAX_IMAGES 64
#define STANCE_TEXTURE_MAX_BYTES ((size_t)1 << 28) /* all images together, 256 MiB */

enum { STANCE_TEXTURE_PNG = 1, STANCE_TEXTURE_JPEG = 2 };

typedef struct stance_texture_image {
    int kind;                   /* STANCE_TEXTURE_PNG or _JPEG */
    const unsigned char *bytes; /* the encoded image (into the file's bytes when read) */
    size_t size;
} stance_texture_image;

typedef struct stance_textures {
    int image_count; /* 0: the file has no texture section */
    stance_texture_image images[STANCE_TEXTURE_MAX_IMAGES];
    int mesh_count;                      /* the file's MESH sections */
    int mesh_image[STANCE_MAX_MESHES];   /* per mesh: an index into images, or -1 */
    unsigned char *owned;                /* bytes the images point into, freed by stance_textures_free */
    /* Vertex colours (the "vcol" section): per mesh NULL, or mesh_vertices[i]
     * colours of 4 u16 little-endian each (8 bytes: R G B A, value / 65535,
     * linear as glTF's COLOR_0; multiplied with the base colour and texture). */
    int color_count;                                /* meshes with colours (0: no vcol section) */
    const unsigned char *mesh_colors[STANCE_MAX_MESHES];
    int mesh_vertices[STANCE_MAX_MESHES];           /* per mesh: its vertex count (read: from the MESH) */
    unsigned char *owned_colors;                    /* bytes the colours point into, freed by stance_textures_free */
} stance_textures;

/* The texture and vertex colour sections of the .stance file in `bytes`
 * (header and section heads checked by the loader's own walk) into *out
 * (zeroed first; image_count and color_count 0 when the file has none). The
 * images and colours point into `bytes`. A corrupt section is
 * STANCE_ERR_FORMAT with a message starting "texture section: " or "vertex
 * colour section: ". */
stance_status stance_textures_read(const void *bytes, size_t size, stance_textures *out, stance_error *err);

/* A copy of the .stance file `bytes` with the sections for `tex` (a texture
 * section when it has images, a vertex colour section when a mesh has
 * colours; at least one) written after its MESH sections (before GRPH), as
 * format version 6 with the payload size and checksum made again; any such
 * sections the file had are replaced. tex->mesh_count must be the file's MESH
 * count, a mesh with an image must have UVs, and a mesh's colours must be
 * for its vertex count. *out is malloc'd (free()). */
stance_status stance_textures_insert(const void *bytes, size_t size, const stance_textures *tex, void **out,
                                     size_t *out_size, stance_error *err);

/* The textures of the file at `path` that stance_open_file opened into
 * `asset`: a .stance file's texture section, a glTF's base-colour images
 * (src/io/gltf_textures.cpp; a texture that cannot be kept is a warning), none
 * for the other formats. The images are copied into out->owned. (src/io/import.c) */
stance_status stance_textures_of_file(const char *path, const stance_asset *asset, stance_textures *out,
                                      stance_import_warnings *warnings, stance_error *err);

/* `asset` (and `graph`, compiled into it, when not NULL) saved to `path` with
 * the sections for `tex` when it has images or colours (format version 6), else
 * exactly as stance_asset_save_graph_file writes it. */
stance_status stance_textures_save_file(const stance_asset *asset, const stance_graph_desc *graph, const stance_textures *tex,
                                        const char *path, stance_error *err);

/* Frees what *tex owns and zeroes it. */
void stance_textures_free(stance_textures *tex);

/* "png" or "jpeg". */
const char *stance_texture_kind_name(int kind);

/* The kind an image's bytes start as (0: neither PNG nor JPEG). */
int stance_texture_sniff(const unsigned char *bytes, size_t size);
#endif
