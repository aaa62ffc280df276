/*
 * Dump tracking, part one: the fd table, the trackers and their lifetimes
 * (open, sniffing, dup, close, fork). The write path is in write.c.
 *
 * A pattern matches the path as the program passed it, its basename, and,
 * for a relative path when a pattern contains '/', the absolute path. A
 * file opened and closed without a write is left as it was. A forked child
 * forgets its parent's dumps (its close must not end them; its own dumps
 * are tracked afresh); a vfork child, which shares our memory, changes
 * nothing. An fd number handed out again (open, dup) after a close the
 * shim never saw (close_range, a raw syscall) is a new file.
 */
#include "tracker.h"
#include "policy.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

struct hst_io hst;

static struct tracker pool[MAX_TRACKERS];
/* fd -> tracker index + 1, or FD_FRESH / FD_SEEN; 0: not seen opened
 * (sniffed at any write at offset 0) */
static unsigned char fdmap[MAX_FD];
/* FD_SEEN: opened in front of the shim, not a dump, never sniffed.
 * FD_FRESH: opened in front of the shim for writing with O_CREAT or
 * O_TRUNC, not matched, not written yet (sniffed at its first write) */
#define FD_SEEN 0xFF
#define FD_FRESH 0xFE
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;

/* When this process began to be tracked (ms since the epoch): a dump
 * stamped before it is a copy, not its runtime's (policy_header). */
uint64_t hst_born_ms;

void hst_setup(const struct hst_io *io)
{
	struct timespec now;
	unsigned i;

	if (!clock_gettime(CLOCK_REALTIME, &now))
		hst_born_ms = (uint64_t)now.tv_sec * 1000 +
		          (uint64_t)now.tv_nsec / 1000000;
	hst = *io;
	for (i = 0; i < MAX_TRACKERS; i++)
		pthread_mutex_init(&pool[i].lock, NULL);
}

/* ---- the fd table ----------------------------------------------------- */

struct tracker *tracker_of(int fd)
{
	unsigned i;

	if (fd < 0 || fd >= MAX_FD)
		return NULL;
	i = __atomic_load_n(&fdmap[fd], __ATOMIC_ACQUIRE);
	return i && i <= MAX_TRACKERS ? &pool[i - 1] : NULL;
}

static unsigned char fd_state(int fd)
{
	return fd >= 0 && fd < MAX_FD
	           ? __atomic_load_n(&fdmap[fd], __ATOMIC_ACQUIRE) : 0;
}

static void set_fd_state(int fd, unsigned char v)
{
	if (fd >= 0 && fd < MAX_FD)
		__atomic_store_n(&fdmap[fd], v, __ATOMIC_RELEASE);
}

static void map_fd(int fd, struct tracker *t)
{
	__atomic_store_n(&fdmap[fd], (unsigned char)(t ? t - pool + 1 : 0),
	                 __ATOMIC_RELEASE);
}

/* ---- who strips -------------------------------------------------------- */

/* How a tracker judges the dump's first bytes before anything of it is
 * written (t->vet): not at all (a JDK 22 .pN file has no header), for
 * an HPROF header (not gzip, not something else), or also for its stamp:
 * a process that hosts a runtime strips that runtime's dumps only, and a
 * runtime stamps its dump's header with the time the dump began, so a
 * header stamped before the process began is a copy of an older dump
 * (Files.copy, an uploader). */
enum { VET_NONE, VET_MAGIC, VET_STAMP };

/* Whether this process strips dumps at all, and how it vets them: a
 * process that hosts a runtime (libjvm.so, libart.so) strips that
 * runtime's dumps; a program named by HPROFSTRIP_PROGRAMS that hosts none
 * (adb pulling a device's dump) strips every dump it writes; any other
 * process strips nothing and is never looked at (cp, tar, gzip -d of a
 * dump under an inherited LD_PRELOAD). Returns VET_STAMP, VET_MAGIC or
 * -1 (nothing). */
