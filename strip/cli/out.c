/* Output file handling for the offline tools: see out.h. */
#include "out.h"
#include "../io/escape.h"
#include "../io/outbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#define OUT_BUF (1u << 20)
#define MAX_LINKS 40

static unsigned char out_buf[OUT_BUF];

static ssize_t out_pwrite(void *user, int fd, const void *buf, size_t len,
                          int64_t off)
{
	(void)user;
	return pwrite(fd, buf, len, (off_t)off);
}

/* OUT_STREAM: in order, at the output's own position. */
static ssize_t out_append(void *user, int fd, const void *buf, size_t len,
                          int64_t off)
{
	(void)user;
	(void)off;
	return write(fd, buf, len);
}

/* A failure on o->fd. */
static int fail(struct out *o)
{
	if (!o->err)
		o->err = errno ? errno : EIO;
	return -1;
}

static mode_t current_umask(void)
{
	mode_t um = umask(0);
	umask(um);
	return um;
}

void cli_say(const char *fmt, ...)
{
	char line[8192], out[4 * sizeof line + 2];
	va_list ap;
	int n;
	size_t k, nl;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	k = (size_t)n < sizeof line ? (size_t)n : sizeof line - 1;
	nl = k && line[k - 1] == '\n';
	k = io_escape(out, sizeof out - 1, line, k - nl);
	if (nl)
		out[k++] = '\n';
	fwrite(out, 1, k, stderr);
}

/* Says "prog: name: OP REASON" (op: "write: " or "", reason: err's),
 * unless quiet. */
static void out_error(const struct out *o, const char *op, int err)
{
	if (!o->quiet)
		cli_say("%s: %s: %s%s\n", o->prog, o->name, op,
		        strerror(err));
}

void out_report(const struct out *o)
{
	out_error(o, "write: ", o->err ? o->err : EIO);
}

/* A pipe, socket or other non-seekable output: the engine streams into
 * it (HS_STREAM), so nothing is ever patched and nothing is spooled. */
static int stream_open(struct out *o, int dst)
{
	o->kind = OUT_STREAM;
	o->fd = dst;
	return 0;
}

/* Where a chain of symlinks ends: path itself when it is no symlink (or
 * does not exist); a dangling link gives the name it points at. */
static int resolve_links(const char *path, char *buf, size_t size)
{
	char link[4096];
	const char *slash;
	size_t dirlen;
	ssize_t n;
	int hops;

	if (strlen(path) >= size)
		return errno = ENAMETOOLONG, -1;
	strcpy(buf, path);
	for (hops = 0;; hops++) {
		n = readlink(buf, link, sizeof link);
		if (n < 0)
			return 0;  /* no link: a missing directory shows later */
		if (hops == MAX_LINKS)
			return errno = ELOOP, -1;
		if ((size_t)n == sizeof link)
			return errno = ENAMETOOLONG, -1;
		link[n] = 0;
		slash = strrchr(buf, '/');
		dirlen = link[0] == '/' || !slash ? 0 : (size_t)(slash - buf + 1);
		if (dirlen + (size_t)n >= size)
			return errno = ENAMETOOLONG, -1;
		memcpy(buf + dirlen, link, (size_t)n + 1);
	}
}

/* A regular or new file: a temporary file in the final target's
 * directory, renamed over it at commit. */
static int open_temp(struct out *o, const char *path)
{
	const char *t = o->target, *slash;
	int dirlen;

	if (resolve_links(path, o->target, sizeof o->target))
		return -1;
	slash = strrchr(t, '/');
	dirlen = slash ? (int)(slash - t + 1) : 0;
	if ((size_t)snprintf(o->tmp, sizeof o->tmp, "%.*s.%s.tmpXXXXXX", dirlen,
	                     t, t + dirlen) >= sizeof o->tmp)
		return errno = ENAMETOOLONG, -1;
	o->fd = mkstemp(o->tmp);
	if (o->fd < 0) {
		/* what failed is the temporary file, maybe in another
		 * directory (a symlink's target's): say so, and where */
		int e = errno;
		if (!o->quiet)
			cli_say("%s: %s: cannot create a temporary file "
			        "in %.*s: %s\n", o->prog, o->name,
			        dirlen > 1 ? dirlen - 1 : 1,
			        dirlen ? t : ".", strerror(e));
		o->said = 1;
		return errno = e, -1;
	}
	o->kind = OUT_RENAME;
	return 0;
}

