/*
 * One dump's session, its life and its output: it starts (and starts
 * over), is fed the runtime's bytes through the strip engine at the
 * runtime's own (virtual) offsets, and ends. The engine's output goes to
 * the file through the session's output buffer, flushed before each call
 * returns, so a crash loses nothing the runtime thinks it wrote; with
 * HPROFSTRIP_COMPRESS or _FILTER it goes to a child too (pipe.c), which
 * is given up if the disk fills. What each call of the runtime's does to
 * a session is in calls.c; which fd is which session, fdtable.c.
 */
#include "session.h"
#include "libc.h"
#include "say.h"
#include "seal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

uint64_t hst_born_ms;

/* ---- output ------------------------------------------------------------ */

/* A file's writer: the real pwrite (the names map; the bytes held while
 * vetting). */
static ssize_t file_pwrite(void *user, int fd, const void *buf, size_t len,
                           int64_t off)
{
	(void)user;
	return hst.pwrite(fd, buf, len, off);
}

int session_flush(struct session *s, int fd)
{
	s->ob.fd = fd;
	return io_ob_flush(&s->ob);
}

/* Says once that the engine fell back to copying verbatim. */
static void report(struct session *s)
{
	if (!s->st.fallback || s->warned)
		return;
	s->warned = 1;
	/* (a gzip stream never reaches the engine: the header's vetting
	 * lets it go, calls.c) */
	say("hprofstrip: %s: offset %llu: %s; writing the rest %s",
	    s->path, (unsigned long long)s->st.fallback_off,
	    hs_strerror(s->st.fallback),
	    hs_fallback_zeros(&s->st) ? "as zeros (HPROFSTRIP_REDACT: nothing "
	                                "goes out unredacted)" : "unchanged");
}

/* HPROFSTRIP_KEEP=strings: fixed tables, one set per session, mapped once
 * (not per object, not per dump). */
struct strings_mem {
	uint64_t pending[HS_KEEP_PENDING];
	struct hs_class classes[HS_KEEP_CLASSES];
	unsigned char hold[HS_KEEP_HOLD];  /* the array held back */
};

/* size bytes of zeroed memory for a session's tables, mapped once (not
 * per object, not per dump); NULL if there is none, said once a process
 * (what: the rest of the line after the path). errno kept. */
static void *map_tables(size_t size, int *told, const char *path,
                        const char *what)
{
	int saved = errno;
	void *m = mmap(NULL, size, PROT_READ | PROT_WRITE,
	               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED) {
		m = NULL;
		if (!__atomic_exchange_n(told, 1, __ATOMIC_RELAXED))
			say("hprofstrip: %s: %s", path, what);
	}
	errno = saved;
	return m;
}

/* HPROFSTRIP_KEEP=strings, bitmaps or both: the engine's tables for s's
 * next dump, zeroed, and the flags (HS_KEEP_*); 0 if they cannot be had
 * (said once) or are not wanted. Under HPROFSTRIP_REDACT nothing is kept
 * (said once): redaction fails closed. Segments (JDK 22 .pN files) have
 * no class names of their own: they are stripped whole. */