static int scope(void)
{
	if (policy_hosts_runtime())
		return VET_STAMP;
	return policy_opted_in() ? VET_MAGIC : -1;
}

/* ---- trackers ---------------------------------------------------------- */

int tracker_flush(struct tracker *t, int fd)
{
	t->ob.fd = fd;
	return hs_ob_flush(&t->ob);
}

void tracker_report(struct tracker *t)
{
	if (!t->st.fallback || t->warned)
		return;
	t->warned = 1;
	if (t->st.fallback == HS_E_GZIP)
		say("hprofstrip: %s: gzip-compressed dump, written unchanged",
		    t->path);
	else
		say("hprofstrip: %s: offset %llu: %s; writing the rest unchanged",
		    t->path, (unsigned long long)t->st.fallback_off,
		    hs_strerror(t->st.fallback));
}

/* HPROFSTRIP_KEEP=strings: fixed tables, one set per tracker, mapped once
 * (not per object, not per dump). */
struct keep_mem {
	uint64_t pending[HS_KEEP_PENDING];
	struct hs_class classes[HS_KEEP_CLASSES];
	unsigned char hold[HS_KEEP_HOLD];  /* the array held back */
};

/* size bytes of zeroed memory for a tracker's tables, mapped once (not
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

/* The engine's keep tables for t's next dump, zeroed; 0 if they cannot be
 * had (said once) or are not wanted. Segments (JDK 22 .pN files) have no
 * class names of their own: they are stripped whole. */
static int keep_tables(struct tracker *t, int kind, struct hs_keep *k)
{
	static int told_bad, told_mem;
	const struct policy *p = policy();

	if (p->keep_bad[0] && !__atomic_exchange_n(&told_bad, 1, __ATOMIC_RELAXED))
		say("hprofstrip: HPROFSTRIP_KEEP: '%s' is not known (only "
		    "'strings' is); ignored", p->keep_bad);
	if (!p->keep_strings || kind != T_MAIN)
		return 0;
	if (!t->keep && !(t->keep = map_tables(sizeof *t->keep, &told_mem, t->path,
	                                       "no memory for HPROFSTRIP_KEEP="
	                                       "strings; strings stripped too")))
		return 0;
	/* a dump before this one used them (the hold buffer needs no
	 * zeroing) */
	memset(t->keep->pending, 0, sizeof t->keep->pending);
	memset(t->keep->classes, 0, sizeof t->keep->classes);
	memset(k, 0, sizeof *k);
	k->pending = t->keep->pending;
	k->pending_slots = HS_KEEP_PENDING;
	k->classes = t->keep->classes;
	k->class_slots = HS_KEEP_CLASSES;
	k->hold = t->keep->hold;
	k->hold_size = HS_KEEP_HOLD;
	return 1;
}

/* HPROFSTRIP_COMPRESS or _FILTER, or a FIFO: the segment buffer and the
 * child's state for t's next dump; NULL if not wanted or not to be had
 * (said). */
static struct pipe_mem *pipe_tables(struct tracker *t, int kind, int fifo)
{
	static int told_mem;

	if (kind != T_MAIN || (!fifo && !pipe_wanted()))
		return NULL;
	if (!t->pm)
		t->pm = map_tables(sizeof *t->pm, &told_mem, t->path,
		                   "no memory for a compressor; the dump is "
		                   "written uncompressed");
	return t->pm;
}

/* The engine's sink with a child: the file gets every byte (the plain
 * stripped dump, should the child fail), the child too. */
static int tee_write(void *user, const void *buf, size_t len)
{
	struct tracker *t = user;

	if (t->piped)
		pipe_send(&t->pm->pipe, buf, len);
	return hs_ob_write(&t->ob, buf, len);
}

/* A FIFO's writer: no offsets, the bytes in order (a raw write: the
 * shim's own write() would come back here). */
