/*
 * Front end shared by hprofstrip and hprofrestore, the run: the input
 * through the engine into the output (out.c: temporary file and rename,
 * in-place length patches), --keep-strings' and --redact's passes,
 * progress and messages; the mode chosen (cli_main). Data goes to stdout
 * or -o, messages to stderr. The command line is args.c's; the names map,
 * names.c's; --info's and --histo's runs, counts.c's.
 */
#include "run.h"
#include "histo.h"
#include "info.h"
#include "keepset.h"
#include "names.h"
#include "out.h"
#include "suspects.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>


static void show_progress(struct run *r, uint64_t done, int final)
{
	double t = run_now(), el = t - r->t0, rate, left;
	int pct;

	if (!final && t - r->last < 0.1 && r->last > 0)
		return;
	r->last = t;
	rate = el > 0 ? (double)done / el : 0;
	/* (an input that grows while it is read is past its size: done) */
	if (done > r->in_size)
		done = r->in_size;
	pct = r->in_size ? (int)(done * 100 / r->in_size) : 100;
	left = rate > 0 ? (double)(r->in_size - done) / rate : 0;
	if (left > 9999 * 60.0)
		left = 9999 * 60.0;  /* (int) of it stays defined */
	fprintf(stderr, "\r%s: %3d%% %8.1f MB/s %4d:%02d left ", r->tool->name,
	        pct, rate / 1e6, (int)left / 60, (int)left % 60);
	if (final)
		fputs("\r\033[K", stderr);
	fflush(stderr);
}

static void progress_tick(void *user, uint64_t done)
{
	struct run *r = user;
	off_t pos = decomp_pos(r->dc);

	/* compressed: how far the decompressor has read the file */
	show_progress(r, pos >= 0 ? (uint64_t)pos : done, 0);
}

/* keepset_exact's pass 1: the input once more (a compressed file through
 * its decompressor again) */
static int keep_pass(void *user, struct hs_state *st)
{
	if (run_input_run(user, st, NULL)) {
		errno = EIO;
		return -1;
	}
	return 0;
}

static int pump(struct run *r, struct hs_state *st, struct out *o)
{
	r->t0 = run_now();
	if (run_input_run(r, st, r->progress ? progress_tick : NULL))
		return -1;
	if (!st->err)
		out_flush(o);
	if (r->progress)
		show_progress(r, r->dc->prog ? r->in_size : st->in_off, 1);
	if (st->err == HS_E_EMIT || o->err) {
		out_report(o);
		return -1;
	}
	if (st->err) {
		run_engine_error(r, st);
		return -1;
	}
	return 0;
}

/* --redact: the engine's layout tables (hprof.h: HS_REDACT). */
struct layouts {
	struct hs_redact red;
	int passes;            /* 2: the input was read again, every layout
	                          known from the first pass */
};

static void layouts_free(struct layouts *l);

static int layouts_alloc(struct layouts *l)
{
	memset(l, 0, sizeof *l);
	l->red.classes = calloc(HS_REDACT_CLASSES, sizeof *l->red.classes);
	l->red.types = malloc(HS_REDACT_TYPES);
	l->red.gather = malloc(HS_REDACT_GATHER);
	l->red.fw_names = calloc(HS_REDACT_FW, sizeof *l->red.fw_names);
	l->red.fw_classes = calloc(HS_REDACT_FW, sizeof *l->red.fw_classes);
	l->red.flat = malloc(HS_REDACT_FLAT * sizeof *l->red.flat);
	l->red.patch = malloc(HS_REDACT_PATCHES * sizeof *l->red.patch);
	l->red.sized = malloc(HS_REDACT_SIZED * sizeof *l->red.sized);
	if (!l->red.classes || !l->red.types || !l->red.gather ||
	    !l->red.fw_names || !l->red.fw_classes || !l->red.flat ||
	    !l->red.patch || !l->red.sized) {
		layouts_free(l);
		errno = ENOMEM;
		return -1;
	}
	l->red.class_slots = HS_REDACT_CLASSES;
	l->red.types_size = HS_REDACT_TYPES;
	l->red.gather_size = HS_REDACT_GATHER;
	l->red.fw_slots = HS_REDACT_FW;
	l->red.flat_slots = HS_REDACT_FLAT;
	l->red.patch_slots = HS_REDACT_PATCHES;
	l->red.sized_slots = HS_REDACT_SIZED;
	l->passes = 1;
	return 0;
}