static int connect_socket(const char *path)
{
	struct sockaddr_un sa;
	int fd, e;

	memset(&sa, 0, sizeof sa);
	sa.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof sa.sun_path)
		return errno = ENAMETOOLONG, -1;
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&sa, sizeof sa)) {
		e = errno;
		close(fd);
		return errno = e, -1;
	}
	return fd;
}

/* A device, FIFO or socket: written into, never replaced. */
static int open_node(struct out *o, const char *path, const struct stat *sb)
{
	int fd;
	off_t pos;

	if (S_ISDIR(sb->st_mode))
		return errno = EISDIR, -1;
	if (S_ISSOCK(sb->st_mode))
		fd = connect_socket(path);
	else
		fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	pos = lseek(fd, 0, SEEK_CUR);
	if (pos < 0)
		return stream_open(o, fd);
	o->fd = fd;
	o->kind = OUT_DIRECT;
	o->base = (uint64_t)pos;
	return 0;
}

/* Removes the permission bits of stdout's file that the output would not
 * get; someone else's file keeps its mode. */
static int narrow_stdout(const struct out *o, const struct stat *sb)
{
	mode_t keep = (o->mode & ~current_umask()) | ~(mode_t)0777;
	mode_t mode = sb->st_mode & 07777;

	if ((mode & keep) == mode || fchmod(1, mode & keep) == 0 ||
	    errno == EPERM)
		return 0;
	return -1;
}

static int open_stdout(struct out *o)
{
	struct stat sb;
	off_t pos;

	/* patch in place when it is a seekable file we may write anywhere
	 * in (not O_APPEND); stream into it otherwise */
	if (fstat(1, &sb) || (fcntl(1, F_GETFL) & O_APPEND) ||
	    (pos = lseek(1, 0, SEEK_CUR)) < 0)
		return stream_open(o, 1);
	if (S_ISREG(sb.st_mode) && narrow_stdout(o, &sb))
		return -1;
	o->fd = 1;
	o->base = (uint64_t)pos;
	o->kind = S_ISREG(sb.st_mode) ? OUT_INPLACE : OUT_DIRECT;  /* a device */
	return 0;
}

int out_open(struct out *o, const char *path, const char *prog, unsigned mode,
             int quiet)
{
	return out_open_buf(o, path, prog, mode, quiet, out_buf, sizeof out_buf);
}

int out_open_buf(struct out *o, const char *path, const char *prog,
                 unsigned mode, int quiet, void *buf, size_t cap)
{
	struct stat sb;
	int rc;

	memset(o, 0, sizeof *o);
	o->fd = -1;
	o->prog = prog;
	o->quiet = quiet;
	o->mode = mode & 0777;
	o->name = path ? path : "stdout";
	if (!path)
		rc = open_stdout(o);
	else if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode))
		rc = open_node(o, path, &sb);
	else
		rc = open_temp(o, path);
	if (rc) {
		if (!o->said)
			out_error(o, "", errno);
		out_abort(o);
		return rc;
	}
	io_ob_init(&o->ob, o->kind == OUT_STREAM ? out_append : out_pwrite, NULL,
	           o->fd, o->base, buf, cap);
	return 0;
}

/* The buffer's failure, as the output's. */
static int ob_fail(struct out *o)
{
	errno = o->ob.err;
	return fail(o);
}

int out_flush(struct out *o)
{
	if (o->err)
		return -1;
	return io_ob_flush(&o->ob) ? ob_fail(o) : 0;
}

int out_write(void *user, const void *buf, size_t len)
{
	struct out *o = user;

	if (o->err)
		return -1;
	return io_ob_write(&o->ob, buf, len) ? ob_fail(o) : 0;
}

