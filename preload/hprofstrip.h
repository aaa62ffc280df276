/*
 * hprofstrip.h: dump tracking as a library, for a process that hooks its
 * runtime's I/O itself (an Android app's PLT hook on libart.so, with
 * bytehook or xhook) instead of preloading libhprofstrip.so. Link
 * libhprofstrip.a; nothing else of the library is visible (its engine's
 * names are local to the archive's one object).
 *
 * The library never calls the hooked functions by name: the real I/O
 * functions are passed in once (hst_setup). Then the hook tells it about
 * each call on the runtime's fds:
 *
 *   open      make the real call, then hst_opened() (the file's name
 *             decides: HPROFSTRIP_PATTERN, by default *.hprof), or
 *             hst_begin() (the hook decides the fd is a dump)
 *   write     hst_write() first; if it returns 0, make the real call
 *   pwrite*   likewise, with the offset; writev/pwritev*: hst_writev()
 *   lseek*    hst_lseek() first; ftruncate*: hst_ftruncate();
 *             sendfile, copy_file_range: hst_copy()
 *   dup       make the real call, then hst_dup(); dup2/dup3: hst_replace()
 *             before the real call, hst_dup() after it
 *   close     hst_close() before the real call
 *
 * Each call that takes a result pointer returns 1 when fd is a dump and
 * the call was handled here: the result is set (what the real call would
 * return: -1 on failure, with errno set; errno left alone on success),
 * and the hook returns it without making the real call. It returns 0 when
 * fd is not a dump: the hook makes the real call. Every fd that is not a
 * dump sees exactly the calls it would see without the hook.
 *
 * The dump is stripped as it is written (see libhprofstrip(7));
 * each call's output is in the file before the call returns. A summary
 * line goes to stderr, or to the file HPROFSTRIP_LOG names
 * (HPROFSTRIP_QUIET=1: none). Memory: no malloc, nothing allocated per
 * object or per call, and nothing before the first dump. At most 16
 * dumps open at once, and an fd table for fds below 65536. A pool slot's
 * session (about 140 KB) is mapped (anonymous mmap) when a dump first
 * needs that slot; its layers' memory is mapped by the slot's first dump
 * that asks for them: HPROFSTRIP_KEEP=strings 0.9 MiB, HPROFSTRIP_REDACT
 * 9.1 MiB, HPROFSTRIP_COMPRESS or _FILTER (or a FIFO) 4.1 MiB,
 * HPROFSTRIP_HISTO (on by default) 36.3 MiB of address space, of which
 * only the pages a dump's classes touch are backed, and those are given
 * back (MADV_DONTNEED) once its histogram is written; so at most about
 * 49.6 MiB a slot (redaction drops keep); a plain strip with
 * HPROFSTRIP_HISTO=no maps only the session. All of it is kept for the
 * slot's later dumps. With
 * HPROFSTRIP_REDACT, a dump past the pool (or one that cannot be
 * redacted, as a gzip stream) fails closed: see HPROFSTRIP_REDACT in
 * libhprofstrip(7).
 * Thread-safe, except hst_setup. Not async-signal-safe: a call made by a
 * signal handler that interrupted its thread inside one of these calls
 * would wait for a lock that very thread holds. A hook that can be
 * entered so keeps a per-thread flag around its hst_* calls, as
 * libhprofstrip.so does: a write to a dump made while the flag is set
 * fails (EDEADLK) without a byte written, any other call goes to the real
 * function. Example: examples/android/hook-example.c.
 */
#ifndef HPROFSTRIP_H
#define HPROFSTRIP_H

/* The API this header declares; hst_api_version() is the library's.
 * 2 added hst_idle and hst_idle_close. */
#define HPROFSTRIP_API_VERSION 2

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

#ifndef HPROFSTRIP_API
#define HPROFSTRIP_API __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The real I/O functions, as the library calls them: offsets and lengths
 * are 64 bits whatever off_t is (on 32-bit Android, pass functions that
 * call pwrite64, lseek64, ftruncate64). None may be NULL. */
struct hst_io {
	/* the dumps' output */
	ssize_t (*pwrite)(int fd, const void *buf, size_t len, int64_t off);
	ssize_t (*pread)(int fd, void *buf, size_t len, int64_t off);
	ssize_t (*read)(int fd, void *buf, size_t len);
	int64_t (*lseek)(int fd, int64_t off, int whence);
	int (*ftruncate)(int fd, int64_t len);
	int (*fcntl)(int fd, int cmd, unsigned long arg);
	/* a compressor's output file (HPROFSTRIP_COMPRESS), its fds */
	int (*open)(const char *path, int flags, int mode);
	int (*close)(int fd);
};