static void layouts_free(struct layouts *l)
{
	free(l->red.classes);
	free(l->red.types);
	free(l->red.gather);
	free(l->red.fw_names);
	free(l->red.fw_classes);
	free(l->red.flat);
	free(l->red.patch);
	free(l->red.sized);
	memset(l, 0, sizeof *l);
}

/* A first pass filled the tables: the next knows every layout. */
static void layouts_learnt(struct layouts *l, const struct hs_state *st)
{
	hs_redact_filled(st, &l->red);
	l->passes = 2;
}

/* The input from its start again: a plain file seeked back, a compressed
 * one decompressed again. -1 if it cannot be (said). */
static int input_rewind(struct run *r)
{
	struct decomp *d = r->dc;

	if (!d->prog && lseek(d->in_fd, d->start, SEEK_SET) < 0) {
		run_input_error(r, "seek", strerror(errno));
		return -1;
	}
	return 0;
}

/* --redact into a stream (nothing can be written again): the layouts
 * learnt first, from a pass over a seekable input whose output is
 * discarded. Does nothing for a pipe. -1 on a read error (said). */
static int layouts_first(struct run *r, struct layouts *l, unsigned flags)
{
	struct hs_config cfg = { .flags = flags, .redact = &l->red };
	struct hs_state st;

	if (!r->dc->seekable)
		return 0;
	hs_init(&st, &cfg, &info_discard);
	if (run_input_run(r, &st, NULL) || input_rewind(r))
		return -1;
	layouts_learnt(l, &st);
	return 0;
}