static unsigned keep_tables(struct session *s, int kind, struct hs_keep *k)
{
	static int told_bad, told_mem, told_redact;
	const struct policy *p = policy();
	unsigned flags = (p->keep_strings ? HS_KEEP_STRINGS : 0u) |
	                 (p->keep_bitmaps ? HS_KEEP_BITMAPS : 0u);

	if (p->keep_bad[0] && !__atomic_exchange_n(&told_bad, 1, __ATOMIC_RELAXED))
		say("hprofstrip: HPROFSTRIP_KEEP: '%s' is not known (only "
		    "'strings' and 'bitmaps' are); ignored", p->keep_bad);
	if (!flags || kind != S_MAIN)
		return 0;
	if (p->redact) {
		if (!__atomic_exchange_n(&told_redact, 1, __ATOMIC_RELAXED))
			say("hprofstrip: HPROFSTRIP_KEEP=%s is ignored: "
			    "HPROFSTRIP_REDACT removes what %s hold",
			    p->keep_strings && p->keep_bitmaps ? "strings,bitmaps"
			    : p->keep_strings ? "strings" : "bitmaps",
			    p->keep_bitmaps ? "Strings and bitmaps (pictures are "
			    "user data)" : "Strings");
		return 0;
	}
	if (!s->strings &&
	    !(s->strings = map_tables(sizeof *s->strings, &told_mem, s->path,
	                              "no memory for HPROFSTRIP_KEEP; "
	                              "every array stripped")))
		return 0;
	/* a dump before this one used them (the hold buffer needs no
	 * zeroing) */
	memset(s->strings->pending, 0, sizeof s->strings->pending);
	memset(s->strings->classes, 0, sizeof s->strings->classes);
	*k = (struct hs_keep){
		.pending = s->strings->pending, .pending_slots = HS_KEEP_PENDING,
		.classes = s->strings->classes, .class_slots = HS_KEEP_CLASSES,
		.hold = s->strings->hold, .hold_size = HS_KEEP_HOLD,
	};
	return flags;
}

/* HPROFSTRIP_REDACT: the layout tables, one set per session, mapped once. */
struct redact_mem {
	struct hs_layout classes[HS_REDACT_CLASSES];
	unsigned char types[HS_REDACT_TYPES];
	unsigned char gather[HS_REDACT_GATHER];
	uint64_t fw_names[HS_REDACT_FW], fw_classes[HS_REDACT_FW];
	struct hs_flat flat[HS_REDACT_FLAT];  /* the fast path's caches */
	struct hs_patch patch[HS_REDACT_PATCHES];
	struct hs_sized sized[HS_REDACT_SIZED];
	unsigned char map_buf[64u << 10];  /* =names: the map's buffer */
};

/* HPROFSTRIP_REDACT=names: the names map beside the dump (PATH.names),
 * created at the first name tokenized, so a file that turns out not to be
 * a dump gets none; a new file, 0600, never an existing one (an earlier
 * dump's map, a symlink): then the first free name of PATH.names.1,
 * .2, ... (s->map_path). Without it (said once) names are tokenized all
 * the same. errno kept. */
static void map_open(struct session *s)
{
	int saved = errno;

	s->map_failed = 1;
	if (!s->red)
		return;  /* no memory: said already */
	snprintf(s->map_path, sizeof s->map_path, "%s.names",
	         s->base[0] ? s->base : s->path);
	s->map_fd = io_create_free(s->map_path, sizeof s->map_path, 0600);
	if (s->map_fd < 0)
		say("hprofstrip: %s: cannot create %s: %s; names are tokenized "
		    "all the same, with no map to give them back", s->path,
		    s->map_path, strerror(errno));
	else {
		io_ob_init(&s->map_ob, file_pwrite, NULL, s->map_fd, 0,
		           s->red->map_buf, sizeof s->red->map_buf);
		s->map_failed = 0;
	}
	errno = saved;
}

/* hs_names.original: the map opened at the first name, then written. */
static void map_original(void *user, unsigned idsize, uint64_t id,
                         uint32_t len, uint32_t at, const unsigned char *text,
                         size_t n)
{
	struct session *s = user;

	if (s->map_fd < 0 && !s->map_failed)
		map_open(s);
	if (s->map_fd >= 0)
		io_map_original(&s->map, idsize, id, len, at, text, n);
}

/* How a map is closed: written out; dropped (a child's copy of the
 * parent's); removed (the dump started over: the file made for it goes,
 * and the dump's map is made anew). */
enum { MAP_DROP, MAP_DONE, MAP_REMOVE };

