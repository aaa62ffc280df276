/*
 * The fd table: which fd refers to which dump's session (fdstate.h's map),
 * the pool of sessions, and an fd's life after its open (opens.c): dup,
 * the close that ends its dump, exit and fork. A forked child forgets
 * its parent's dumps (its close must not end them; its own dumps are
 * tracked afresh); a vfork child, which shares our memory, changes
 * nothing. Which paths and processes hold dumps is the policy's
 * (policy.c); a dump itself, its session's (session.c).
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

/* the table (fdstate.h, fdtable.h) */
struct session *table_pool[MAX_SESSIONS];
unsigned char table_fdmap[MAX_FD];
pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;

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
	__atomic_store_n(&table_pool[i], s, __ATOMIC_RELEASE);
	return s;
}

/* Takes a free session (table_lock held): the first free slot, mapped if
 * it is not yet; NULL if every slot is taken or (*nomem) no memory. */
struct session *table_take(int *nomem)
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
int table_end_ref(struct session *s, int fd, int closing)
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

/* The kernel just handed out fd (open, dup...), so whatever fd referred
 * to before was closed without us seeing it (close_range, a raw syscall,
 * fclose of an fdopen'd stream). Forget that: if it was a dump's last fd,
 * the dump ends where the runtime's last write left it (each call's
 * output was flushed before the call returned). */
void table_fresh_fd(int fd)
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
	table_end_ref(s, fd, 0);
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
	return table_end_ref(s, fd, 1);
}

/* (the API's: fdstate.h's checks, for those who link the shim in) */
int hst_idle(int fd, const void *buf, size_t len)
{
	return fd_idle(fd, buf, len);
}

int hst_idle_close(int fd)
{
	return fd_idle_close(fd);
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
	table_fresh_fd(newfd);
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