/* The engine from in_fd into OUT; the exit code. */
static int transform(struct run *r, const struct args *a)
{
	int in_fd = r->dc->in_fd;
	const struct cli_tool *tool = r->tool;
	const char *out_path = a->out_path;
	struct hs_config cfg = { .flags = a->flags };
	struct keepset ks;
	struct layouts lay;
	struct names_io nio;
	struct hs_state st;
	struct hs_sink sink;
	static struct hs_census cen;
	struct out o;
	struct stat sb;
	int rc;

	if (out_path && !strcmp(out_path, "-"))
		out_path = NULL;
	if (!out_path && isatty(1)) {
		if (r->verbosity)
			cli_say("%s: refusing to write a heap dump to a "
			        "terminal; use -o FILE or a redirection\n",
			        tool->name);
		return EXIT_USAGE;
	}
	if (run_same_file(r, out_path))
		return EXIT_USAGE;
	if (run_input_sniff(r))
		return EXIT_BAD_INPUT;
	if (fstat(in_fd, &sb))
		sb.st_mode = 0;
	if (S_ISREG(sb.st_mode)) {
		r->in_size = (uint64_t)sb.st_size;
#ifdef POSIX_FADV_SEQUENTIAL
		posix_fadvise(in_fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
	}
	r->progress = r->verbosity > 0 && r->in_size > 0 && isatty(2);
	memset(&ks, 0, sizeof ks);
	memset(&lay, 0, sizeof lay);
	if ((a->flags & HS_REDACT) && layouts_alloc(&lay)) {
		if (r->verbosity)
			cli_say("%s: %s: --redact: %s\n", tool->name,
			        r->in_name, strerror(errno));
		return EXIT_BAD_INPUT;
	}
	cfg.redact = &lay.red;
	/* (keeping Strings: whether IN was stripped before, stripped_note) */
	memset(&cen, 0, sizeof cen);
	if (a->flags & HS_KEEP_STRINGS)
		cfg.census = &cen;
	if (a->flags & (HS_KEEP_STRINGS | HS_KEEP_BITMAPS)) {
		/* a file is read twice (exact), a compressed one decompressed
		 * twice; anything else streams */
		if (S_ISREG(sb.st_mode)
		            ? keepset_exact(&ks, in_fd, a->flags, keep_pass, r)
		            : keepset_stream(&ks)) {
			if (r->verbosity && !r->said)
				cli_say("%s: %s: %s: %s\n", tool->name,
				        r->in_name, a->flags & HS_KEEP_STRINGS
				        ? "--keep-strings" : "--keep-bitmaps",
				        strerror(errno));
			layouts_free(&lay);
			return EXIT_BAD_INPUT;
		}
		cfg.keep = &ks.tables;
	}
	/* before the output is touched: a decompressor that cannot be run
	 * leaves no output at all */
	if (run_input_start(r)) {
		keepset_free(&ks);
		layouts_free(&lay);
		return EXIT_BAD_INPUT;
	}
	if (out_open(&o, out_path, tool->name, run_out_mode(&sb),
	             !r->verbosity)) {
		keepset_free(&ks);
		layouts_free(&lay);
		return EXIT_BAD_INPUT;
	}
	if ((rc = names_start(a, r->dc->in_fd, out_path, &nio, &cfg)) != 0) {
		out_abort(&o);
		keepset_free(&ks);
		layouts_free(&lay);
		return rc == -2 ? EXIT_USAGE : EXIT_BAD_INPUT;
	}
	/* a pipe cannot be patched: segments of known length, bounded memory */
	if (a->stream || o.kind == OUT_STREAM) {
		static unsigned char seg[HS_STREAM_BUF];
		cfg.flags |= HS_STREAM;
		cfg.seg_buf = seg;
	}
	sink.write = out_write;
	sink.patch = out_patch;
	sink.truncate = out_truncate;
	sink.user = &o;
	rc = 0;
	/* --redact into a stream: the layouts first, from a file */
	if ((cfg.flags & HS_REDACT) && (cfg.flags & HS_STREAM))
		rc = layouts_first(r, &lay, cfg.flags &
		                   ~(unsigned)(HS_STREAM | HS_REDACT_NAMES));
	if (rc == 0) {
		hs_init(&st, &cfg, &sink);
		nio.rd.dump_time = &st.timestamp;
		rc = pump(r, &st, &o);
	}
	/* --unredact: a map of another dump gives nothing back */
	if (rc == 0 && nio.rd.foreign) {
		if (r->verbosity)
			cli_say("%s: %s: the names map of another dump "
			        "(its time stamp is not %s's)\n", tool->name,
			        a->unredact, r->in_name);
		rc = -1;
	}
	/* --redact: instances came before their class dumps (ART); from a
	 * file, once more with every layout known, over what was written */
	if (rc == 0 && st.withheld && r->dc->seekable && lay.passes == 1) {
		layouts_learnt(&lay, &st);
		rc = out_truncate(&o, 0) || names_restart(&nio) ||
		     input_rewind(r) ? -1 : 0;
		if (rc == 0) {
			hs_init(&st, &cfg, &sink);
			rc = pump(r, &st, &o);
		}
	}
	if (rc == 0)
		rc = out_commit(&o);
	else
		out_abort(&o);
	if (names_end(&nio, &st, rc == 0))
		rc = -1;
	if (!rc && r->verbosity >= 2)
		run_summary(r, &st, &ks);
	if (!rc)
		run_redact_note(r, &st, &lay.red, lay.passes);
	if (!rc && r->verbosity >= 2 && (st.flags & (HS_REDACT_NAMES | HS_UNREDACT)))
		cli_say("%s: %s: %llu names %s%s%s\n", tool->name,
		        r->in_name, (unsigned long long)st.names_tokenized,
		        st.flags & HS_UNREDACT ? "given back from " : "tokenized; "
		        "their originals in ", st.flags & HS_UNREDACT ? a->unredact
		                                                     : nio.path,
		        st.flags & HS_UNREDACT ? "" : " (keep it private)");
	if (!rc)
		run_salvage_note(r, &st);
	if (!rc && (a->flags & HS_KEEP_STRINGS))
		run_stripped_note(r, &cen);
	keepset_free(&ks);
	layouts_free(&lay);
	return rc ? EXIT_BAD_INPUT : EXIT_OK;
}

int cli_main(const struct cli_tool *tool, int argc, char **argv)
{
	struct run r;
	struct args a;
	struct decomp dc;
	int in_fd, rc;

	if (tool->suspects_usage && args_suspects_mode(argc, argv))
		return cli_suspects(tool, argc, argv);
	memset(&r, 0, sizeof r);
	memset(&a, 0, sizeof a);
	r.tool = a.tool = tool;
	a.verbosity = !cli_quiet(argc, argv);
	a.flags = tool->flags;
	a.info = args_info_mode(tool, argc, argv);
	a.histo = args_histo_mode(tool, argc, argv);
	rc = args_parse(&a, argc, argv);
	r.verbosity = a.verbosity;
	if (rc >= 0)
		return rc;
	in_fd = run_open_input(&r, a.in_path);
	if (in_fd < 0)
		return EXIT_BAD_INPUT;
	memset(&dc, 0, sizeof dc);
	dc.in_fd = in_fd;
	r.dc = &dc;
	rc = a.info ? run_census(&r, &a)
	     : a.histo ? run_histogram(&r, &a) : transform(&r, &a);
	decomp_finish(&dc, 1);  /* a decompressor left running: reaped */
	if (in_fd > 0)
		close(in_fd);
	return rc;
}