static ssize_t fifo_write(int fd, const void *buf, size_t len, int64_t off)
{
	(void)off;
	return syscall(SYS_write, fd, buf, len);
}

/* The dump's writer: the real pwrite, except that a full disk while a
 * child compresses gives the child up first (its output removed, so its
 * room is freed) and tries again: compressing never makes a dump that
 * fits on the disk fail. */
static ssize_t dump_pwrite(int fd, const void *buf, size_t len, int64_t off)
{
	ssize_t n = hst.pwrite(fd, buf, len, off);
	struct tracker *t;
	int e = errno;

	if (n >= 0 || (e != ENOSPC && e != EDQUOT) ||
	    !(t = tracker_of(fd)) || !t->piped)
		return n;
	t->piped = 0;
	pipe_abort(&t->pm->pipe);
	n = hst.pwrite(fd, buf, len, off);
	if (n >= 0)
		say("hprofstrip: %s: %s while %s wrote too: it is given up, "
		    "and its output removed to make room; the dump goes on, "
		    "uncompressed, in %s", t->path, strerror(e),
		    t->pm->pipe.what, t->pm->pipe.dump);
	else
		say("hprofstrip: %s: %s while %s wrote too: it is given up "
		    "and its output removed, but the disk is still full: the "
		    "dump is cut short", t->path, strerror(e),
		    t->pm->pipe.what);
	errno = n < 0 ? ENOSPC : errno;
	return n;
}

void tracker_first_write(struct tracker *t, int fd)
{
	t->pipe_pending = 0;
	t->piped = pipe_start(&t->pm->pipe, fd) == 1;
}

/* dump: the path as opened (relative to dirfd), for a child's output. */
static void tracker_start(struct tracker *t, int kind, const char *path,
                          const char *base, unsigned idsize, int dirfd,
                          const char *dump, int vet, int fifo)
{
	struct hs_config cfg = { .flags = HS_OPEN_LEN | HS_FALLBACK,
	                         .idsize = idsize };
	struct hs_sink sink = { hs_ob_write, hs_ob_patch, NULL, NULL };
	struct hs_keep keep;
	struct pipe_mem *pm;
	static int told_bool;

	if (policy()->bool_bad[0] &&
	    !__atomic_exchange_n(&told_bool, 1, __ATOMIC_RELAXED))
		say("hprofstrip: %s: not a yes/no value (1/0, yes/no, "
		    "true/false, on/off); its default is used",
		    policy()->bool_bad);
	if (kind == T_SEGMENT)
		cfg.flags |= HS_NO_HEADER;
	/* a 1.0.3 dump's zygote and image objects go (the engine leaves
	 * other versions alone) */
	if (kind == T_MAIN && policy()->app_only)
		cfg.flags |= HS_APP_ONLY;
	sink.user = &t->ob;
	t->kind = kind;
	t->refs = 1;
	t->pid = getpid();
	snprintf(t->path, sizeof t->path, "%s", path);
	snprintf(t->base, sizeof t->base, "%s", base);
	t->voff = t->ext = 0;
	t->warned = t->trunc_at_end = 0;
	t->seg_in = t->seg_out = t->seg_arrays = 0;
	t->main = NULL;
	t->vet = kind == T_MAIN && vet != VET_NONE;
	t->segments = 0;
	t->vet_stamp = vet == VET_STAMP;
	t->hdr_len = 0;
	t->fifo = fifo;
	hs_ob_init(&t->ob, fifo ? fifo_write : dump_pwrite, -1, 0, t->buf,
	           sizeof t->buf);
	if (keep_tables(t, kind, &keep)) {
		cfg.flags |= HS_KEEP_STRINGS;
		cfg.keep = &keep;
	}
	t->piped = t->pipe_pending = 0;
	if ((pm = pipe_tables(t, kind, fifo)) != NULL && fifo) {
		/* a FIFO is a stream: segments, never patched */
		cfg.flags |= HS_STREAM;
		cfg.seg_buf = pm->seg;
	} else if (pm) {
		/* nothing is ever patched: the child reads it as it comes */
		pipe_prepare(&pm->pipe, dirfd, dump);
		cfg.flags |= HS_STREAM;
		cfg.seg_buf = pm->seg;
		sink.write = tee_write;
		sink.user = t;
		t->pipe_pending = 1;  /* started at the first write */
	}
	hs_init(&t->st, &cfg, &sink);
}

