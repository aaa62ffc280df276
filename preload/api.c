/*
 * The write path's entry points of hprofstrip.h, and its setup: each
 * looks the fd's session up in the fd table (fdtable.h) and hands the
 * call to it (session.h) through session_call, the one place a call takes
 * and releases a session's lock; a session judged no dump of this
 * runtime's is let go of there. The fd lifetime's entry points (open,
 * dup, close, fork) are fdtable.c's.
 */
#include "fdtable.h"
#include "libc.h"
#include "refuse.h"
#include "say.h"
#include "session.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void hst_setup(const struct hst_io *io)
{
	struct timespec now;

	if (!clock_gettime(CLOCK_REALTIME, &now))
		hst_born_ms = (uint64_t)now.tv_sec * 1000 +
		          (uint64_t)now.tv_nsec / 1000000;
	hst = *io;
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

/* s (locked), judged no dump of this runtime's (why), before its lock is
 * released: the bytes held go to the file (at 0), fd's position where the
 * program left it, and path gets s's for the line; or, with why->fix
 * (HPROFSTRIP_REDACT: a dump that cannot be redacted), nothing held goes
 * out and fd fails from now on, also for a thread that waits for s
 * (table_holds). */
static void let_go(struct session *s, int fd, const struct why *why,
                   char *path)
{
	/* (a thread that waits for s's lock comes after table_drop) */
	__atomic_store_n(&s->leaving, why->fix ? 2 : 1, __ATOMIC_RELAXED);
	if (why->fix) {
		s->hdr_len = 0;
		refuse_fd(fd, AT_FDCWD, s->path, why->line, why->fix);
		return;
	}
	session_let_go(s, fd);
	memcpy(path, s->path, sizeof s->path);
}

/* Runs call on fd's session s, s locked, if fd still refers to it; on
 * CALL_LET_GO s is let go of, or refused (c->why.fix), and its fds with
 * it (table_drop). Returns the call's CALL_*, or -1: fd has no session (s
 * NULL, or let go of in another thread), or -2: s was refused in another
 * thread (fd's call fails too, whether or not table_drop has marked fd
 * yet). */
static int session_call(int fd, struct session *s, session_call_fn call,
                        struct call *c)
{
	char path[sizeof s->path];
	int r;

	if (!s)
		return -1;
	pthread_mutex_lock(&s->lock);
	r = __atomic_load_n(&s->leaving, __ATOMIC_RELAXED);
	if (r || !table_holds(fd, s)) {
		pthread_mutex_unlock(&s->lock);
		return r == 2 ? -2 : -1;
	}
	r = call(s, fd, c);
	if (r == CALL_LET_GO)
		let_go(s, fd, &c->why, path);
	pthread_mutex_unlock(&s->lock);
	if (r == CALL_LET_GO) {
		table_drop(s, c->why.fix ? fd : -1);
		if (!c->why.fix && c->why.line)
			say("hprofstrip: %s: %s", path, c->why.line);
	}
	return r;
}

/* A write of iov at at to fd's session s: 1 and *ret if s took it (or
 * refused it), else 0. */
static int write_session(int fd, struct session *s, const struct iovec *iov,
                         int cnt, int64_t at, ssize_t *ret)
{
	struct call c = { .iov = iov, .cnt = cnt, .at = at };
	int saved = errno;

	switch (session_call(fd, s, session_write, &c)) {
	case CALL_DONE:
		*ret = (ssize_t)c.ret;
		return 1;
	case CALL_LET_GO:
		if (c.why.fix)
			return refuse_call(ret);
		break;
	case CALL_PASS:
		break;
	case -2:
		return refuse_call(ret);
	default:
		if (refused(fd))
			return refuse_call(ret);
	}
	errno = saved;
	return 0;
}

/* A write of iov at at (-1: at fd's position, which moves) to fd: 1 and
 * *ret if fd is a dump (or becomes one with it) or refused, else 0. The
 * write to a file that is no dump costs a look at two tables, and at its
 * first bytes when the shim has not seen the file opened. */
static int write_iov(int fd, const struct iovec *iov, int cnt, int64_t at,
                     ssize_t *ret)
{
	struct session *s;
	int i;

	if (refused(fd))
		return refuse_call(ret);
	s = table_session(fd);
	if (!s) {
		for (i = 0; i < cnt && !iov[i].iov_len; i++)
			;
		if (i == cnt)
			return 0;
		/* (errno kept; it may refuse fd: a dump it cannot track) */
		s = table_sniff(fd, iov[i].iov_base, iov[i].iov_len, at);
		if (!s)
			return refused(fd) ? refuse_call(ret) : 0;
	}
	return write_session(fd, s, iov, cnt, at, ret);
}

int hst_write(int fd, const void *buf, size_t len, int64_t at, ssize_t *ret)
{
	struct iovec v = { (void *)buf, len };

	/* a NULL buffer gets the kernel's EFAULT, not a crash in here; a
	 * negative offset or a length past SSIZE_MAX its EINVAL */
	if ((!buf && len) || at < -1 || len > SSIZE_MAX)
		return 0;
	return write_iov(fd, &v, 1, at, ret);
}

/* A vector the kernel would refuse with EFAULT or EINVAL (a length past
 * SSIZE_MAX). */
static int bad_vector(const struct iovec *iov, int cnt)
{
	int i;

	if (cnt < 0 || cnt > IOV_MAX)
		return 1;
	for (i = 0; i < cnt; i++)
		if (!iov || (!iov[i].iov_base && iov[i].iov_len) ||
		    iov[i].iov_len > SSIZE_MAX)
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
	struct call c = { .off = off, .whence = whence };
	struct session *s = table_session(fd);

	if (!s || (whence != SEEK_SET && whence != SEEK_CUR &&
	           whence != SEEK_END) ||
	    session_call(fd, s, session_lseek, &c) != CALL_DONE)
		return 0;
	*ret = c.ret;
	return 1;
}

int hst_ftruncate(int fd, int64_t len, int *ret)
{
	struct call c = { .off = len };
	struct session *s = table_session(fd);

	/* (let go of or refused: the call itself is made) */
	if (!s || len < 0 ||
	    session_call(fd, s, session_ftruncate, &c) != CALL_DONE)
		return 0;
	*ret = (int)c.ret;
	return 1;
}

int hst_copy(int out_fd, int in_fd, int64_t *in_off, int64_t *out_off,
             size_t len, ssize_t *ret)
{
	struct call c = { .in_fd = in_fd, .in_off = in_off, .out_off = out_off,
	                  .len = len };
	struct session *s = table_session(out_fd);

	if (refused(out_fd))
		return refuse_call(ret);
	if (!s) {
		table_untracked_write(out_fd);
		return 0;
	}
	switch (session_call(out_fd, s, session_copy, &c)) {
	case CALL_DONE:
		*ret = (ssize_t)c.ret;
		return 1;
	case CALL_LET_GO:
		return c.why.fix ? refuse_call(ret) : 0;
	case CALL_PASS:
		return 0;
	case -2:
		return refuse_call(ret);
	default:
		return refused(out_fd) ? refuse_call(ret) : 0;
	}
}
