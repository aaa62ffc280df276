/*
 * What makes an fd a dump's (fdtable.h): its open, by its path, or the
 * first write that shows it is one (sniffing), and the process (scope).
 * A pattern matches the path as the program passed it, its basename, and,
 * for a relative path when a pattern contains '/', the absolute path. A
 * file opened and closed without a write is left as it was. An fd number
 * handed out again (open, dup) after a close the shim never saw
 * (close_range, a raw syscall) is a new file.
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
#include <sys/stat.h>
#include <unistd.h>

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
		if (sb.st_size > 0 || !(m = table_take(&nomem)))
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
	s = table_take(&nomem);
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

void hst_opened(int fd, int dirfd, const char *path, int flags)
{
	int writes = (flags & O_ACCMODE) != O_RDONLY && !(flags & O_APPEND);
	const struct policy *p;

	if (fd < 0)
		return;
	table_fresh_fd(fd);
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
	table_fresh_fd(fd);
	track(fd, AT_FDCWD, path, O_WRONLY | O_CREAT | O_TRUNC, 1);
	if (!table_session(fd))
		set_fd_state(fd, FD_FRESH);
	return table_session(fd) != NULL;
}

/* ---- sniffing ---------------------------------------------------------- */

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
	    !(full = (s = table_take(&nomem)) == NULL)) {
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
