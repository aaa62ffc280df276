/*
 * replay: write an existing, complete .hprof file again with the syscall
 * pattern of a real runtime, so that an LD_PRELOAD shim can be tested
 * against what HotSpot and ART really do.
 *
 *   replay MODE IN OUT [SEED]
 *
 * Without the shim every mode leaves OUT byte-identical to IN, but for the
 * header's time stamp (see below), and no OUT.pN file behind. SEED (default 1) makes the random modes
 * reproducible. Nothing is printed on success; a failing call prints
 * "replay: MODE: <call>: <strerror>" and exits 1.
 *
 * IN is read whole (open O_RDONLY, fstat, read, close) before OUT is
 * opened, so a shim sees one read-only open of IN first.
 *
 * Sources quoted below are the public repositories named, read for this
 * driver; tests/runtimes.md holds the notes, with citations.
 *
 * Modes (each has a longer comment at its function):
 *   random     open64 O_WRONLY|O_CREAT|O_TRUNC 0600, write() pieces of
 *              random size (1 B .. 64 KiB, many of 1..16 B), close.
 *   threads    JDK 11.0.14+/17 CompressionBackend: the main thread opens,
 *              two writer threads issue the 1 MiB write()s in order,
 *              the main thread closes.
 *   jdk8       JDK 6/7/8 DumpWriter: 8 MiB buffer, heap records written
 *              with a length placeholder, fixed up with lseek64 + write
 *              of 4 bytes + lseek64 back. O_EXCL: OUT must not exist.
 *   jdk22      JDK 22+ two-phase dump: non-heap records to OUT, heap
 *              records to OUT.p0, OUT.p1 ... (written by threads), then
 *              merged into OUT with sendfile and removed; HEAP_DUMP_END
 *              last. O_EXCL: OUT and OUT.pN must not exist.
 *   jdk25      as jdk22, with JDK 25's schedule: every class dump in
 *              OUT.p0, written after the other dumpers' first segments;
 *              REPLAY_DUMPERS=N dumpers; REPLAY_GZIP=L gzip members
 *              (then OUT decompresses to IN).
 *   (REPLAY_GZIP=L: random, threads, pwrite, writev, bytes and setlength
 *              write IN as JDK 11.0.14-21's -gz=L file, a gzip member
 *              per 1 MiB, IN's stamp made the replay's first)
 *   art        Android ART hprof.cc: open O_WRONLY|O_CREAT|O_TRUNC|
 *              O_CLOEXEC 0644, dup, close the original, header alone in
 *              one write, then one whole top-level record per write,
 *              fdatasync, close.
 *   artcloexec as art, but the copy is made with fcntl(F_DUPFD_CLOEXEC),
 *              as current ART's DupCloexec() does.
 *   artpipe    as art; OUT should be named so it does not look like a
 *              dump (out.bin). OUT "-" writes to a dup of stdout.
 *   pwrite     pwrite64 at increasing offsets, random sizes; the file
 *              offset never moves.
 *   writev     writev with 1..8 iovecs of random sizes, some empty.
 *   bytes      one write() per byte (small files only).
 *   artfail    as art, but the dump fails after half its records: ART's
 *              Erase, ftruncate64(fd, 0), fdatasync, close. OUT ends
 *              empty (it is not byte-identical to IN).
 *   setlength  RandomAccessFile: open O_RDWR|O_CREAT (no O_TRUNC) 0644,
 *              ftruncate(fd, 0) (setLength(0)), then 64 KiB writes.
 *
 * Every mode first dlopens a runtime's stand-in, stub/libart.so for the
 * art* modes, else stub/libjvm.so, beside this executable
 * (tests/runtime-stub.c): the process then hosts a runtime, as the real
 * one does, which is where the shim strips (REPLAY_RUNTIME=none: it hosts
 * none, as cp or tar). And as a runtime stamps its dump's header with the
 * time the dump began, the replay writes IN with the header's time stamp
 * made the time of the replay (REPLAY_STAMP=keep: IN's own, a copy of an
 * older dump). So OUT is IN but for those 8 bytes.
 *
 * Environment: REPLAY_PN_KEEP=DIR: jdk22 hard-links each OUT.pN as
 * DIR/pN after its writer closed it and before the merge reads it, so a
 * test sees the segment files as they were on disk. REPLAY_LEFTOVERS=1: after
 * the dump, fail unless the process has the fds it started with and no
 * child process, not even a zombie. REPLAY_JDK8_BUF=N makes the jdk8 buffer N bytes instead
 * of 8 MiB. HotSpot itself halves the buffer until malloc succeeds, so
 * small buffers are real; they also make records larger than the buffer
 * (written unbuffered) appear with small test files. REPLAY_HOLD=N: first
 * open N files OUT.hold<i>.hprof for writing (created, truncated) and keep
 * them open, unwritten, to the end (a shim's slots for dumps taken).
 * REPLAY_FD=N: every fd below N is taken (/dev/null) before OUT is
 * opened, so OUT opens as fd N or above, in the random, threads, pwrite,
 * writev, bytes, jdk8 and art* modes. REPLAY_DUP_FD=N: the same before
 * the art* modes' copy of OUT's fd, so the copy is N or above.
 *
 * The dump is framed by the test side's walker (tests/walk.h).
 *
 * Build: cc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 -pthread
 *        tests/replay.c tests/walk.c -o replay -ldl   (glibc or musl-gcc)
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#ifndef _LARGEFILE64_SOURCE
#define _LARGEFILE64_SOURCE 1
#endif

#include "walk.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MIB (1024u * 1024u)

static const char *g_mode = "?";

static void die(const char *call)
{
	fprintf(stderr, "replay: %s: %s: %s\n", g_mode, call, strerror(errno));
	exit(1);
}

static void die_msg(const char *what, const char *msg)
{
	fprintf(stderr, "replay: %s: %s: %s\n", g_mode, what, msg);
	exit(1);
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		die("malloc");
	return p;
}

#include "shimdrive.h"

/* ---- seeded pieces (tests/shimdrive.h) ---- */

static uint64_t g_rng;

static uint64_t rnd(void)
{
	return sd_rand(&g_rng);
}

static size_t rnd_range(size_t lo, size_t hi) /* inclusive */
{
	return lo + (size_t)(rnd() % (uint64_t)(hi - lo + 1));
}

/* Piece size: 40% 1..16 bytes, 30% 17..4096, 30% 4097..64 KiB; at most
 * left. */
static size_t rnd_piece(size_t left)
{
	return sd_piece(&g_rng, left);
}

/* ---- plain I/O helpers ---- */

/* What one I/O call (name: for the message) moved: its byte count, or 0
 * after EINTR (call again); any other failure, or nothing moved, ends the
 * replay. */
