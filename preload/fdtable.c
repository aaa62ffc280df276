/*
 * The fd table: which fd refers to which dump's session, from the open
 * that names it a dump (or the first write that shows it is one:
 * sniffing) through dup to the close that ends it, and fork. Which paths
 * and processes hold dumps is the policy's (policy.c); a dump itself, its
 * session's (session.c).
 *
 * A pattern matches the path as the program passed it, its basename, and,
 * for a relative path when a pattern contains '/', the absolute path. A
 * file opened and closed without a write is left as it was. A forked child
 * forgets its parent's dumps (its close must not end them; its own dumps
 * are tracked afresh); a vfork child, which shares our memory, changes
 * nothing. An fd number handed out again (open, dup) after a close the
 * shim never saw (close_range, a raw syscall) is a new file.
 */
#include "fdtable.h"
#include "libc.h"
#include "policy.h"
#include "refuse.h"
#include "say.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MAX_SESSIONS 16
#define MAX_FD HST_MAX_FD

/* The sessions (about 150 KiB each), each mapped when a dump first needs
 * its slot and kept for the slot's later dumps, never unmapped: a process
 * that writes no dump maps none. Slots are mapped in order, under
 * table_lock; any thread reads them (slot()). */
static struct session *pool[MAX_SESSIONS];
/* fd -> session index + 1, or FD_FRESH / FD_SEEN; 0: not seen opened
 * (sniffed at any write at offset 0) */
static unsigned char fdmap[MAX_FD];
/* FD_SEEN: opened in front of the shim, not a dump, never sniffed.
 * FD_FRESH: opened in front of the shim for writing with O_CREAT or
 * O_TRUNC, not matched, not written yet (sniffed at its first write) */
#define FD_SEEN 0xFF
#define FD_FRESH 0xFE
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;

/* ---- the fd table ----------------------------------------------------- */

/* Slot i's session, or NULL: not mapped yet. */
static struct session *slot(unsigned i)
{
	return __atomic_load_n(&pool[i], __ATOMIC_ACQUIRE);
}

struct session *table_session(int fd)
{
	unsigned i;

