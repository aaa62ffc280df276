/*
 * The fd checks every call makes, inline: which fds are dumps' (the fd
 * map) and the sessions' slots. A write or close of a file that is no
 * dump's costs a few loads here and no call into the shim's insides
 * (wrappers.c's fd_idle, fd_idle_close). The map is changed by the fd
 * table alone (fdtable.c, opens.c: fdtable.h), under its lock or by one
 * atomic step; anyone reads it. Not an interface for anyone else.
 */
#ifndef HPROFSTRIP_FDSTATE_H
#define HPROFSTRIP_FDSTATE_H

#include "refuse.h"
#include "../strip/engine/format.h"

#include <stddef.h>

/* The fds the table holds: 0 to HST_MAX_FD - 1 (a test build makes it
 * smaller, to reach the fds past it). */
#ifndef HST_MAX_FD
#define HST_MAX_FD 65536
#endif
#define MAX_FD HST_MAX_FD
#define MAX_SESSIONS 16

/* An fd's state in the map: its session's slot + 1 (1 to MAX_SESSIONS),
 * or one of these; 0: not seen opened (sniffed at any write at offset
 * 0). FD_SEEN: opened in front of the shim, not a dump, never sniffed.
 * FD_FRESH: opened in front of the shim for writing with O_CREAT or
 * O_TRUNC, not matched, not written yet (sniffed at its first write). */
#define FD_SEEN 0xFF
#define FD_FRESH 0xFE

struct session;

#define FD_HIDDEN __attribute__((visibility("hidden")))
/* fd -> its state (fdtable.c's) */
extern FD_HIDDEN unsigned char table_fdmap[MAX_FD];
/* The sessions (about 150 KiB each), each mapped when a dump first needs
 * its slot and kept for the slot's later dumps, never unmapped: a process
 * that writes no dump maps none. Mapped in order, under the table's lock;
 * any thread reads them (slot()). */
extern FD_HIDDEN struct session *table_pool[MAX_SESSIONS];

/* Slot i's session, or NULL: not mapped yet. */
static inline struct session *slot(unsigned i)
{
	return __atomic_load_n(&table_pool[i], __ATOMIC_ACQUIRE);
}

/* fd's session, or NULL. */
static inline struct session *table_session(int fd)
{
	unsigned i;

	if (fd < 0 || fd >= MAX_FD)
		return NULL;
	i = __atomic_load_n(&table_fdmap[fd], __ATOMIC_ACQUIRE);
	return i && i <= MAX_SESSIONS ? slot(i - 1) : NULL;
}

static inline unsigned char fd_state(int fd)
{
	return fd >= 0 && fd < MAX_FD
	           ? __atomic_load_n(&table_fdmap[fd], __ATOMIC_ACQUIRE) : 0;
}

static inline void set_fd_state(int fd, unsigned char v)
{
	if (fd >= 0 && fd < MAX_FD)
		__atomic_store_n(&table_fdmap[fd], v, __ATOMIC_RELEASE);
}

/* The first write to an fd opened FD_FRESH decides: it is FD_SEEN now.
 * Returns whether this call was that first write (this thread's, of all
 * that write fd at once). */
static inline int fresh_written(int fd)
{
	unsigned char fresh = FD_FRESH;

	return fd >= 0 && fd < MAX_FD &&
	       __atomic_compare_exchange_n(&table_fdmap[fd], &fresh, FD_SEEN,
	                                   0, __ATOMIC_ACQ_REL,
	                                   __ATOMIC_ACQUIRE);
}

/* 1: the write of len bytes of buf to fd is none of dump tracking's, and
 * goes straight on (what table_sniff would do, without a call, a lock or
 * errno: fd is seen, or buf is too short for a header or starts
 * otherwise; a file opened fresh is then seen: its first write decided).
 * 0: ask the fd table (hst_write and the others). */
static inline int fd_idle(int fd, const void *buf, size_t len)
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

/* 1: the close of fd is none of dump tracking's (its state forgotten);
 * 0: ask the fd table (hst_close). */
static inline int fd_idle_close(int fd)
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

#endif
