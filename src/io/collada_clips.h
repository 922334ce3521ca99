/* src/io/collada_clips.h - the names of a Collada file's animation clips
 * (src/io/collada_clips.c), which assimp 5.2 replaces by "combinedAnim_<i>". */
#ifndef STANCE_IO_COLLADA_CLIPS_H
#define STANCE_IO_COLLADA_CLIPS_H

/* Reads `path` and stores the name (or, without one, the id) of each
 * <animation_clip> element in file order, at most `cap` of them, each cut
 * to 63 bytes with control bytes as '?'. Returns how many there are (all of
 * them, even past cap), or -1 when the file cannot be read. */
int stance_collada_clip_names(const char *path, char (*names)[64], int cap);

#endif