static size_t moved(ssize_t r, const char *name)
{
	if (r < 0 && errno == EINTR)
		return 0;
	if (r == 0)
		errno = EIO;
	if (r <= 0)
		die(name);
	return (size_t)r;
}

static void xclose(int fd)
{
	if (close(fd) != 0)
		die("close");
}

/* var=N (REPLAY_FD, REPLAY_DUP_FD): every fd below N taken (kept open),
 * so the next open or dup gives N or above. */
static void high_fds(const char *var)
{
	const char *n = getenv(var);
	int k;

	if (!n || !*n)
		return;
	while ((k = open("/dev/null", O_RDONLY)) >= 0 && k < atoi(n))
		;
	if (k < 0)
		die("open /dev/null");
	close(k);
}

/* REPLAY_HOLD=N: N dump files beside out opened, kept open. */
static void hold_files(const char *out)
{
	const char *n = getenv("REPLAY_HOLD");
	char path[4096];
	int i;

	for (i = 0; n && i < atoi(n); i++) {
		snprintf(path, sizeof path, "%s.hold%d.hprof", out, i);
		if (open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600) < 0)
			die("open");
	}
}

/* OUT as JDK 8's os::create_binary_file opens it (openjdk/jdk8u hotspot/
 * src/os/linux/vm/os_linux.cpp), with O_TRUNC as with jcmd GC.heap_dump
 * -overwrite. */
static int create_out(const char *out)
{
	high_fds("REPLAY_FD");
	int fd = open64(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		die("open64");
	return fd;
}

static unsigned char *read_input(const char *path, size_t *len_out)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die("open");
	struct stat st;
	if (fstat(fd, &st) != 0)
		die("fstat");
	size_t len = (size_t)st.st_size, got = 0;
	unsigned char *buf = xmalloc(len);
	while (got < len) {
		ssize_t r = read(fd, buf + got, len - got);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			die("read");
		}
		if (r == 0)
			die_msg(path, "file shrank while reading");
		got += (size_t)r;
	}
	xclose(fd);
	*len_out = len;
	return buf;
}

/* ---- a runtime's buffered writer (JDK 8's DumpWriter, JDK 22's
 * AbstractDumpWriter): its fd, its buffer, the bytes in it ---- */

struct wbuf {
	int fd;
	unsigned char *buf;
	size_t size, pos;
	int gzip;      /* jdk25, REPLAY_GZIP: each flush a gzip member */
	int members;   /* ... members written (the first has the comment) */
};

static void wb_init(struct wbuf *w, int fd, size_t size)
{
	w->fd = fd;
	w->size = size;
	w->pos = 0;
	w->buf = xmalloc(size);
	w->gzip = w->members = 0;
}

static void gz_member(struct wbuf *w);

static void wb_flush(struct wbuf *w)
{
	if (w->pos > 0) {
		if (w->gzip)
			gz_member(w);
		else
			sd_write_all(w->fd, w->buf, w->pos);
		w->pos = 0;
	}
}

/* ---- HPROF framing: header + top-level records ---- */

struct rec {
	size_t off;  /* offset of the tag byte */
	size_t len;  /* 9 + body length */
	unsigned char tag;
};

struct hprof {
	const unsigned char *d;
	size_t len;
	size_t hdr_len;   /* "JAVA PROFILE 1.0.x\0" + u4 idsize + u8 time */
	unsigned idsize;
	struct rec *recs;
	size_t nrec;
	struct walk w;    /* the walk that found them */
};

/* The header and the records of IN, framed by the test side's walker:
 * any header string "JAVA PROFILE 1.0." ... (a write driver frames what
 * it is given); sub-records are walked as they are written. */
static void parse_hprof(struct hprof *h, const char *name)
{
	struct walk_rec r;
	size_t cap = 1024;
	uint64_t off;
	int rc;

	if (walk_header(&h->w, h->d, h->len, WALK_ANY_HEADER | WALK_SKIP_FIELDS))
		die_msg(name, h->w.err == WALK_E_MAGIC ? "not an HPROF file"
		              : walk_strerror(h->w.err));
	h->hdr_len = (size_t)h->w.first;
	h->idsize = h->w.idsize;
	h->recs = xmalloc(cap * sizeof *h->recs);
	h->nrec = 0;
	for (off = h->hdr_len; (rc = walk_record(&h->w, off, &r)) > 0;
	     off = r.end) {
		if (h->nrec == cap) {
			cap *= 2;
			struct rec *n = realloc(h->recs, cap * sizeof *n);
			if (!n)
				die("realloc");
			h->recs = n;
		}
		h->recs[h->nrec].off = (size_t)r.off;
		h->recs[h->nrec].len = (size_t)(r.end - r.off);
		h->recs[h->nrec].tag = (unsigned char)r.tag;
		h->nrec++;
	}
	if (rc < 0)
		die_msg(name, h->w.err == WALK_E_REC_BODY
		              ? "record runs past the end of the file"
		              : walk_strerror(h->w.err));
}

/* ==================================================================
 * random: write() pieces of random size.
 * Not a runtime: the worst case for a stream parser. OUT opened as JDK 8
 * does (create_out).
 * ================================================================== */
static void mode_random(const unsigned char *d, size_t len, const char *out)
{
	int fd = create_out(out);
	for (size_t off = 0, n; off < len; off += n) {
		n = rnd_piece(len - off);
		sd_write_all(fd, d + off, n);
	}
	xclose(fd);
}

/* ==================================================================
 * threads: JDK 11.0.14+ / 17 / 21 (serial) CompressionBackend.
 * openjdk/jdk17u-dev src/hotspot/share/services/heapDumperCompression.cpp:
 * FileWriter::open_writer() calls os::create_binary_file (O_WRONLY|
 * O_CREAT|O_TRUNC or O_EXCL, 0600) on the dumping thread;
 * CompressionBackend::finish_work() hands each finished 1 MiB WriteWork,
 * in id order, to FileWriter::write_buf(), which loops os::write() until
 * done, on whichever thread finished it (a writer thread running
 * thread_loop() or the VM thread). No seeks: heap segment lengths are
 * patched inside the buffer (DumpWriter::finish_dump_segment in
 * heapDumper.cpp). FileWriter's destructor closes the fd.
 * Here: main opens, two writer threads take chunk i (1 MiB each, last one
 * shorter) in turn i % 2, strictly in order, main joins and closes.
 * ================================================================== */
struct tw_shared {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	size_t next;      /* next chunk to write */
	size_t nchunks;
	const unsigned char *d;
	size_t len;
	int fd;
};

struct tw_arg {
	struct tw_shared *s;
	size_t first;
};

