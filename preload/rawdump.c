/*
 * A dump's bytes kept as the runtime wrote them, beside or instead of the
 * engine's output. A sealed segment (HPROFSTRIP_REDACT, seal.h): a JDK 22
 * .pN file written enciphered, which its main reads back and redacts at
 * the merge. A runtime's gzip dump (inflate.h): its stream goes to the
 * file as it comes (sealed under HPROFSTRIP_REDACT), and what gzip -dc
 * gives back is stripped and compressed again into a file that takes the
 * dump's place once both are whole.
 */
#include "session.h"
#include "libc.h"
#include "say.h"
#include "seal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The runtime's bytes as it wrote them, at at, zeros first from the
 * file's end up to at: a sealed segment's (seal.h), or a gzip dump's
 * (sealed under HPROFSTRIP_REDACT: s->nonce). raw_len is the file's
 * length; a sealed segment's engine is never fed, so its in_off is too. */
int put_raw(struct session *s, int fd, const unsigned char *b, size_t len,
            uint64_t at)
{
	static const unsigned char zeros[4096];
	unsigned char x[4096];

	while (!s->ob.err && (len || at > s->raw_len)) {
		uint64_t where = at > s->raw_len ? s->raw_len : at;
		size_t n = sizeof x;
		const unsigned char *from = zeros;

		if (at > s->raw_len && at - s->raw_len < n)
			n = (size_t)(at - s->raw_len);
		if (at <= s->raw_len) {
			from = b;
			if (n > len)
				n = len;
			/* a rewrite ends where the file does, then appends */
			if (where < s->raw_len && s->raw_len - where < n)
				n = (size_t)(s->raw_len - where);
			b += n;
			len -= n;
			at += n;
		}
		if (s->nonce)
			seal_xor(s->nonce, where, from, x, n);
		else
			memcpy(x, from, n);
		if (where == s->raw_len) {
			io_ob_write(&s->ob, x, n);
			s->raw_len += n;
		} else if (!io_ob_flush(&s->ob)) {
			int e = io_pwrite_full(s->ob.pwrite, NULL, fd, x, n, where);
			if (e)
				s->ob.err = e;
		}
	}
	if (s->sealed)
		s->st.in_off = s->st.out_off = s->raw_len;
	return s->ob.err;
}

/* A gzip dump judged not this runtime's (a copy of an older one): its
 * file, sealed so far under HPROFSTRIP_REDACT, is unsealed in place
 * (read back through /proc/self/fd: the runtime's fd may be write-only)
 * and written as it comes from now on. If it cannot be, the file goes at
 * the end (gz_failed), said. */
static void unseal_file(struct session *s, int fd)
{
	char link[64];
	uint64_t at = 0;
	int e = 0, rd, saved = errno;

	if (!s->nonce)
		return;
	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	if (io_ob_flush(&s->ob) ||
	    (rd = hst.open(link, O_RDONLY | O_CLOEXEC, 0)) < 0) {
		e = s->ob.err ? s->ob.err : errno;
		rd = -1;
	}
	while (rd >= 0 && at < s->raw_len && !e) {
		size_t n = s->raw_len - at < sizeof s->in ? (size_t)(s->raw_len - at)
		                                          : sizeof s->in;
		ssize_t k = hst.pread(rd, s->in, n, (int64_t)at);
		if (k <= 0) {
			e = k < 0 ? errno : EIO;
			break;
		}
		seal_xor(s->nonce, at, s->in, s->in, (size_t)k);
		e = io_pwrite_full(s->ob.pwrite, NULL, fd, s->in, (size_t)k, at);
		at += (uint64_t)k;
	}
	if (rd >= 0)
		hst.close(rd);
	if (e) {
		s->gz_failed = 1;
		say("hprofstrip: %s: its sealed bytes cannot be read back (%s); "
		    "the file is removed", s->path, strerror(e));
	} else {
		s->nonce = 0;
	}
	errno = saved;
}

