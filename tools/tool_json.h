/* tools/tool_json.h - JSON and text output helpers shared by commands that
 * print names from files (which may hold any bytes). */
#ifndef STANCE_TOOLS_JSON_H
#define STANCE_TOOLS_JSON_H
#include <stdio.h>

#include "stance/skeleton.h"

/* s with control bytes as '?', so a name cannot break a line. */
void tool_put_plain(FILE *f, const char *s);
/* A JSON string: quotes, backslashes and control bytes escaped; bytes that
 * are not valid UTF-8 become \u00XX (read as Latin-1): always valid JSON. */
void tool_put_json_string(FILE *f, const char *s);
/* [{"name":..,"parent":name or null},...], one per joint in skeleton order. */
void tool_put_joints_json(FILE *f, const stance_skeleton *skeleton);
#endif