void tracker_restart(struct tracker *t)
{
	int refs = t->refs;
	uint64_t voff = t->voff;
	struct tracker *main = t->main;
	char path[sizeof t->path], base[sizeof t->base], dump[PATH_MAX];
	int vet = t->vet_stamp ? VET_STAMP : t->kind == T_MAIN ? VET_MAGIC
	                                                      : VET_NONE;

	memcpy(path, t->path, sizeof path);
	memcpy(base, t->base, sizeof base);
	/* a child started over: the first child's output goes */
	if (t->piped)
		pipe_abort(&t->pm->pipe);
	if (t->pm && (t->piped || t->pipe_pending))
		memcpy(dump, t->pm->pipe.dump, sizeof dump);
	else
		snprintf(dump, sizeof dump, "%s", path);
	tracker_start(t, t->kind, path, base, t->st.idsize, AT_FDCWD, dump,
	              vet, t->fifo);
	t->refs = refs;
	t->voff = voff;  /* ftruncate leaves the file position alone */
	t->main = main;
}

/* Takes a free tracker (table_lock held). */
static struct tracker *tracker_alloc(void)
{
	unsigned i;

	for (i = 0; i < MAX_TRACKERS; i++)
		if (pool[i].kind == T_FREE)
			return &pool[i];
	return NULL;
}

void tracker_gap(struct tracker *t, uint64_t at)
{
	static const unsigned char zeros[4096];

	while (t->st.in_off < at && !t->st.err) {
		uint64_t n = at - t->st.in_off;
		hs_feed(&t->st, zeros, n < sizeof zeros ? (size_t)n : sizeof zeros);
	}
}

static void summary(struct tracker *t)
{
	uint64_t in = t->st.in_off - t->seg_out + t->seg_in;
	uint64_t out = t->st.out_off;

	if (t->ob.err)
		say("hprofstrip: %s: write failed: %s", t->path,
		    strerror(t->ob.err));
	else if (t->st.err)
		say("hprofstrip: %s: offset %llu: %s", t->path,
		    (unsigned long long)t->st.err_off, hs_strerror(t->st.err));
	say("hprofstrip: %s: %llu bytes in, %llu bytes out (%.1f%%), "
	    "%llu arrays stripped", t->path, (unsigned long long)in,
	    (unsigned long long)out,
	    in ? 100.0 * (double)out / (double)in : 100.0,
	    (unsigned long long)(t->st.arrays + t->seg_arrays));
	if (t->st.flags & HS_KEEP_STRINGS)
		say("hprofstrip: %s: %llu arrays kept (%llu bytes) for %llu "
		    "strings", t->path, (unsigned long long)t->st.kept,
		    (unsigned long long)t->st.kept_bytes,
		    (unsigned long long)t->st.strings);
}

/* The dump's child has had every byte: wait for it. On success the
 * plain copy goes (the file the runtime opened, emptied and removed), and
 * the child's output is all there is; else the copy is the dump, and the
 * child's output is removed. fd: the dump's, or -1 (closed already). */
