/* lab/lab.h - what the lab's C files share: the view record (one graph, one
 * instance, the character's skins and meshes), the one place the lab calls
 * the runtime's per-frame update (lab_update; view 0 steps a stance_scenario
 * runner instead), and the error message. */
#ifndef STANCE_LAB_H
#define STANCE_LAB_H

#include "stance/stance.h"
#include "stance_lesson/stance_lesson.h"

#ifdef __EMSCRIPTEN__
#include <emscripten.h>
#define LAB_API EMSCRIPTEN_KEEPALIVE
#else
#define LAB_API
#endif

#define LAB_VIEWS 4      /* 0 lesson machine, 1 layers, 2 a file's graph, 3 a file's clips */
#define LAB_WINDOW 241   /* 4 s of frames at 60 Hz, and the first one */
#define LAB_DT (1.0f / 60.0f)
#define LAB_MAX_DRAW STANCE_MAX_MESHES /* skins and meshes drawn per character (all a file may hold) */

typedef struct lab_view {
    const stance_skeleton *skeleton;
    stance_graph *graph;
    int owns_graph;           /* 0: the graph belongs to an asset */
    stance_instance *inst;
    stance_workspace *ws;     /* evaluation scratch for this view's updates */
    float root[3];            /* accumulated root motion, world = root + model */
    int move_root;            /* 0: the clip's own joint-0 track moves the pose */
    float height;             /* rest pose height, for drawing scale */
    signed char side[STANCE_MAX_JOINTS]; /* rest pose: 1 left (+x), -1 right, 0 middle */
    int feet[2];              /* foot joints, -1 if none */
    float band;               /* the sliding band for those feet (stance_slide_bands) */
    int band_feet[2];         /* the feet `band` was computed for (0, 0 before any) */
    /* what is drawn: skins and the meshes bound to them */
    int skin_count, mesh_count;
    const stance_skin *skins[LAB_MAX_DRAW];
    const stance_mesh *meshes[LAB_MAX_DRAW];
    /* the last LAB_WINDOW frames: feet world positions and root travel */
    float feet_pos[LAB_WINDOW][2][3];
    float travel[LAB_WINDOW];  /* horizontal root travel of that frame */
    int count, head;           /* frames stored, next slot */
    int planted[2];
    float lowest[2];
} lab_view;

/* The view if it has an instance, else NULL. */
lab_view *lab_view_at(int view);
/* View `view` (0..LAB_VIEWS-1) with or without an instance. */
lab_view *lab_view_slot(int view);
/* Makes the view's instance on graph (owned by the view when owns is 1); 0 or -1. */
int lab_view_open(lab_view *v, stance_graph *graph, int owns);
void lab_view_close(lab_view *v);
/* The rest pose's height; fills side[] (1 left, -1 right, 0 middle per joint). */
float lab_rest_height(const stance_skeleton *sk, signed char *side);
/* After an update: root motion and the feet's tracking window. */
void lab_track_frame(lab_view *v);
const stance_builtin *lab_builtin(void);
/* lab_asset.c: the loaded file's asset (NULL before one); view 2 now runs a
 * graph the editor built (lab_editor.c) */
const stance_asset *lab_asset_loaded(void);
void lab_asset_view_edited(lab_view *v);
/* lab_editor.c: forgets the editor's graph (before the asset it borrows goes) */
void lab_editor_release(void);
/* lab_editor.c: the 256-byte name buffer; the graph the editor built last (NULL: none) */
char *lab_editor_name(void);
const stance_graph *lab_editor_graph(void);
int lab_fail(const char *fmt, ...);

/* Every per-frame update of the lab goes through this, but view 0's: its
 * stance_scenario runner (the lesson library) updates it. */
static inline stance_status lab_update(stance_instance *inst, float dt, stance_workspace *ws, stance_error *err) {
    return stance_instance_update(inst, dt, ws, err);
}

#endif
