/* scripts/lab_crowd_node.c - the lab's crowd view without a browser
 * (scripts/lab_crowd_node.sh builds it with emcc and runs it under node): 100
 * characters of lab/lab_crowd.c, 120 warm-up frames, then 3,000 frames of
 * 1/60 s; the update + skinning time of each frame (lab_crowd_update_ms +
 * lab_crowd_skin_ms, as the crowd view shows), its median and its minimum
 * (the minimum is the least disturbed by other work on the machine). */
#include <stdio.h>
#include <stdlib.h>

int lab_init(void);
int lab_crowd_open(int n);
int lab_crowd_step(float dt);
double lab_crowd_update_ms(void);
double lab_crowd_skin_ms(void);
const char *lab_error(void);

enum { WARM = 120, FRAMES = 3000 };
static double ms[FRAMES];

static int by_value(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(void) {
    if (lab_init() != 0 || lab_crowd_open(100) < 0) {
        fprintf(stderr, "lab_crowd_node: %s\n", lab_error());
        return 1;
    }
    for (int f = 0; f < WARM + FRAMES; f++) {
        if (lab_crowd_step(1.0f / 60.0f) != 0) {
            fprintf(stderr, "lab_crowd_node: %s\n", lab_error());
            return 1;
        }
        if (f >= WARM) ms[f - WARM] = lab_crowd_update_ms() + lab_crowd_skin_ms();
    }
    qsort(ms, FRAMES, sizeof ms[0], by_value);
    printf("crowd of 100, update + skinning per frame over %d frames: median %.3f ms, min %.3f ms, 90th %.3f ms\n",
           FRAMES, ms[FRAMES / 2], ms[0], ms[FRAMES * 9 / 10]);
    return 0;
}