static void *tw_main(void *argp)
{
	struct tw_arg *a = argp;
	struct tw_shared *s = a->s;
	for (size_t i = a->first; i < s->nchunks; i += 2) {
		if ((errno = pthread_mutex_lock(&s->mu)) != 0)
			die("pthread_mutex_lock");
		while (s->next != i)
			if ((errno = pthread_cond_wait(&s->cv, &s->mu)) != 0)
				die("pthread_cond_wait");
		if ((errno = pthread_mutex_unlock(&s->mu)) != 0)
			die("pthread_mutex_unlock");

		size_t off = i * (size_t)MIB;
		size_t n = s->len - off < MIB ? s->len - off : MIB;
		sd_write_all(s->fd, s->d + off, n);

		if ((errno = pthread_mutex_lock(&s->mu)) != 0)
			die("pthread_mutex_lock");
		s->next++;
		if ((errno = pthread_cond_broadcast(&s->cv)) != 0)
			die("pthread_cond_broadcast");
		if ((errno = pthread_mutex_unlock(&s->mu)) != 0)
			die("pthread_mutex_unlock");
	}
	return NULL;
}

static void mode_threads(const unsigned char *d, size_t len, const char *out)
{
	struct tw_shared s;
	s.next = 0;
	s.nchunks = (len + MIB - 1) / MIB;
	s.d = d;
	s.len = len;
	s.fd = create_out(out);
	if ((errno = pthread_mutex_init(&s.mu, NULL)) != 0)
		die("pthread_mutex_init");
	if ((errno = pthread_cond_init(&s.cv, NULL)) != 0)
		die("pthread_cond_init");

	pthread_t t[2];
	struct tw_arg a[2];
	for (int i = 0; i < 2; i++) {
		a[i].s = &s;
		a[i].first = (size_t)i;
		if ((errno = pthread_create(&t[i], NULL, tw_main, &a[i])) != 0)
			die("pthread_create");
	}
	for (int i = 0; i < 2; i++)
		if ((errno = pthread_join(t[i], NULL)) != 0)
			die("pthread_join");
	pthread_cond_destroy(&s.cv);
	pthread_mutex_destroy(&s.mu);
	xclose(s.fd);
}

/* ==================================================================
 * jdk8: JDK 6/7/8 (and 9 .. 11.0.13, before JDK-8234510) DumpWriter.
 * Repository wuyiccc/openjdk-jdk8u (a jdk8u mirror) and openjdk/jdk7u,
 * hotspot/src/share/vm/services/heapDumper.cpp:
 *  - DumpWriter::DumpWriter: buffer io_buffer_size = 8*M (halved until
 *    malloc succeeds); fd = os::create_binary_file(path, false), which in
 *    openjdk/jdk8u hotspot/src/os/linux/vm/os_linux.cpp is
 *    open64(path, O_WRONLY|O_CREAT|O_EXCL, S_IREAD|S_IWRITE).
 *  - write_raw: if pos + len >= size, flush(); if len >= size the item
 *    goes straight to write_internal() (unbuffered), else it is copied.
 *    write_internal loops ::write over short writes (n < 0 is an error).
 *  - current_offset() = os::current_file_offset(fd) (lseek64(fd, 0,
 *    SEEK_CUR)) + buffered bytes; seek_to_offset(off) = flush() then
 *    lseek64(fd, off, SEEK_SET).
 *  - VM_HeapDumper::write_dump_header: u1 HEAP_DUMP (1.0.1) or
 *    HEAP_DUMP_SEGMENT (1.0.2), u4 ticks, dump_start = current_offset(),
 *    u4 0 (placeholder).
 *  - write_current_dump_record_length: dump_end = current_offset();
 *    seek_to_offset(dump_start); write_u4(dump_end - dump_start - 4);
 *    seek_to_offset(dump_end)  => syscalls: lseek64(SEEK_CUR),
 *    write(buffer), lseek64(dump_start, SEEK_SET), write(4 bytes),
 *    lseek64(dump_end, SEEK_SET). (Later 8u computes dump_end from its
 *    byte counters instead of the SEEK_CUR lseek; the rest is the same.)
 *  - check_segment_length rolls over to a new segment past
 *    HeapDumpSegmentSize (1 GiB; 2 GiB in later 8u), end_of_dump fixes up
 *    the last one and, for 1.0.2, appends HEAP_DUMP_END (u1, u4 0, u4 0).
 *    1.0.2 is chosen when heap used > SegmentedHeapDumpThreshold (2 GiB),
 *    else 1.0.1 with one HEAP_DUMP record (always 1.0.2 since JDK 9 and
 *    later 8u, JDK-8144732 / CSR JDK-8235300).
 * Here every 0x0C/0x1C record of IN is replayed that way (a rollover is
 * just the next record); other records go through the buffer with their
 * lengths known. Item sizes follow HotSpot's write_u1/u2/u4/u8/id calls;
 * a primitive array's elements are one write_raw (HotSpot does that for
 * byte[] everywhere and for all types on big-endian hosts), an object
 * array's elements one id each. Deviation: JDK 8 gives up on EINTR; this
 * driver retries.
 * ================================================================== */
static void j8_raw(struct wbuf *w, const unsigned char *s, size_t len)
{
	if (w->pos + len >= w->size)
		wb_flush(w);
	if (len >= w->size) {
		sd_write_all(w->fd, s, len);
	} else {
		memcpy(w->buf + w->pos, s, len);
		w->pos += len;
	}
}

static int64_t j8_current_offset(struct wbuf *w)
{
	off64_t o = lseek64(w->fd, 0, SEEK_CUR);
	if (o < 0)
		die("lseek64");
	return (int64_t)o + (int64_t)w->pos;
}

static void j8_seek(struct wbuf *w, int64_t off)
{
	wb_flush(w);
	if (lseek64(w->fd, (off64_t)off, SEEK_SET) != (off64_t)off)
		die("lseek64");
}

/* Feed n bytes as items of at most `item` bytes. */
static void j8_items(struct wbuf *w, const unsigned char *p, size_t n,
                     size_t item)
{
	while (n > 0) {
		size_t k = n < item ? n : item;
		j8_raw(w, p, k);
		p += k;
		n -= k;
	}
}

/* The heap record body [pos, end) of h, item by item as HotSpot writes
 * it: a sub-record's fixed part in items of at most 8 bytes, then its
 * field values (8) or ids (one each), or a primitive array's elements in
 * one write_raw. What does not walk, the rest in 4 KiB items. */
