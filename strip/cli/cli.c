/*
 * Front end shared by hprofstrip and hprofrestore, the run: the input
 * through the engine into the output (out.c: temporary file and rename,
 * in-place length patches), --keep-strings' and --redact's passes,
 * progress and messages; --info's and --histo's runs. Data goes to stdout
 * or -o, messages to stderr. The command line is args.c's; the names map,
 * names.c's; the histogram's tables and text, histo.c's.
 */
#include "cli.h"
#include "args.h"
#include "decomp.h"
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

#define IN_BUF (1u << 20)

static unsigned char in_buf[IN_BUF];

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

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void show_progress(struct run *r, uint64_t done, int final)
{
	double t = now(), el = t - r->t0, rate, left;
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

/* fd's bytes through the engine, after head_len bytes already read from
 * it. 1: the engine stopped before the end (st->err); 0: it ran to the end
 * and finished; -1: a read failed (errno). */
static int feed(struct hs_state *st, int fd, const unsigned char *head,
                size_t head_len, void (*tick)(void *user, uint64_t done),
                void *user)
{
	ssize_t got;

	if (head_len && hs_feed(st, head, head_len))
		return 1;
	for (;;) {
		do
			got = read(fd, in_buf, sizeof in_buf);
		while (got < 0 && errno == EINTR);
		if (got < 0)
			return -1;
		if (got == 0)
			break;
		if (hs_feed(st, in_buf, (size_t)got))
			return 1;
		if (tick)
			tick(user, st->in_off);
	}
	hs_finish(st);
	return 0;
}

static void progress_tick(void *user, uint64_t done)
{
	struct run *r = user;
	off_t pos = decomp_pos(r->dc);

	/* compressed: how far the decompressor has read the file */
	show_progress(r, pos >= 0 ? (uint64_t)pos : done, 0);
}

/* The one message about the input: "prog: name: what". */
static void input_error(struct run *r, const char *what, const char *why)
{
	if (r->verbosity)
		cli_say("%s: %s: %s%s%s\n", r->tool->name, r->in_name,
		        what, why ? ": " : "", why ? why : "");
	r->said = 1;
}

/* The input's first bytes: is it compressed? -1 if they cannot be read
 * (said). */
static int input_sniff(struct run *r)
{
	if (decomp_sniff(r->dc, r->dc->in_fd)) {
		input_error(r, "read", strerror(errno));
		return -1;
	}
	return 0;
}

/* A compressed input: its decompressor started. -1 if it cannot be (said). */
static int input_start(struct run *r)
{
	if (!r->dc->prog || r->dc->pid)
		return 0;
	if (decomp_start(r->dc)) {
		input_error(r, r->dc->msg, NULL);
		return -1;
	}
	return 0;
}

/* The whole input through the engine, decompressed if need be (the
 * decompressor started and reaped, its status checked): 0, or -1 with the
 * message said. An offset the engine names is one of the decompressed
 * input; a failed decompressor speaks before what the engine made of a cut
 * stream, unless --salvage takes its cut input for a cut dump (r->cut). */
static int input_run(struct run *r, struct hs_state *st,
                     void (*tick)(void *user, uint64_t done))
{
	struct decomp *d = r->dc;
	int rc, err;

	if (input_start(r))
		return -1;
	if (d->prog)
		rc = feed(st, d->fd, NULL, 0, tick, r);
	else {
		rc = feed(st, d->in_fd, d->head, d->head_len, tick, r);
		d->head_len = 0;
	}
	err = errno;
	if (d->prog && decomp_finish(d, rc != 0) && rc == 0) {
		/* --salvage: what it made of a compressed input cut short is
		 * a dump cut short; not when it made nothing, or was killed */
		if (!(st->flags & HS_SALVAGE) || !d->cut || !st->in_off) {
			input_error(r, d->msg, NULL);
			return -1;
		}
		r->cut = d->prog;
	}
	if (rc < 0) {
		input_error(r, "read", strerror(err));
		return -1;
	}
	return 0;
}

/* keepset_exact's pass 1: the input once more (a compressed file through
 * its decompressor again) */
static int keep_pass(void *user, struct hs_state *st)
{
	if (input_run(user, st, NULL)) {
		errno = EIO;
		return -1;
	}
	return 0;
}

/* The engine's error: "prog: name: offset N: reason", and for a dump cut
 * inside a record, what --salvage would do about it. */
static void engine_error(const struct run *r, const struct hs_state *st)
{
	if (r->verbosity)
		cli_say("%s: %s: offset %llu: %s%s%s%s%s\n", r->tool->name,
		        r->in_name, (unsigned long long)st->err_off,
		        hs_strerror(st->err),
		        st->err == HS_E_TRUNCATED && !(st->flags & HS_SALVAGE)
		            ? " (--salvage keeps what came before it)" : "",
		        r->cut ? " (the " : "", r->cut ? r->cut : "",
		        r->cut ? " input was cut short)" : "");
}

/* --salvage on a dump that was cut (or whose compressed input was): what
 * was dropped and kept, one line */
static void salvage_note(const struct run *r, const struct hs_state *st)
{
	/* a compressed input cut where a record ended: nothing dropped */
	uint64_t from = st->salvaged ? st->salvage_from : st->in_off;

	if (!(st->salvaged || r->cut) || !r->verbosity)
		return;
	cli_say("%s: %s: salvaged a dump cut at offset %llu%s%s%s: "
	        "dropped %llu bytes from offset %llu (%llu sub-record%s, %llu "
	        "record%s), kept %llu objects\n", r->tool->name, r->in_name,
	        (unsigned long long)st->in_off, r->cut ? " (the " : "",
	        r->cut ? r->cut : "", r->cut ? " input was cut short)" : "",
	        (unsigned long long)(st->in_off - from),
	        (unsigned long long)from,
	        (unsigned long long)st->salvage_subs,
	        st->salvage_subs == 1 ? "" : "s",
	        (unsigned long long)st->salvage_recs,
	        st->salvage_recs == 1 ? "" : "s",
	        (unsigned long long)st->objects);
}

static int pump(struct run *r, struct hs_state *st, struct out *o)
{
	r->t0 = now();
	if (input_run(r, st, r->progress ? progress_tick : NULL))
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
		engine_error(r, st);
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
		input_error(r, "seek", strerror(errno));
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
	if (input_run(r, &st, NULL) || input_rewind(r))
		return -1;
	layouts_learnt(l, &st);
	return 0;
}

/* --redact: what was zeroed, and what could not be split (withheld). */
static void redact_note(const struct run *r, const struct hs_state *st,
                        const struct layouts *l)
{
	const char *name = r->tool->name, *in = r->in_name;
	struct hs_redact now = l->red;

	if (!(st->flags & HS_REDACT) || !r->verbosity)
		return;
	hs_redact_filled(st, &now);
	if (st->withheld || st->layouts_lost)
		cli_say("%s: %s: --redact: %llu instances written before "
		        "their class's field list (or past the tables: %llu "
		        "classes): every byte of their fields is zero, "
		        "references too%s\n", name, in,
		        (unsigned long long)st->withheld,
		        (unsigned long long)st->layouts_lost,
		        r->dc->seekable ? "" : "; from a file, a second pass "
		        "knows every layout");
	if (r->verbosity >= 2)
		cli_say("%s: %s: redacted the fields of %llu instances "
		        "and %llu static and constant values; %llu layouts in "
		        "%u KiB, %d pass%s\n", name, in,
		        (unsigned long long)st->redacted,
		        (unsigned long long)st->zeroed,
		        (unsigned long long)now.class_count,
		        (unsigned)((now.class_count * sizeof(struct hs_layout) +
		                    now.types_used + 1023) / 1024),
		        l->passes, l->passes == 1 ? "" : "es");
}

/* --keep-bitmaps: the arrays bitmaps pointed at, and how they were
 * found (with --keep-strings, the next line counts every array kept). */
static void bitmaps_summary(const struct run *r, const struct hs_state *st,
                            const struct keepset *ks)
{
	cli_say("%s: %s: bitmaps: %llu array ids from %llu Bitmap and "
	        "DumpData instances", r->tool->name, r->in_name,
	        (unsigned long long)(ks->exact ? ks->bitmap_refs
	                                       : st->bitmap_refs),
	        (unsigned long long)(ks->exact ? ks->bitmaps : st->bitmaps));
	if (!(st->flags & HS_KEEP_STRINGS))
		cli_say("; %llu arrays kept (%llu element bytes)",
		        (unsigned long long)st->kept,
		        (unsigned long long)st->kept_bytes);
	if (ks->exact)
		cli_say("; exact: %u reading pass%s before\n", ks->passes,
		        ks->passes == 1 ? "" : "es");
	else
		cli_say("; streamed: %llu kept by their image signature "
		        "alone\n", (unsigned long long)st->images);
}

static void summary(const struct run *r, const struct hs_state *st,
                    const struct keepset *ks)
{
	double pct = st->in_off ? 100.0 * (double)st->out_off / (double)st->in_off
	                        : 100.0;
	cli_say("%s: %s: %llu -> %llu bytes (%.1f%%), %llu arrays %s, "
	        "%llu element bytes\n", r->tool->name, r->in_name,
	        (unsigned long long)st->in_off,
	        (unsigned long long)st->out_off, pct,
	        (unsigned long long)st->arrays, r->tool->verb,
	        (unsigned long long)st->elem_bytes);
	if (st->flags & HS_KEEP_BITMAPS)
		bitmaps_summary(r, st, ks);
	if (!(st->flags & HS_KEEP_STRINGS))
		return;
	cli_say("%s: %s: %llu arrays kept (%llu element bytes) for "
	        "%llu strings; ", r->tool->name, r->in_name,
	        (unsigned long long)st->kept, (unsigned long long)st->kept_bytes,
	        (unsigned long long)(ks->exact ? ks->strings : st->strings));
	if (ks->exact)
		cli_say("exact: pass 1 held %llu value ids in %llu KiB\n",
		        (unsigned long long)ks->n,
		        (unsigned long long)(keepset_bytes(ks) + 1023) / 1024);
	else
		cli_say("streamed: %llu KiB of tables, %llu ids evicted\n",
		        (unsigned long long)(keepset_bytes(ks) + 1023) / 1024,
		        (unsigned long long)st->evicted);
}

/* --keep-strings of a dump stripped before (its arrays 0xC3 already):
 * what is gone cannot be kept, and where it can be is said, unless
 * quiet. */
static void stripped_note(const struct run *r, const struct hs_census *c)
{
	uint64_t gone = c->sub_count[HS_SUB_PRIMITIVE_ARRAY_NODATA];

	if (!gone || !r->verbosity)
		return;
	cli_say("%s: %s: %llu of its %llu arrays were stripped before: their "
	        "values are gone, and no String that points at one keeps its "
	        "value; keep them where the dump is taken "
	        "(HPROFSTRIP_KEEP=strings, hprofstrip-run --keep strings), or "
	        "run --keep-strings on the unstripped dump\n",
	        r->tool->name, r->in_name, (unsigned long long)gone,
	        (unsigned long long)(gone +
	                             c->sub_count[HS_SUB_PRIMITIVE_ARRAY_DUMP]));
}

/* The permission bits of the output: the input's, or 0600 for a pipe. */
static unsigned out_mode(const struct stat *in)
{
	return S_ISREG(in->st_mode) ? (unsigned)in->st_mode & 0777 : 0600;
}


/* The one input path: IN, or stdin for none or "-". -1 if it cannot be
 * opened (said, unless quiet). */
static int open_input(struct run *r, const char *path)
{
	int fd;

	if (!path || !strcmp(path, "-")) {
		r->in_name = "stdin";
		return 0;
	}
	r->in_name = path;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 && r->verbosity)
		cli_say("%s: %s: %s\n", r->tool->name, path,
		        strerror(errno));
	return fd;
}