int session_seal(struct session *main, struct session *seg, int fd)
{
	struct stat sb;
	int saved = errno, ok = 0;
	unsigned i;

	if (fstat(fd, &sb) || !(seg->nonce = seal_nonce())) {
		errno = saved;
		return -1;
	}
	pthread_mutex_lock(&main->lock);
	/* a file of the same inode was an earlier segment's, removed since
	 * (two live files never share one): this one takes its place */
	for (i = 0; i < main->nseals; i++)
		if (main->seals[i].dev == (uint64_t)sb.st_dev &&
		    main->seals[i].ino == (uint64_t)sb.st_ino)
			break;
	if (i < MAX_SEALS) {
		main->seals[i] = (struct seal_file){
			(uint64_t)sb.st_dev, (uint64_t)sb.st_ino, seg->nonce };
		if (i == main->nseals)
			main->nseals++;
		ok = 1;
	}
	pthread_mutex_unlock(&main->lock);
	errno = saved;
	return ok ? 0 : -1;
}

uint64_t session_sealed(const struct session *s, int fd)
{
	struct stat sb;
	int saved = errno;
	unsigned i;

	if (!s->nseals || fstat(fd, &sb)) {
		errno = saved;
		return 0;
	}
	for (i = 0; i < s->nseals; i++)
		if (s->seals[i].dev == (uint64_t)sb.st_dev &&
		    s->seals[i].ino == (uint64_t)sb.st_ino)
			return s->seals[i].nonce;
	return 0;
}

/* ---- a runtime's gzip dump (inflate.h) -------------------------------- */

/* The gzip dump is not stripped after all (not this runtime's, or the
 * inflater or the stream failed: why): the children go, and the file,
 * the stream as the runtime wrote it, is all there is; unsealed if it is
 * not to be redacted (a copy), else removed at the end (fail_closed). */
static void gz_give_up(struct session *s, int fd, const char *why,
                       int fail_closed)
{
	if (s->gz_judged < 0)
		return;
	s->gz_judged = -1;
	inflate_stop(s->inf, 0);
	if (s->piped) {
		s->piped = 0;
		pipe_abort(&s->pm->pipe);
	}
	s->pipe_pending = 0;
	if (!fail_closed)
		unseal_file(s, fd);
	if (fail_closed && s->nonce)
		s->gz_failed = 1;
	if (why)
		say("hprofstrip: %s: %s%s", s->path, why,
		    s->gz_failed ? "; HPROFSTRIP_REDACT cannot redact it, so "
		                   "none of it is kept: the file is removed"
		                 : "; the dump is kept as the runtime wrote it");
}

/* What gzip -dc gives back: the runtime's plain dump, stripped, once its
 * header shows it is this runtime's (gz_judged); a copy of an older dump
 * is given up on, written as it came. */
static void gz_put(void *user, const void *buf, size_t len)
{
	struct session *s = user;
	const unsigned char *b = buf;
	char line[160];
	struct tm tm;
	uint64_t stamp = 0;
	time_t sec;

	if (s->gz_judged < 0)
		return;
	if (!s->gz_judged) {
		uint64_t born = s->vet_stamp &&
		                !__atomic_load_n(&s->segments, __ATOMIC_RELAXED)
		                ? hst_born_ms : 0;
		size_t k = HDR_MAX - s->gz_head_len;
		int j;

		if (k > len)
			k = len;
		memcpy(s->gz_head + s->gz_head_len, b, k);
		s->gz_head_len += (unsigned)k;
		j = policy_header(s->gz_head, s->gz_head_len, born, &stamp);
		if (j == HDR_MORE && s->gz_head_len < HDR_MAX)
			return;
		if (j != HDR_DUMP) {
			sec = (time_t)(stamp / 1000);
			if (j != HDR_COPY || !gmtime_r(&sec, &tm) ||
			    !strftime(line, sizeof line, "a gzip stream of a copy "
			              "of a dump made %Y-%m-%d %H:%M:%S UTC, before "
			              "this process began: written unchanged", &tm))
				snprintf(line, sizeof line, "%s",
				         j == HDR_COPY ? "a gzip stream of a copy of "
				         "an older dump: written unchanged"
				         : "a gzip stream of no HPROF dump: written "
				           "unchanged");
			say("hprofstrip: %s: %s", s->path, line);
			gz_give_up(s, s->ob.fd, NULL, 0);
			return;
		}
		s->gz_judged = 1;
		b += k;
		len -= k;
		if (s->pipe_pending)
			start_child(s, s->ob.fd);
		if (!s->piped) {
			/* (pipe_start said why) */
			gz_give_up(s, s->ob.fd, NULL, 1);
			return;
		}
		hs_feed(&s->st, s->gz_head, s->gz_head_len);
	}
	if (len)
		hs_feed(&s->st, b, len);
	report(s);
}

