/* hprofstrip --suspects's command line (suspects.c) */
#ifndef HPROFSTRIP_CLI_SUSPECTS_H
#define HPROFSTRIP_CLI_SUSPECTS_H

#include "cli.h"

/* The whole run; the exit code. */
int cli_suspects(const struct cli_tool *t, int argc, char **argv);

#endif