static void end_child(struct tracker *t, int fd)
{
	struct pipe_out *p = &t->pm->pipe;
	char why[256];

	t->piped = 0;
	if (pipe_finish(p, why, sizeof why)) {
		if (t->ob.err || fd < 0)
			say("hprofstrip: %s: %s; %s holds what was written "
			    "of the stripped dump, not all of it", t->path,
			    why, p->dump);
		else
			say("hprofstrip: %s: %s; the stripped dump is in %s, "
			    "uncompressed", t->path, why, p->dump);
	} else if (t->ob.err || t->st.err) {
		/* the copy is as damaged as what the child got: keep both */
	} else if (fd >= 0) {
		pipe_remove_dump(p, fd);
		if (p->out[0])
			say("hprofstrip: %s: %s wrote %s", t->path, p->what, p->out);
		else
			say("hprofstrip: %s: %s took it (%llu bytes); %s removed",
			    t->path, p->what, (unsigned long long)p->sent, p->dump);
	}
}

/* The bytes held while vetting go to the file as written (at 0), and
 * fd's position where the program left it. */
static void put_held(struct tracker *t, int fd)
{
	int saved = errno;

	if (t->hdr_len && hs_pwrite_full(t->fifo ? fifo_write : hst.pwrite, fd,
	                                 t->hdr, t->hdr_len, 0))
		t->warned = 1;  /* as the real write would have, quietly */
	if (!t->fifo && t->voff &&
	    hst.lseek(fd, (int64_t)t->voff, SEEK_SET) < 0) {
		/* a file that cannot seek was not tracked */
	}
	t->hdr_len = 0;
	errno = saved;
}

void tracker_let_go(struct tracker *t, int fd, const char *why)
{
	char path[sizeof t->path];
	int i;

	put_held(t, fd);
	t->vet = 0;
	memcpy(path, t->path, sizeof path);
	pthread_mutex_unlock(&t->lock);
	/* lock order: the table, then a tracker */
	pthread_mutex_lock(&table_lock);
	for (i = 0; i < MAX_FD; i++)
		if (tracker_of(i) == t)
			set_fd_state(i, FD_SEEN);
	pthread_mutex_lock(&t->lock);
	t->kind = T_FREE;
	pthread_mutex_unlock(&t->lock);
	pthread_mutex_unlock(&table_lock);
	if (why)
		say("hprofstrip: %s: %s", path, why);
}

/* The dump's last fd is being closed (fd: that fd, still open). */
static void tracker_finish(struct tracker *t, int fd)
{
	if (t->vet) {
		/* closed before its header was whole: what was held is
		 * written as it came */
		put_held(t, fd);
		t->kind = T_FREE;
		return;
	}
	if (!t->st.in_off && !t->seg_in && !t->ob.len && !t->ext) {
		/* nothing was written (touch, an open to check a name): the
		 * file stays as it was, old content and all */
		t->kind = T_FREE;
		return;
	}
	tracker_gap(t, t->ext);
	hs_finish(&t->st);
	tracker_flush(t, fd);
	tracker_report(t);
	if (t->trunc_at_end && !t->ob.err &&
	    hst.ftruncate(fd, (int64_t)hs_ob_size(&t->ob))) {
		/* the dump is still whole; old bytes remain after it */
	}
	if (t->kind == T_SEGMENT && t->main && t->main->kind == T_MAIN) {
		t->main->seg_in += t->st.in_off;
		t->main->seg_out += t->st.out_off;
		t->main->seg_arrays += t->st.arrays;
	} else if (t->kind == T_MAIN) {
		summary(t);
	}
	if (t->piped)
		end_child(t, fd);
	t->piped = t->pipe_pending = 0;
	t->kind = T_FREE;
}

/* ---- opens ------------------------------------------------------------- */

/* Which dump fd is, by its path: DUMP_MAIN, DUMP_SEGMENT or DUMP_NONE. */
static int kind_of(int dirfd, const char *path, char *base, size_t size)
{
	const struct policy *p = policy();
	char full[PATH_MAX];
	int kind = policy_kind(p, path, base, size);

	if (kind == DUMP_NONE && path[0] != '/' && p->dirs &&
	    policy_absolute(dirfd, path, full, sizeof full))
		kind = policy_kind(p, full, base, size);
	return kind;
}