/* An output that is the input itself (same st_dev and st_ino: -o naming
 * it, through symlinks or not, or stdout redirected into it with 1<> or
 * >>) would overwrite what is still to be read, or replace it: refused as
 * cat does, before anything is opened for writing. A compressed input is
 * its file, not the decompressor's pipe. 1 if refused (said). */
static int same_file(const struct run *r, const char *out_path)
{
	struct stat in, out;
	const char *name;

	if (fstat(r->dc->in_fd, &in) ||
	    !(S_ISREG(in.st_mode) || S_ISBLK(in.st_mode)))
		return 0;
	if (out_path ? stat(out_path, &out) : fstat(1, &out))
		return 0;
	if (in.st_dev != out.st_dev || in.st_ino != out.st_ino)
		return 0;
	name = strcmp(r->in_name, "stdin") || !out_path ? r->in_name : out_path;
	if (r->verbosity)
		cli_say("%s: %s: input file is output file\n",
		        r->tool->name, name);
	return 1;
}


/* ---- --histo ------------------------------------------------------------ */

/* The engine over the dump r reads, output discarded, counting its class
 * histogram into t (flags: the command line's --salvage and --app-only
 * are the engine's): 0, or -1 said. */
static int histo_run(struct run *r, struct histo *t, unsigned flags)
{
	struct hs_config cfg = {
		.flags = HS_HISTO | (flags & (HS_SALVAGE | HS_APP_ONLY))
	};
	struct hs_state st;
	uint64_t dumps;
	int cut;

	if (histo_alloc(t)) {
		input_error(r, "--histo", strerror(errno));
		return -1;
	}
	cfg.histo = &t->h;
	hs_init(&st, &cfg, &info_discard);
	if (input_run(r, &st, NULL))
		return -1;
	if (st.err) {
		engine_error(r, &st);
		return -1;
	}
	cut = st.salvaged || r->cut;
	if (histo_rows(t, &st, cut)) {
		input_error(r, "--histo", strerror(errno));
		return -1;
	}
	t->m.dumps = dumps = st.heap_dumps;
	if (dumps > 1 && r->verbosity)
		cli_say("%s: %s: %llu heap dumps in one file: the histogram is "
		        "their sum\n", r->tool->name, r->in_name,
		        (unsigned long long)dumps);
	if (cut && r->verbosity)
		cli_say("%s: %s: a dump cut at offset %llu%s%s%s: the histogram "
		        "counts the objects before it (marked cut)\n",
		        r->tool->name, r->in_name, (unsigned long long)st.in_off,
		        r->cut ? " (the " : "", r->cut ? r->cut : "",
		        r->cut ? " input was cut short)" : "");
	return 0;
}