int out_patch(void *user, uint64_t off, const void *buf, size_t len)
{
	struct out *o = user;

	if (o->err)
		return -1;
	return io_ob_patch(&o->ob, off, buf, len) ? ob_fail(o) : 0;
}

int out_truncate(void *user, uint64_t off)
{
	struct out *o = user;

	if (o->err)
		return -1;
	if (o->kind == OUT_STREAM && off < o->ob.flushed) {
		errno = ESPIPE;
		return -1;
	}
	io_ob_truncate(&o->ob, off);
	if ((o->kind == OUT_RENAME || o->kind == OUT_INPLACE) &&
	    ftruncate(o->fd, (off_t)(o->base + off)))
		return fail(o);
	return 0;
}

/* Closes fd unless it is stdin, stdout or stderr; -1 if close failed. */
static int close_own(int *fd)
{
	int rc = 0;

	if (*fd > 2)
		rc = close(*fd);
	*fd = -1;
	return rc;
}

/* The step that makes the output whole; message printed if not. */
static int finish(struct out *o)
{
	uint64_t end = o->base + io_ob_size(&o->ob);
	struct stat sb;

	switch (o->kind) {
	case OUT_NONE:
		break;
	case OUT_INPLACE:  /* cut off what an older, longer file had */
		if (fstat(1, &sb) == 0 && (uint64_t)sb.st_size > end &&
		    ftruncate(1, (off_t)end))
			return out_error(o, "", errno), -1;
		/* written with pwrite: leave stdout's position after the
		 * output, for what the shell writes next */
		if (lseek(1, (off_t)end, SEEK_SET) < 0)
			return out_error(o, "", errno), -1;
		return 0;
	case OUT_DIRECT:
	case OUT_STREAM:
		return close_own(&o->fd) ? (out_error(o, "", errno), -1) : 0;
	case OUT_RENAME:
		if (fchmod(o->fd, o->private_ ? 0600 : o->mode & ~current_umask()) ||
		    close_own(&o->fd))
			return out_error(o, "", errno), -1;
		if (o->private_) {
			/* never over a file that is there */
			if (link(o->tmp, o->target)) {
				if (!o->quiet)
					cli_say("%s: %s: %s; left as it is\n",
					        o->prog, o->name, errno == EEXIST
					        ? "exists already" : strerror(errno));
				return -1;
			}
			unlink(o->tmp);
			return 0;
		}
		if (rename(o->tmp, o->target)) {
			if (!o->quiet)
				cli_say("%s: %s: cannot rename the "
				        "temporary file %s over %s: %s\n", o->prog,
				        o->name, o->tmp, o->target,
				        strerror(errno));
			return -1;
		}
		return 0;
	}
	return 0;
}

int out_commit(struct out *o)
{
	if (out_flush(o)) {
		out_report(o);
		out_abort(o);
		return -1;
	}
	if (finish(o)) {
		out_abort(o);
		return -1;
	}
	return 0;
}

void out_abort(struct out *o)
{
	switch (o->kind) {
	case OUT_NONE:
	case OUT_DIRECT:
		break;
	case OUT_RENAME:
		unlink(o->tmp);
		break;
	case OUT_INPLACE:
		/* stdout file written in place: leave nothing that looks whole */
		if (ftruncate(1, (off_t)o->base)) {
			/* nothing more to do: the error is already reported */
		}
		break;
	case OUT_STREAM:
		/* what went out cannot be taken back: end it inside a record
		 * (a heap segment that promises 4 GiB), so no reader takes it
		 * for a whole dump */
		if (o->ob.flushed && !o->text) {
			static const unsigned char cut[9] = { 0x1C, 0, 0, 0, 0,
			                                      0xFF, 0xFF, 0xFF, 0xFF };
			if (io_pwrite_full(out_append, NULL, o->fd, cut, sizeof cut,
			                   0)) {
				/* the reader sees a cut stream all the same */
			}
		}
		break;
	}
	close_own(&o->fd);
}
