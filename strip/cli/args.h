/*
 * The tools' command line (args.c): what it asks for, read once, with the
 * usage errors said.
 */
#ifndef HPROFSTRIP_ARGS_H
#define HPROFSTRIP_ARGS_H

#include "cli.h"

/* What the command line asks for. */
struct args {
	const struct cli_tool *tool;
	int verbosity;         /* 0 quiet (-q: cli_quiet), 1 errors, 2 summary
	                          (-v) */
	const char *in_path, *out_path;
	const char *map_path;  /* --names-map */
	const char *unredact;  /* --unredact MAP */
	unsigned flags;
	int info, json;
	int histo;             /* --histo */
	const char *baseline;  /* --baseline OLD */
	int stream;     /* --stream: segmented output for a file too */
};

/* Is --info among the options (before any "--")? */
int args_info_mode(const struct cli_tool *tool, int argc, char **argv);
/* Is --suspects among them? (It is a command line of its own:
 * strip/cli/suspects.c.) */
int args_suspects_mode(int argc, char **argv);
/* Is --histo among them (and no --info)? */
int args_histo_mode(const struct cli_tool *tool, int argc, char **argv);
/* The one argument parser, for a->tool at a->verbosity: fills a. -1 to
 * go on, else the exit code. */
int args_parse(struct args *a, int argc, char **argv);

#endif