static void j8_heap_body(struct wbuf *w, struct hprof *h, uint64_t pos,
                         uint64_t end)
{
	struct walk_sub s;
	int rc;

	for (; (rc = walk_sub(&h->w, pos, end, &s)) > 0; pos = s.end) {
		const unsigned char *p = h->d + s.off;
		size_t fixed = (size_t)(s.data - s.off);
		size_t rest = (size_t)(s.end - s.data);

		switch (s.tag) {
		case 0x21: /* the header, then the field values */
			j8_items(w, p, fixed, 8);
			j8_items(w, p + fixed, rest, 8);
			break;
		case 0x22: /* the header, then one id each */
			j8_items(w, p, fixed, 8);
			j8_items(w, p + fixed, rest, h->idsize);
			break;
		case 0x23: /* the header, then one write_raw */
			j8_items(w, p, fixed, 8);
			if (rest)
				j8_raw(w, p + fixed, rest);
			break;
		default:   /* a class dump, a fixed sub-record */
			j8_items(w, p, (size_t)(s.end - s.off), 8);
		}
	}
	if (rc < 0)  /* unknown or malformed */
		j8_items(w, h->d + pos, (size_t)(end - pos), 4096);
}

static void mode_jdk8(struct hprof *h, const char *out)
{
	struct wbuf w;
	const char *env = getenv("REPLAY_JDK8_BUF");
	size_t size = env && *env ? (size_t)strtoull(env, NULL, 0)
	                          : 8 * (size_t)MIB;
	high_fds("REPLAY_FD");
	int fd = open64(out, O_WRONLY | O_CREAT | O_EXCL, 0600);
	if (fd < 0)
		die("open64");
	wb_init(&w, fd, size < 16 ? 16 : size);

	/* Header: write_raw(magic), write_u1(0), write_u4(idsize), write_u8. */
	const unsigned char *d = h->d;
	size_t mlen = h->hdr_len - 13;
	j8_raw(&w, d, mlen);
	j8_raw(&w, d + mlen, 1);
	j8_raw(&w, d + mlen + 1, 4);
	j8_raw(&w, d + mlen + 5, 8);

	for (size_t i = 0; i < h->nrec; i++) {
		const unsigned char *r = d + h->recs[i].off;
		size_t body = h->recs[i].len - 9;
		j8_raw(&w, r, 1);        /* tag */
		j8_raw(&w, r + 1, 4);    /* ticks */
		if (!walk_heap_tag(r[0])) {
			j8_raw(&w, r + 5, 4);
			if (r[0] == 0x01 && body >= h->idsize) { /* UTF8 */
				j8_raw(&w, r + 9, h->idsize);
				if (body > h->idsize)
					j8_raw(&w, r + 9 + h->idsize,
					       body - h->idsize);
			} else {
				j8_items(&w, r + 9, body, 8);
			}
			continue;
		}
		/* write_dump_header */
		int64_t dump_start = j8_current_offset(&w);
		static const unsigned char zero4[4];
		j8_raw(&w, zero4, 4);
		j8_heap_body(&w, h, h->recs[i].off + 9, h->recs[i].off + 9 + body);
		/* write_current_dump_record_length */
		int64_t dump_end = j8_current_offset(&w);
		int64_t dump_len = dump_end - dump_start - 4;
		if (dump_len != (int64_t)body)
			die_msg("jdk8", "internal error: record length");
		j8_seek(&w, dump_start);
		j8_raw(&w, r + 5, 4);    /* == big-endian dump_len */
		j8_seek(&w, dump_end);
	}
	wb_flush(&w);   /* DumpWriter::close: flush, ::close */
	xclose(w.fd);
	free(w.buf);
}

/* ==================================================================
 * jdk22: JDK 22+ two-phase heap dump (JDK-8306441, DumpMerger).
 * openjdk/jdk src/hotspot/share/services/heapDumper.cpp:
 *  - HeapDumper::dump: DumpWriter writer(path, overwrite, compressor)
 *    -> FileWriter::open_writer -> os::create_binary_file: open(path,
 *    O_WRONLY|O_CREAT|(overwrite ? O_TRUNC : O_EXCL), 0600).
 *  - VM_HeapDumper::work: the VM dumper writes the header, UTF8,
 *    LOAD_CLASS, FRAME/TRACE records to that writer (1 MiB buffer,
 *    AbstractDumpWriter::write_raw fills it completely, then flush() ->
 *    FileWriter::write_buf loops os::write). Every dumper (VM dumper
 *    included) opens its own DumpWriter on "<path>.p<N>"
 *    (DumpMerger::get_writer_path, same create_binary_file flags) and
 *    writes heap segments there: start_sub_record flushes before a new
 *    segment, finish_dump_segment patches the length in the buffer and
 *    flushes, so each segment is one write() (a segment with one huge
 *    sub-record spans several 1 MiB writes). The writer closes the file
 *    in its destructor. After all dumpers finish, writer()->flush().
 *  - DumpMerger::do_merge (outside the safepoint, calling thread): for
 *    i in 0..dump_seq-1: merge_file(path.p<i>) = os::open(path,
 *    O_RDONLY, 0) (open + fstat, CLOEXEC), os::stat(path) for st_size,
 *    loop os::Linux::sendfile(writer fd, segment fd, &offset, st_size)
 *    while offset < st_size, ::close; then remove(path) even on error.
 *    merge_done: end_of_dump (HEAP_DUMP_END u1 0x2C, u4 0, u4 0) and
 *    flush -> one 9-byte write. Main file before the merge: header and
 *    the non-heap records only.
 * Here: IN's records are replayed in IN's order; each run of consecutive
 * 0x0C/0x1C records is split into up to 4 contiguous groups (seeded),
 * group N written to OUT.pN by its own thread (open, one write per
 * segment, close); then the main writer is flushed, the files merged
 * and removed, and a 0x2C that follows the run is written and flushed.
 * Non-heap records go through the main 1 MiB buffer.
 * ================================================================== */
static void wb_raw(struct wbuf *w, const unsigned char *s, size_t len)
{
	while (len > w->size - w->pos) {
		size_t k = w->size - w->pos;
		memcpy(w->buf + w->pos, s, k);
		w->pos += k;
		s += k;
		len -= k;
		wb_flush(w);
	}
	memcpy(w->buf + w->pos, s, len);
	w->pos += len;
}

struct seg_job {
	const char *path;
	const unsigned char *d;
	const struct rec *recs;
	size_t nrec;
};

static int create_binary_file(const char *path)
{
	/* os::create_binary_file(path, false) */
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	if (fd < 0)
		die("open");
	return fd;
}

static void *seg_main(void *argp)
{
	struct seg_job *j = argp;
	struct wbuf w;
	wb_init(&w, create_binary_file(j->path), MIB);
	for (size_t i = 0; i < j->nrec; i++) {
		wb_flush(&w);   /* start_sub_record: flush if pos > 0 */
		wb_raw(&w, j->d + j->recs[i].off, j->recs[i].len);
		wb_flush(&w);   /* finish_dump_segment */
	}
	free(w.buf);
	xclose(w.fd);
	return NULL;
}

static char *seg_path(const char *out, size_t n)
{
	size_t l = strlen(out) + 24;
	char *p = xmalloc(l);
	snprintf(p, l, "%s.p%zu", out, n);
	return p;
}