/* The runtime's gzip bytes at at (its offsets): to the file as they
 * come, and inflated in order; a write anywhere else cannot be followed
 * by the inflated stream: the file as written is then the dump. */
int put_gz(struct session *s, int fd, const void *buf, size_t len,
            uint64_t at)
{
	char why[160];

	if (!len || put_raw(s, fd, buf, len, at))
		return s->ob.err;
	if (s->gz_judged < 0)
		return 0;
	if (at != s->gz_in) {
		snprintf(why, sizeof why, "a write at offset %llu of a gzip "
		         "dump whose end is at %llu cannot be inflated",
		         (unsigned long long)at, (unsigned long long)s->gz_in);
		gz_give_up(s, fd, why, 1);
		return 0;
	}
	if (!s->gz_in) {
		struct stat sb;
		int saved = errno;

		/* which file it is, should its fd be closed behind our back */
		if (!fstat(fd, &sb))
			s->gz_file = (struct file_id){ sb.st_dev, sb.st_ino };
		errno = saved;
	}
	s->gz_in += len;
	if (inflate_push(s->inf, buf, len, gz_put, s) && s->gz_judged >= 0) {
		snprintf(why, sizeof why, "%s failed (%s)", s->inf->what,
		         strerror(s->inf->err));
		gz_give_up(s, fd, why, 1);
	}
	return s->ob.err;
}

/* The gzip stream's end: the rest of what gzip -dc holds. 0, or -1: the
 * dump is the file as written (or, failed closed, none). */
int gz_end(struct session *s, int fd)
{
	char why[160];

	s->ob.fd = fd;
	if (s->gz_judged >= 0 && inflate_end(s->inf, gz_put, s, why, sizeof why))
		gz_give_up(s, fd, why, 1);
	else if (!s->gz_judged)
		gz_give_up(s, fd, "a gzip stream too short to hold a dump's "
		           "header", 0);
	return s->gz_judged > 0 ? 0 : -1;
}