/* After a successful open: start tracking fd if its path is a dump, or
 * (force: hst_begin) whatever its path, as a main dump. */
static void track(int fd, int dirfd, const char *path, int flags, int force)
{
	struct stat sb;
	struct tracker *t, *main = NULL;
	char base[PATH_MAX];
	int kind, vet = VET_MAGIC, saved = errno;
	unsigned i, idsize = (unsigned)sizeof(void *);

	if (!path || (flags & O_ACCMODE) == O_RDONLY || (flags & O_APPEND))
		return;
	if (force) {
		kind = DUMP_MAIN;
		snprintf(base, sizeof base, "%s", path);
	} else {
		kind = kind_of(dirfd, path, base, sizeof base);
		if (kind != DUMP_NONE)
			vet = scope();
	}
	errno = saved;
	if (kind == DUMP_NONE || vet < 0)
		return;
	if (fd >= MAX_FD) {
		say("hprofstrip: %s: fd %d is past the shim's table; written "
		    "unstripped", path, fd);
		return;
	}
	/* a file with content opened without O_TRUNC is being changed, not
	 * written afresh: not a dump being taken, so left alone */
	if (fstat(fd, &sb) || (!S_ISREG(sb.st_mode) && !S_ISFIFO(sb.st_mode)) ||
	    (!(flags & O_TRUNC) && sb.st_size > 0))
		goto out;
	pthread_mutex_lock(&table_lock);
	t = tracker_alloc();
	if (!t) {
		pthread_mutex_unlock(&table_lock);
		say("hprofstrip: %s: too many dumps open at once; written "
		    "unstripped", path);
		goto out;
	}
	/* a segment's ids are its dump's, if the shim saw its header, else
	 * the process's pointer size (HotSpot's id size) */
	for (i = 0; kind == DUMP_SEGMENT && i < MAX_TRACKERS; i++)
		if (pool[i].kind == T_MAIN && !strcmp(pool[i].base, base)) {
			main = &pool[i];
			if (main->st.idsize)
				idsize = main->st.idsize;
		}
	if (kind == DUMP_SEGMENT) {
		/* a segment of no dump being stripped is written as it
		 * comes: its dump's file will get it verbatim too */
		if (!main) {
			pthread_mutex_unlock(&table_lock);
			goto out;
		}
		/* only a runtime writes segment files: its dump is its own,
		 * whatever the stamp will say (vet) */
		__atomic_store_n(&main->segments, 1, __ATOMIC_RELAXED);
	}
	tracker_start(t, kind == DUMP_SEGMENT ? T_SEGMENT : T_MAIN, path, base,
	              idsize, dirfd, path, vet, S_ISFIFO(sb.st_mode));
	t->main = main;
	map_fd(fd, t);
	pthread_mutex_unlock(&table_lock);
out:
	errno = saved;
}

/* The kernel just handed out fd (open, dup...), so whatever fd referred
 * to before was closed without us seeing it (close_range, a raw syscall,
 * fclose of an fdopen'd stream). Forget that: if it was a dump's last fd,
 * the dump ends where the runtime's last write left it (each call's
 * output was flushed before the call returned). */
static void fresh_fd(int fd)
{
	struct tracker *t;

	if (!fd_state(fd))
		return;
	t = tracker_of(fd);
	if (!t) {
		set_fd_state(fd, 0);
		return;
	}
	if (t->pid != getpid())
		return;
	pthread_mutex_lock(&table_lock);
	if (tracker_of(fd) == t) {
		map_fd(fd, NULL);
		pthread_mutex_lock(&t->lock);
		if (--t->refs == 0) {
			say("hprofstrip: %s: closed behind the shim's back; the "
			    "dump ends at %llu bytes in", t->path,
			    (unsigned long long)t->st.in_off);
			if (t->piped)
				end_child(t, -1);
			t->kind = T_FREE;
		}
		pthread_mutex_unlock(&t->lock);
	}
	pthread_mutex_unlock(&table_lock);
}

