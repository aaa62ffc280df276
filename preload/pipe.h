/*
 * A dump's compressor or filter (HPROFSTRIP_COMPRESS, HPROFSTRIP_FILTER):
 * a child started with posix_spawn when the dump starts, fed the stripped
 * stream on its stdin, and waited for when the dump ends. Part of dump
 * tracking (session.c): it reaches the C library through hst (libc.h)
 * for the calls the shim wraps.
 *
 * The child's stdin is a socket, so a send never raises SIGPIPE in the
 * runtime. The shim keeps the child's end open too: when the child has
 * exited, the bytes it never read are still there to count, and only a
 * child that read every byte and exited 0 has taken the dump (a filter
 * that exits 0 without reading, `sleep 2`, has not). Sends wait for room
 * with poll and see a child that died with waitpid. Its stdin
 * and output file are close-on-exec in the runtime and closed there once
 * the child has them, so the runtime's fd table is as it was; the child
 * gets default signal dispositions and an empty signal mask, and its own
 * fds beyond 0-2 closed where the C library can (glibc >= 2.34).
 */
#ifndef HPROFSTRIP_PIPE_H
#define HPROFSTRIP_PIPE_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <pthread.h>
#include <sys/types.h>

#define PIPE_BUF_SIZE (64u * 1024)

struct pipe_out {
	pid_t pid;              /* the child, 0 when none */
	int sock;               /* our end of its stdin */
	int peer;               /* its end, kept open here, so that what it
	                           left unread can be counted when it is
	                           gone (a send to it then never fails: its
	                           death is seen with waitpid) */
	int status;             /* its wait status, once reaped */
	int reaped;             /* ... reaped already (it died early) */
	int err;                /* the first send that failed: its errno */
	uint64_t sent;          /* bytes it took */
	char dump[PATH_MAX];    /* the dump's path, absolute */
	char out[PATH_MAX + 8]; /* <dump>.zst (.gz, .xz); "" for a filter */
	char what[32];          /* "zstd -1", "filter": for messages */
	int gz_level;           /* a runtime's gzip dump: its level (the
	                           child is gzip at it, unless
	                           HPROFSTRIP_COMPRESS says otherwise) */
	int replace;            /* ... out is renamed over the dump */
	dev_t dev;              /* the dump file, to remove only that file */
	ino_t ino;
	size_t len;             /* bytes in buf */
	unsigned char buf[PIPE_BUF_SIZE];
};

/* posix_spawn of argv (through sh, a path, or argv[0] found on PATH),
 * stdin in, stdout out (-1: the caller's), stderr /dev/null if quiet (its
 * caller says what came of it), default signals, an empty mask, fds past
 * 2 closed where the C library can. 0 or an errno. */
int pipe_spawn(pid_t *pid, const char *sh, char *const argv[], char **env,
               int in, int out, int quiet);
/* Does the policy ask for a child (then the engine streams)? A value not
 * understood is said once. */
int pipe_wanted(void);
/* A dump at path (dirfd: what a relative path is relative to) opens. */
void pipe_prepare(struct pipe_out *p, int dirfd, const char *path);
/* Its first write, to fd: starts the child. 1: started; 0: nothing asked
 * for; -1: it could not start (said on stderr: the stripped dump is
 * written to the file, as without a child). */
int pipe_start(struct pipe_out *p, int fd);
/* The next bytes of the stripped stream. A child that stopped taking
 * them is noted (p->err) and sent no more. */
void pipe_send(struct pipe_out *p, const void *buf, size_t len);
/* End of stream: closes its stdin and waits, with unlock (if not NULL:
 * the caller's lock, held) let go of meanwhile. 0 if the child read every
 * byte and exited 0; else -1, its output file removed, and why in msg. */
int pipe_finish(struct pipe_out *p, char *msg, size_t size,
                pthread_mutex_t *unlock);
/* Start over (the runtime truncated the dump to 0): the child is killed
 * and waited for, its output removed. */
void pipe_abort(struct pipe_out *p);
/* In a forked child: the parent's child is not ours; close our end. */
void pipe_forget(struct pipe_out *p);
/* p->replace: the child's output renamed over p->dump, if that is still
 * the dump's file. 0, or -1: its output removed. errno kept. */
int pipe_replace_dump(struct pipe_out *p);
/* Removes the dump's file at p->dump if it is still the file fd is (fd
 * < 0: the file it was at start), emptied first through fd. */
void pipe_remove_dump(struct pipe_out *p, int fd);

#endif
