/* stance/lesson.h - the lesson's experiments (experiments/LESSON.md), run on
 * any graph that has its parameters: the 13.5 s transition script, measured
 * per switch mode. Used by `stance scenario`, the demo and the lab, so all
 * three report the same figures. */
#ifndef STANCE_LESSON_H
#define STANCE_LESSON_H

#include "graph.h"

#ifdef __cplusplus
extern "C" {
#endif

#define STANCE_SCENARIO_FRAMES 810 /* 13.5 s at 60 Hz */

/* The six modes of the experiment, in the order the lesson shows them. */
#define STANCE_SCENARIO_MODES 6
extern const stance_switch_mode stance_scenario_modes[STANCE_SCENARIO_MODES];
const char *stance_switch_mode_name(stance_switch_mode mode);   /* "cut", "inertialize-simple", ... */
int stance_switch_mode_parse(const char *name);                 /* -1 if unknown */

/* The script's inputs at time t: speed (m/s), and whether jump is pressed on
 * the frame starting at t (dt = 1/60). */
void stance_scenario_input(float t, float *speed, int *jump_pressed);

typedef struct stance_scenario_frame {
    float time;          /* seconds at the end of the frame */
    int state;           /* current state of the base machine */
    int from_state;      /* -1, or the source of the running transition */
    float progress;      /* 0..1 through the running transition */
    float jump_cm;       /* joint jump if a transition started this frame, else -1 */
    int clips_sampled;
    float speed;
} stance_scenario_frame;

typedef struct stance_scenario_result {
    stance_switch_mode mode;
    float blend_time;
    float worst_jump_cm;     /* largest jump at a switch */
    float worst_at_s;        /* when */
    char worst_transition[2 * 64 + 4]; /* "From->To" */
    int worst_joint;
    int max_clips_sampled;   /* most clips sampled in one frame */
    int transitions;         /* transitions started */
} stance_scenario_result;

/* Runs the script on a fresh instance of `graph` (parameters "speed" float
 * and "jump" trigger are required; the base layer's machine is measured)
 * with every transition switched by `mode`, `blend_time` (0 = 0.25 s) and
 * `easing`. The jump at a switch: on the frame a transition starts, the
 * largest model-space distance between the output and the pose the old state
 * alone gives on that frame (a copy of the instance updated with no
 * transition). frames may be NULL, else gets STANCE_SCENARIO_FRAMES. */
stance_status stance_scenario_run(const stance_graph *graph, stance_switch_mode mode, float blend_time,
                                  stance_easing easing, stance_scenario_result *result,
                                  stance_scenario_frame *frames, const stance_allocator *allocator,
                                  stance_error *err);

#ifdef __cplusplus
}
#endif
#endif
