/*
 * A run's input (run.h): IN opened (or stdin), its first bytes sniffed
 * for a compressor, decompressed through it if need be, and fed through
 * the engine; the one message about it; and the checks every run makes
 * of its output (IN's permission bits, IN itself refused as the output).
 */
#include "run.h"
#include "out.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define IN_BUF (1u << 20)

static unsigned char in_buf[IN_BUF];

double run_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
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

/* The one message about the input: "prog: name: what". */
void run_input_error(struct run *r, const char *what, const char *why)
{
	if (r->verbosity)
		cli_say("%s: %s: %s%s%s\n", r->tool->name, r->in_name,
		        what, why ? ": " : "", why ? why : "");
	r->said = 1;
}

/* The input's first bytes: is it compressed? -1 if they cannot be read
 * (said). */
int run_input_sniff(struct run *r)
{
	if (decomp_sniff(r->dc, r->dc->in_fd)) {
		run_input_error(r, "read", strerror(errno));
		return -1;
	}
	return 0;
}

/* A compressed input: its decompressor started. -1 if it cannot be (said). */
int run_input_start(struct run *r)
{
	if (!r->dc->prog || r->dc->pid)
		return 0;
	if (decomp_start(r->dc)) {
		run_input_error(r, r->dc->msg, NULL);
		return -1;
	}
	return 0;
}

/* The whole input through the engine, decompressed if need be (the
 * decompressor started and reaped, its status checked): 0, or -1 with the
 * message said. An offset the engine names is one of the decompressed
 * input; a failed decompressor speaks before what the engine made of a cut
 * stream, unless --salvage takes its cut input for a cut dump (r->cut). */
int run_input_run(struct run *r, struct hs_state *st,
                  void (*tick)(void *user, uint64_t done))
{
	struct decomp *d = r->dc;
	int rc, err;

	if (run_input_start(r))
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
			run_input_error(r, d->msg, NULL);
			return -1;
		}
		r->cut = d->prog;
	}
	if (rc < 0) {
		run_input_error(r, "read", strerror(err));
		return -1;
	}
	return 0;
}

/* The permission bits of the output: the input's, or 0600 for a pipe. */
unsigned run_out_mode(const struct stat *in)
{
	return S_ISREG(in->st_mode) ? (unsigned)in->st_mode & 0777 : 0600;
}

/* The one input path: IN, or stdin for none or "-". -1 if it cannot be
 * opened (said, unless quiet). */
int run_open_input(struct run *r, const char *path)
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
int run_same_file(const struct run *r, const char *out_path)
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