/* HPROFSTRIP_API_VERSION of the library linked in. */
HPROFSTRIP_API int hst_api_version(void);

/* Once, before any other call and before the hooks are installed: io is
 * copied. In a process that forks, also
 * pthread_atfork(hst_fork_prepare, hst_fork_parent, hst_fork_child). */
HPROFSTRIP_API void hst_setup(const struct hst_io *io);

/* After a successful open of path (relative to dirfd: AT_FDCWD for open)
 * with flags gave fd: tracks fd if path names a dump (HPROFSTRIP_PATTERN)
 * and flags write it afresh. fd < 0 (a failed open) is ignored. */
HPROFSTRIP_API void hst_opened(int fd, int dirfd, const char *path,
                               int flags);
/* After the real open of a dump the hook recognised itself (whatever its
 * name): fd is a regular file opened for writing, created or truncated,
 * at offset 0; path is for messages. Returns 1 when fd is tracked now, 0
 * when it is not (fd < 0, not a regular file, 16 dumps open already): it
 * is then written as it comes, except with HPROFSTRIP_REDACT, where a
 * dump that cannot be tracked is refused: its file is removed and
 * hst_write (and the others) handle each of its writes as a failure,
 * EPERM. */
HPROFSTRIP_API int hst_begin(int fd, const char *path);

/* Before a write of buf (len bytes) to fd: 1 when it is none of dump
 * tracking's (fd is no dump, is not refused, and buf cannot start one):
 * make the real call, and no other hst_ call for it. A few loads; for
 * the hooks' fast path. 0: call hst_write (or hst_writev). */
HPROFSTRIP_API int hst_idle(int fd, const void *buf, size_t len);

/* Before close: 1 when fd is none of dump tracking's (no dump, not
 * refused): what the table knew of it is forgotten; make the real call,
 * and no hst_close. 0: call hst_close. */
HPROFSTRIP_API int hst_idle_close(int fd);

/* Before a write (at < 0: at fd's position, which moves) or a pwrite
 * (at >= 0) of buf to fd. 1: handled, *ret is the call's result; 0: make
 * the real call. */
HPROFSTRIP_API int hst_write(int fd, const void *buf, size_t len, int64_t at,
                             ssize_t *ret);
/* Before writev or pwritev, likewise. */
HPROFSTRIP_API int hst_writev(int fd, const struct iovec *iov, int cnt,
                              int64_t at, ssize_t *ret);
/* Before lseek: 1 with the new position (of the dump as the runtime wrote
 * it) in *ret, or 0. */
HPROFSTRIP_API int hst_lseek(int fd, int64_t off, int whence, int64_t *ret);
/* Before ftruncate: 1 with the call's result in *ret, or 0. */
HPROFSTRIP_API int hst_ftruncate(int fd, int64_t len, int *ret);
/* Before sendfile (out_off NULL) or copy_file_range into out_fd: in_fd's
 * bytes as the next ones written. in_off NULL: in_fd's position. 1 with
 * the call's result in *ret, or 0. */
HPROFSTRIP_API int hst_copy(int out_fd, int in_fd, int64_t *in_off,
                            int64_t *out_off, size_t len, ssize_t *ret);
/* Before the real close of fd: ends its dump if fd was the last fd to
 * refer to it. Returns 0, or the errno of a last write that failed: the
 * hook then returns -1 with that errno if the real close succeeded (the
 * fd is closed, but the dump's end did not reach the file). */
HPROFSTRIP_API int hst_close(int fd);
/* After a dup (or fcntl F_DUPFD) gave newfd from oldfd. */
HPROFSTRIP_API void hst_dup(int oldfd, int newfd);
/* Before dup2/dup3 of oldfd onto newfd, which closes newfd (then
 * hst_dup(oldfd, newfd) after it, if it succeeded). */
HPROFSTRIP_API void hst_replace(int oldfd, int newfd);

/* pthread_atfork handlers: a forked child forgets its parent's dumps. */
HPROFSTRIP_API void hst_fork_prepare(void);
HPROFSTRIP_API void hst_fork_parent(void);
HPROFSTRIP_API void hst_fork_child(void);

#ifdef __cplusplus
}
#endif

#endif
