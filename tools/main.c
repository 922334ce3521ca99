/* tools/main.c - `stance`, the command line: dispatches to a subcommand. */
#include <stdio.h>
#include <string.h>

#include "commands.h"

typedef struct command {
    const char *name;
    const char *help;
    int (*run)(int argc, char **argv);
} command;

static const command commands[] = {
#define COMMAND(name, help) {#name, help, cmd_##name},
#include "commands.def"
#undef COMMAND
};

/* Command names are C identifiers ("graph_check"); on the command line a
 * '-' stands for the '_' ("graph-check"), and either is accepted. */
static int same_name(const char *typed, const char *name) {
    for (; *typed && *name; typed++, name++)
        if (*typed != *name && !(*typed == '-' && *name == '_')) return 0;
    return *typed == *name;
}

static void usage(FILE *f) {
    fprintf(f, "usage: stance COMMAND [options]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        char shown[32];
        snprintf(shown, sizeof shown, "%s", commands[i].name);
        for (char *c = shown; *c; c++) if (*c == '_') *c = '-';
        fprintf(f, "  %-12s %s\n", shown, commands[i].help);
    }
    fprintf(f, "\n`stance COMMAND --help` describes a command's options.\n");
}

int main(int argc, char **argv) {
    if (argc < 2) { usage(stderr); return 2; }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (same_name(argv[1], commands[i].name)) return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "stance: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return 2;
}