void hst_opened(int fd, int dirfd, const char *path, int flags)
{
	int fresh = (flags & O_ACCMODE) != O_RDONLY && !(flags & O_APPEND) &&
	            (flags & (O_CREAT | O_TRUNC));

	if (fd < 0)
		return;
	fresh_fd(fd);
	track(fd, dirfd, path, flags, 0);
	if (!tracker_of(fd))
		set_fd_state(fd, fresh ? FD_FRESH : FD_SEEN);
}

int hst_begin(int fd, const char *path)
{
	if (fd < 0 || !path)
		return 0;
	fresh_fd(fd);
	track(fd, AT_FDCWD, path, O_WRONLY | O_CREAT | O_TRUNC, 1);
	if (!tracker_of(fd))
		set_fd_state(fd, FD_FRESH);
	return tracker_of(fd) != NULL;
}

int hst_api_version(void)
{
	return HPROFSTRIP_API_VERSION;
}

/* ---- sniffing ---------------------------------------------------------- */

/* The first write to an fd opened FD_FRESH decides: it is FD_SEEN now.
 * Returns whether this call was that first write. */
static int first_write(int fd)
{
	unsigned char fresh = FD_FRESH;

	return fd >= 0 && fd < MAX_FD &&
	       __atomic_compare_exchange_n(&fdmap[fd], &fresh, FD_SEEN, 0,
	                                   __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

void tracker_untracked_write(int fd)
{
	first_write(fd);
}

/* In a process that strips (scope(); HPROFSTRIP_SNIFF unless no), a write
 * of "JAVA PROFILE 1.0." at offset 0 of a regular file starts a dump when
 * the file is new (the first write to a file this process created or
 * truncated, whatever its name: jmap's heap.bin) or was opened where the
 * shim could not see (the fd that `am dumpheap` hands to ART). Costs a
 * memcmp and nothing else for any other write. */
struct tracker *tracker_sniff(int fd, const void *buf, size_t len, int64_t at)
{
	struct stat sb;
	struct tracker *t = NULL;
	char path[PATH_MAX], link[64];
	unsigned char was = fd_state(fd);
	int fl, vet, saved;
	ssize_t k;

	if (was == FD_SEEN || fd < 0 || fd >= MAX_FD)
		return NULL;
	if (was == FD_FRESH && !first_write(fd))
		return NULL;
	if (!policy()->sniff || !buf || len < HS_MAGIC_LEN ||
	    memcmp(buf, HS_MAGIC, HS_MAGIC_LEN) || (vet = scope()) < 0)
		return NULL;
	saved = errno;
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode) ||
	    (was == FD_FRESH && sb.st_size > 0))
		goto out;
	fl = hst.fcntl(fd, F_GETFL, 0);
	if (fl < 0 || (fl & O_APPEND))
		goto out;
	if ((at < 0 ? hst.lseek(fd, 0, SEEK_CUR) : at) != 0)
		goto out;
	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	k = readlink(link, path, sizeof path - 1);
	if (k > 0)
		path[k] = 0;
	else
		snprintf(path, sizeof path, "fd %d", fd);
	pthread_mutex_lock(&table_lock);
	if (fd_state(fd) == (was == FD_FRESH ? FD_SEEN : 0) &&
	    (t = tracker_alloc()) != NULL) {
		tracker_start(t, T_MAIN, path, "", 0, AT_FDCWD, path, vet, 0);
		t->trunc_at_end = sb.st_size > 0;
		map_fd(fd, t);
	} else if (!t) {
		t = tracker_of(fd);  /* another thread's write was first */
	}
	pthread_mutex_unlock(&table_lock);
out:
	errno = saved;
	return t;
}

/* ---- fd lifetime ------------------------------------------------------- */

