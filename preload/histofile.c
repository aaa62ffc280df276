/*
 * HPROFSTRIP_HISTO: each dump's class histogram, <dump>.histo beside it,
 * counted by the engine (HS_HISTO) in the pass that strips, and written
 * in jmap -histo's layout (strip/io/histo.h) when the dump ends; its top
 * three classes go on the close line (summary.c). Part of a session
 * (session.h), called with its lock held.
 *
 * Memory: one set of tables a session slot, anonymous memory mapped at
 * the slot's first dump that asks (about 36 MiB of address space, only
 * the pages a dump's classes touch are ever backed), given back to the
 * kernel (MADV_DONTNEED: zero again on next touch) when the histogram is
 * written, so a runtime that lives on after its dump keeps none of it.
 * Nothing is allocated per object or per class.
 *
 * The file is a new one, 0600, made with the real open (O_EXCL,
 * O_NOFOLLOW), and ends with a note that names the dump's file and its
 * header's stamp. An existing file is replaced only when it is such a
 * histogram of a dump that is gone (its file is not there, or holds a dump
 * stamped otherwise: this one, in its place); anything else (another
 * dump's that is still there, a symlink, a file of the user's) stays, and
 * the histogram goes to the first free <dump>.histo.N. Each is said. A histogram that cannot be had (no memory, the file
 * cannot be made or written) is said once and changes nothing else: the
 * dump, its output and the runtime's calls are as without it, errno too.
 */
#include "session.h"
#include "libc.h"
#include "say.h"
#include "../strip/io/histo.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* the rows io_histo_rows may fill: a class each, the 12 basic types and
 * <other classes> */
#define HISTO_ROWS (HS_HISTO_CLASSES + 12 + 1)

struct histo_mem {
	struct hs_histo h;
	uint32_t slots[HS_HISTO_SLOTS];
	struct hs_histo_class classes[HS_HISTO_CLASSES];
	uint32_t name_slots[HS_HISTO_NAME_SLOTS];
	unsigned char names[HS_HISTO_NAMES];
	struct io_histo_row rows[HISTO_ROWS];
	unsigned char out[64u << 10];  /* the .histo's buffer */
};

/* The tables zeroed: their pages given back (the kernel gives zeros on
 * the next touch), or, where it will not, the parts the engine reads
 * zeroed by hand. errno kept. */
static void histo_zero(struct histo_mem *m)
{
	int saved = errno;

	if (madvise(m, sizeof *m, MADV_DONTNEED)) {
		memset(&m->h, 0, sizeof m->h);
		memset(m->slots, 0, sizeof m->slots);
		memset(m->classes, 0, sizeof m->classes);
		memset(m->name_slots, 0, sizeof m->name_slots);
		memset(m->names, 0, sizeof m->names);
	}
	errno = saved;
}

struct hs_histo *histo_tables(struct session *s, int kind)
{
	static int told;
	struct histo_mem *m;
	int saved = errno;

	s->histo_done = s->histo_written = 0;
	s->top[0] = 0;
	/* a .pN file's objects are counted where they are merged: in the
	 * main file's session */
	if (!policy()->histo || kind != S_MAIN)
		return NULL;
	if (!s->hm) {
		m = mmap(NULL, sizeof *s->hm, PROT_READ | PROT_WRITE,
		         MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED) {
			if (!__atomic_exchange_n(&told, 1, __ATOMIC_RELAXED))
				say("hprofstrip: %s: no memory for the class "
				    "histogram; the dump is stripped without "
				    "one (no .histo)", s->path);
			errno = saved;
			return NULL;
		}
		s->hm = m;
	} else {
		/* given back after the last dump already, unless a thread
		 * wrote on after the process's exit began: zeroed (cheap for
		 * pages not there) */
		histo_zero(s->hm);
	}
	m = s->hm;
	m->h = (struct hs_histo){
		.slots = m->slots, .slot_count = HS_HISTO_SLOTS,
		.classes = m->classes, .class_max = HS_HISTO_CLASSES,
		.name_slots = m->name_slots,
		.name_slot_count = HS_HISTO_NAME_SLOTS,
		.names = m->names, .names_size = HS_HISTO_NAMES };
	errno = saved;
	return &m->h;
}

