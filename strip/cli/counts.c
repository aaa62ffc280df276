/*
 * The runs that count a dump and write no dump (run.h): --info's census
 * (info.c) and --histo's class histogram (histo.c, histoload.c for
 * --baseline's OLD), each to stdout or -o, written only once whole.
 */
#include "run.h"
#include "histo.h"
#include "info.h"
#include "out.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
		run_input_error(r, "--histo", strerror(errno));
		return -1;
	}
	cfg.histo = &t->h;
	hs_init(&st, &cfg, &info_discard);
	if (run_input_run(r, &st, NULL))
		return -1;
	if (st.err) {
		run_engine_error(r, &st);
		return -1;
	}
	cut = st.salvaged || r->cut;
	if (histo_rows(t, &st, cut)) {
		run_input_error(r, "--histo", strerror(errno));
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
	return run_out_mode(&sb);
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
int run_census(struct run *r, const struct args *a)
{
	static struct info in;
	const char *prog = r->tool->name, *path = a->out_path;

	if (path && !strcmp(path, "-"))
		path = NULL;
	if (run_same_file(r, path))
		return EXIT_USAGE;
	info_start(&in, r->in_name, a->json, a->flags & HS_SALVAGE);
	if (run_input_sniff(r) || run_input_run(r, &in.st, NULL))
		return EXIT_BAD_INPUT;
	if (in.st.err && path) {
		run_engine_error(r, &in.st);
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
		run_engine_error(r, &in.st);
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
		run_input_error(r, "read", strerror(ENOMEM));
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
		run_input_error(r, "read", strerror(err));
		free(buf);
		return -1;
	}
	buf[len] = 0;
	rc = histo_list_parse(l, buf, len, why, sizeof why);
	if (rc)
		run_input_error(r, why, NULL);
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
	fd = run_open_input(&old, a->baseline);
	if (fd < 0)
		return -1;
	memset(&dc, 0, sizeof dc);
	dc.in_fd = fd;
	old.dc = &dc;
	old.cut = NULL;
	*mode &= fd_mode(fd);
	if (run_same_file(&old, out_path))
		rc = -2;
	else if (run_input_sniff(&old))
		rc = -1;
	else if (!dc.prog && histo_text_head(dc.head, DECOMP_HEAD))
		rc = baseline_text(&old, l);
	else if ((rc = histo_run(&old, &t, a->flags)) == 0 &&
	         (rc = histo_list_of(l, &t)) != 0)
		run_input_error(&old, "--baseline", strerror(errno));
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
int run_histogram(struct run *r, const struct args *a)
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
	if (run_same_file(r, out_path))
		return EXIT_USAGE;
	memset(&now, 0, sizeof now);
	rc = a->baseline ? baseline_load(r, a, out_path, &old, &mode) : 0;
	if (rc == 0 && run_input_sniff(r))
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
