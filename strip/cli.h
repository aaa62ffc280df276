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
	/* --help text of the --info mode; NULL: the tool has no such mode */
	const char *info_usage;
};

/* Reads fd to its end through the engine, then finishes it. -1: a read
 * failed (errno says why); 0: the engine ran (st->err tells the rest).
 * tick, if set, is called with the input offset after each chunk. */
int cli_feed(struct hs_state *st, int fd,
             void (*tick)(void *user, uint64_t done), void *user);

/* 1 if argv holds -q (before any "--", and not as the file name of -o):
 * then nothing is printed, not even a usage error. */
int cli_quiet(int argc, char **argv);

/* Parses argv, runs the engine from IN to OUT (or, with --info, into the
 * census), returns the exit code. */
int cli_main(const struct cli_tool *tool, int argc, char **argv);

/* Exit codes. */
enum { EXIT_OK = 0, EXIT_BAD_INPUT = 1, EXIT_USAGE = 2 };

#endif