/* -v: objects, bytes and the top three classes, one line */
static void histo_summary(const struct run *r, const struct histo *t)
{
	char top[512];
	uint64_t n = 0, b = 0;
	size_t i;

	for (i = 0; i < t->count; i++)
		n += t->rows[i].n, b += t->rows[i].bytes;
	io_histo_top(&t->h, t->rows, t->count, 3, top, sizeof top);
	cli_say("%s: %s: %llu objects, %llu bytes in %zu rows: %s\n",
	        r->tool->name, r->in_name, (unsigned long long)n,
	        (unsigned long long)b, t->count, top);
}

/* The permission bits of fd's file for an output made from it. */
static unsigned fd_mode(int fd)
{
	struct stat sb;

	if (fstat(fd, &sb))
		sb.st_mode = 0;
	return out_mode(&sb);
}

/* --info's report into -o FILE, as every output is written (out.h), and
 * only when IN was well-formed; 0, or -1 (said). */
static int census_to(struct run *r, const struct info *in, const char *path)
{
	char *buf = NULL;
	size_t len = 0;
	struct out o;
	FILE *f = open_memstream(&buf, &len);
	int rc = -1;

	if (!f || info_print(in, f)) {
		if (r->verbosity)
			cli_say("%s: %s: %s\n", r->tool->name, path,
			        strerror(errno ? errno : ENOMEM));
	} else if (!out_open(&o, path, r->tool->name, fd_mode(r->dc->in_fd),
	                     !r->verbosity)) {
		if (out_write(&o, buf, len)) {
			out_report(&o);
			out_abort(&o);
		} else {
			rc = out_commit(&o);
		}
	}
	if (f)
		fclose(f);
	free(buf);
	return rc;
}

