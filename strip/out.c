/* Output file handling for the offline tools: see out.h. */
#include "out.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define OUT_BUF (1u << 20)

static unsigned char out_buf[OUT_BUF];

int write_full(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -1 : (errno = EIO, -1);
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int pwrite_full(int fd, const void *buf, size_t len, uint64_t off)
{
	const char *p = buf;

	while (len) {
		ssize_t n = pwrite(fd, p, len, (off_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -1 : (errno = EIO, -1);
		p += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

static int fail(struct out *o)
{
	if (!o->err)
		o->err = errno ? errno : EIO;
	return -1;
}

static int spool_open(struct out *o)
{
	const char *dir = getenv("TMPDIR");
	char tmpl[4096];

	if (!dir || !*dir)
		dir = "/tmp";
	if ((size_t)snprintf(tmpl, sizeof tmpl, "%s/hprofstrip.XXXXXX", dir) >=
	    sizeof tmpl)
		return errno = ENAMETOOLONG, -1;
	o->fd = mkstemp(tmpl);
	if (o->fd < 0)
		return -1;
	unlink(tmpl);
	o->spool = 1;
	return 0;
}

int out_open(struct out *o, const char *path, const char *prog)
{
	struct stat sb;

	memset(o, 0, sizeof *o);
	o->path = path;
	o->prog = prog;
	o->name = path ? path : "stdout";
	if (path) {
		const char *slash = strrchr(path, '/');
		int dirlen = slash ? (int)(slash - path + 1) : 0;
		if ((size_t)snprintf(o->tmp, sizeof o->tmp, "%.*s.%s.tmpXXXXXX",
		                     dirlen, path, path + dirlen) >= sizeof o->tmp) {
			errno = ENAMETOOLONG;
			goto err;
		}
		o->fd = mkstemp(o->tmp);
		if (o->fd < 0)
			goto err;
		return 0;
	}
	/* stdout: patch in place when it is a seekable file we may write
	 * anywhere in (not O_APPEND); spool otherwise */
	if (fstat(1, &sb) == 0 && S_ISREG(sb.st_mode) &&
	    !(fcntl(1, F_GETFL) & O_APPEND)) {
		off_t pos = lseek(1, 0, SEEK_CUR);
		if (pos >= 0) {
			o->fd = 1;
			o->base = (uint64_t)pos;
			return 0;
		}
	}
	if (spool_open(o) == 0)
		return 0;
err:
	fprintf(stderr, "%s: %s: %s\n", prog, path ? path : "temporary file",
	        strerror(errno));
	return -1;
}

int out_flush(struct out *o)
{
	if (o->err)
		return -1;
	if (o->len && write_full(o->fd, out_buf, o->len))
		return fail(o);
	o->flushed += o->len;
	o->len = 0;
	return 0;
}

int out_write(void *user, const void *buf, size_t len)
{
	struct out *o = user;

	if (o->err)
		return -1;
	if (o->len + len > OUT_BUF) {
		if (out_flush(o))
			return -1;
		if (len >= OUT_BUF / 2) {
			if (write_full(o->fd, buf, len))
				return fail(o);
			o->flushed += len;
			return 0;
		}
	}
	memcpy(out_buf + o->len, buf, len);
	o->len += len;
	return 0;
}

int out_patch(void *user, uint64_t off, const void *buf, size_t len)
{
	struct out *o = user;
	const unsigned char *b = buf;
	size_t i;

	if (o->err)
		return -1;
	for (i = 0; i < len; i++) {
		uint64_t at = off + i;
		if (at >= o->flushed) {
			out_buf[at - o->flushed] = b[i];
		} else if (pwrite_full(o->fd, b + i, 1, o->base + at)) {
			return fail(o);
		}
	}
	return 0;
}

static int copy_spool(struct out *o)
{
	static unsigned char buf[1u << 16];
	ssize_t n;

	if (lseek(o->fd, 0, SEEK_SET) < 0)
		return -1;
	for (;;) {
		n = read(o->fd, buf, sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			return 0;
		if (write_full(1, buf, (size_t)n))
			return -1;
	}
}

int out_commit(struct out *o)
{
	const char *what = o->name;

	if (out_flush(o))
		goto err;
	if (o->spool) {
		if (copy_spool(o))
			goto err;
		close(o->fd);
		return 0;
	}
	if (!o->path)
		return 0;
	{
		mode_t um = umask(0);
		umask(um);
		if (fchmod(o->fd, 0666 & ~um))
			goto err;
	}
	if (close(o->fd)) {
		o->fd = -1;
		goto err;
	}
	o->fd = -1;
	if (rename(o->tmp, o->path))
		goto err;
	return 0;
err:
	fprintf(stderr, "%s: %s: %s\n", o->prog, what,
	        strerror(o->err ? o->err : errno));
	out_abort(o);
	return -1;
}

void out_abort(struct out *o)
{
	if (o->spool) {
		close(o->fd);
	} else if (o->path) {
		if (o->fd >= 0)
			close(o->fd);
		unlink(o->tmp);
	} else {
		/* stdout file written in place: leave nothing that looks whole */
		if (ftruncate(1, (off_t)o->base)) {
			/* nothing more to do: the error is already reported */
		}
	}
	o->fd = -1;
}
