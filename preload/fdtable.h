/*
 * Inside dump tracking (hprofstrip.h): the fd table, which fd refers to
 * which dump's session (session.h), and the fixed pool of sessions. The
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

/* The pool's locks, and the sessions' way back here (session_of). */
void table_setup(void);
/* fd's session, or NULL. */
struct session *table_session(int fd);
/* s, locked, if fd still refers to it; NULL (nothing locked) if fd has
 * none by now (a session let go of in another thread) or s is NULL. */
struct session *table_locked(int fd, struct session *s);
/* An untracked fd's write of buf at at (-1: its position): the session
 * of the dump it starts, if it starts one (sniffing), else NULL. */
struct session *table_sniff(int fd, const void *buf, size_t len, int64_t at);
/* A write that is not a dump's went to fd (sendfile, copy_file_range):
 * the first write decides, so fd is not sniffed any more. */
void table_untracked_write(int fd);
/* s (locked), judged no dump of this runtime's (vetting), lets go of fd
 * and every other fd that refers to it: each is written as it comes from
 * now on. The bytes held so far go to the file first (at 0), and fd's
 * position is set where the program thinks it is. why: the rest of a
 * line to say after the path, or NULL. Returns with s unlocked. */
void table_let_go(struct session *s, int fd, const char *why);
/* s (locked), a dump under HPROFSTRIP_REDACT that cannot be redacted
 * (why, fix: for the line; refuse.h): nothing it held is written, every
 * fd that refers to it is refused, its file removed. Returns with s
 * unlocked. */
void table_refuse(struct session *s, int fd, const char *why,
                  const char *fix);

#endif