/* --info: the census of IN on stdout or -o FILE; exit 1 unless it is
 * well-formed (then FILE is not written). */
static int census(struct run *r, const struct args *a)
{
	static struct info in;
	const char *prog = r->tool->name, *path = a->out_path;

	if (path && !strcmp(path, "-"))
		path = NULL;
	if (same_file(r, path))
		return EXIT_USAGE;
	info_start(&in, r->in_name, a->json, a->flags & HS_SALVAGE);
	if (input_sniff(r) || input_run(r, &in.st, NULL))
		return EXIT_BAD_INPUT;
	if (in.st.err && path) {
		engine_error(r, &in.st);
		return EXIT_BAD_INPUT;
	}
	if (path)
		return census_to(r, &in, path) ? EXIT_BAD_INPUT : EXIT_OK;
	if (info_print(&in, stdout)) {
		if (r->verbosity)
			cli_say("%s: stdout: write: %s\n", prog,
			        strerror(errno ? errno : EIO));
		return EXIT_BAD_INPUT;
	}
	if (in.st.err) {
		engine_error(r, &in.st);
		return EXIT_BAD_INPUT;
	}
	return EXIT_OK;
}

/* OLD as a histogram's text: all of it (what sniffing took first), parsed.
 * 0, or -1 said. */
