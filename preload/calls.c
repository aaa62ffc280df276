/*
 * What each call of the runtime's does to its dump's session (s locked
 * and unlocked by the caller, api.c's session_call): its bytes are fed at
 * the runtime's own (virtual) offsets, and the runtime sees the return
 * values, errno and offsets it would see without the shim. A session
 * that vets its header holds the dump's first bytes until they show
 * whether it is this runtime's dump; if not, the call returns CALL_LET_GO
 * and session_call lets go of it. The session's life and output: session.c.
 */
#include "session.h"
#include "libc.h"
#include "refuse.h"
#include "say.h"
#include "seal.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- vetting: is this the runtime's own dump? ------------------------- */

enum { VET_HELD, VET_GO, VET_LET_GO };

/* Under HPROFSTRIP_REDACT, what to change for a file let go of (judged)
 * to be redacted: the file is then refused (refuse.h). NULL: it is
 * written as it comes, redaction or not (not HPROF at all; a copy of an
 * older dump, not this runtime's). */
static const char *refuse_fix(int judged)
{
	if (!policy()->redact || judged == HDR_OTHER || judged == HDR_COPY)
		return NULL;
	if (judged == HDR_GZIP)
		return "put gzip on PATH, or drop -gz (HPROFSTRIP_COMPRESS "
		       "compresses the redacted dump)";
	return "dump without the shim and run hprofstrip --redact on the "
	       "dump";
}

/* Why a file is let go of, for its one line (NULL: nothing to say);
 * refused: the line is refuse.h's, which says what comes of it. */
static const char *why_not(int judged, uint64_t stamp, char *buf, size_t size,
                           int refused)
{
	struct tm tm;
	time_t sec = (time_t)(stamp / 1000);

	switch (judged) {
	case HDR_GZIP:
		return refused ? "a gzip-compressed dump (the runtime's -gz) "
		                 "that cannot be inflated here"
		               : "gzip-compressed dump that cannot be inflated "
		                 "here, written unchanged";

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
		return refused ? "not written from its start"
		               : "not written from its start: written unchanged";
	}
}

/* s (locked) holds the first bytes of its file until they show whether it
 * is a dump to strip (policy_header): a call writes the n bytes of iov at
 * pos. VET_HELD: the call's bytes are all held (it succeeds); VET_GO: a
 * dump: s->hdr (took of the call's bytes among them) is to be fed first;
 * VET_LET_GO: not one (why->line says why), and the caller makes the real
 * call. */
static int vet(struct session *s, const struct iovec *iov, int cnt,
               uint64_t pos, size_t *took, struct why *why, int peek)
{
	unsigned held = s->hdr_len;
	uint64_t stamp = 0;
	int i, judged = -1;

	*took = 0;
	if (pos == held) {
		for (i = 0; i < cnt && s->hdr_len < HDR_MAX; i++) {
			size_t n = HDR_MAX - s->hdr_len;
			if (n > iov[i].iov_len)
				n = iov[i].iov_len;
			memcpy(s->hdr + s->hdr_len, iov[i].iov_base, n);
			s->hdr_len += (unsigned)n;
			*took += n;
		}
		judged = policy_header(s->hdr, s->hdr_len,
		                       s->vet_stamp ? hst_born_ms : 0, &stamp);
		if (judged == HDR_MORE)
			return VET_HELD;
		if (judged == HDR_COPY &&
		    __atomic_load_n(&s->segments, __ATOMIC_RELAXED))
			judged = HDR_DUMP;  /* a copy has no .pN files */
		if (judged == HDR_DUMP) {
			s->vet = 0;
			return VET_GO;
		}
		/* a runtime's gzip dump: written as it comes, and inflated,
		 * stripped and compressed again beside it, to take its place
		 * once whole if its inflated header is this runtime's dump's
		 * (never from a copy's peeked bytes: no runtime copies its
		 * first bytes) */
		if (judged == HDR_GZIP && !peek && !session_gz_begin(s)) {
			s->vet = 0;
			return VET_GO;
		}
	}
	/* the call's own bytes go out with the real call (refused: none) */
	s->hdr_len = held;
	*took = 0;
	why->fix = refuse_fix(judged);
	why->line = why_not(judged, stamp, why->buf, sizeof why->buf,
	                    why->fix != NULL);
	return VET_LET_GO;
}

/* ---- the calls ---------------------------------------------------------- */