/* The map closed (how: MAP_*). errno kept. */
static void map_close(struct session *s, int how)
{
	struct stat a, b;
	int saved = errno;

	/* (a session never started has no map: its map_fd is no fd) */
	if (s->map.ob != &s->map_ob || s->map_fd < 0)
		return;
	/* only while its name is still the file made for it */
	if (how == MAP_REMOVE && !fstat(s->map_fd, &a) &&
	    !lstat(s->map_path, &b) && a.st_dev == b.st_dev &&
	    a.st_ino == b.st_ino && unlink(s->map_path)) {
		/* it cannot be removed: it stays, beside the new one */
	}
	if (how == MAP_DONE) {
		uint64_t cut = io_map_end(&s->map, s->st.idsize,
		                          s->st.timestamp);
		/* the dump was cut inside a name: the map ends before it */
		if (!io_ob_flush(&s->map_ob) && cut != UINT64_MAX &&
		    hst.ftruncate(s->map_fd, (int64_t)cut)) {
			/* the map's last record stays cut: hprofrestore says */
		}
		if (s->map_ob.err)
			say("hprofstrip: %s: write failed: %s", s->map_path,
			    strerror(s->map_ob.err));
	}
	hst.close(s->map_fd);
	s->map_fd = -1;
	errno = saved;
}

/* 1 if s's next dump is redacted, its tables (zeroed) in r; without them
 * (no memory, said once) every instance's fields go out as zeros whole. A
 * .pN file of a JDK 22+ parallel dump has tables of its own: the VM
 * dumper's holds the class dumps before its objects, and is exact; the
 * other dumpers' objects, in files with no class dumps, are withheld. */
static int redact_tables(struct session *s, struct hs_redact *r)
{
	static int told_bad, told_mem;
	const struct policy *p = policy();

	memset(r, 0, sizeof *r);
	if (!p->redact)
		return 0;
	if (p->redact_bad[0] &&
	    !__atomic_exchange_n(&told_bad, 1, __ATOMIC_RELAXED))
		say("hprofstrip: HPROFSTRIP_REDACT: '%s' is not known (the "
		    "levels: values, names); the strongest is used: names",
		    p->redact_bad);
	if (!s->red && !(s->red = map_tables(sizeof *s->red, &told_mem, s->path,
	                                     "no memory for HPROFSTRIP_REDACT's "
	                                     "tables; every instance's fields "
	                                     "are zeroed, references too")))
		return 1;
	memset(s->red->classes, 0, sizeof s->red->classes);
	memset(s->red->fw_names, 0, sizeof s->red->fw_names);
	memset(s->red->fw_classes, 0, sizeof s->red->fw_classes);
	*r = (struct hs_redact){
		.classes = s->red->classes, .class_slots = HS_REDACT_CLASSES,
		.types = s->red->types, .types_size = HS_REDACT_TYPES,
		.gather = s->red->gather, .gather_size = HS_REDACT_GATHER,
		.fw_names = s->red->fw_names, .fw_classes = s->red->fw_classes,
		.fw_slots = HS_REDACT_FW,
		.flat = s->red->flat, .flat_slots = HS_REDACT_FLAT,
		.patch = s->red->patch, .patch_slots = HS_REDACT_PATCHES,
		.sized = s->red->sized, .sized_slots = HS_REDACT_SIZED };
	return 1;
}

/* HPROFSTRIP_COMPRESS or _FILTER, or a FIFO: the segment buffer and the
 * child's state for s's next dump; NULL if not wanted or not to be had
 * (said). */
static struct pipe_mem *pipe_tables(struct session *s, int kind, int fifo)
{
	static int told_mem;

	if (kind != S_MAIN || (!fifo && !s->gz && !pipe_wanted()))
		return NULL;
	if (!s->pm)
		s->pm = map_tables(sizeof *s->pm, &told_mem, s->path,
		                   "no memory for a compressor; the dump is "
		                   "written uncompressed");
	return s->pm;
}

/* The engine's sink with a child: the file gets every byte (the plain
 * stripped dump, should the child fail), the child too. */
static int tee_write(void *user, const void *buf, size_t len)
{
	struct session *s = user;

	if (s->piped)
		pipe_send(&s->pm->pipe, buf, len);
	return io_ob_write(&s->ob, buf, len);
}

/* A FIFO's writer: no offsets, the bytes in order (a raw write: the
 * shim's own write() would come back here). */
