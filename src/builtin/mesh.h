/* src/builtin/mesh.h - the built-in character's procedural skin and mesh
 * (src/builtin/mesh.c), for character.c. Not public: callers get them
 * through stance_builtin. */
#ifndef STANCE_BUILTIN_MESH_H
#define STANCE_BUILTIN_MESH_H

#include "stance/skin.h"

/* A skin of every skeleton joint (skin joint k = skeleton joint k, inverse
 * binds from the rest pose) and a closed skinned mesh: one rounded capsule
 * per bone. The skeleton must be the built-in one (joints found by name). */
stance_status st_builtin_mesh(const stance_skeleton *skeleton, const stance_allocator *allocator,
                              stance_skin **skin, stance_mesh **mesh, stance_error *err);

#endif