/* fd stops referring to its tracker; the last reference ends the dump.
 * Called before the real close so the last bytes can still be written.
 * Returns 0, or the errno of a write that failed while ending the dump. */
static int release_fd(int fd)
{
	struct tracker *t = tracker_of(fd);
	int e = 0;

	/* a vfork child shares our memory but not our fds: hands off */
	if (!t || t->pid != getpid())
		return 0;
	pthread_mutex_lock(&table_lock);
	if (tracker_of(fd) == t) {
		map_fd(fd, NULL);
		pthread_mutex_lock(&t->lock);
		if (--t->refs == 0) {
			int before = t->ob.err;
			tracker_finish(t, fd);
			if (t->ob.err && !before)
				e = t->ob.err;
		}
		pthread_mutex_unlock(&t->lock);
	}
	pthread_mutex_unlock(&table_lock);
	return e;
}

int hst_close(int fd)
{
	int saved = errno, e = 0;

	if (tracker_of(fd))
		e = release_fd(fd);
	else if (fd_state(fd))
		set_fd_state(fd, 0);
	errno = saved;
	return e;
}

/* newfd now refers to what oldfd refers to: the same tracker, or the same
 * seen-or-not state. */
static void alias_fd(int oldfd, int newfd)
{
	struct tracker *t = tracker_of(oldfd);

	if (newfd < 0 || newfd >= MAX_FD || newfd == oldfd)
		return;
	if (!t) {
		if (fd_state(newfd) != fd_state(oldfd))
			set_fd_state(newfd, fd_state(oldfd));
		return;
	}
	pthread_mutex_lock(&table_lock);
	if (tracker_of(oldfd) == t) {
		pthread_mutex_lock(&t->lock);
		t->refs++;
		pthread_mutex_unlock(&t->lock);
		map_fd(newfd, t);
	}
	pthread_mutex_unlock(&table_lock);
}

void hst_dup(int oldfd, int newfd)
{
	int saved = errno;

	if (newfd < 0 || newfd == oldfd)
		return;
	fresh_fd(newfd);
	if (fd_state(oldfd) || fd_state(newfd))
		alias_fd(oldfd, newfd);
	errno = saved;
}

void hst_replace(int oldfd, int newfd)
{
	int saved = errno;

	/* dup2 onto a tracked fd closes it: end that dump first */
	if (oldfd != newfd && tracker_of(newfd) &&
	    hst.fcntl(oldfd, F_GETFD, 0) >= 0)
		release_fd(newfd);
	errno = saved;
}

/* ---- fork -------------------------------------------------------------- */

void hst_fork_prepare(void)
{
	unsigned i;

	pthread_mutex_lock(&table_lock);
	for (i = 0; i < MAX_TRACKERS; i++)
		pthread_mutex_lock(&pool[i].lock);
}

void hst_fork_parent(void)
{
	unsigned i;

	for (i = MAX_TRACKERS; i-- > 0;)
		pthread_mutex_unlock(&pool[i].lock);
	pthread_mutex_unlock(&table_lock);
}

/* The child of fork has a copy of the parent's trackers and the same
 * files open. Those dumps are the parent's: the child must never write
 * them through its copy (its close would end the parent's dump, with a
 * length patch and maybe a truncation), so it forgets them. Its own dumps
 * start afresh (KOOM forks and dumps in the child). */
void hst_fork_child(void)
{
	unsigned i;
	int fd;

	for (fd = 0; fd < MAX_FD; fd++)
		if (tracker_of(fd))
			map_fd(fd, NULL);
	for (i = 0; i < MAX_TRACKERS; i++) {
		/* the parent's child reads the parent's dump: our copy of
		 * its stdin must not keep it open */
		if (pool[i].piped)
			pipe_forget(&pool[i].pm->pipe);
		pool[i].piped = pool[i].pipe_pending = 0;
		pool[i].kind = T_FREE;
	}
	hst_fork_parent();
}
