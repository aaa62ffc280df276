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
#include <string.h>
#include <time.h>
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

/* fd's tracker, locked; NULL (nothing locked) if fd has none by now (a
 * tracker let go of in another thread). */
static struct tracker *lock_dump(int fd, struct tracker *t)
{
	if (!t)
		return NULL;
	pthread_mutex_lock(&t->lock);
	if (tracker_of(fd) == t)
		return t;
	pthread_mutex_unlock(&t->lock);
	return NULL;
}

/* ---- vetting: is this the runtime's own dump? ------------------------- */

enum { VET_HELD, VET_GO, VET_LET_GO };

/* Why a file is let go of, for its one line (NULL: nothing to say). */
static const char *why_not(int judged, uint64_t stamp, char *buf, size_t size)
{
	struct tm tm;
	time_t sec = (time_t)(stamp / 1000);

	switch (judged) {
	case HDR_GZIP:
		return "gzip-compressed dump, written unchanged";
	case HDR_COPY:
		if (!gmtime_r(&sec, &tm) ||
		    !strftime(buf, size, "a copy of a dump made %Y-%m-%d "
		              "%H:%M:%S UTC, before this process began: "
		              "written unchanged", &tm))
			snprintf(buf, size, "a copy of a dump made before this "
			         "process began: written unchanged");
		return buf;
	case HDR_OTHER:
		return "not an HPROF dump: written unchanged";
	default:
		return "not written from its start: written unchanged";
	}
}

/* t (locked) holds the first bytes of its file until they show whether it
 * is a dump to strip (policy_header): a call writes the n bytes of iov at
 * pos. VET_HELD: the call's bytes are all held (it succeeds); VET_GO: a
 * dump: t->hdr (took of the call's bytes among them) is to be fed first;
 * VET_LET_GO: not one: fd is untracked (t unlocked), and the caller makes
 * the real call. */
static int vet(struct tracker *t, int fd, const struct iovec *iov, int cnt,
               uint64_t pos, size_t *took)
{
	unsigned held = t->hdr_len;
	uint64_t stamp = 0;
	char why[160];
	int i, judged = -1;

	*took = 0;
	if (pos == held) {
		for (i = 0; i < cnt && t->hdr_len < HDR_MAX; i++) {
			size_t n = HDR_MAX - t->hdr_len;
			if (n > iov[i].iov_len)
				n = iov[i].iov_len;
			memcpy(t->hdr + t->hdr_len, iov[i].iov_base, n);
			t->hdr_len += (unsigned)n;
			*took += n;
		}
		judged = policy_header(t->hdr, t->hdr_len,
		                       t->vet_stamp ? hst_born_ms : 0, &stamp);
		if (judged == HDR_MORE)
			return VET_HELD;
		if (judged == HDR_COPY &&
		    __atomic_load_n(&t->segments, __ATOMIC_RELAXED))
			judged = HDR_DUMP;  /* a copy has no .pN files */
		if (judged == HDR_DUMP) {
			t->vet = 0;
			return VET_GO;
		}
	}
	/* the call's own bytes go out with the real call */
	t->hdr_len = held;
	*took = 0;
	tracker_let_go(t, fd, why_not(judged, stamp, why, sizeof why));
	return VET_LET_GO;
}

/* A write of iov at at (-1: at fd's position, which moves) to fd: 1 and
 * *ret if fd is a dump (or becomes one with it), else 0. */
