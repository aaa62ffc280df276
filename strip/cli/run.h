/*
 * Between the front end's files (cli.h), each calling only those below
 * it: cli.c (a transform's run, the mode chosen), counts.c (the runs
 * that write no dump: --info, --histo), notes.c (what a run says),
 * input.c (IN opened, sniffed, decompressed, fed to the engine; the
 * checks every run makes of its output).
 */
#ifndef HPROFSTRIP_CLI_RUN_H
#define HPROFSTRIP_CLI_RUN_H

#include "cli.h"
#include "args.h"
#include "decomp.h"

#include <stdint.h>
#include <sys/stat.h>

/* one run of a tool: its input and how it speaks */
struct run {
	const struct cli_tool *tool;
	const char *in_name;   /* for messages */
	int verbosity;         /* 0 quiet, 1 errors, 2 summary */
	int progress;          /* show a progress line */
	uint64_t in_size;      /* regular input: its size, else 0 */
	double t0, last;
	struct decomp *dc;     /* the input, decompressed if need be */
	int said;              /* a message about the input was printed */
	const char *cut;       /* --salvage: the decompressor ("gzip") whose
	                          input was cut short */
};

/* the monotonic clock, in seconds */
double run_now(void);

/* The one message about the input: "prog: name: what". */
void run_input_error(struct run *r, const char *what, const char *why);

/* The input's first bytes: is it compressed? -1 if they cannot be read
 * (said). */
int run_input_sniff(struct run *r);

/* A compressed input: its decompressor started. -1 if it cannot be (said). */
int run_input_start(struct run *r);
/* The whole input through the engine, decompressed if need be (the
 * decompressor started and reaped, its status checked): 0, or -1 with the
 * message said. An offset the engine names is one of the decompressed
 * input; a failed decompressor speaks before what the engine made of a cut
 * stream, unless --salvage takes its cut input for a cut dump (r->cut). */
int run_input_run(struct run *r, struct hs_state *st,
                  void (*tick)(void *user, uint64_t done));

/* The permission bits of the output: the input's, or 0600 for a pipe. */
unsigned run_out_mode(const struct stat *in);

/* The one input path: IN, or stdin for none or "-". -1 if it cannot be
 * opened (said, unless quiet). */
int run_open_input(struct run *r, const char *path);

/* An output that is the input itself (same st_dev and st_ino: -o naming
 * it, through symlinks or not, or stdout redirected into it with 1<> or
 * >>) would overwrite what is still to be read, or replace it: refused as
 * cat does, before anything is opened for writing. A compressed input is
 * its file, not the decompressor's pipe. 1 if refused (said). */
int run_same_file(const struct run *r, const char *out_path);

/* --info: the census of IN on stdout or -o FILE; exit 1 unless it is
 * well-formed (then FILE is not written). */
int run_census(struct run *r, const struct args *a);

/* --histo: IN's class histogram (--baseline: its change since OLD) to
 * stdout or -o, written only once whole; the exit code. */
int run_histogram(struct run *r, const struct args *a);

/* ---- notes.c ---- */

struct keepset;

/* The engine's error: "prog: name: offset N: reason", and for a dump cut
 * inside a record, what --salvage would do about it. */
void run_engine_error(const struct run *r, const struct hs_state *st);
/* --salvage on a dump that was cut (or whose compressed input was): what
 * was dropped and kept, one line */
void run_salvage_note(const struct run *r, const struct hs_state *st);
/* --redact: what was zeroed (its layouts, read in passes), and what could
 * not be split (withheld). */
void run_redact_note(const struct run *r, const struct hs_state *st,
                     const struct hs_redact *layouts, int passes);
/* -v: bytes in and out, arrays, and what was kept and how */
void run_summary(const struct run *r, const struct hs_state *st,
                 const struct keepset *ks);
/* --keep-strings of a dump stripped before (its arrays 0xC3 already):
 * what is gone cannot be kept, and where it can be is said, unless
 * quiet. */
void run_stripped_note(const struct run *r, const struct hs_census *c);

#endif