int session_write(struct session *s, int fd, struct call *c)
{
	int i, e = 0, fed = 0, saved = errno;
	uint64_t pos, start;
	size_t total = 0, skip = 0, done = 0;

	if (s->fifo && c->at >= 0)
		return CALL_PASS;  /* the real pwrite's ESPIPE */
	start = pos = c->at < 0 ? s->voff : (uint64_t)c->at;
	/* Linux writes at most RW_MAX bytes a call, the rest of the vector
	 * not at all: the same here (each length is at most SSIZE_MAX:
	 * api.c) */
	for (i = 0; i < c->cnt; i++)
		total += c->iov[i].iov_len < RW_MAX - total ? c->iov[i].iov_len
		                                            : RW_MAX - total;
	/* a segment of a runtime's gzip dump: its main inflates it at the
	 * merge; till then it is the runtime's (a sealed one is sealed) */
	if (s->kind == S_SEGMENT && !s->sealed && !s->st.in_off && !pos &&
	    c->cnt && c->iov[0].iov_len >= 2 &&
	    ((const unsigned char *)c->iov[0].iov_base)[0] == 0x1f &&
	    ((const unsigned char *)c->iov[0].iov_base)[1] == 0x8b) {
		c->why.line = NULL;
		c->why.fix = NULL;
		return CALL_LET_GO;
	}
	if (s->vet && total) {
		switch (vet(s, c->iov, c->cnt, pos, &skip, &c->why, 0)) {
		case VET_LET_GO:
			return CALL_LET_GO;
		case VET_HELD:
			skip = total;
			break;
		default:
			e = session_put(s, fd, s->hdr, s->hdr_len, 0);
			s->hdr_len = 0;
			fed = 1;
		}
	}
	/* every vector fed, then one flush for the whole call */
	for (i = 0; i < c->cnt && !e && skip < total; i++) {
		const unsigned char *b = c->iov[i].iov_base;
		size_t n = c->iov[i].iov_len, k;

		if (n > total - done)
			n = total - done;  /* past RW_MAX */
		done += n;
		k = skip < n ? skip : n;
		skip -= k;
		pos += k;
		e = session_put(s, fd, b + k, n - k, pos);
		pos += n - k;
		fed = 1;
	}
	if (!e && fed && session_flush(s, fd))
		e = s->ob.err;
	if (!e && c->at < 0)
		s->voff = start + total;
	errno = e ? e : saved;
	c->ret = e ? -1 : (int64_t)total;
	return CALL_DONE;
}

int session_lseek(struct session *s, int fd, struct call *c)
{
	int64_t off = c->off, pos;
	int whence = c->whence;
	uint64_t end;

	(void)fd;
	if (s->fifo)
		return CALL_PASS;  /* the real lseek's ESPIPE */
	end = s->gz ? s->gz_in : s->ext > s->st.in_off ? s->ext : s->st.in_off;
	if (end < s->hdr_len)
		end = s->hdr_len;
	pos = off;
	if ((whence == SEEK_CUR &&
	     __builtin_add_overflow((int64_t)s->voff, off, &pos)) ||
	    (whence == SEEK_END && __builtin_add_overflow((int64_t)end, off, &pos)))
		pos = -1;  /* past INT64_MAX: the kernel's EINVAL */
	if (pos < 0) {
		errno = EINVAL;
		pos = -1;
	} else {
		s->voff = (uint64_t)pos;
	}
	c->ret = pos;
	return CALL_DONE;
}

/* ftruncate of a dump, in the runtime's offsets: to 0 the dump
 * starts over (ART erases a failed dump so; RandomAccessFile.setLength(0));
 * to its end the stripped file is cut at its own end; past its end the
 * runtime's file grows by zeros, which are fed at the next write past
 * them or at close. A cut inside what was written cannot be mapped onto
 * the stripped file: said once, and the file is left whole. */
int session_ftruncate(struct session *s, int fd, struct call *c)
{
	int64_t len = c->off;
	int r = 0, saved = errno;

	if (s->fifo)
		return CALL_PASS;  /* the real ftruncate's EINVAL */
	if (s->vet && len) {
		/* no runtime sizes its dump before writing the header: with
		 * HPROFSTRIP_REDACT refused (the call itself is made) */
		c->why.line = NULL;
		c->why.fix = NULL;
		if (refuse_wanted()) {
			c->why.line = "sized before its header was written";
			c->why.fix = "write the header first, or dump without "
			             "the shim and run hprofstrip --redact on "
			             "the dump";
		}
		return CALL_LET_GO;
	}
	if (s->sealed && len && (uint64_t)len < s->st.in_off) {
		/* a sealed segment holds the runtime's bytes one for one */
		if (session_flush(s, fd))
			r = (errno = s->ob.err, -1);
		else if ((r = hst.ftruncate(fd, len)) == 0) {
			io_ob_truncate(&s->ob, (uint64_t)len);
			s->st.in_off = s->st.out_off = (uint64_t)len;
			s->ext = 0;
		}
	} else if (len == 0) {
		r = hst.ftruncate(fd, 0);
		if (r == 0)
			session_restart(s);
	} else if ((uint64_t)len == s->st.in_off) {
		s->ext = 0;
		if (session_flush(s, fd))
			r = (errno = s->ob.err, -1);
		else
			r = hst.ftruncate(fd, (int64_t)io_ob_size(&s->ob));
	} else if ((uint64_t)len > s->st.in_off) {
		s->ext = (uint64_t)len;
	} else if (!s->warned) {
		s->warned = 1;
		say("hprofstrip: %s: a truncation to %lld bytes falls on data "
		    "already stripped and cannot be applied", s->path,
		    (long long)len);
	}
	if (!r)
		errno = saved;
	c->ret = r;
	return CALL_DONE;
}

