/* tests/test_graphfile_inertia.c - issue 15's goal for Bollo's
 * inertialization on RobotExpressive (graphs/robot.json, the lesson's
 * script): its whole-transition acceleration ratio and overshoot no larger
 * than the per-component quintic's and no larger than crossfade's. Needs
 * ../shared/data (skipped with a message when absent, failing under CI). */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "stance/io.h"
#include "stance/stance.h"
#include "stance_lesson/stance_lesson.h"

static int have_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (f) fclose(f);
    return f != NULL;
}

static void test_lesson_goal_robot(void) {
    const char *data = getenv("STANCE_DATA"), *src = getenv("STANCE_SOURCE");
    char glb[1024], path[1024];
    snprintf(glb, sizeof glb, "%s/robot_expressive/RobotExpressive.glb", data ? data : "../shared/data");
    if (!have_file(glb)) {
        CHECK(getenv("CI") == NULL); /* CI has the data */
        printf("  skipped: %s is missing\n", glb);
        return;
    }
    snprintf(path, sizeof path, "%s/graphs/robot.json", src ? src : ".");
    stance_graphfile *gf = NULL;
    stance_error err;
    CHECK_OK(stance_graphfile_load(path, NULL, &gf, &err));
    if (!gf) { printf("  %s\n", err.message); return; }
    const stance_graph *g = stance_graphfile_graph(gf);
    stance_scenario_result in, is, cf;
    CHECK_OK(stance_scenario_run(g, STANCE_SWITCH_INERTIALIZE, 0.25f, STANCE_EASE_SMOOTHSTEP, &in, NULL, NULL, NULL));
    CHECK_OK(stance_scenario_run(g, STANCE_SWITCH_INERTIALIZE_SIMPLE, 0.25f, STANCE_EASE_SMOOTHSTEP, &is, NULL, NULL, NULL));
    CHECK_OK(stance_scenario_run(g, STANCE_SWITCH_CROSSFADE, 0.25f, STANCE_EASE_SMOOTHSTEP, &cf, NULL, NULL, NULL));
    printf("  accel ratio: inertialize %.3f, simple %.3f, crossfade %.3f\n", (double)in.accel_ratio, (double)is.accel_ratio,
           (double)cf.accel_ratio);
    printf("  overshoot:   inertialize %.2f, simple %.2f, crossfade %.2f cm\n", (double)in.overshoot_cm, (double)is.overshoot_cm,
           (double)cf.overshoot_cm);
    CHECK(in.transitions == 8);
    CHECK(in.accel_ratio <= is.accel_ratio && in.accel_ratio <= cf.accel_ratio);
    CHECK(in.overshoot_cm <= is.overshoot_cm && in.overshoot_cm <= cf.overshoot_cm);
    stance_graphfile_destroy(gf);
}

int main(void) {
    RUN(test_lesson_goal_robot);
    return check_summary();
}