int session_gz_begin(struct session *s)
{
	static int told_mem;
	unsigned char hdr[HDR_MAX];
	unsigned hdr_len = s->hdr_len, xfl = hdr_len > 8 ? s->hdr[8] : 0;
	int refs = s->refs, segments, vet_stamp = s->vet_stamp;
	int trunc = s->trunc_at_end;
	uint64_t voff = s->voff, nonce = 0;
	unsigned nseals = s->nseals;
	char path[sizeof s->path], base[sizeof s->base];
	char histo[sizeof s->histo_path];

	if (s->fifo || s->kind != S_MAIN)
		return -1;
	/* under HPROFSTRIP_REDACT the stream on disk is sealed */
	if (policy()->redact && !(nonce = seal_nonce()))
		return -1;
	if (!s->inf && !(s->inf = tables_map(sizeof *s->inf, &told_mem,
	                                     s->path, "no memory to inflate "
	                                     "a gzip dump")))
		return -1;
	if (inflate_start(s->inf))
		return -1;
	memcpy(hdr, s->hdr, hdr_len);
	memcpy(path, s->path, sizeof path);
	memcpy(base, s->base, sizeof base);
	memcpy(histo, s->histo_path, sizeof histo);
	segments = __atomic_load_n(&s->segments, __ATOMIC_RELAXED);
	/* zlib's XFL: 4 the fastest (level 1), 2 the best (9), else 6 */
	s->gz_level = xfl == 4 ? 1 : xfl == 2 ? 9 : 6;
	s->gz_pending = 1;
	session_start(s, S_MAIN, path, base, 0, AT_FDCWD, s->dump, VET_NONE, 0);
	memcpy(s->histo_path, histo, sizeof histo);
	memcpy(s->hdr, hdr, hdr_len);
	s->hdr_len = hdr_len;
	s->vet_stamp = vet_stamp;
	s->trunc_at_end = trunc;
	s->refs = refs;
	s->voff = voff;
	s->nseals = nseals;
	s->nonce = nonce;
	__atomic_store_n(&s->segments, segments, __ATOMIC_RELAXED);
	return 0;
}

/* A gzip dump that fails closed (HPROFSTRIP_REDACT): its file, sealed,
 * emptied through fd and removed, if its path is still that file; fd -1
 * (closed behind our back): removed if its path is still the file the
 * first write went to. */
void gz_remove(struct session *s, int fd)
{
	struct stat sb;
	int saved = errno;

	if (fd >= 0 ? fstat(fd, &sb) : !s->gz_file.ino)
		return;
	if (io_is_file(s->dump, fd >= 0 ? sb.st_dev : s->gz_file.dev,
	               fd >= 0 ? sb.st_ino : s->gz_file.ino)) {
		if (fd >= 0 && hst.ftruncate(fd, 0)) {
			/* removed all the same */
		}
		unlink(s->dump);
	}
	errno = saved;
}

/* A gzip dump's child has had every byte (end_child): the file holds
 * the runtime's stream; the child's output takes its place, or goes.
 * fd: the dump's, or -1 (closed already). */
void gz_end_child(struct session *s, int fd)
{
	struct pipe_out *p = &s->pm->pipe;
	char why[256];

	if (pipe_finish(p, why, sizeof why, &s->lock) || s->st.err || fd < 0) {
		if (!s->st.err && fd >= 0)
			say("hprofstrip: %s: %s%s", s->path, why,
			    s->nonce ? "; HPROFSTRIP_REDACT cannot redact it, "
			    "so none of it is kept: the file is removed"
			    : "; the dump is kept as the runtime wrote it");
		if (p->replace && p->out[0])
			unlink(p->out);
		if (s->nonce && fd >= 0)
			gz_remove(s, fd);
		else if (fd >= 0)
			unseal_file(s, fd);
	} else if (p->replace && pipe_replace_dump(p)) {
		say("hprofstrip: %s: %s's output could not take the "
		    "dump's place (%s)%s", s->path, p->what,
		    strerror(errno), s->nonce ? "; HPROFSTRIP_REDACT "
		    "cannot keep the runtime's stream: the file is removed"
		    : "; the dump is kept as the runtime wrote it");
		if (s->nonce)
			gz_remove(s, fd);
		else
			unseal_file(s, fd);
	} else if (p->replace) {
		say("hprofstrip: %s: %s wrote the stripped dump in its "
		    "place", s->path, p->what);
	} else {
		pipe_remove_dump(p, fd);
		if (p->out[0])
			say("hprofstrip: %s: %s wrote %s", s->path, p->what,
			    p->out);
		else
			say("hprofstrip: %s: %s took it (%llu bytes); %s "
			    "removed", s->path, p->what,
			    (unsigned long long)p->sent, p->dump);
	}
}