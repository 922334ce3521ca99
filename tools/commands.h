/* tools/commands.h - the subcommands of the `stance` command line. */
#ifndef STANCE_TOOLS_COMMANDS_H
#define STANCE_TOOLS_COMMANDS_H
#define COMMAND(name, help) int cmd_##name(int argc, char **argv);
#include "commands.def"
#undef COMMAND
#endif
