/*
 * Dump tracking, part two: the write path. The runtime's bytes go through
 * the strip engine at the runtime's own (virtual) offsets; the engine's
 * output goes to the file through the tracker's output buffer, flushed
 * before each call returns, so a crash loses nothing the runtime thinks it
 * wrote. The runtime sees the return values, errno and offsets it would
 * see without the shim.
 */
#include "tracker.h"
#include "policy.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <unistd.h>

/* A rewrite of bytes fed already: the engine applies what it can (JDK 8's
 * length patch, bytes that went out unchanged); what it cannot is said
 * once. */
static void rewrite(struct tracker *t, const void *buf, size_t len,
                    uint64_t at)
{
	enum hs_err e = hs_rewrite(&t->st, at, buf, len);

	if (t->warned || t->ob.err || (e != HS_E_REWRITE && e != HS_E_PATCH))
		return;
	t->warned = 1;
	if (e == HS_E_PATCH)
		say("hprofstrip: %s: length patch at offset %llu does not fit "
		    "the record", t->path, (unsigned long long)at);
	else
		say("hprofstrip: %s: a rewrite of %zu bytes at offset %llu "
		    "falls on data already stripped and cannot be applied; the "
		    "dump is damaged", t->path, len, (unsigned long long)at);
}

/* A write of len bytes at virtual offset at. Returns 0 or an errno. */
static int track_write(struct tracker *t, int fd, const void *buf, size_t len,
                       uint64_t at)
{
	t->ob.fd = fd;
	if (t->ob.err)
		return t->ob.err;
	if (t->pipe_pending)
		tracker_first_write(t, fd);
	if (at > t->st.in_off)
		tracker_gap(t, at);
	if (at < t->st.in_off) {
		/* a rewrite, maybe going on past the end */
		size_t old = at + len > t->st.in_off ? (size_t)(t->st.in_off - at)
		                                     : len;
		rewrite(t, buf, old, at);
		buf = (const unsigned char *)buf + old;
		len -= old;
		at += old;
	}
	if (len)
		hs_feed(&t->st, buf, len);
	tracker_report(t);
	if (tracker_flush(t, fd))
		return t->ob.err;
	return 0;
}

/* The tracker a write to fd goes through, if fd is a dump or becomes one
 * with this write (buf at at, -1: at fd's position). */
static struct tracker *dump_of(int fd, const void *buf, size_t len, int64_t at)
{
	struct tracker *t = tracker_of(fd);

	return t ? t : tracker_sniff(fd, buf, len, at);
}

int hst_write(int fd, const void *buf, size_t len, int64_t at, ssize_t *ret)
{
	struct tracker *t;
	int e, saved = errno;

	/* a NULL buffer gets the kernel's EFAULT, not a crash in here; a
	 * negative offset its EINVAL */
	if ((!buf && len) || at < -1 || !(t = dump_of(fd, buf, len, at)))
		return 0;
	pthread_mutex_lock(&t->lock);
	e = track_write(t, fd, buf, len, at < 0 ? t->voff : (uint64_t)at);
	if (!e && at < 0)
		t->voff += len;
	pthread_mutex_unlock(&t->lock);
	errno = e ? e : saved;
	*ret = e ? -1 : (ssize_t)len;
	return 1;
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
	struct tracker *t;
	int i, e = 0, saved = errno;
	uint64_t pos;
	size_t total = 0;

	if (at < -1 || bad_vector(iov, cnt))
		return 0;
	for (i = 0; i < cnt && !iov[i].iov_len; i++)
		;
	t = tracker_of(fd);
	if (!t && i < cnt)
		t = tracker_sniff(fd, iov[i].iov_base, iov[i].iov_len, at);
	if (!t)
		return 0;
	pthread_mutex_lock(&t->lock);
	pos = at < 0 ? t->voff : (uint64_t)at;
	for (i = 0; i < cnt && !e; i++) {
		e = track_write(t, fd, iov[i].iov_base, iov[i].iov_len, pos);
		pos += iov[i].iov_len;
		total += iov[i].iov_len;
	}
	if (!e && at < 0)
		t->voff = pos;
	pthread_mutex_unlock(&t->lock);
	errno = e ? e : saved;
	*ret = e ? -1 : (ssize_t)total;
	return 1;
}