/* Reads up to count bytes of in_fd (at *off, or at its position) and
 * writes them through s as the runtime's next bytes. */
static ssize_t pump_into(struct session *s, int out_fd, int in_fd,
                         int64_t *off, size_t count)
{
	size_t done = 0;
	int e = 0, saved = errno;
	/* a sealed segment of s's is read back in the clear (seal.h) */
	uint64_t nonce = session_sealed(s, in_fd);
	int64_t at = nonce && !off ? hst.lseek(in_fd, 0, SEEK_CUR) : 0;

	if (at < 0) {
		errno = saved;
		nonce = 0;  /* no position: it cannot be unsealed */
	}
	if (count > RW_MAX)
		count = RW_MAX;  /* as the kernel's sendfile */
	while (done < count) {
		size_t want = count - done < IN_BUF ? count - done : IN_BUF;
		ssize_t n = off ? hst.pread(in_fd, s->in, want, *off)
		                : hst.read(in_fd, s->in, want);

		if (n > 0 && nonce) {
			seal_xor(nonce, (uint64_t)(off ? *off : at), s->in, s->in,
			         (size_t)n);
			at += n;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			e = errno;
			break;
		}
		if (n == 0)
			break;
		e = session_feed(s, out_fd, s->in, (size_t)n, s->voff);
		if (e)
			break;
		s->voff += (uint64_t)n;
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

/* A copy into s (locked) while it vets its header: the first bytes of
 * in_fd (at *off, or its position) are looked at, not read. Returns
 * VET_GO (s->hdr fed, the copy goes on) or VET_LET_GO (why->line). */
static int vet_copy(struct session *s, int out_fd, int in_fd,
                    const int64_t *off, struct why *why)
{
	unsigned char peek[HDR_MAX];
	unsigned held = s->hdr_len;
	int64_t at = off ? *off : hst.lseek(in_fd, 0, SEEK_CUR);
	ssize_t n = at < 0 ? -1 : hst.pread(in_fd, peek, HDR_MAX - held, at);
	struct iovec v = { peek, n > 0 ? (size_t)n : 0 };
	size_t took;
	int e;

	switch (n > 0 ? vet(s, &v, 1, s->voff, &took, why, 1) : -1) {
	case VET_LET_GO:
		return VET_LET_GO;
	case VET_GO:
		/* the peeked bytes come with the copy */
		s->hdr_len = held;
		e = held ? session_feed(s, out_fd, s->hdr, held, 0) : 0;
		s->hdr_len = 0;
		if (!e)
			return VET_GO;
		/* the file failed: the real call says so */
		__attribute__((fallthrough));
	default:
		/* a copy too short to tell (or unreadable): as it comes */
		s->hdr_len = held;
		s->vet = 1;
		why->line = NULL;
		why->fix = refuse_fix(-1);
		if (why->fix)
			why->line = "its first bytes came in a copy too short "
			            "to judge";
		return VET_LET_GO;
	}
}

int session_copy(struct session *s, int out_fd, struct call *c)
{
	if (c->out_off && (uint64_t)*c->out_off != s->voff) {
		/* positional writes elsewhere than the end are not dumps */
		errno = EINVAL;
		c->ret = -1;
		return CALL_DONE;
	}
	if (s->vet && c->len &&
	    vet_copy(s, out_fd, c->in_fd, c->in_off, &c->why) == VET_LET_GO)
		return CALL_LET_GO;
	c->ret = pump_into(s, out_fd, c->in_fd, c->in_off, c->len);
	if (c->ret > 0 && c->out_off) {
		/* positional output leaves the file position where it was */
		s->voff -= (uint64_t)c->ret;
		*c->out_off += c->ret;
	}
	return CALL_DONE;
}
