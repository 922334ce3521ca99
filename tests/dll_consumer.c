/* tests/dll_consumer.c - a program using the stance DLLs the way a Windows
 * user does (scripts/cross_test.sh windows builds it, target dll_consumer,
 * and runs it under wine): linked to stance::lesson_shared (which brings
 * build_shared and stance_shared) with STANCE_SHARED from those targets, so
 * the headers' STANCE_API is dllimport. Checks each DLL's function answers
 * against the header's own macros and names, and that a function's address
 * in this program is the one GetProcAddress finds in the DLL (true only
 * through dllimport: without it the address is a jump stub in the .exe). */
#ifndef _WIN32
#error "dll_consumer is a Windows program"
#endif
#ifndef STANCE_SHARED
#error "the *_shared targets must give their users STANCE_SHARED"
#endif
#include <stdio.h>
#include <string.h>
#include <windows.h>
#include "stance/stance.h"
#include "stance/build.h"
#include "stance_lesson/lesson.h"

static int failures = 0;
static void check(int ok, const char *what) {
    printf("%s %s\n", ok ? "ok  " : "FAIL", what);
    if (!ok) failures++;
}

/* the address this program holds for a function vs the DLL's own export */
static void same_address(const char *dll, const char *name, void (*fn)(void)) {
    HMODULE m = GetModuleHandleA(dll);
    FARPROC p = m ? GetProcAddress(m, name) : NULL;
    char what[160];
    snprintf(what, sizeof what, "%s: %s is imported (address %p, the DLL's %p)", dll, name, (void *)fn, (void *)p);
    check(m != NULL && p != NULL && (void (*)(void))p == fn, what);
}

int main(void) {
    char want[32];
    snprintf(want, sizeof want, "%d.%d.%d", STANCE_VERSION_MAJOR, STANCE_VERSION_MINOR, STANCE_VERSION_PATCH);
    check(stance_version_number() == STANCE_VERSION_NUMBER, "stance_version_number() == STANCE_VERSION_NUMBER");
    check(strcmp(stance_version(), want) == 0, "stance_version() == \"MAJOR.MINOR.PATCH\" of the header");
    check(strcmp(stance_status_name(STANCE_OK), "ok") == 0, "stance_status_name(STANCE_OK) == \"ok\"");

    /* the builder DLL: a NULL description is refused with a message */
    stance_error err;
    memset(&err, 0, sizeof err);
    stance_graph *graph = NULL;
    stance_status st = stance_graph_create(NULL, NULL, &graph, &err);
    check(st == STANCE_ERR_ARGUMENT && err.status == STANCE_ERR_ARGUMENT && err.message[0] != '\0' && graph == NULL,
          "stance_graph_create(NULL) -> STANCE_ERR_ARGUMENT with a message");

    /* the lesson DLL: every mode's name parses back to the mode */
    int round_trips = 1;
    for (int m = 0; m < STANCE_SWITCH_MODE_COUNT; m++) {
        const char *name = stance_switch_mode_name((stance_switch_mode)m);
        if (!name || stance_switch_mode_parse(name) != m) round_trips = 0;
    }
    check(round_trips, "stance_switch_mode_parse(stance_switch_mode_name(m)) == m for each mode");
    /* a data symbol through dllimport: the DLL's table, each mode once */
    int seen = 0;
    for (int i = 0; i < STANCE_SCENARIO_MODES; i++) {
        int m = (int)stance_scenario_modes[i];
        if (m >= 0 && m < STANCE_SWITCH_MODE_COUNT) seen |= 1 << m;
    }
    check(seen == (1 << STANCE_SWITCH_MODE_COUNT) - 1, "stance_scenario_modes (data, dllimport) lists each mode once");

    same_address("libstance.dll", "stance_version_number", (void (*)(void))stance_version_number);
    same_address("libstance_build.dll", "stance_graph_create", (void (*)(void))stance_graph_create);
    same_address("libstance_lesson.dll", "stance_switch_mode_name", (void (*)(void))stance_switch_mode_name);
    printf("dll_consumer: %d failure(s)\n", failures);
    return failures ? 1 : 0;
}