void histo_path(struct session *s, int dirfd)
{
	const char *b = s->base[0] ? s->base : s->path;
	char abs[PATH_MAX];

	/* (a sniffed dump's path, s->path, may have been cut to fit: then
	 * no name is sure to be beside it) */
	if (!s->base[0] && strlen(s->path) >= sizeof s->path - 1) {
		s->histo_path[0] = 0;
		return;
	}
	/* beside the dump, wherever the working directory goes by then */
	if (b[0] != '/' && policy_absolute(dirfd, b, abs, sizeof abs))
		b = abs;
	if ((size_t)snprintf(s->histo_path, sizeof s->histo_path, "%s.histo",
	                     b) >= sizeof s->histo_path)
		s->histo_path[0] = 0;
}

/* The file the dump ends up in: the compressor's output, or the dump's. */
static const char *dump_file(const struct session *s)
{
	const char *p = s->base[0] ? s->base : s->path;
	const char *slash;

	if (s->piped && s->pm && s->pm->pipe.out[0] && !s->pm->pipe.replace)
		p = s->pm->pipe.out;
	slash = strrchr(p, '/');
	return slash ? slash + 1 : p;
}

/* What an existing .histo at path is: HISTO_STALE, the histogram of a
 * dump that is gone (its note names a file beside it whose header has
 * another stamp, or no such file), or of this dump (mine, stamped
 * my_stamp: written before); HISTO_OTHER, anything else (another
 * dump's that is still there, a compressed one that cannot be told, a
 * file of no dump's, a symlink). The old dump's name and stamp into
 * name and *stamp. */
enum { HISTO_OTHER, HISTO_STALE };

static int histo_old(const char *path, const char *mine, uint64_t my_stamp,
                     char *name, size_t size, uint64_t *stamp)
{
	char tail[4096], beside[PATH_MAX + 8];
	unsigned char head[31];
	const char *slash = strrchr(path, '/');
	struct stat sb;
	ssize_t k;
	int fd, gone;

	name[0] = 0;
	if (lstat(path, &sb) || !S_ISREG(sb.st_mode) ||
	    (fd = hst.open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW, 0)) < 0)
		return HISTO_OTHER;
	/* (its notes come last) */
	k = hst.pread(fd, tail, sizeof tail, sb.st_size > (off_t)sizeof tail
	                                    ? (int64_t)sb.st_size -
	                                      (int64_t)sizeof tail : 0);
	hst.close(fd);
	if (k <= 0 || !io_histo_stamp_of(tail, (size_t)k, name, size, stamp) ||
	    strchr(name, '/') || !slash ||
	    (size_t)snprintf(beside, sizeof beside, "%.*s/%s",
	                     (int)(slash - path), path, name) >= sizeof beside)
		return HISTO_OTHER;
	/* this very dump's, from a write of it before (a dump started over) */
	if (!strcmp(name, mine) && *stamp == my_stamp)
		return HISTO_STALE;
	fd = hst.open(beside, O_RDONLY | O_CLOEXEC, 0);
	if (fd < 0)
		return errno == ENOENT ? HISTO_STALE : HISTO_OTHER;
	k = hst.pread(fd, head, sizeof head, 0);
	hst.close(fd);
	/* an HPROF header stamped otherwise: another dump in its place */
	gone = k == (ssize_t)sizeof head && !memcmp(head, "JAVA PROFILE 1.0.", 17) &&
	       head[18] == 0 &&
	       ((uint64_t)hs_be32(head + 23) << 32 | hs_be32(head + 27)) != *stamp;
	return gone ? HISTO_STALE : HISTO_OTHER;
}

/* A new file for the histogram (0600): s->histo_path, or, when a file is
 * there: in its place if it is the histogram of a dump that is gone
 * (made under a temporary name, *tmp, renamed over it at the end), else
 * under the first free name path.1, path.2 ... (s->histo_path becomes
 * it); each said. The fd, or -1 (said). */