static int baseline_text(struct run *r, struct histo_list *l)
{
	struct decomp *d = r->dc;
	size_t len = d->head_len, cap = 1u << 16;
	char *buf = malloc(cap), *more, why[256];
	ssize_t got = 1;
	int rc, err = ENOMEM;

	if (!buf) {
		input_error(r, "read", strerror(ENOMEM));
		return -1;
	}
	memcpy(buf, d->head, d->head_len);
	while (got > 0) {
		if (cap - len < 2) {
			if (!(more = realloc(buf, cap *= 2)))
				break;
			buf = more;
		}
		got = read(d->in_fd, buf + len, cap - len - 1);
		if (got < 0 && errno == EINTR)
			got = 1;
		else if (got < 0)
			err = errno;
		else
			len += (size_t)got;
	}
	if (got != 0) {
		input_error(r, "read", strerror(err));
		free(buf);
		return -1;
	}
	buf[len] = 0;
	rc = histo_list_parse(l, buf, len, why, sizeof why);
	if (rc)
		input_error(r, why, NULL);
	free(buf);
	return rc;
}

/* --baseline OLD by class name: a dump (read as IN is) or a histogram's
 * text; *mode narrowed to OLD's permission bits. 0; -1 said; -2 (said):
 * OLD is the output file. */
static int baseline_load(const struct run *r, const struct args *a,
                         const char *out_path, struct histo_list *l,
                         unsigned *mode)
{
	struct run old = *r;
	struct decomp dc;
	struct histo t;
	int fd, rc;

	memset(l, 0, sizeof *l);
	memset(&t, 0, sizeof t);
	fd = open_input(&old, a->baseline);
	if (fd < 0)
		return -1;
	memset(&dc, 0, sizeof dc);
	dc.in_fd = fd;
	old.dc = &dc;
	old.cut = NULL;
	*mode &= fd_mode(fd);
	if (same_file(&old, out_path))
		rc = -2;
	else if (input_sniff(&old))
		rc = -1;
	else if (!dc.prog && histo_text_head(dc.head, DECOMP_HEAD))
		rc = baseline_text(&old, l);
	else if ((rc = histo_run(&old, &t, a->flags)) == 0 &&
	         (rc = histo_list_of(l, &t)) != 0)
		input_error(&old, "--baseline", strerror(errno));
	histo_free(&t);
	decomp_finish(&dc, 1);
	if (fd > 0)
		close(fd);
	return rc;
}

/* The histogram (or with --baseline, the change since OLD) into out. */
static int histo_write(const struct args *a, const struct histo *t,
                       const struct histo_list *old, struct out *o)
{
	struct histo_list now;
	int rc;

	if (!a->baseline)
		return io_histo_write(&t->h, &t->m, t->rows, t->count, a->json,
		                      out_write, o);
	if (histo_list_of(&now, t))
		return -1;
	rc = histo_diff_write(old, strcmp(a->baseline, "-") ? a->baseline
	                                                    : "stdin",
	                      &now, a->json, out_write, o);
	histo_list_free(&now);
	return rc;
}

