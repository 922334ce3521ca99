/* tools/bench_load.h - `stance bench --load FILE` (bench_load.c): the time
 * and allocations of loading a .stance file with the runtime. */
#ifndef STANCE_TOOLS_BENCH_LOAD_H
#define STANCE_TOOLS_BENCH_LOAD_H
int bench_load(const char *path, int json);
/* The clock and the ordering of the medians, shared with cmd_bench.c. */
double bench_now_ns(void);
int bench_cmp_double(const void *a, const void *b);
#endif