static ssize_t fifo_write(void *user, int fd, const void *buf, size_t len,
                          int64_t off)
{
	(void)user;
	(void)off;
	return syscall(SYS_write, fd, buf, len);
}

/* The dump's writer: the real pwrite, except that a full disk while a
 * child compresses gives the child up first (its output removed, so its
 * room is freed) and tries again: compressing never makes a dump that
 * fits on the disk fail. user: the session (NULL: the child is never
 * given up). */
static ssize_t dump_pwrite(void *user, int fd, const void *buf, size_t len,
                           int64_t off)
{
	ssize_t n = hst.pwrite(fd, buf, len, off);
	struct session *s = user;
	int e = errno;

	if (n >= 0 || (e != ENOSPC && e != EDQUOT) || !s || !s->piped)
		return n;
	s->piped = 0;
	pipe_abort(&s->pm->pipe);
	n = hst.pwrite(fd, buf, len, off);
	if (n >= 0)
		say("hprofstrip: %s: %s while %s wrote too: it is given up, "
		    "and its output removed to make room; the dump goes on, "
		    "uncompressed, in %s", s->path, strerror(e),
		    s->pm->pipe.what, s->pm->pipe.dump);
	else
		say("hprofstrip: %s: %s while %s wrote too: it is given up "
		    "and its output removed, but the disk is still full: the "
		    "dump is cut short", s->path, strerror(e),
		    s->pm->pipe.what);
	return n;  /* say() kept the retry's errno */
}

/* The dump's first write, to fd: its child starts (pipe_pending). */
static void start_child(struct session *s, int fd)
{
	s->pipe_pending = 0;
	s->piped = pipe_start(&s->pm->pipe, fd) == 1;
}

/* ---- sealed segments (seal.h) ---------------------------------------- */

/* The runtime's bytes as it wrote them, at at, zeros first from the
 * file's end up to at: a sealed segment's (seal.h), or a gzip dump's
 * (sealed under HPROFSTRIP_REDACT: s->nonce). raw_len is the file's
 * length; a sealed segment's engine is never fed, so its in_off is too. */
static int put_raw(struct session *s, int fd, const unsigned char *b,
                   size_t len, uint64_t at)
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

/* The engine's sink for a gzip dump: the compressor alone (the file
 * holds the runtime's stream). */
