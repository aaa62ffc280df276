/*
 * Inside dump tracking (hprofstrip.h): the fd table, which fd refers to
 * which dump's session (session.h), and the pool of sessions. The
 * fd lifetime entry points (hst_opened, hst_begin, hst_close, hst_dup,
 * hst_replace, the fork handlers) are fdtable.c's; these are for the
 * others (api.c), which look a session up here and hand the call to it.
 * Lock order: the table, then a session. Not an interface for anyone
 * else.
 */
#ifndef HPROFSTRIP_FDTABLE_H
#define HPROFSTRIP_FDTABLE_H

#include "session.h"

#include <stddef.h>
#include <stdint.h>

/* The fds the table holds: 0 to HST_MAX_FD - 1 (a test build makes it
 * smaller, to reach the fds past it). */
#ifndef HST_MAX_FD
#define HST_MAX_FD 65536
#endif

/* fd's session, or NULL. */
struct session *table_session(int fd);
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