int hst_lseek(int fd, int64_t off, int whence, int64_t *ret)
{
	struct tracker *t = tracker_of(fd);
	uint64_t end;
	int64_t pos;

	if (!t || (whence != SEEK_SET && whence != SEEK_CUR &&
	           whence != SEEK_END))
		return 0;
	pthread_mutex_lock(&t->lock);
	end = t->ext > t->st.in_off ? t->ext : t->st.in_off;
	pos = whence == SEEK_SET ? off
	    : whence == SEEK_CUR ? (int64_t)t->voff + off : (int64_t)end + off;
	if (pos < 0) {
		errno = EINVAL;
		pos = -1;
	} else {
		t->voff = (uint64_t)pos;
	}
	pthread_mutex_unlock(&t->lock);
	*ret = pos;
	return 1;
}

/* ftruncate of a tracked file, in the runtime's offsets: to 0 the dump
 * starts over (ART erases a failed dump so; RandomAccessFile.setLength(0));
 * to its end the stripped file is cut at its own end; past its end the
 * runtime's file grows by zeros, which are fed at the next write past
 * them or at close. A cut inside what was written cannot be mapped onto
 * the stripped file: said once, and the file is left whole. */
int hst_ftruncate(int fd, int64_t len, int *ret)
{
	struct tracker *t = tracker_of(fd);
	int r = 0, saved = errno;

	if (!t || len < 0)
		return 0;
	pthread_mutex_lock(&t->lock);
	if (len == 0) {
		r = hst.ftruncate(fd, 0);
		if (r == 0)
			tracker_restart(t);
	} else if ((uint64_t)len == t->st.in_off) {
		t->ext = 0;
		if (tracker_flush(t, fd))
			r = (errno = t->ob.err, -1);
		else
			r = hst.ftruncate(fd, (int64_t)hs_ob_size(&t->ob));
	} else if ((uint64_t)len > t->st.in_off) {
		t->ext = (uint64_t)len;
	} else if (!t->warned) {
		t->warned = 1;
		say("hprofstrip: %s: a truncation to %lld bytes falls on data "
		    "already stripped and cannot be applied", t->path,
		    (long long)len);
	}
	if (!r)
		errno = saved;
	pthread_mutex_unlock(&t->lock);
	*ret = r;
	return 1;
}

/* Reads up to count bytes of in_fd (at *off, or at its position) and
 * writes them through t as the runtime's next bytes. */
static ssize_t pump_into(struct tracker *t, int out_fd, int in_fd,
                         int64_t *off, size_t count)
{
	size_t done = 0;
	int e = 0, saved = errno;

	pthread_mutex_lock(&t->lock);
	while (done < count) {
		size_t want = count - done < IN_BUF ? count - done : IN_BUF;
		ssize_t n = off ? hst.pread(in_fd, t->in, want, *off)
		                : hst.read(in_fd, t->in, want);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			e = errno;
			break;
		}
		if (n == 0)
			break;
		e = track_write(t, out_fd, t->in, (size_t)n, t->voff);
		if (e)
			break;
		t->voff += (uint64_t)n;
		done += (size_t)n;
		if (off)
			*off += n;
	}
	pthread_mutex_unlock(&t->lock);
	if (e && !done) {
		errno = e;
		return -1;
	}
	errno = saved;
	return (ssize_t)done;
}

int hst_copy(int out_fd, int in_fd, int64_t *in_off, int64_t *out_off,
             size_t len, ssize_t *ret)
{
	struct tracker *t = tracker_of(out_fd);

	if (!t) {
		tracker_untracked_write(out_fd);
		return 0;
	}
	if (out_off && (uint64_t)*out_off != t->voff) {
		/* positional writes elsewhere than the end are not dumps */
		errno = EINVAL;
		*ret = -1;
		return 1;
	}
	*ret = pump_into(t, out_fd, in_fd, in_off, len);
	if (*ret > 0 && out_off) {
		/* positional output leaves the file position where it was */
		pthread_mutex_lock(&t->lock);
		t->voff -= (uint64_t)*ret;
		pthread_mutex_unlock(&t->lock);
		*out_off += *ret;
	}
	return 1;
}
