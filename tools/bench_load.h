/* tools/bench_load.h - `stance bench --load FILE` (bench_load.c): the time
 * and allocations of loading a .stance file with the runtime. */
#ifndef STANCE_TOOLS_BENCH_LOAD_H
#define STANCE_TOOLS_BENCH_LOAD_H
int bench_load(const char *path, int json);
#endif
