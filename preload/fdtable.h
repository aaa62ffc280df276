/*
 * Inside dump tracking (hprofstrip.h): the fd table, which fd refers to
 * which dump's session (session.h; the map and its inline checks are
 * fdstate.h's), and the pool of sessions. The fd lifetime entry points
 * are opens.c's (hst_opened, hst_begin) and fdtable.c's (hst_close,
 * hst_dup, hst_replace, the fork handlers); these are for the others
 * (api.c), which look a session up and hand the call to it, and for the
 * two halves of the table. Lock order: the table, then a session. Not
 * an interface for anyone else.
 */
#ifndef HPROFSTRIP_FDTABLE_H
#define HPROFSTRIP_FDTABLE_H

#include "fdstate.h"
#include "session.h"

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

/* the table's lock: the map's and the pool's changes */
extern FD_HIDDEN pthread_mutex_t table_lock;

/* fd refers to s (NULL: to none) from now on (table_lock held) */
static inline void map_fd(int fd, struct session *s)
{
	__atomic_store_n(&table_fdmap[fd],
	                 (unsigned char)(s ? s->slot + 1 : 0),
	                 __ATOMIC_RELEASE);
}

/* Takes a free session (table_lock held): the first free slot, mapped if
 * it is not yet; NULL if every slot is taken or (*nomem) no memory. */
struct session *table_take(int *nomem);
/* fd (unmapped here) stops referring to s; the last reference ends s's
 * dump (closing: session_finish; else session_lost), then s is freed.
 * Not with table_lock held. Returns 0, or the errno of a write that
 * failed while ending the dump. */
int table_end_ref(struct session *s, int fd, int closing);
/* The kernel just handed out fd (open, dup...): whatever it referred to
 * before was closed behind the shim's back, and is forgotten. */
void table_fresh_fd(int fd);
/* With s locked: 1 if fd still refers to s, 0 if it has none by now (a
 * session let go of or refused in another thread). */
int table_holds(int fd, struct session *s);
/* An untracked fd's write of buf at at (-1: its position): the session
 * of the dump it starts, if it starts one (sniffing), else NULL. */
struct session *table_sniff(int fd, const void *buf, size_t len, int64_t at);
/* A write that is not a dump's went to fd (sendfile, copy_file_range):
 * the first write decides, so fd is not sniffed any more. */
void table_untracked_write(int fd);
/* s (not locked: this takes the table's lock, then s's), judged no dump
 * of this runtime's or refused, is let go of: every fd that refers to it
 * is written as it comes from now on, and s is free. refused_fd >= 0: the
 * fd refused (refuse_fd), whose refusal every other fd of s shares. */
void table_drop(struct session *s, int refused_fd);

/* The process exits: each dump it still writes (of this process, not
 * being vetted) gets its histogram of what came, marked cut
 * (histo_exit). A session another thread holds locked for longer than
 * a moment is left as it is: exit never waits on it. */
void table_exit(void);

#endif