static void merge_file(int out_fd, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die("open");
	struct stat st;
	if (fstat(fd, &st) != 0)  /* os::open rejects directories */
		die("fstat");
	if (stat(path, &st) != 0)
		die("stat");
	off_t offset = 0;
	while (offset < st.st_size)
		moved(sendfile(out_fd, fd, &offset, (size_t)st.st_size), "sendfile");
	xclose(fd);
}

/* Write heap records recs[0..n) through segment files, then merge. */
static void j22_heap_run(struct wbuf *main_w, const char *out,
                         const unsigned char *d, const struct rec *recs,
                         size_t n)
{
	size_t nfiles = n < 4 ? n : 4;
	nfiles = rnd_range(1, nfiles);
	struct seg_job *jobs = xmalloc(nfiles * sizeof *jobs);
	pthread_t *tids = xmalloc(nfiles * sizeof *tids);

	/* Split n records into nfiles non-empty contiguous groups. */
	size_t start = 0;
	for (size_t f = 0; f < nfiles; f++) {
		size_t left_files = nfiles - f;
		size_t left_recs = n - start;
		size_t take = left_files == 1 ? left_recs
		            : rnd_range(1, left_recs - (left_files - 1));
		jobs[f].path = seg_path(out, f);
		jobs[f].d = d;
		jobs[f].recs = recs + start;
		jobs[f].nrec = take;
		start += take;
	}
	for (size_t f = 0; f < nfiles; f++)
		if ((errno = pthread_create(&tids[f], NULL, seg_main,
		                            &jobs[f])) != 0)
			die("pthread_create");
	for (size_t f = 0; f < nfiles; f++)
		if ((errno = pthread_join(tids[f], NULL)) != 0)
			die("pthread_join");

	wb_flush(main_w);  /* writer()->flush() after all dumpers */
	const char *keep = getenv("REPLAY_PN_KEEP");
	for (size_t f = 0; keep && f < nfiles; f++) {
		char *k = seg_path(keep, 0);
		snprintf(k, strlen(keep) + 24, "%s/p%zu", keep, f);
		unlink(k);
		if (link(jobs[f].path, k) != 0)
			die("link");
		free(k);
	}
	for (size_t f = 0; f < nfiles; f++) {
		merge_file(main_w->fd, jobs[f].path);
		if (remove(jobs[f].path) != 0)
			die("remove");
		free((char *)jobs[f].path);
	}
	free(tids);
	free(jobs);
}

static void mode_jdk22(struct hprof *h, const char *out)
{
	struct wbuf w;
	wb_init(&w, create_binary_file(out), MIB);

	wb_raw(&w, h->d, h->hdr_len);
	size_t i = 0;
	while (i < h->nrec) {
		if (!walk_heap_tag(h->recs[i].tag)) {
			wb_raw(&w, h->d + h->recs[i].off, h->recs[i].len);
			i++;
			continue;
		}
		size_t j = i;
		while (j < h->nrec && walk_heap_tag(h->recs[j].tag))
			j++;
		j22_heap_run(&w, out, h->d, h->recs + i, j - i);
		i = j;
		if (i < h->nrec && h->recs[i].tag == 0x2C) {
			/* DumpMerger::merge_done: end_of_dump + flush */
			wb_raw(&w, h->d + h->recs[i].off, h->recs[i].len);
			wb_flush(&w);
			i++;
		}
	}
	wb_flush(&w);
	free(w.buf);
	xclose(w.fd);
}

/* ==================================================================
 * jdk25: JDK 25's heap dump (openjdk/jdk and Corretto 25,
 * src/hotspot/share/services/heapDumper.cpp; tests/runtimes.md, 3).
 * As jdk22 (DumpMerger), with what a current JDK does besides:
 *  - the dumpers: REPLAY_DUMPERS=N (default: 1 to 4, seeded); 1 is a
 *    serial dump (jcmd GC.heap_dump's default -parallel=1), still
 *    through OUT.p0 and the merge;
 *  - the VM dumper (dumper 0, the first worker to ask for an id) writes
 *    the main file's header and non-heap records while the other
 *    dumpers already write their segments (VM_HeapDumper::work: it holds
 *    the global writer, signal_start(), then opens OUT.p0 once it lets
 *    go of it); OUT.p0 takes every CLASS_DUMP first: at least every heap
 *    record of IN that holds one, and its first write waits until every
 *    other dumper has written its first segment (their objects reach
 *    the disk before the class dumps: the worst order for a shim);
 *  - the main file's 1 MiB buffer is written in exact 1 MiB pieces, its
 *    last partial buffer only after every segment file is closed;
 *  - REPLAY_GZIP=L (HeapDumpGzipLevel, jcmd -gz=L;
 *    heapDumperCompression.cpp's GZipCompressor): every flushed buffer,
 *    of the main file and of each OUT.pN, becomes one gzip member
 *    (gzip -L -n, LD_PRELOAD cleared), the first of each file carrying
 *    the comment "HPROF BLOCKSIZE=1048576"; do_merge sends the .pN
 *    files raw, and HEAP_DUMP_END is its own member, the main file's
 *    writer's. OUT then decompresses to IN (but for the stamp).
 * REPLAY_KILL=segments: SIGKILL after the VM dumper's first segment (the
 * others' first ones written); =merge: after every segment file is
 * closed and the main file flushed, before the merge.
 * ================================================================== */
static struct {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	size_t firsts;    /* dumpers other than 0 that wrote a segment */
	size_t others;    /* ... of how many */
} g25 = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0 };

static int g_gzip;  /* REPLAY_GZIP */

/* One gzip member of in's n bytes, compressed by gzip -L -n (LD_PRELOAD
 * cleared) through a memfd, with the comment HotSpot's writer puts on its
 * first member if comment; malloc'd, its length in *outlen. */
static unsigned char *gz_block(const unsigned char *in, size_t n, int level,
                               int comment, size_t *outlen)
{
	static const char text[] = "HPROF BLOCKSIZE=1048576";
	extern char **environ;
	char lvl[8], *argv[] = { "gzip", lvl, "-n", "-c", NULL }, **env;
	int pin[2], out = memfd_create("gz", MFD_CLOEXEC), st;
	size_t e = 0, i, k = 0;
	posix_spawn_file_actions_t fa;
	pid_t pid;
	struct stat sb;

	snprintf(lvl, sizeof lvl, "-%d", level);
	while (environ[e])
		e++;
	env = xmalloc((e + 1) * sizeof *env);
	for (i = 0; i < e; i++)
		if (strncmp(environ[i], "LD_PRELOAD=", 11))
			env[k++] = environ[i];
	env[k] = NULL;
	if (out < 0 || pipe2(pin, O_CLOEXEC))
		die("gzip pipe");
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, pin[0], 0);
	posix_spawn_file_actions_adddup2(&fa, out, 1);
	if ((errno = posix_spawnp(&pid, "gzip", &fa, NULL, argv, env)) != 0)
		die("posix_spawn gzip");
	posix_spawn_file_actions_destroy(&fa);
	free(env);
	close(pin[0]);
	sd_write_all(pin[1], in, n);
	close(pin[1]);
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		die_msg("gzip", "failed");
	if (fstat(out, &sb))
		die("fstat");
	size_t len = (size_t)sb.st_size, extra = comment ? sizeof text : 0;
	unsigned char *z = xmalloc(len + extra);
	if (pread(out, z, len, 0) != (ssize_t)len || len < 18)
		die_msg("gzip", "short output");
	close(out);
	if (extra) {
		/* FCOMMENT after the 10-byte header (gzip -n sets no flag) */
		memmove(z + 10 + extra, z + 10, len - 10);
		memcpy(z + 10, text, extra);
		z[3] |= 0x10;
	}
	*outlen = len + extra;
	return z;
}

