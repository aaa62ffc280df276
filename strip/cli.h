/* Shared command-line front end of hprofstrip and hprofrestore. */
#ifndef HPROFSTRIP_CLI_H
#define HPROFSTRIP_CLI_H

#include "hprof.h"

struct cli_tool {
	const char *name;      /* program name for messages */
	const char *usage;     /* --help text */
	const char *verb;      /* "stripped" / "restored" */
	unsigned flags;        /* engine flags */
	/* extra long options: return 1 if handled, flags may be updated */
	int (*option)(const char *arg, unsigned *flags);
};

/* Parses argv, runs the engine from IN to OUT, returns the exit code. */
int cli_main(const struct cli_tool *tool, int argc, char **argv);

/* Exit codes. */
enum { EXIT_OK = 0, EXIT_BAD_INPUT = 1, EXIT_USAGE = 2 };

#endif