static int gz_sink(void *user, const void *buf, size_t len)
{
	struct session *s = user;

	if (s->piped)
		pipe_send(&s->pm->pipe, buf, len);
	return 0;
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
static int put_gz(struct session *s, int fd, const void *buf, size_t len,
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
		if (!fstat(fd, &sb)) {
			s->gz_dev = sb.st_dev;
			s->gz_ino = sb.st_ino;
		}
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
static int gz_end(struct session *s, int fd)
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
	if (!s->inf && !(s->inf = map_tables(sizeof *s->inf, &told_mem,
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

/* ---- life ------------------------------------------------------------- */

void session_start(struct session *s, int kind, const char *path,
                   const char *base, unsigned idsize, int dirfd,
                   const char *dump, int vet, int fifo)
{
	struct hs_config cfg = { .flags = HS_OPEN_LEN | HS_FALLBACK,
	                         .idsize = idsize };
	struct hs_sink sink = { io_ob_write, io_ob_patch, NULL, NULL };
	struct hs_keep strings;
	unsigned keep;
	struct hs_redact red;
	struct hs_names names;
	struct pipe_mem *pm;
	static int told_bool, told_key;

	if (policy()->bool_bad[0] &&
	    !__atomic_exchange_n(&told_bool, 1, __ATOMIC_RELAXED))
		say("hprofstrip: %s: not a yes/no value (1/0, yes/no, "
		    "true/false, on/off); its default is used",
		    policy()->bool_bad);
	if (kind == S_SEGMENT)
		cfg.flags |= HS_NO_HEADER;
	/* a 1.0.3 dump's zygote and image objects go (the engine leaves
	 * other versions alone) */
	if (kind == S_MAIN && policy()->app_only)
		cfg.flags |= HS_APP_ONLY;
	sink.user = &s->ob;
	/* (kind and base are read under the table's lock, which a restart
	 * does not hold: it leaves them as they are) */
	if (s->kind != kind)
		s->kind = kind;
	s->refs = 1;
	/* (read before any lock is taken: atomic) */
	__atomic_store_n(&s->pid, getpid(), __ATOMIC_RELAXED);
	snprintf(s->path, sizeof s->path, "%s", path);
	if (strcmp(s->base, base))
		snprintf(s->base, sizeof s->base, "%s", base);
	s->voff = s->ext = 0;
	s->warned = s->trunc_at_end = 0;
	s->seg_in = s->seg_out = s->seg_arrays = 0;
	s->seg_withheld = 0;
	s->main = NULL;
	s->vet = kind == S_MAIN && vet != VET_NONE;
	__atomic_store_n(&s->segments, 0, __ATOMIC_RELAXED);
	s->vet_stamp = vet == VET_STAMP;
	s->hdr_len = 0;
	s->fifo = fifo;
	io_ob_init(&s->ob, fifo ? fifo_write : dump_pwrite, s, -1, 0, s->buf,
	           sizeof s->buf);
	if ((keep = keep_tables(s, kind, &strings)) != 0) {
		cfg.flags |= keep;
		cfg.keep = &strings;
	}
	/* (the engine drops keep-strings when it redacts; a sealed segment
	 * is redacted by its main, at the merge) */
	s->sealed = kind == S_SEGMENT && policy()->redact;
	s->nonce = 0;
	s->nseals = 0;
	if (!s->sealed && redact_tables(s, &red)) {
		cfg.flags |= HS_REDACT;
		cfg.redact = &red;
	}
	/* =names: a .pN file holds no names */
	s->map_fd = -1;
	s->map_failed = 0;
	memset(&s->map, 0, sizeof s->map);
	s->map.ob = &s->map_ob;
	if (kind == S_MAIN && policy()->redact == 2) {
		memset(&names, 0, sizeof names);
		if (io_names_key(policy()->names_key, names.key) < 0 &&
		    !__atomic_exchange_n(&told_key, 1, __ATOMIC_RELAXED))
			say("hprofstrip: HPROFSTRIP_NAMES_KEY: not 32 hex digits; "
			    "a random key is used");
		names.original = map_original;
		names.user = s;
		cfg.flags |= HS_REDACT_NAMES;
		cfg.names = &names;
	}
	/* the histogram's tables after the others': their lines come
	 * first when memory is short */
	if (kind == S_MAIN)
		histo_path(s, dirfd);
	if ((cfg.histo = histo_tables(s, kind)) != NULL)
		cfg.flags |= HS_HISTO;
	s->piped = s->pipe_pending = 0;
	s->gz = s->gz_pending;
	s->gz_pending = s->gz_failed = 0;
	s->gz_in = s->raw_len = 0;
	s->gz_dev = 0;
	s->gz_ino = 0;
	s->gz_judged = 0;
	s->gz_head_len = 0;
	if (kind == S_MAIN && dump != s->dump &&
	    (dump[0] == '/' || !policy_absolute(dirfd, dump, s->dump,
	                                        sizeof s->dump)))
		snprintf(s->dump, sizeof s->dump, "%s", dump);
	if ((pm = pipe_tables(s, kind, fifo)) != NULL && fifo) {
		/* a FIFO is a stream: segments, never patched */
		cfg.flags |= HS_STREAM;
		cfg.seg_buf = pm->seg;
	} else if (pm) {
		/* nothing is ever patched: the child reads it as it comes */
		pipe_prepare(&pm->pipe, dirfd, dump);
		pm->pipe.gz_level = s->gz ? s->gz_level : 0;
		cfg.flags |= HS_STREAM;
		cfg.seg_buf = pm->seg;
		sink.write = s->gz ? gz_sink : tee_write;
		sink.user = s;
		s->pipe_pending = 1;  /* started at the first write */
	}
	hs_init(&s->st, &cfg, &sink);
}

void session_restart(struct session *s)
{
	int refs = s->refs;
	uint64_t voff = s->voff;
	struct session *main = s->main;
	char path[sizeof s->path], base[sizeof s->base], dump[PATH_MAX];
	char histo[sizeof s->histo_path];
	int vet = s->vet_stamp ? VET_STAMP : s->kind == S_MAIN ? VET_MAGIC
	                                                      : VET_NONE;

	uint64_t nonce = s->nonce;
	unsigned nseals = s->nseals;

	memcpy(path, s->path, sizeof path);
	memcpy(base, s->base, sizeof base);
	memcpy(histo, s->histo_path, sizeof histo);
	map_close(s, MAP_REMOVE);  /* written anew from the first name */
	if (s->gz) {
		inflate_stop(s->inf, 0);  /* its header is judged again */
		s->nonce = 0;
	}
	/* a child started over: the first child's output goes */
	if (s->piped)
		pipe_abort(&s->pm->pipe);
	if (s->pm && (s->piped || s->pipe_pending))
		memcpy(dump, s->pm->pipe.dump, sizeof dump);
	else  /* (the path as opened, absolute: s->path may be cut) */
		snprintf(dump, sizeof dump, "%s",
		         s->kind == S_MAIN && s->dump[0] ? s->dump : path);
	session_start(s, s->kind, path, base, s->st.idsize, AT_FDCWD, dump,
	              vet, s->fifo);
	/* the histogram goes where the first start put it (dirfd's) */
	memcpy(s->histo_path, histo, sizeof histo);
	s->refs = refs;
	s->voff = voff;  /* ftruncate leaves the file position alone */
	s->main = main;
	/* a sealed segment keeps its key stream, a main its segments */
	s->nonce = nonce;
	s->nseals = nseals;
}

/* Feeds zeros up to input offset at (the runtime wrote past its end). */
static void gap(struct session *s, uint64_t at)
{
	static const unsigned char zeros[4096];

	while (s->st.in_off < at && !s->st.err) {
		uint64_t n = at - s->st.in_off;
		hs_feed(&s->st, zeros, n < sizeof zeros ? (size_t)n : sizeof zeros);
	}
}

/* A gzip dump that fails closed (HPROFSTRIP_REDACT): its file, sealed,
 * emptied through fd and removed, if its path is still that file; fd -1
 * (closed behind our back): removed if its path is still the file the
 * first write went to. */
static void gz_remove(struct session *s, int fd)
{
	struct stat a, b;
	int saved = errno;

	if (fd >= 0 ? fstat(fd, &a) : s->gz_ino == 0)
		goto out;
	if (fd < 0) {
		a.st_dev = s->gz_dev;
		a.st_ino = s->gz_ino;
	}
	if (!lstat(s->dump, &b) && a.st_dev == b.st_dev && a.st_ino == b.st_ino) {
		if (fd >= 0 && hst.ftruncate(fd, 0)) {
			/* removed all the same */
		}
		unlink(s->dump);
	}
out:
	errno = saved;
}

static void unseal_file(struct session *s, int fd);

/* The dump's child has had every byte: wait for it. On success the
 * plain copy goes (the file the runtime opened, emptied and removed), and
 * the child's output is all there is; else the copy is the dump, and the
 * child's output is removed. fd: the dump's, or -1 (closed already). */
static void end_child(struct session *s, int fd)
{
	struct pipe_out *p = &s->pm->pipe;
	char why[256];

	s->piped = 0;
	if (s->gz) {
		/* a gzip dump: the file holds the runtime's stream; the
		 * child's output takes its place, or goes */
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
		return;
	}
	if (pipe_finish(p, why, sizeof why, &s->lock)) {
		if (s->ob.err || fd < 0)
			say("hprofstrip: %s: %s; %s holds what was written "
			    "of the stripped dump, not all of it", s->path,
			    why, p->dump);
		else
			say("hprofstrip: %s: %s; the stripped dump is in %s, "
			    "uncompressed", s->path, why, p->dump);
	} else if (s->ob.err || s->st.err) {
		/* the copy is as damaged as what the child got: keep both */
	} else if (fd >= 0) {
		pipe_remove_dump(p, fd);
		if (p->out[0])
			say("hprofstrip: %s: %s wrote %s", s->path, p->what, p->out);
		else
			say("hprofstrip: %s: %s took it (%llu bytes); %s removed",
			    s->path, p->what, (unsigned long long)p->sent, p->dump);
	}
}

/* The bytes held while vetting go to the file as written (at 0), and
 * fd's position where the program left it. */
static void put_held(struct session *s, int fd)
{
	int saved = errno;

	if (s->hdr_len && io_pwrite_full(s->fifo ? fifo_write : file_pwrite, NULL,
	                                 fd, s->hdr, s->hdr_len, 0))
		s->warned = 1;  /* as the real write would have, quietly */
	if (!s->fifo && s->voff &&
	    hst.lseek(fd, (int64_t)s->voff, SEEK_SET) < 0) {
		/* a file that cannot seek was not tracked */
	}
	s->hdr_len = 0;
	errno = saved;
}

void session_finish(struct session *s, int fd)
{
	if (s->vet) {
		/* closed before its header was whole: what was held is
		 * written as it came */
		put_held(s, fd);
		return;
	}
	if (!s->st.in_off && !s->seg_in && !s->ob.len && !s->ext &&
	    !s->raw_len) {
		/* nothing was written (touch, an open to check a name): the
		 * file stays as it was, old content and all */
		return;
	}
	if (s->sealed) {
		/* its main reads it back at the merge: nothing to end here */
		put_raw(s, fd, NULL, 0, s->ext);
		session_flush(s, fd);
		return;
	}
	/* a gzip dump: what gzip -dc still holds; not stripped after all,
	 * the file as written is the dump (or, failed closed, none) */
	if (s->gz && gz_end(s, fd)) {
		session_flush(s, fd);
		if (s->gz_failed)
			gz_remove(s, fd);
		return;
	}
	/* the dump's last bytes: its fds are gone from the table, and a full
	 * disk now gives no child up (end_child says what came of both) */
	s->ob.user = NULL;
	gap(s, s->ext);
	hs_finish(&s->st);
	session_flush(s, fd);
	report(s);
	if (s->trunc_at_end && !s->ob.err &&
	    hst.ftruncate(fd, (int64_t)io_ob_size(&s->ob))) {
		/* the dump is still whole; old bytes remain after it */
	}
	/* the histogram of what was read: up to the engine's first error
	 * (a cut, malformed or unwritable dump: marked cut there) */
	if (s->kind == S_MAIN)
		histo_end(s, s->st.fallback || s->st.err,
		          s->st.fallback ? s->st.fallback_off : s->st.err_off);
	map_close(s, MAP_DONE);
	if (s->kind == S_SEGMENT && s->main) {
		/* the main's counts are the main's lock's (lock order: a
		 * segment, then its main); a main that has ended has said
		 * them */
		struct session *m = s->main;
		pthread_mutex_lock(&m->lock);
		if (m->kind == S_MAIN &&
		    !__atomic_load_n(&m->leaving, __ATOMIC_RELAXED)) {
			m->seg_in += s->st.in_off;
			m->seg_out += s->st.out_off;
			m->seg_arrays += s->st.arrays;
			m->seg_withheld += s->st.withheld;
		}
		pthread_mutex_unlock(&m->lock);
	} else if (s->kind == S_MAIN) {
		session_summary(s);
	}
	if (s->piped)
		end_child(s, fd);
	else if (s->gz && s->nonce) {
		/* a gzip dump whose compressor was given up (a full disk):
		 * its file holds the runtime's stream, sealed */
		say("hprofstrip: %s: HPROFSTRIP_REDACT cannot keep the "
		    "runtime's gzip stream: the file is removed", s->path);
		gz_remove(s, fd);
	}
	/* HPROFSTRIP_SUSPECTS: the analysis of the file as it now is */
	suspects_start(s);
	s->piped = s->pipe_pending = 0;
}

void session_let_go(struct session *s, int fd)
{
	put_held(s, fd);
	s->vet = 0;
}

void session_lost(struct session *s)
{
	/* a gzip dump under HPROFSTRIP_REDACT: its file is sealed bytes no
	 * one can read back, unless it was given back as not a dump */
	int gz_remove_it = s->gz && s->nonce &&
	                   (s->gz_judged >= 0 || s->gz_failed);

	if (s->gz)
		/* (its inflater may not have had every byte yet: the count
		 * said is the runtime's) */
		say("hprofstrip: %s: closed behind the shim's back after "
		    "%llu bytes of its gzip stream; %s", s->path,
		    (unsigned long long)s->raw_len, gz_remove_it ?
		    "HPROFSTRIP_REDACT cannot keep the runtime's stream: the "
		    "file is removed" : "the dump is kept as the runtime "
		    "wrote it");
	else
		say("hprofstrip: %s: closed behind the shim's back; the "
		    "dump ends at %llu bytes in", s->path,
		    (unsigned long long)s->st.in_off);
	/* the shim never saw the dump's end: the histogram is of the bytes
	 * that came, marked cut there */
	if (s->kind == S_MAIN)
		histo_end(s, 1, s->st.in_off);
	map_close(s, MAP_DONE);
	if (s->gz)
		inflate_stop(s->inf, 0);
	if (s->piped)
		end_child(s, -1);
	if (gz_remove_it)
		gz_remove(s, -1);
}

void session_forget(struct session *s)
{
	/* the parent's child reads the parent's dump: our copy of
	 * its stdin must not keep it open */
	if (s->piped)
		pipe_forget(&s->pm->pipe);
	if (s->gz)
		inflate_stop(s->inf, 1);
	map_close(s, MAP_DROP);
	s->piped = s->pipe_pending = 0;
	s->kind = S_FREE;
	s->leaving = 0;  /* (ending in the parent's thread, not here) */
}

/* ---- the engine feed --------------------------------------------------- */

/* A rewrite of bytes fed already: the engine applies what it can (JDK 8's
 * length patch, bytes that went out unchanged); what it cannot is said
 * once. */
static void rewrite(struct session *s, const void *buf, size_t len,
                    uint64_t at)
{
	enum hs_err e = hs_rewrite(&s->st, at, buf, len);

	if (s->warned || s->ob.err || (e != HS_E_REWRITE && e != HS_E_PATCH))
		return;
	s->warned = 1;
	if (e == HS_E_PATCH)
		say("hprofstrip: %s: length patch at offset %llu does not fit "
		    "the record", s->path, (unsigned long long)at);
	else
		say("hprofstrip: %s: a rewrite of %zu bytes at offset %llu "
		    "falls on data already stripped and cannot be applied; the "
		    "dump is damaged", s->path, len, (unsigned long long)at);
}

int session_put(struct session *s, int fd, const void *buf, size_t len,
                uint64_t at)
{
	s->ob.fd = fd;
	if (s->ob.err)
		return s->ob.err;
	if (s->sealed)
		return put_raw(s, fd, buf, len, at);
	if (s->gz)
		return put_gz(s, fd, buf, len, at);
	if (s->pipe_pending)
		start_child(s, fd);
	if (at > s->st.in_off)
		gap(s, at);
	if (at < s->st.in_off) {
		/* a rewrite, maybe going on past the end */
		size_t old = at + len > s->st.in_off ? (size_t)(s->st.in_off - at)
		                                     : len;
		rewrite(s, buf, old, at);
		buf = (const unsigned char *)buf + old;
		len -= old;
	}
	if (len)
		hs_feed(&s->st, buf, len);
	report(s);
	return s->ob.err;
}

int session_feed(struct session *s, int fd, const void *buf, size_t len,
                 uint64_t at)
{
	int e = session_put(s, fd, buf, len, at);

	return e ? e : session_flush(s, fd) ? s->ob.err : 0;
}