/* w's buffer as one gzip member, in one write (the file's first with the
 * comment). */
static void gz_member(struct wbuf *w)
{
	size_t n;
	unsigned char *z = gz_block(w->buf, w->pos, w->gzip, !w->members, &n);

	sd_write_all(w->fd, z, n);
	w->members++;
	free(z);
}

/* REPLAY_GZIP=L for the modes that write bytes as they are (random,
 * threads, pwrite, writev, bytes, setlength): IN becomes what JDK
 * 11.0.14-21 writes with -gz=L (heapDumperCompression.cpp): a gzip member
 * per 1 MiB block, the first with the comment. */
static unsigned char *gz_file(const unsigned char *d, size_t len, int level,
                              size_t *outlen)
{
	unsigned char *all = NULL;
	size_t n = 0;

	for (size_t off = 0; off < len; off += MIB) {
		size_t k, take = len - off < MIB ? len - off : MIB;
		unsigned char *z = gz_block(d + off, take, level, !off, &k);
		all = realloc(all, n + k);
		if (!all)
			die("realloc");
		memcpy(all + n, z, k);
		n += k;
		free(z);
	}
	*outlen = n;
	return all;
}

struct seg25 {
	const char *path;
	const unsigned char *d;
	const struct rec *recs;
	size_t nrec;
	size_t id;
	int first_told;
	struct wbuf *main_w;      /* dumper 0: the main file's writer ... */
	const struct rec *pre;    /* ... and the non-heap records it writes */
	size_t npre;              /* there first, the others dumping */
};

/* REPLAY_KILL=when: the process kills itself (SIGKILL) there. */
static int kill_at(const char *when)
{
	const char *k = getenv("REPLAY_KILL");
	return k && !strcmp(k, when);
}

static void *seg25_main(void *argp)
{
	struct seg25 *j = argp;
	struct wbuf w;

	if (j->id == 0) {
		/* the VM dumper holds the main writer first (the header,
		 * UTF8, LOAD_CLASS, FRAME/TRACE records, in 1 MiB pieces)
		 * while the others dump; then it opens .p0, and its class
		 * dumps go after the others' first segments */
		for (size_t i = 0; i < j->npre; i++)
			wb_raw(j->main_w, j->d + j->pre[i].off, j->pre[i].len);
		pthread_mutex_lock(&g25.mu);
		while (g25.firsts < g25.others)
			pthread_cond_wait(&g25.cv, &g25.mu);
		pthread_mutex_unlock(&g25.mu);
	}
	wb_init(&w, create_binary_file(j->path), MIB);
	w.gzip = g_gzip;
	for (size_t i = 0; i < j->nrec; i++) {
		wb_flush(&w);   /* start_sub_record */
		wb_raw(&w, j->d + j->recs[i].off, j->recs[i].len);
		wb_flush(&w);   /* finish_dump_segment */
		if (j->id == 0 && kill_at("segments"))
			raise(SIGKILL);  /* the dump's process dies mid-dump */
		if (j->id && !j->first_told) {
			j->first_told = 1;
			pthread_mutex_lock(&g25.mu);
			g25.firsts++;
			pthread_cond_broadcast(&g25.cv);
			pthread_mutex_unlock(&g25.mu);
		}
	}
	free(w.buf);
	xclose(w.fd);
	return NULL;
}

/* Does heap record r hold a CLASS_DUMP? */
static int has_class_dump(struct hprof *h, const struct rec *r)
{
	struct walk_sub sub;
	uint64_t q;
	int rc;

	for (q = r->off + 9; (rc = walk_sub(&h->w, q, r->off + r->len, &sub)) > 0;
	     q = sub.end)
		if (sub.tag == 0x20)
			return 1;
	return 0;
}

static void j25_heap_run(struct hprof *h, struct wbuf *main_w, const char *out,
                         const struct rec *pre, size_t npre,
                         const struct rec *recs, size_t n)
{
	const char *dn = getenv("REPLAY_DUMPERS");
	size_t nfiles = dn && atoi(dn) > 0 ? (size_t)atoi(dn)
	                                   : rnd_range(1, n < 4 ? n : 4);
	size_t classes = 1, i;

	if (nfiles > n)
		nfiles = n;
	for (i = 0; i < n; i++)
		if (has_class_dump(h, &recs[i]))
			classes = i + 1;
	if (nfiles > 1 && n - classes < nfiles - 1)
		nfiles = n - classes + 1;
	struct seg25 *jobs = xmalloc(nfiles * sizeof *jobs);
	pthread_t *tids = xmalloc(nfiles * sizeof *tids);
	size_t start = 0;
	for (size_t f = 0; f < nfiles; f++) {
		size_t left_files = nfiles - f, left_recs = n - start;
		size_t lo = f == 0 ? classes : 1;
		size_t take = left_files == 1 ? left_recs
		            : rnd_range(lo, left_recs - (left_files - 1));
		jobs[f] = (struct seg25){ seg_path(out, f), h->d, recs + start,
		                          take, f, 0, main_w, f ? NULL : pre,
		                          f ? 0 : npre };
		start += take;
	}
	g25.firsts = 0;
	g25.others = nfiles - 1;
	for (size_t f = 0; f < nfiles; f++)
		if ((errno = pthread_create(&tids[f], NULL, seg25_main,
		                            &jobs[f])) != 0)
			die("pthread_create");
	for (size_t f = 0; f < nfiles; f++)
		if ((errno = pthread_join(tids[f], NULL)) != 0)
			die("pthread_join");
	wb_flush(main_w);  /* the last partial buffer, after every segment */
	if (kill_at("merge"))
		raise(SIGKILL);  /* the process dies before the merge */
	const char *keep = getenv("REPLAY_PN_KEEP");
	for (size_t f = 0; keep && f < nfiles; f++) {
		char *k = xmalloc(strlen(keep) + 24);
		snprintf(k, strlen(keep) + 24, "%s/p%zu", keep, f);
		unlink(k);
		if (link(jobs[f].path, k) != 0)
			die("link");
		free(k);
	}
	for (size_t f = 0; f < nfiles; f++) {
		merge_file(main_w->fd, jobs[f].path);  /* raw, gzip or not */
		if (remove(jobs[f].path) != 0)
			die("remove");
		free((char *)jobs[f].path);
	}
	free(tids);
	free(jobs);
}

