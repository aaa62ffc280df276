/*
 * The write path's entry points of hprofstrip.h, and its setup: each
 * looks the fd's session up in the fd table (fdtable.h), locked, and
 * hands the call to it (session.h); a session judged no dump of this
 * runtime's is let go of here. The fd lifetime's entry points (open, dup,
 * close, fork) are fdtable.c's.
 */
#include "fdtable.h"
#include "libc.h"
#include "refuse.h"
#include "session.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

void hst_setup(const struct hst_io *io)
{
	struct timespec now;

	if (!clock_gettime(CLOCK_REALTIME, &now))
		hst_born_ms = (uint64_t)now.tv_sec * 1000 +
		          (uint64_t)now.tv_nsec / 1000000;
	hst = *io;
	table_setup();
}

int hst_api_version(void)
{
	return HPROFSTRIP_API_VERSION;
}

/* A write to a refused fd (refuse.h): it fails, nothing written. */
static int refuse_call(ssize_t *ret)
{
	errno = REFUSED_ERRNO;
	*ret = -1;
	return 1;
}

/* A session let go of (why, from a call): refused, and the call fails,
 * when why says so; else let go of, and the real call is made (0). */
static int let_go(struct session *s, int fd, const struct why *why,
                  ssize_t *ret)
{
	if (why->fix) {
		table_refuse(s, fd, why->line, why->fix);
		return refuse_call(ret);
	}
	table_let_go(s, fd, why->line);
	return 0;
}

/* A write of iov at at (-1: at fd's position, which moves) to fd: 1 and
 * *ret if fd is a dump (or becomes one with it) or refused, else 0. */
static int write_iov(int fd, const struct iovec *iov, int cnt, int64_t at,
                     ssize_t *ret)
{
	struct session *s;
	struct why why;
	int i, r, saved = errno;

	if (refused(fd))
		return refuse_call(ret);
	for (i = 0; i < cnt && !iov[i].iov_len; i++)
		;
	s = table_session(fd);
	if (!s && i < cnt)
		s = table_sniff(fd, iov[i].iov_base, iov[i].iov_len, at);
	if (!(s = table_locked(fd, s))) {
		if (refused(fd))
			return refuse_call(ret);
		errno = saved;
		return 0;
	}
	switch (session_write(s, fd, iov, cnt, at, ret, &why)) {
	case CALL_DONE:
		return 1;
	case CALL_LET_GO:
		r = let_go(s, fd, &why, ret);
		if (!r)
			errno = saved;
		return r;
	default:
		errno = saved;
		return 0;
	}
}

int hst_write(int fd, const void *buf, size_t len, int64_t at, ssize_t *ret)
{
	struct iovec v = { (void *)buf, len };

	/* a NULL buffer gets the kernel's EFAULT, not a crash in here; a
	 * negative offset its EINVAL */
	if ((!buf && len) || at < -1)
		return 0;
	return write_iov(fd, &v, 1, at, ret);
}

/* A vector the kernel would refuse with EFAULT or EINVAL. */
static int bad_vector(const struct iovec *iov, int cnt)
{
	int i;

	if (cnt < 0 || cnt > IOV_MAX)
		return 1;
	for (i = 0; i < cnt; i++)
		if (!iov || (!iov[i].iov_base && iov[i].iov_len))
			return 1;
	return 0;
}

int hst_writev(int fd, const struct iovec *iov, int cnt, int64_t at,
               ssize_t *ret)
{
	if (at < -1 || bad_vector(iov, cnt))
		return 0;
	return write_iov(fd, iov, cnt, at, ret);
}

int hst_lseek(int fd, int64_t off, int whence, int64_t *ret)
{
	struct session *s = table_session(fd);

	if (!s || (whence != SEEK_SET && whence != SEEK_CUR &&
	           whence != SEEK_END) || !(s = table_locked(fd, s)))
		return 0;
	return session_lseek(s, off, whence, ret) == CALL_DONE;
}

int hst_ftruncate(int fd, int64_t len, int *ret)
{
	struct session *s = table_session(fd);

	if (!s || len < 0 || !(s = table_locked(fd, s)))
		return 0;
	switch (session_ftruncate(s, fd, len, ret)) {
	case CALL_DONE:
		return 1;
	case CALL_LET_GO:
		/* with HPROFSTRIP_REDACT refused; the call itself is made */
		if (refuse_wanted())
			table_refuse(s, fd, "sized before its header was "
			             "written", "write the header first, or dump "
			             "without the shim and run hprofstrip --redact "
			             "on the dump");
		else
			table_let_go(s, fd, NULL);
		return 0;
	default:
		return 0;
	}
}

int hst_copy(int out_fd, int in_fd, int64_t *in_off, int64_t *out_off,
             size_t len, ssize_t *ret)
{
	struct session *s = table_session(out_fd);
	struct why why;

	if (refused(out_fd))
		return refuse_call(ret);
	if (!s) {
		table_untracked_write(out_fd);
		return 0;
	}
	if (!(s = table_locked(out_fd, s)))
		return refused(out_fd) ? refuse_call(ret) : 0;
	switch (session_copy(s, out_fd, in_fd, in_off, out_off, len, ret,
	                     &why)) {
	case CALL_DONE:
		return 1;
	case CALL_LET_GO:
		return let_go(s, out_fd, &why, ret);
	default:
		return 0;
	}
}
