/*
 * Inside dump tracking (hprofstrip.h): failing closed. With
 * HPROFSTRIP_REDACT, a dump that cannot be redacted (no session for it, an
 * fd past the table, a runtime's own gzip stream, a file written in a way
 * no runtime writes its dump) gets none of its bytes on disk: its file is
 * removed (emptied where it cannot be), every write to its fd fails with
 * EPERM, and one line says why and what to change. Without redaction the
 * callers write such a dump as it comes, as ever. Not an interface for
 * anyone else.
 */
#ifndef HPROFSTRIP_REFUSE_H
#define HPROFSTRIP_REFUSE_H

/* The errno of a refused write: a rule refused it. Not ENOSPC or EIO,
 * which send people to the disk, nor a retried one (EINTR, EAGAIN). */
#define REFUSED_ERRNO EPERM

/* Is redaction asked for (HPROFSTRIP_REDACT)? Then callers refuse. */
int refuse_wanted(void);
/* fd's dump cannot be redacted: why (after the path) and fix (what to
 * change) for the line. path (relative to dirfd), or NULL, names the file
 * as it was opened, should /proc/self/fd not tell. The file is emptied
 * and removed if it is a regular file and is still the one fd refers to
 * (never through a symlink); fd is refused from now on. errno kept. */
void refuse_fd(int fd, int dirfd, const char *path, const char *why,
               const char *fix);
/* fd refused from now on, its file left alone (a copy of a dump's fd
 * that the fd table cannot hold). */
void refuse_mark(int fd);
/* Has fd been refused? A load and a branch while no fd ever was (every
 * process that is not refusing a dump). */
extern int refuse_marked;   /* some fd was refused once (never reset) */
int refused_slow(int fd);
static inline int refused(int fd)
{
	return __atomic_load_n(&refuse_marked, __ATOMIC_ACQUIRE) &&
	       refused_slow(fd);
}
/* fd was closed, or its number handed out again: not refused. */
void refuse_forget(int fd);
/* newfd is a copy of oldfd (dup): refused if oldfd is. */
void refuse_dup(int oldfd, int newfd);

#endif