static void mode_jdk25(struct hprof *h, const char *out)
{
	const char *gz = getenv("REPLAY_GZIP");
	struct wbuf w;

	g_gzip = gz && *gz ? atoi(gz) : 0;
	if (g_gzip < 0 || g_gzip > 9)
		die_msg("REPLAY_GZIP", "not a level 1 to 9");
	wb_init(&w, create_binary_file(out), MIB);
	w.gzip = g_gzip;
	wb_raw(&w, h->d, h->hdr_len);
	size_t i = 0;
	while (i < h->nrec) {
		size_t p = i;  /* the non-heap records before the next run */
		while (i < h->nrec && !walk_heap_tag(h->recs[i].tag))
			i++;
		if (i == h->nrec) {
			for (; p < i; p++)
				wb_raw(&w, h->d + h->recs[p].off, h->recs[p].len);
			break;
		}
		size_t j = i;
		while (j < h->nrec && walk_heap_tag(h->recs[j].tag))
			j++;
		j25_heap_run(h, &w, out, h->recs + p, i - p, h->recs + i, j - i);
		i = j;
		if (i < h->nrec && h->recs[i].tag == 0x2C) {
			wb_raw(&w, h->d + h->recs[i].off, h->recs[i].len);
			wb_flush(&w);
			i++;
		}
	}
	wb_flush(&w);
	free(w.buf);
	xclose(w.fd);
}

/* ==================================================================
 * art / artcloexec / artpipe: Android ART runtime/hprof/hprof.cc.
 * LineageOS/android_art runtime/hprof/hprof.cc, Hprof::DumpToFile: with
 * an fd from `am dumpheap` (VMDebug.dumpHprofData(name, fd)) it writes
 * to out_fd = DupCloexec(fd_) (fcntl(fd, F_DUPFD_CLOEXEC, 0),
 * libartbase/base/file_utils.cc; older ART: dup(fd_)); otherwise to
 * open(filename, O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0644) (older ART
 * without O_CLOEXEC). FileEndianOutput buffers one record;
 * EndianOutput::StartNewRecord ends the previous one (EndRecord patches
 * its length in the buffer, HandleFlush -> File::WriteFully), so the
 * fixed header (WriteFixedHeader, no record of its own) is written alone
 * first, then exactly one top-level record per WriteFully, HEAP_DUMP_END
 * included. FdFile::WriteFully (libartbase/base/unix_file/fd_file.cc)
 * loops TEMP_FAILURE_RETRY(write()) over short writes.
 * FlushCloseOrErase: Flush = TEMP_FAILURE_RETRY(fdatasync()) (EINVAL, a
 * pipe or socket, is not an error), then Close. On a write error, Erase:
 * ftruncate64(fd, 0), fdatasync, close.
 * Here: open (or, for artpipe with OUT "-", stdout), dup (or fcntl
 * F_DUPFD_CLOEXEC for artcloexec), close the original, header in one
 * write, one record per write, fdatasync, close.
 * ================================================================== */
static void mode_art(struct hprof *h, const char *out, int cloexec, int fail)
{
	int fd;
	if (strcmp(out, "-") == 0) {
		fd = dup(STDOUT_FILENO);  /* stands for the fd am passes */
		if (fd < 0)
			die("dup");
	} else {
		high_fds("REPLAY_FD");
		fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0)
			die("open");
	}
	int fd2;
	high_fds("REPLAY_DUP_FD");
	if (cloexec) {
		fd2 = fcntl(fd, F_DUPFD_CLOEXEC, 0);
		if (fd2 < 0)
			die("fcntl");
	} else {
		fd2 = dup(fd);
		if (fd2 < 0)
			die("dup");
	}
	xclose(fd);

	sd_write_all(fd2, h->d, h->hdr_len);
	size_t n = fail ? h->nrec / 2 : h->nrec;
	for (size_t i = 0; i < n; i++)
		sd_write_all(fd2, h->d + h->recs[i].off, h->recs[i].len);
	if (fail && ftruncate64(fd2, 0) != 0)  /* FdFile::Erase */
		die("ftruncate64");
	while (fdatasync(fd2) != 0) {
		if (errno == EINTR)
			continue;
		if (errno == EINVAL)
			break;
		die("fdatasync");
	}
	xclose(fd2);
}

/* ==================================================================
 * pwrite: positional writes, file offset never moves. ART's
 * FdFile::PwriteFully (same fd_file.cc) writes this way; no heap dumper
 * does, so it checks that a shim tracks offsets, not the fd position.
 * ================================================================== */
static void mode_pwrite(const unsigned char *d, size_t len, const char *out)
{
	int fd = create_out(out);
	size_t off = 0;
	while (off < len) {
		size_t n = rnd_piece(len - off);
		while (n > 0) {
			size_t w = moved(pwrite64(fd, d + off, n, (off64_t)off),
			                 "pwrite64");
			off += w;
			n -= w;
		}
	}
	xclose(fd);
}

/* ==================================================================
 * writev: gathered writes of 1..8 iovecs, ~1 in 5 of them empty.
 * (ART's old DDMS path used iovecs; here it tests iovec splitting.)
 * ================================================================== */
static void mode_writev(const unsigned char *d, size_t len, const char *out)
{
	int fd = create_out(out);
	size_t off = 0;
	while (off < len) {
		struct iovec iov[8];
		int cnt = (int)rnd_range(1, 8);
		size_t at = off;
		for (int k = 0; k < cnt; k++) {
			size_t n = rnd() % 5 == 0 ? 0 : rnd_piece(len - at);
			iov[k].iov_base = (void *)(d + at);
			iov[k].iov_len = n;
			at += n;
		}
		struct iovec *v = iov;
		int vc = cnt;
		size_t want = at - off;
		while (want > 0) {
			size_t done = moved(writev(fd, v, vc), "writev");
			want -= done;
			off += done;
			/* Short write: drop the iovecs already written. */
			while (vc > 0 && done >= v->iov_len) {
				done -= v->iov_len;
				v++;
				vc--;
			}
			if (vc > 0 && done > 0) {
				v->iov_base = (char *)v->iov_base + done;
				v->iov_len -= done;
			}
		}
	}
	xclose(fd);
}

/* ==================================================================
 * bytes: one write() per byte.
 * ================================================================== */
