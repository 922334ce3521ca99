/* src/io/builtin_asset.h - the built-in character as an asset (a graph
 * file's "asset": "builtin", `stance retarget ... builtin`). */
#ifndef STANCE_IO_BUILTIN_ASSET_H
#define STANCE_IO_BUILTIN_ASSET_H
#include "stance/asset.h"

/* The built-in character (stance_builtin_create) as an asset owning its
 * skeleton, clips, skin and mesh. */
stance_status io_builtin_asset(stance_asset *out, stance_error *err);
#endif