static int histo_create(struct session *s, char *tmp, size_t size)
{
	char old[256];
	uint64_t stamp = 0;
	int fd, e;

	tmp[0] = 0;
	if ((fd = io_create(s->histo_path, 0600)) >= 0 || errno != EEXIST) {
		if (fd < 0)
			say("hprofstrip: %s: cannot create %s: %s; no histogram "
			    "written", s->path, s->histo_path, strerror(errno));
		return fd;
	}
	if (histo_old(s->histo_path, dump_file(s), s->st.timestamp, old,
	              sizeof old, &stamp) == HISTO_STALE) {
		if ((size_t)snprintf(tmp, size, "%s.hprofstrip~", s->histo_path) <
		        size && (fd = io_create_free(tmp, size, 0600)) >= 0) {
			say("hprofstrip: %s: %s held the histogram of %s, %s "
			    "stamped %llu: it is replaced", s->path,
			    s->histo_path, stamp == s->st.timestamp &&
			    !strcmp(old, dump_file(s)) ? "an earlier write of "
			    "this dump" : "an earlier dump that is gone", old,
			    (unsigned long long)stamp);
			return fd;
		}
		tmp[0] = 0;
	}
	{
		char first[sizeof s->histo_path];

		memcpy(first, s->histo_path, sizeof first);
		fd = io_create_free(s->histo_path, sizeof s->histo_path, 0600);
		e = errno;
		if (fd < 0)
			say("hprofstrip: %s: %s exists already, and no free name "
			    "beside it: %s; no histogram written", s->path,
			    first, strerror(e));
		else
			say("hprofstrip: %s: %s holds %s%s%s: this dump's "
			    "histogram is %s", s->path, first,
			    old[0] ? "the histogram of " : "a file of no dump "
			    "the shim can tell", old[0] ? old : "",
			    old[0] ? ", another dump that is still there" : "",
			    s->histo_path);
	}
	return fd;
}

/* The file, a new one (0600), with the histogram's text; 0, or -1
 * (said). */
static int histo_file(struct session *s, const struct io_histo_meta *meta,
                      size_t n)
{
	struct histo_mem *m = s->hm;
	struct io_outbuf ob;
	char tmp[sizeof s->histo_path + 16];
	int fd, e;

	if (!s->histo_path[0]) {
		say("hprofstrip: %s: its path is too long for a .histo beside "
		    "it; no histogram written", s->path);
		return -1;
	}
	if ((fd = histo_create(s, tmp, sizeof tmp)) < 0)
		return -1;
	io_ob_init(&ob, plain_pwrite, NULL, fd, 0, m->out, sizeof m->out);
	if (io_histo_write(&m->h, meta, m->rows, n, 0, io_ob_write, &ob) ||
	    io_ob_flush(&ob)) {
		e = ob.err ? ob.err : EIO;
		io_unlink_made(tmp[0] ? tmp : s->histo_path, fd);
		hst.close(fd);
		say("hprofstrip: %s: write failed: %s; no histogram written",
		    tmp[0] ? tmp : s->histo_path, strerror(e));
		return -1;
	}
	if (hst.close(fd))
		return -1;
	if (tmp[0] && rename(tmp, s->histo_path)) {
		e = errno;
		unlink(tmp);
		say("hprofstrip: %s: cannot replace %s: %s; no histogram "
		    "written", s->path, s->histo_path, strerror(e));
		return -1;
	}
	return 0;
}

void histo_end(struct session *s, int cut, uint64_t cut_at)
{
	struct histo_mem *m = s->hm;
	struct io_histo_meta meta = { .idsize = s->st.idsize,
	                              .version = s->st.version,
	                              .cut = cut, .cut_at = cut_at,
	                              .dump = dump_file(s),
	                              .stamp = s->st.timestamp,
	                              .dumps = s->st.heap_dumps };
	size_t n;
	int saved = errno;

	if (!(s->st.flags & HS_HISTO) || !m || s->histo_done)
		return;
	s->histo_done = 1;
	s->histo_written = 0;
	/* no header read: no dump to count (the rows always fit: room
	 * counts the classes the table holds) */
	if (!s->st.idsize || io_histo_room(&m->h) > HISTO_ROWS)
		goto out;
	n = io_histo_rows(&m->h, &meta, m->rows);
	io_histo_top(&m->h, m->rows, n, 3, s->top, sizeof s->top);
	s->histo_written = histo_file(s, &meta, n) == 0;
out:
	histo_zero(m);
	errno = saved;
}

void histo_exit(struct session *s)
{
	if (!(s->st.flags & HS_HISTO) || s->histo_done)
		return;
	/* a dump that ends between records, its segments closed, is whole
	 * as far as it went: not marked cut */
	histo_end(s, !hs_at_end(&s->st), s->st.in_off);
	if (s->histo_written)
		say("hprofstrip: %s: the process exits with the dump open, "
		    "%llu bytes in; the histogram of %s is in %s%s%s%s",
		    s->path, (unsigned long long)s->st.in_off,
		    hs_at_end(&s->st) ? "it" : "what came", s->histo_path,
		    s->top[0] ? " (top classes by bytes: " : "", s->top,
		    s->top[0] ? ")" : "");
}