	if (fd < 0 || fd >= MAX_FD)
		return NULL;
	i = __atomic_load_n(&fdmap[fd], __ATOMIC_ACQUIRE);
	return i && i <= MAX_SESSIONS ? slot(i - 1) : NULL;
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

static void map_fd(int fd, struct session *s)
{
	__atomic_store_n(&fdmap[fd], (unsigned char)(s ? s->slot + 1 : 0),
	                 __ATOMIC_RELEASE);
}

/* ---- who strips -------------------------------------------------------- */

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

/* ---- the pool ---------------------------------------------------------- */

/* Slot i's session, zeroed, mapped now (table_lock held); NULL if there
 * is no memory for it. A raw system call, errno kept: the session is had
 * as if it were static (FAULT=nomap, tests/faultinject.c, fails the maps
 * of the tables a dump asks for, made through the PLT). */
static struct session *slot_map(unsigned i)
{
	int saved = errno;
	/* (32 bits: SYS_mmap is the old call that takes a struct; mmap2 is
	 * the one with these arguments) */
#ifdef SYS_mmap2
	void *m = (void *)syscall(SYS_mmap2, NULL, sizeof(struct session),
#else
	void *m = (void *)syscall(SYS_mmap, NULL, sizeof(struct session),
#endif
	                          PROT_READ | PROT_WRITE,
	                          MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct session *s = m;

	errno = saved;
	if (m == MAP_FAILED)
		return NULL;
	pthread_mutex_init(&s->lock, NULL);
	s->slot = i;
	__atomic_store_n(&pool[i], s, __ATOMIC_RELEASE);
	return s;
}

/* Takes a free session (table_lock held): the first free slot, mapped if
 * it is not yet; NULL if every slot is taken or (*nomem) no memory. */
static struct session *pool_take(int *nomem)
{
	struct session *s;
	unsigned i;

	*nomem = 0;
	for (i = 0; i < MAX_SESSIONS; i++) {
		if (!(s = slot(i)))
			return (s = slot_map(i)) ? s : (*nomem = 1, NULL);
		if (s->kind == S_FREE)
			return s;
	}
	return NULL;
}

int table_holds(int fd, struct session *s)
{
	/* (refused while this thread waited: api.c's let_go) */
	return table_session(fd) == s && !refused(fd);
}

/* s is free for the next dump (table_lock held; lock order: the table,
 * then a session). */
static void free_slot(struct session *s)
{
	pthread_mutex_lock(&s->lock);
	s->kind = S_FREE;
	__atomic_store_n(&s->leaving, 0, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&s->lock);
}

void table_drop(struct session *s, int refused_fd)
{
	int i;

	/* lock order: the table, then a session */
	pthread_mutex_lock(&table_lock);
	for (i = 0; i < MAX_FD; i++)
		if (table_session(i) == s) {
			if (refused_fd >= 0)
				refuse_dup(refused_fd, i);
			set_fd_state(i, FD_SEEN);
		}
	free_slot(s);
	pthread_mutex_unlock(&table_lock);
}

/* fd (unmapped here) stops referring to s; the last reference ends s's
 * dump (session_finish, or with lost session_lost: fd was closed behind
 * our back), then the table frees s. The end is had with only s's lock
 * held, and that lock is let go of while a child is waited for
 * (pipe_finish's unlock), so that another thread's open, close, dup or
 * fork does not wait for a compressor or a filter; s stays taken, and
 * leaving (no segment's main, no exit's histogram), until it is freed.
 * Returns 0, or the errno of a write that failed while ending the dump. */
static int end_ref(struct session *s, int fd, int closing)
{
	int before, e = 0;

	pthread_mutex_lock(&table_lock);
	if (table_session(fd) != s) {
		pthread_mutex_unlock(&table_lock);
		return 0;
	}
	map_fd(fd, NULL);
	pthread_mutex_lock(&s->lock);
	/* (a session let go of is freed by the thread that let it go) */
	if (--s->refs || __atomic_load_n(&s->leaving, __ATOMIC_RELAXED)) {
		pthread_mutex_unlock(&s->lock);
		pthread_mutex_unlock(&table_lock);
		return 0;
	}
	__atomic_store_n(&s->leaving, 1, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&table_lock);
	before = s->ob.err;
	if (closing)
		session_finish(s, fd);
	else
		session_lost(s);
	if (s->ob.err && !before)
		e = s->ob.err;
	pthread_mutex_unlock(&s->lock);
	pthread_mutex_lock(&table_lock);
	free_slot(s);
	pthread_mutex_unlock(&table_lock);
	return e;
}

/* ---- opens ------------------------------------------------------------- */

/* Which dump fd is, by its path: DUMP_MAIN, DUMP_SEGMENT or DUMP_NONE.
 * A glob of HPROFSTRIP_PATTERN that cannot be read is said once, in a
 * process that may strip (scope). */
static int kind_of(int dirfd, const char *path, char *base, size_t size)
{
	static int told;
	const struct policy *p = policy();
	char full[PATH_MAX];
	int kind;

	if (p->pattern_bad[0] && !__atomic_load_n(&told, __ATOMIC_RELAXED) &&
	    scope() >= 0 && !__atomic_exchange_n(&told, 1, __ATOMIC_RELAXED))
		say("hprofstrip: HPROFSTRIP_PATTERN: '%s' is not a glob "
		    "fnmatch can read (a '[' without its ']'?); it matches no "
		    "file%s", p->pattern_bad, p->sniff ? ": dumps are found "
		    "by their first bytes alone" : ", and with HPROFSTRIP_SNIFF "
		    "off no dump is stripped");

	/* (the name of almost every file a process writes: a few bytes
	 * compared, no glob matched, no getcwd) */
	if (!policy_may_match(p, path))
		return DUMP_NONE;
	kind = policy_kind(p, path, base, size);
	if (kind == DUMP_NONE && path[0] != '/' && p->dirs &&
	    policy_absolute(dirfd, path, full, sizeof full))
		kind = policy_kind(p, full, base, size);
	return kind;
}

/* For the lines of a dump the shim cannot redact (refuse.h). */
#define STR_(x) #x
#define STR(x) STR_(x)
#define FD_LIMIT STR(HST_MAX_FD)
#define SESSIONS STR(MAX_SESSIONS)
#define OFFLINE "dump without the shim and run hprofstrip --redact on the " \
                "dump"
#define TOO_MANY "too many dumps open at once"
#define ONE_OF_16 "open at most " SESSIONS " dumps at once, or " OFFLINE
#define NO_MEMORY "no memory to track it"

/* A dump the table cannot track (why): written as it comes, and said;
 * with HPROFSTRIP_REDACT refused (fix: what to change). */
static void untracked(int fd, int dirfd, const char *path, const char *why,
                      const char *fix)
{
	if (refuse_wanted())
		refuse_fd(fd, dirfd, path, why, fix);
	else
		say("hprofstrip: %s: %s; written unstripped", path, why);
}

/* fd's path, as /proc/self/fd tells it, in out (size bytes); else
 * fallback, or "fd N" (NULL). */
static void fd_path(int fd, char *out, size_t size, const char *fallback)
{
	char link[64];
	ssize_t k;

	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	k = readlink(link, out, size - 1);
	if (k > 0)
		out[k] = 0;
	else if (fallback)
		snprintf(out, size, "%s", fallback);
	else
		snprintf(out, size, "fd %d", fd);
}

/* A sniffed dump's segment file (path, relative to dirfd, is "<X>.pN"
 * and X has no dump's name): its main is the file X that this process
 * has open, either tracked already (sniffed at its first write) or
 * opened fresh and not written yet, as HotSpot's main file is while its
 * dumpers write their segments; that fd's dump starts now, its header
 * vetted when it comes. NULL: X is no file this process writes afresh.
 * table_lock held. */
static struct session *sniffed_main(int dirfd, const char *path, size_t n,
                                    int vet)
{
	struct stat xs, sb;
	struct session *m;
	char x[PATH_MAX], full[PATH_MAX];
	int i, nomem;

	if (n >= sizeof x)
		return NULL;
	memcpy(x, path, n);
	x[n] = 0;
	if (fstatat(dirfd, x, &xs, 0) || !S_ISREG(xs.st_mode))
		return NULL;
	for (i = 0; i < MAX_FD; i++) {
		unsigned char st = fd_state(i);
		if (st != FD_FRESH && (st == 0 || st == FD_SEEN))
			continue;
		if (st != FD_FRESH && ((m = table_session(i)) == NULL ||
		                       m->kind != S_MAIN))
			continue;
		if (fstat(i, &sb) || sb.st_dev != xs.st_dev ||
		    sb.st_ino != xs.st_ino)
			continue;
		if (st != FD_FRESH)
			return table_session(i);
		if (sb.st_size > 0 || !(m = pool_take(&nomem)))
			return NULL;
		fd_path(i, full, sizeof full, x);
		session_start(m, S_MAIN, full, "", 0, AT_FDCWD, full, vet, 0);
		map_fd(i, m);
		return m;
	}
	return NULL;
}

/* After a successful open: start tracking fd if its path is a dump, or
 * (force: hst_begin) whatever its path, as a main dump. */
static void track(int fd, int dirfd, const char *path, int flags, int force)
{
	struct stat sb;
	struct session *s, *main = NULL, *m;
	char base[PATH_MAX];
	int kind, vet = VET_MAGIC, saved = errno, nomem;
	unsigned i, idsize = (unsigned)sizeof(void *);
	uint64_t nonce;
	size_t sniffed = 0;   /* a sniffed dump's segment: its base's length */

	if (!path || (flags & O_ACCMODE) == O_RDONLY || (flags & O_APPEND))
		return;
	if (force) {
		kind = DUMP_MAIN;
		snprintf(base, sizeof base, "%s", path);
	} else {
		kind = kind_of(dirfd, path, base, sizeof base);
		if (kind != DUMP_NONE)
			vet = scope();
		/* "<X>.pN" of a file X found by its first bytes (sniffing),
		 * in a runtime's process (only a runtime writes segment
		 * files; asked without a system call: any other process sees
		 * exactly its own) */
		else if (policy()->sniff &&
		         (sniffed = policy_numbered_base(path, "p")) != 0 &&
		         (vet = policy_hosts_runtime() ? VET_STAMP : -1) >= 0 &&
		         sniffed < sizeof base) {
			kind = DUMP_SEGMENT;
			memcpy(base, path, sniffed);
			base[sniffed] = 0;
		}
	}
	errno = saved;
	if (kind == DUMP_NONE || vet < 0)
		return;
	/* a file with content opened without O_TRUNC is being changed, not
	 * written afresh: not a dump being taken, so left alone */
	if (fstat(fd, &sb) || (!S_ISREG(sb.st_mode) && !S_ISFIFO(sb.st_mode)) ||
	    (!(flags & O_TRUNC) && sb.st_size > 0))
		goto out;
	if (fd >= MAX_FD) {
		char why[64];
		snprintf(why, sizeof why, "fd %d is past the shim's table", fd);
		untracked(fd, dirfd, path, why, "keep the process's fds below "
		          FD_LIMIT ", or " OFFLINE);
		goto out;
	}
	pthread_mutex_lock(&table_lock);
	/* (a sniffed segment's main first: it may take a slot) */
	if (sniffed && !(main = sniffed_main(dirfd, path, sniffed, vet))) {
		pthread_mutex_unlock(&table_lock);
		goto out;  /* no file of this process's: none of a dump's */
	}
	s = pool_take(&nomem);
	if (!s) {
		pthread_mutex_unlock(&table_lock);
		untracked(fd, dirfd, path, nomem ? NO_MEMORY : TOO_MANY,
		          nomem ? "free memory, or " OFFLINE : ONE_OF_16);
		goto out;
	}
	for (i = 0; kind == DUMP_SEGMENT && !sniffed && i < MAX_SESSIONS &&
	            (m = slot(i)) != NULL; i++)
		if (m->kind == S_MAIN && !strcmp(m->base, base) &&
		    !__atomic_load_n(&m->leaving, __ATOMIC_RELAXED))
			main = m;
	/* a segment's ids are its dump's, if the shim saw its header, else
	 * the process's pointer size (HotSpot's id size); its writer sets
	 * them, under its lock */
	if (main) {
		pthread_mutex_lock(&main->lock);
		if (main->st.idsize)
			idsize = main->st.idsize;
		pthread_mutex_unlock(&main->lock);
	}
	if (kind == DUMP_SEGMENT) {
		/* a segment of no dump being stripped is written as it
		 * comes: its dump's file will get it verbatim too */
		if (!main) {
			pthread_mutex_unlock(&table_lock);
			if (refuse_wanted())
				refuse_fd(fd, dirfd, path, "a segment file of a "
				          "dump that is not being stripped",
				          "dump with jcmd GC.heap_dump "
				          "-parallel=1, or " OFFLINE);
			goto out;
		}
		/* only a runtime writes segment files: its dump is its own,
		 * whatever the stamp will say (vet) */
		__atomic_store_n(&main->segments, 1, __ATOMIC_RELAXED);
		/* HPROFSTRIP_KEEP: the Strings' values are known where the
		 * class dumps are, in the merge: the segment goes as it comes,
		 * and its main strips it there, as from a file */
		if (policy()->keep_strings || policy()->keep_bitmaps) {
			if (!policy()->redact) {
				pthread_mutex_unlock(&table_lock);
				goto out;
			}
		}
		/* HPROFSTRIP_REDACT: sealed till the merge, where its main
		 * knows every class dump; if it cannot be, refused */
		if (policy()->redact && session_seal(main, s, fd)) {
			pthread_mutex_unlock(&table_lock);
			refuse_fd(fd, dirfd, path, "a segment file that cannot "
			          "be sealed (no random key, or more than "
			          STR(MAX_SEALS) " segments)",
			          "dump with fewer threads (jcmd GC.heap_dump "
			          "-parallel=N), or " OFFLINE);
			goto out;
		}
	}
	nonce = kind == DUMP_SEGMENT ? s->nonce : 0;
	session_start(s, kind == DUMP_SEGMENT ? S_SEGMENT : S_MAIN, path, base,
	              idsize, dirfd, path, vet, S_ISFIFO(sb.st_mode));
	s->nonce = nonce;
	s->main = main;
	map_fd(fd, s);
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
	struct session *s;

	refuse_forget(fd);
	if (!fd_state(fd))
		return;
	s = table_session(fd);
	if (!s) {
		set_fd_state(fd, 0);
		return;
	}
	if (__atomic_load_n(&s->pid, __ATOMIC_RELAXED) != getpid())
		return;
	end_ref(s, fd, 0);
}

void hst_opened(int fd, int dirfd, const char *path, int flags)
{
	int writes = (flags & O_ACCMODE) != O_RDONLY && !(flags & O_APPEND);
	const struct policy *p;

	if (fd < 0)
		return;
	fresh_fd(fd);
	/* (a name no glob can match is let go here, in a few loads; a bad
	 * glob is said in track's kind_of) */
	if (writes && path &&
	    ((p = policy())->pattern_bad[0] || policy_may_match(p, path) ||
	     (p->sniff && policy_numbered_base(path, "p"))))
		track(fd, dirfd, path, flags, 0);
	if (!table_session(fd))
		set_fd_state(fd, writes && (flags & (O_CREAT | O_TRUNC))
		                     ? FD_FRESH : FD_SEEN);
}

int hst_begin(int fd, const char *path)
{
	if (fd < 0 || !path)
		return 0;
	fresh_fd(fd);
	track(fd, AT_FDCWD, path, O_WRONLY | O_CREAT | O_TRUNC, 1);
	if (!table_session(fd))
		set_fd_state(fd, FD_FRESH);
	return table_session(fd) != NULL;
}

/* ---- sniffing ---------------------------------------------------------- */

/* The first write to an fd opened FD_FRESH decides: it is FD_SEEN now.
 * Returns whether this call was that first write (this thread's, of all
 * that write fd at once). */
static int fresh_written(int fd)
{
	unsigned char fresh = FD_FRESH;

	return fd >= 0 && fd < MAX_FD &&
	       __atomic_compare_exchange_n(&fdmap[fd], &fresh, FD_SEEN, 0,
	                                   __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

/* (what table_sniff would do, without a call, a lock or errno: fd is
 * seen, or buf is too short for a header or starts otherwise; a file
 * opened fresh is then seen: its first write decided) */
int hst_idle(int fd, const void *buf, size_t len)
{
	unsigned char st;

	if (fd < 0 || fd >= MAX_FD || refused(fd))
		return 0;
	st = fd_state(fd);
	if (st == FD_SEEN || (st == 0 && !len))
		return 1;
	if ((st != 0 && st != FD_FRESH) || !buf || !len ||
	    (len >= HS_MAGIC_LEN && *(const char *)buf == HS_MAGIC[0]))
		return 0;
	if (st == FD_FRESH)
		fresh_written(fd);
	return 1;
}

void table_untracked_write(int fd)
{
	fresh_written(fd);
}

/* In a process that strips (scope(); HPROFSTRIP_SNIFF unless no), a write
 * of "JAVA PROFILE 1.0." at offset 0 of a regular file starts a dump when
 * the file is new (the first write to a file this process created or
 * truncated, whatever its name: jmap's heap.bin) or was opened where the
 * shim could not see (the fd that `am dumpheap` hands to ART). Costs a
 * memcmp and nothing else for any other write. */
struct session *table_sniff(int fd, const void *buf, size_t len, int64_t at)
{
	struct stat sb;
	struct session *s = NULL;
	char path[PATH_MAX];
	unsigned char was = fd_state(fd);
	int fl, vet, saved = errno, full = 0, nomem = 0;

	/* (past the table a dump can only be refused: HPROFSTRIP_REDACT) */
	if (was == FD_SEEN || fd < 0 || (fd >= MAX_FD && !refuse_wanted()))
		return NULL;
	if (was == FD_FRESH && !fresh_written(fd))
		return NULL;
	if (!policy()->sniff || !buf || len < HS_MAGIC_LEN ||
	    memcmp(buf, HS_MAGIC, HS_MAGIC_LEN) || (vet = scope()) < 0)
		goto out;
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode) ||
	    (was == FD_FRESH && sb.st_size > 0))
		goto out;
	fl = hst.fcntl(fd, F_GETFL, 0);
	if (fl < 0 || (fl & O_APPEND))
		goto out;
	if ((at < 0 ? hst.lseek(fd, 0, SEEK_CUR) : at) != 0)
		goto out;
	fd_path(fd, path, sizeof path, NULL);
	if (fd >= MAX_FD) {
		char why[64];
		snprintf(why, sizeof why, "fd %d is past the shim's table", fd);
		refuse_fd(fd, AT_FDCWD, NULL, why, "keep the process's fds "
		          "below " FD_LIMIT ", or " OFFLINE);
		goto out;
	}
	pthread_mutex_lock(&table_lock);
	if (fd_state(fd) == (was == FD_FRESH ? FD_SEEN : 0) &&
	    !(full = (s = pool_take(&nomem)) == NULL)) {
		session_start(s, S_MAIN, path, "", 0, AT_FDCWD, path, vet, 0);
		s->trunc_at_end = sb.st_size > 0;
		map_fd(fd, s);
	} else if (!s) {
		s = table_session(fd);  /* another thread's write was first */
	}
	pthread_mutex_unlock(&table_lock);
	/* no slot: as it comes, but with HPROFSTRIP_REDACT refused */
	if (full && refuse_wanted())
		refuse_fd(fd, AT_FDCWD, NULL, nomem ? NO_MEMORY : TOO_MANY,
		          nomem ? "free memory, or " OFFLINE : ONE_OF_16);
out:
	errno = saved;
	return s;
}

/* ---- fd lifetime ------------------------------------------------------- */

/* fd stops referring to its session; the last reference ends the dump.
 * Called before the real close so the last bytes can still be written.
 * Returns 0, or the errno of a write that failed while ending the dump. */
static int release_fd(int fd)
{
	struct session *s = table_session(fd);

	/* a vfork child shares our memory but not our fds: hands off */
	if (!s || __atomic_load_n(&s->pid, __ATOMIC_RELAXED) != getpid())
		return 0;
	return end_ref(s, fd, 1);
}

int hst_idle_close(int fd)
{
	unsigned char st;

	if (fd < 0 || fd >= MAX_FD || refused(fd))
		return 0;
	st = fd_state(fd);
	if (st && st <= MAX_SESSIONS)
		return 0;
	if (st)
		set_fd_state(fd, 0);
	return 1;
}

int hst_close(int fd)
{
	int saved = errno, e = 0;

	if (table_session(fd))
		e = release_fd(fd);
	else if (fd_state(fd))
		set_fd_state(fd, 0);
	refuse_forget(fd);
	errno = saved;
	return e;
}

/* HPROFSTRIP_REDACT: newfd, a copy of a dump's fd (s) that the table
 * cannot hold, writes nothing; the dump goes on through its other fds. */
static void refuse_copy(struct session *s, int newfd)
{
	char path[sizeof s->path];

	pthread_mutex_lock(&s->lock);
	memcpy(path, s->path, sizeof path);
	pthread_mutex_unlock(&s->lock);
	refuse_mark(newfd);
	say("hprofstrip: %s: fd %d, a copy of its fd, is past the shim's "
	    "table; HPROFSTRIP_REDACT: its writes fail (EPERM)", path, newfd);
}

/* newfd now refers to what oldfd refers to: the same session, or the same
 * seen-or-not state. */
static void alias_fd(int oldfd, int newfd)
{
	struct session *s = table_session(oldfd);

	if (newfd >= MAX_FD && s && refuse_wanted())
		refuse_copy(s, newfd);
	if (newfd < 0 || newfd >= MAX_FD || newfd == oldfd)
		return;
	if (!s) {
		if (fd_state(newfd) != fd_state(oldfd))
			set_fd_state(newfd, fd_state(oldfd));
		return;
	}
	pthread_mutex_lock(&table_lock);
	if (table_session(oldfd) == s) {
		pthread_mutex_lock(&s->lock);
		s->refs++;
		pthread_mutex_unlock(&s->lock);
		map_fd(newfd, s);
	}
	pthread_mutex_unlock(&table_lock);
}

void hst_dup(int oldfd, int newfd)
{
	int saved = errno;

	if (newfd < 0 || newfd == oldfd)
		return;
	fresh_fd(newfd);
	refuse_dup(oldfd, newfd);
	if (fd_state(oldfd) || fd_state(newfd))
		alias_fd(oldfd, newfd);
	errno = saved;
}

void hst_replace(int oldfd, int newfd)
{
	int saved = errno;

	/* dup2 onto a tracked fd closes it: end that dump first */
	if (oldfd != newfd && table_session(newfd) &&
	    hst.fcntl(oldfd, F_GETFD, 0) >= 0)
		release_fd(newfd);
	errno = saved;
}

/* ---- exit -------------------------------------------------------------- */

/* s's lock, if it can be had within about 100 ms: 1 (held), or 0. */
static int lock_soon(struct session *s)
{
	struct timespec ms = { 0, 1000000 };
	int i;

	for (i = 0; i < 100; i++) {
		if (!pthread_mutex_trylock(&s->lock))
			return 1;
		nanosleep(&ms, NULL);
	}
	return 0;
}

void table_exit(void)
{
	struct session *s;
	unsigned i;

	for (i = 0; i < MAX_SESSIONS && (s = slot(i)) != NULL; i++) {
		if (__atomic_load_n(&s->pid, __ATOMIC_RELAXED) != getpid() ||
		    !lock_soon(s))
			continue;
		if (s->kind == S_MAIN && !s->vet &&
		    !__atomic_load_n(&s->leaving, __ATOMIC_RELAXED))
			histo_exit(s);
		pthread_mutex_unlock(&s->lock);
	}
}

/* ---- fork -------------------------------------------------------------- */

/* (the slots mapped are the table's: they stay as they are from
 * hst_fork_prepare to hst_fork_parent or _child) */
void hst_fork_prepare(void)
{
	unsigned i;

	pthread_mutex_lock(&table_lock);
	for (i = 0; i < MAX_SESSIONS && slot(i); i++)
		pthread_mutex_lock(&slot(i)->lock);
}

void hst_fork_parent(void)
{
	unsigned i;

	for (i = MAX_SESSIONS; i-- > 0;)
		if (slot(i))
			pthread_mutex_unlock(&slot(i)->lock);
	pthread_mutex_unlock(&table_lock);
}

/* The child of fork has a copy of the parent's sessions and the same
 * files open. Those dumps are the parent's: the child must never write
 * them through its copy (its close would end the parent's dump, with a
 * length patch and maybe a truncation), so it forgets them. Its own dumps
 * start afresh (KOOM forks and dumps in the child). */
void hst_fork_child(void)
{
	unsigned i;
	int fd;

	/* (a process that never had a dump pays nothing per fork) */
	for (fd = 0; slot(0) && fd < MAX_FD; fd++)
		if (table_session(fd))
			map_fd(fd, NULL);
	for (i = 0; i < MAX_SESSIONS && slot(i); i++)
		session_forget(slot(i));
	hst_fork_parent();
}