static int write_iov(int fd, const struct iovec *iov, int cnt, int64_t at,
                     ssize_t *ret)
{
	struct tracker *t;
	int i, e = 0, saved = errno;
	uint64_t pos, start;
	size_t total = 0, skip = 0;

	for (i = 0; i < cnt && !iov[i].iov_len; i++)
		;
	t = tracker_of(fd);
	if (!t && i < cnt)
		t = tracker_sniff(fd, iov[i].iov_base, iov[i].iov_len, at);
	if (!(t = lock_dump(fd, t)))
		return 0;
	if (t->fifo && at >= 0) {
		/* the real pwrite's ESPIPE */
		pthread_mutex_unlock(&t->lock);
		return 0;
	}
	start = pos = at < 0 ? t->voff : (uint64_t)at;
	for (i = 0; i < cnt; i++)
		total += iov[i].iov_len;
	if (t->vet && total) {
		switch (vet(t, fd, iov, cnt, pos, &skip)) {
		case VET_LET_GO:
			errno = saved;
			return 0;
		case VET_HELD:
			skip = total;
			break;
		default:
			e = track_write(t, fd, t->hdr, t->hdr_len, 0);
			t->hdr_len = 0;
		}
	}
	for (i = 0; i < cnt && !e && skip < total; i++) {
		const unsigned char *b = iov[i].iov_base;
		size_t n = iov[i].iov_len, k = skip < n ? skip : n;

		skip -= k;
		pos += k;
		e = track_write(t, fd, b + k, n - k, pos);
		pos += n - k;
	}
	if (!e && at < 0)
		t->voff = start + total;
	pthread_mutex_unlock(&t->lock);
	errno = e ? e : saved;
	*ret = e ? -1 : (ssize_t)total;
	return 1;
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
	struct tracker *t = tracker_of(fd);
	uint64_t end;
	int64_t pos;

	if (!t || (whence != SEEK_SET && whence != SEEK_CUR &&
	           whence != SEEK_END) || !(t = lock_dump(fd, t)))
		return 0;
	if (t->fifo) {
		/* the real lseek's ESPIPE */
		pthread_mutex_unlock(&t->lock);
		return 0;
	}
	end = t->ext > t->st.in_off ? t->ext : t->st.in_off;
	if (end < t->hdr_len)
		end = t->hdr_len;
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

	if (!t || len < 0 || !(t = lock_dump(fd, t)))
		return 0;
	if (t->fifo) {
		/* the real ftruncate's EINVAL */
		pthread_mutex_unlock(&t->lock);
		return 0;
	}
	if (t->vet && len) {
		/* no runtime sizes its dump before writing the header */
		tracker_let_go(t, fd, NULL);
		return 0;
	}
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
	if (e && !done) {
		errno = e;
		return -1;
	}
	errno = saved;
	return (ssize_t)done;
}

/* A copy into t (locked) while it vets its header: the first bytes of
 * in_fd (at *off, or its position) are looked at, not read. Returns
 * VET_GO (t->hdr fed, the copy goes on) or VET_LET_GO (t unlocked). */
static int vet_copy(struct tracker *t, int out_fd, int in_fd,
                    const int64_t *off)
{
	unsigned char peek[HDR_MAX];
	unsigned held = t->hdr_len;
	int64_t at = off ? *off : hst.lseek(in_fd, 0, SEEK_CUR);
	ssize_t n = at < 0 ? -1 : hst.pread(in_fd, peek, HDR_MAX - held, at);
	struct iovec v = { peek, n > 0 ? (size_t)n : 0 };
	size_t took;
	int e;

	switch (n > 0 ? vet(t, out_fd, &v, 1, t->voff, &took) : -1) {
	case VET_LET_GO:
		return VET_LET_GO;
	case VET_GO:
		/* the peeked bytes come with the copy */
		t->hdr_len = held;
		e = held ? track_write(t, out_fd, t->hdr, held, 0) : 0;
		t->hdr_len = 0;
		if (!e)
			return VET_GO;
		/* the file failed: the real call says so */
		__attribute__((fallthrough));
	default:
		/* a copy too short to tell (or unreadable): as it comes */
		t->hdr_len = held;
		t->vet = 1;
		tracker_let_go(t, out_fd, NULL);
		return VET_LET_GO;
	}
}

int hst_copy(int out_fd, int in_fd, int64_t *in_off, int64_t *out_off,
             size_t len, ssize_t *ret)
{
	struct tracker *t = tracker_of(out_fd);

	if (!t) {
		tracker_untracked_write(out_fd);
		return 0;
	}
	if (!(t = lock_dump(out_fd, t)))
		return 0;
	if (out_off && (uint64_t)*out_off != t->voff) {
		/* positional writes elsewhere than the end are not dumps */
		pthread_mutex_unlock(&t->lock);
		errno = EINVAL;
		*ret = -1;
		return 1;
	}
	if (t->vet && len && vet_copy(t, out_fd, in_fd, in_off) == VET_LET_GO)
		return 0;
	*ret = pump_into(t, out_fd, in_fd, in_off, len);
	if (*ret > 0 && out_off) {
		/* positional output leaves the file position where it was */
		t->voff -= (uint64_t)*ret;
		*out_off += *ret;
	}
	pthread_mutex_unlock(&t->lock);
	return 1;
}