static void mode_bytes(const unsigned char *d, size_t len, const char *out)
{
	int fd = create_out(out);
	for (size_t i = 0; i < len; i++)
		sd_write_all(fd, d + i, 1);
	xclose(fd);
}

/* ==================================================================
 * setlength: java.io.RandomAccessFile(path, "rw") opens O_RDWR|O_CREAT
 * without O_TRUNC (OpenJDK io_util_md.c fileOpen), and setLength(0)
 * (RandomAccessFile.c -> handleSetLength -> ftruncate64) empties it;
 * then the writes follow, here 64 KiB each.
 * ================================================================== */
static void mode_setlength(const unsigned char *d, size_t len, const char *out)
{
	int fd = open(out, O_RDWR | O_CREAT, 0644);
	if (fd < 0)
		die("open");
	if (ftruncate(fd, 0) != 0)
		die("ftruncate");
	for (size_t off = 0; off < len; off += 65536)
		sd_write_all(fd, d + off, len - off < 65536 ? len - off : 65536);
	xclose(fd);
}

/* Load stub/LIB from beside this executable: the process now hosts that
 * runtime, for the shim. */
static void host_runtime(const char *lib)
{
	char exe[4096], path[4200];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n <= 0)
		die("readlink /proc/self/exe");
	exe[n] = 0;
	char *slash = strrchr(exe, '/');
	if (slash)
		*slash = 0;
	snprintf(path, sizeof path, "%s/stub/%s", exe, lib);
	if (!dlopen(path, RTLD_NOW | RTLD_GLOBAL)) {
		fprintf(stderr, "replay: %s: %s\n", path, dlerror());
		exit(1);
	}
}

/* A runtime stamps its dump's header with the time the dump began (ms
 * since the epoch, after the header string and the id size): so does the
 * replay, unless REPLAY_STAMP=keep (a copy of an older dump). */
static void stamp_header(unsigned char *d, size_t len)
{
	const char *how = getenv("REPLAY_STAMP");
	struct timespec now;
	size_t end;
	uint64_t ms;

	if (how && !strcmp(how, "keep"))
		return;
	if (len < 18 || memcmp(d, "JAVA PROFILE 1.0.", 17))
		return;
	end = strnlen((const char *)d, len < 32 ? len : 32);
	if (end >= 32 || end + 13 > len)
		return;
	if (clock_gettime(CLOCK_REALTIME, &now))
		die("clock_gettime");
	ms = (uint64_t)now.tv_sec * 1000 + (uint64_t)now.tv_nsec / 1000000;
	for (int i = 0; i < 8; i++)
		d[end + 5 + i] = (unsigned char)(ms >> (56 - 8 * i));
}

static void usage(void)
{
	fprintf(stderr,
	        "usage: replay MODE IN OUT [SEED]\n"
	        "modes: random threads jdk8 jdk22 jdk25 art artcloexec artpipe "
	        "pwrite writev bytes artfail setlength\n");
	exit(2);
}

/* Open fds of this process. */
static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!d)
		die("opendir /proc/self/fd");
	while ((e = readdir(d)) != NULL)
		n += e->d_name[0] != '.';
	closedir(d);
	return n - 1;  /* the directory's own fd */
}

/* REPLAY_LEFTOVERS: after the dump, the process has the fds it started
 * with and no child, not even a zombie (a shim's compressor is waited
 * for at close). */
static void check_leftovers(int fds_at_start)
{
	siginfo_t si;
	int n = count_fds();

	if (n != fds_at_start) {
		fprintf(stderr, "replay: %s: %d fds open after the dump, %d "
		        "before\n", g_mode, n, fds_at_start);
		exit(1);
	}
	memset(&si, 0, sizeof si);
	if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) == 0) {
		fprintf(stderr, "replay: %s: a child is left: pid %d%s\n",
		        g_mode, (int)si.si_pid, si.si_pid ? " (a zombie)" :
		        " (running)");
		exit(1);
	}
	if (errno != ECHILD)
		die("waitid");
}

int main(int argc, char **argv)
{
	if (argc < 4 || argc > 5)
		usage();
	const char *mode = argv[1], *in = argv[2], *out = argv[3];
	g_mode = mode;
	uint64_t seed = 1;
	if (argc == 5) {
		char *end;
		errno = 0;
		seed = strtoull(argv[4], &end, 0);
		if (errno || *end || end == argv[4])
			usage();
	}
	g_rng = seed;

	const char *rt = getenv("REPLAY_RUNTIME");
	if (rt && !strcmp(rt, "none"))
		;  /* a program that hosts no runtime (cp, tar, gzip -d) */
	else if (!strncmp(mode, "art", 3))
		host_runtime("libart.so");
	else
		host_runtime("libjvm.so");

	int fds_at_start = count_fds();
	struct hprof h;
	memset(&h, 0, sizeof h);
	size_t len;
	unsigned char *d = read_input(in, &len);
	h.d = d;
	h.len = len;
	stamp_header(d, len);
	hold_files(out);
	const char *gzl = getenv("REPLAY_GZIP");
	if (gzl && *gzl && strcmp(mode, "jdk25")) {
		size_t zl;
		unsigned char *z = gz_file(d, len, atoi(gzl), &zl);
		free(d);
		d = z;
		len = zl;
		h.d = d;
		h.len = len;
	}

	if (strcmp(mode, "random") == 0) {
		mode_random(d, len, out);
	} else if (strcmp(mode, "threads") == 0) {
		mode_threads(d, len, out);
	} else if (strcmp(mode, "pwrite") == 0) {
		mode_pwrite(d, len, out);
	} else if (strcmp(mode, "writev") == 0) {
		mode_writev(d, len, out);
	} else if (strcmp(mode, "bytes") == 0) {
		mode_bytes(d, len, out);
	} else if (strcmp(mode, "jdk8") == 0) {
		parse_hprof(&h, in);
		mode_jdk8(&h, out);
	} else if (strcmp(mode, "jdk22") == 0) {
		parse_hprof(&h, in);
		mode_jdk22(&h, out);
	} else if (strcmp(mode, "jdk25") == 0) {
		parse_hprof(&h, in);
		mode_jdk25(&h, out);
	} else if (strcmp(mode, "art") == 0 || strcmp(mode, "artpipe") == 0) {
		parse_hprof(&h, in);
		mode_art(&h, out, 0, 0);
	} else if (strcmp(mode, "artcloexec") == 0) {
		parse_hprof(&h, in);
		mode_art(&h, out, 1, 0);
	} else if (strcmp(mode, "artfail") == 0) {
		parse_hprof(&h, in);
		mode_art(&h, out, 0, 1);
	} else if (strcmp(mode, "setlength") == 0) {
		mode_setlength(d, len, out);
	} else {
		usage();
	}
	free(h.recs);
	free(d);
	if (getenv("REPLAY_LEFTOVERS"))
		check_leftovers(fds_at_start);
	return 0;
}