/* --histo: IN's class histogram (--baseline: its change since OLD) to
 * stdout or -o, written only once whole; the exit code. */
static int histogram(struct run *r, const struct args *a)
{
	const char *out_path = a->out_path;
	unsigned mode = fd_mode(r->dc->in_fd);
	struct histo_list old, now;
	struct histo t;
	struct out o;
	int rc, texts = 0;

	memset(&old, 0, sizeof old);
	memset(&t, 0, sizeof t);
	if (out_path && !strcmp(out_path, "-"))
		out_path = NULL;
	if (same_file(r, out_path))
		return EXIT_USAGE;
	memset(&now, 0, sizeof now);
	rc = a->baseline ? baseline_load(r, a, out_path, &old, &mode) : 0;
	if (rc == 0 && input_sniff(r))
		rc = -1;
	/* IN a histogram too (an earlier .histo, jmap -histo's): only the
	 * change from OLD is asked of it */
	if (rc == 0 && !r->dc->prog && histo_text_head(r->dc->head, DECOMP_HEAD)) {
		if (!a->baseline) {
			if (r->verbosity)
				cli_say("%s: %s: a class histogram already; "
				        "--histo --baseline OLD %s gives its change "
				        "since OLD\n", r->tool->name, r->in_name,
				        r->in_name);
			rc = -2;
		} else if (baseline_text(r, &now)) {
			rc = -1;
		} else {
			texts = 1;
		}
	} else if (rc == 0 && histo_run(r, &t, a->flags)) {
		rc = -1;
	}
	if (rc == 0 && !out_open(&o, out_path, r->tool->name, mode,
	                         !r->verbosity)) {
		errno = 0;
		if (texts ? histo_diff_write(&old, strcmp(a->baseline, "-")
		                                   ? a->baseline : "stdin",
		                             &now, a->json, out_write, &o)
		          : histo_write(a, &t, &old, &o)) {
			if (!o.err)  /* no memory for the change's rows */
				o.err = errno ? errno : ENOMEM;
			out_report(&o);
			out_abort(&o);
			rc = -1;
		} else {
			rc = out_commit(&o);
		}
	} else if (rc == 0) {
		rc = -1;  /* out_open said why */
	}
	if (rc == 0 && r->verbosity >= 2 && !texts)
		histo_summary(r, &t);
	histo_free(&t);
	histo_list_free(&old);
	histo_list_free(&now);
	return rc == 0 ? EXIT_OK : rc == -2 ? EXIT_USAGE : EXIT_BAD_INPUT;
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
	if (same_file(r, out_path))
		return EXIT_USAGE;
	if (input_sniff(r))
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
	if (input_start(r)) {
		keepset_free(&ks);
		layouts_free(&lay);
		return EXIT_BAD_INPUT;
	}
	if (out_open(&o, out_path, tool->name, out_mode(&sb), !r->verbosity)) {
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
		summary(r, &st, &ks);
	if (!rc)
		redact_note(r, &st, &lay);
	if (!rc && r->verbosity >= 2 && (st.flags & (HS_REDACT_NAMES | HS_UNREDACT)))
		cli_say("%s: %s: %llu names %s%s%s\n", tool->name,
		        r->in_name, (unsigned long long)st.names_tokenized,
		        st.flags & HS_UNREDACT ? "given back from " : "tokenized; "
		        "their originals in ", st.flags & HS_UNREDACT ? a->unredact
		                                                     : nio.path,
		        st.flags & HS_UNREDACT ? "" : " (keep it private)");
	if (!rc)
		salvage_note(r, &st);
	if (!rc && (a->flags & HS_KEEP_STRINGS))
		stripped_note(r, &cen);
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
	in_fd = open_input(&r, a.in_path);
	if (in_fd < 0)
		return EXIT_BAD_INPUT;
	memset(&dc, 0, sizeof dc);
	dc.in_fd = in_fd;
	r.dc = &dc;
	rc = a.info ? census(&r, &a)
	     : a.histo ? histogram(&r, &a) : transform(&r, &a);
	decomp_finish(&dc, 1);  /* a decompressor left running: reaped */
	if (in_fd > 0)
		close(in_fd);
	return rc;
}
