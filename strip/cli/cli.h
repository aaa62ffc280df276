/* Shared command-line front end of hprofstrip and hprofrestore. */
#ifndef HPROFSTRIP_CLI_H
#define HPROFSTRIP_CLI_H

#include "../engine/hprof.h"

/* A tool's own long option: the engine flags it adds. */
struct cli_option {
	const char *name;      /* "--jvm" */
	unsigned flags;
};

struct cli_tool {
	const char *name;      /* program name for messages */
	const char *usage;     /* --help text */
	const char *verb;      /* "stripped" / "restored" */
	unsigned flags;        /* engine flags */
	/* its own long options, ended by { NULL, 0 } */
	const struct cli_option *options;
	/* --help text of the --info mode; NULL: the tool has no such mode */
	const char *info_usage;
	int redacts;           /* takes --redact (hprofstrip) */
	int unredacts;         /* takes --unredact MAP (hprofrestore) */
	/* --help text of the --histo mode; NULL: the tool has no such mode */
	const char *histo_usage;
	/* --help text of the --suspects mode (strip/cli/suspects.c); NULL:
	   none */
	const char *suspects_usage;
};

/* 1 if argv holds -q (before any "--", and not as the file name of -o),
 * alone or among other v's and q's (-vq): then nothing is printed, not
 * even a usage error. */
int cli_quiet(int argc, char **argv);
/* Is s -v, -q or a run of them (-vv, -vq)? Then 1, and *v its v's. */
int cli_vq(const char *s, int *v);

/* Parses argv, runs the engine from IN to OUT (or, with --info, into the
 * census; with --histo, into the class histogram), returns the exit
 * code. */
int cli_main(const struct cli_tool *tool, int argc, char **argv);

/* --help text both tools share: IN and -o, then the options after their
 * own, and the exit status. */
#define CLI_HELP_IN_OUT \
"  IN           input dump; '-' or none: stdin. A zstd, gzip, xz or lz4\n" \
"               compressed one (known by its magic bytes, from a file or a\n" \
"               pipe) is read through zstd -dc, gzip -dc, xz -dc or lz4 -dc\n" \
"               on PATH\n" \
"  -o FILE      write FILE (through a temporary file, renamed on success,\n" \
"               with IN's permissions); a symlink is followed, a device or\n" \
"               FIFO written into; '-' or none: stdout\n"
#define CLI_HELP_COMMON \
"  --salvage    a dump cut short: keep what came whole before the cut\n" \
"               (the open heap record closed with its exact length) and\n" \
"               exit 0, saying what was dropped; see hprofstrip(1)\n" \
"  --stream     streamed output for a file too: heap records become\n" \
"               segments written as soon as their length is known, never\n" \
"               patched (a 1.0.1 dump becomes 1.0.2). A pipe, socket or\n" \
"               other non-seekable output always gets this form\n" \
"  -v           print a summary line on stderr (-vv, -vq: one letter each)\n" \
"  -q           print nothing, not even errors, wherever it stands\n" \
"  -h, --help   this help\n" \
"  -V, --version\n" \
"\n" \
"Exit status: 0 success, 1 invalid input or I/O error, 2 usage error.\n"

/* Exit codes. */
enum { EXIT_OK = 0, EXIT_BAD_INPUT = 1, EXIT_USAGE = 2 };

#endif
