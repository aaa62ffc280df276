/*
 * Inside dump tracking (hprofstrip.h): one dump's session. Its files,
 * each calling only those below it (tests/circles.sh):
 *   calls.c      what each call of the runtime's does to it (write,
 *                lseek, ftruncate, copy, the vetting of the header)
 *   feed.c       the engine feed, and its end (finish, let go, lost)
 *   summary.c    what it says at the end
 *   rawdump.c    the bytes kept as the runtime wrote them (a sealed
 *                segment, a gzip dump)
 *   session.c    its start (and start over) and its output (flush, the
 *                compressor or filter child)
 *   tables.c     the tables each feature asks for (HPROFSTRIP_KEEP,
 *                _REDACT and its names map, a child's buffer)
 *   histofile.c  the histogram beside the dump Their functions take
 * a session, called with its lock held (api.c's session_call takes and
 * releases it); which fd is which session is the fd table's (fdtable.h).
 * Not an interface for anyone else.
 */
#ifndef HPROFSTRIP_SESSION_H
#define HPROFSTRIP_SESSION_H

#include "../strip/engine/hprof.h"
#include "../strip/io/outbuf.h"
#include "../strip/io/namesmap.h"
#include "inflate.h"
#include "libc.h"
#include "pipe.h"
#include "policy.h"
#include "hprofstrip.h"

#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

/* The most Linux writes in one call (MAX_RW_COUNT): a longer write is
 * short */
#define RW_MAX ((size_t)0x7ffff000u)
#define OUT_BUF (64u * 1024)
#define IN_BUF (64u * 1024)

enum { S_FREE, S_MAIN, S_SEGMENT };

/* The sealed segment files a dump's main file can read back: more
 * dumpers than this (HotSpot's: 3/8 of the cpus) are refused */
#define MAX_SEALS 128

/* How a session judges the dump's first bytes before anything of it is
 * written (s->vet): not at all (a JDK 22 .pN file has no header), for
 * an HPROF header (not gzip, not something else), or also for its stamp:
 * a process that hosts a runtime strips that runtime's dumps only, and a
 * runtime stamps its dump's header with the time the dump began, so a
 * header stamped before the process began is a copy of an older dump
 * (Files.copy, an uploader). */
enum { VET_NONE, VET_MAGIC, VET_STAMP };

struct session {
	unsigned slot;           /* its place in the fd table's pool */
	int kind;
	int refs;                /* fds that refer to it */
	int leaving;             /* let go of (api.c) or ending (fdtable.c:
	                            end_last): no call of a thread that
	                            waited for its lock is its, and no
	                            segment's; atomic, set under its lock,
	                            cleared when the table frees it */
	pid_t pid;               /* the process that tracks it (vfork) */
	pthread_mutex_t lock;
	char path[256];          /* for messages (may be cut) */
	char base[PATH_MAX];     /* the dump's path (a segment's: without .pN) */
	struct hs_state st;
	struct io_outbuf ob;     /* the engine's sink, into the file */
	uint64_t voff;           /* the runtime's file position */
	uint64_t ext;            /* ftruncate past the end: zeros up to here */
	int warned;              /* a fallback or a lost rewrite was reported */
	int trunc_at_end;        /* file had old content: cut it at close */
	uint64_t seg_in, seg_out, seg_arrays; /* merged .pN segments */
	uint64_t seg_withheld;   /* ... HPROFSTRIP_REDACT: instances
	                            withheld (the main file counts the
	                            redacted ones again as they merge) */
	struct session *main;    /* segment: its main file, if open */
	struct strings_mem *strings; /* HPROFSTRIP_KEEP=strings: its
	                            tables, mapped at its first dump, then
	                            reused */
	struct redact_mem *red;  /* HPROFSTRIP_REDACT: likewise */
	int map_fd;              /* HPROFSTRIP_REDACT=names: the names map
	                            (PATH.names), opened at the first name
	                            tokenized; -1: not open */
	int map_failed;          /* ... it could not be created (said) */
	char map_path[PATH_MAX + 16]; /* ... its path: PATH.names, or the
	                            first free PATH.names.N */
	struct io_outbuf map_ob; /* ... its buffer (in red) */
	struct io_namesmap map;
	struct histo_mem *hm;    /* HPROFSTRIP_HISTO: the class histogram's
	                            tables, mapped at the slot's first
	                            dump, their pages given back after
	                            each (histofile.c) */
	int histo_done;          /* ... this dump's histogram was had (or
	                            tried): never twice */
	int histo_written;       /* ... and its file written */
	char histo_path[PATH_MAX + 8]; /* ... <dump>.histo, absolute; "": too
	                            long */
	char top[256];           /* ... its top three classes by bytes, for
	                            the close line; "": none */
	struct pipe_mem *pm;     /* HPROFSTRIP_COMPRESS or _FILTER: the
	                            segment buffer and the child, likewise */
	int fifo;                /* a FIFO: streamed, written in order */
	int vet;                 /* the header is held until judged (the
	                            dump's first bytes, hdr_len of them) */
	int vet_stamp;           /* ... and a stamp before the process began
	                            makes it a copy, not this runtime's */
	unsigned hdr_len;
	unsigned char hdr[HDR_MAX];
	int segments;            /* JDK 22 .pN files of it were opened */
	struct inflater *inf;    /* a runtime's gzip dump: gzip -dc (mapped
	                            at the slot's first such dump) */
	int gz;                  /* this dump is a runtime's gzip stream,
	                            inflated and stripped (inflate.h) */
	int gz_pending;          /* ... session_start makes it so */
	int gz_level;            /* ... its level, from the gzip header */
	int gz_failed;           /* ... given up on under HPROFSTRIP_REDACT:
	                            its file is removed at the end */
	uint64_t gz_in;          /* ... the runtime's bytes so far */
	struct file_id gz_file;  /* ... its file, as its first write found it */
	int gz_judged;           /* ... its inflated header: 0 not yet,
	                            1 this runtime's dump, -1 not (then
	                            the file is all there is) */
	uint64_t raw_len;        /* a sealed segment's or a gzip dump's
	                            file: its length (the bytes as the
	                            runtime wrote them, sealed or not) */
	unsigned gz_head_len;    /* ... the inflated bytes held to judge */
	unsigned char gz_head[HDR_MAX];
	char dump[PATH_MAX];     /* main: the dump's path as opened,
	                            absolute where it can be */
	int sealed;              /* HPROFSTRIP_REDACT: a segment written
	                            enciphered (seal.h), not stripped: its
	                            main redacts it at the merge */
	uint64_t nonce;          /* ... its key stream's */
	unsigned nseals;         /* main: its sealed segment files */
	struct seal_file {
		uint64_t dev, ino, nonce;
	} seals[MAX_SEALS];
	int piped;               /* this dump streams to pm->pipe */
	int pipe_pending;        /* ... from its first write on */
	unsigned char buf[OUT_BUF];
	unsigned char in[IN_BUF];  /* sendfile/copy_file_range staging */
};

/* HPROFSTRIP_COMPRESS or _FILTER: the engine streams (HS_STREAM) into
 * seg, and its output goes both to the file (the plain stripped dump, kept
 * if the child fails) and to the child. */
struct pipe_mem {
	unsigned char seg[HS_STREAM_BUF];
	struct pipe_out pipe;
};

/* When this process began to be tracked (ms since the epoch): a dump
 * stamped before it is a copy, not its runtime's (policy_header). Set by
 * hst_setup. */
extern uint64_t hst_born_ms;

/* ---- session.c (life and output) and feed.c (the feed, the end) -------- */

/* Starts a dump of kind S_MAIN or S_SEGMENT in s: path for messages, base
 * the dump's (a segment's main dump's), dump the path as opened (relative
 * to dirfd) for a child's output; vet: VET_*; fifo: a FIFO. */
void session_start(struct session *s, int kind, const char *path,
                   const char *base, unsigned idsize, int dirfd,
                   const char *dump, int vet, int fifo);
/* HPROFSTRIP_REDACT: seg, a segment of main's just opened as fd, is
 * sealed (seal.h), and main can read it back. 0, or -1: it cannot be
 * (no key, main has MAX_SEALS already); errno kept. main not locked. */
int session_seal(struct session *main, struct session *seg, int fd);
/* The nonce of s's sealed segment that fd reads, or 0 (s locked). */
uint64_t session_sealed(const struct session *s, int fd);
/* s (locked, vetting) turns out to hold a gzip stream (its first bytes
 * in s->hdr): from now on its bytes go to the file as they come (sealed
 * under HPROFSTRIP_REDACT) and to gzip -dc; what that gives back, once
 * its header shows this runtime's dump, is stripped and compressed as
 * gzip at the stream's level (or through HPROFSTRIP_COMPRESS) into a
 * file that takes the dump's place when both are whole. 0, or -1: it
 * cannot be (no gzip, no memory, a FIFO; s as it was). */
int session_gz_begin(struct session *s);
/* Start over: ftruncate(fd, 0). */
void session_restart(struct session *s);
/* A write of len bytes at virtual offset at, through the engine, flushed
 * to fd. Returns 0 or an errno. */
int session_feed(struct session *s, int fd, const void *buf, size_t len,
                 uint64_t at);
/* The same, not flushed: what is buffered waits for session_flush (one
 * flush for a writev's vectors). Returns 0 or an errno (s->ob.err). */
int session_put(struct session *s, int fd, const void *buf, size_t len,
                uint64_t at);
/* Writes the session's buffered output to fd; 0, or -1 (s->ob.err). */
int session_flush(struct session *s, int fd);
/* s is no dump of this runtime's (vetting): the bytes held go to the
 * file as written (at 0), fd's position where the program left it, and
 * nothing more is held. */
void session_let_go(struct session *s, int fd);
/* The dump's last fd is being closed (fd: that fd, still open): the dump
 * ends. Called by the table (fdtable.c: end_ref) with s's lock held and
 * leaving set, the table's lock not held; s's lock is let go of while its
 * child is waited for. The table frees s after. */
void session_finish(struct session *s, int fd);
/* The dump's last fd was closed behind the shim's back: the dump ends
 * where the runtime's last write left it (called as session_finish). */
void session_lost(struct session *s);
/* In a forked child: the dump is the parent's; s is free. */
void session_forget(struct session *s);

/* ---- session.c's own, for the files above it ----------------------- */

/* Says once that the engine fell back to copying verbatim. */
void report(struct session *s);
/* The dump's first write, to fd: its child starts (pipe_pending). */
void start_child(struct session *s, int fd);
/* A FIFO's writer (io_pwrite_fn): no offsets, the bytes in order. */
ssize_t fifo_write(void *user, int fd, const void *buf, size_t len,
                   int64_t off);

/* ---- tables.c: each feature's tables, mapped once per slot ------------ */

/* size bytes of zeroed memory, mapped; NULL if there is none, said once a
 * process through *told (what: the line after path). errno kept. */
void *tables_map(size_t size, int *told, const char *path,
                 const char *what);
/* HPROFSTRIP_KEEP: the engine's tables for s's next dump (kind), zeroed,
 * in k, and its flags (HS_KEEP_*); 0: none (not wanted, a .pN file,
 * HPROFSTRIP_REDACT, no memory: said once). */
unsigned keep_tables(struct session *s, int kind, struct hs_keep *k);
/* HPROFSTRIP_REDACT: 1 if s's next dump is redacted, its tables (zeroed)
 * in r (all NULL: no memory, said once: every field zeroed). */
int redact_tables(struct session *s, struct hs_redact *r);
/* HPROFSTRIP_REDACT=names: 1 if s's next dump (kind) tokenizes names, the
 * engine's configuration in n; the map beside the dump is made at the
 * first name. */
int names_tables(struct session *s, int kind, struct hs_names *n);
/* How the names map is closed: dropped (a child's copy of the parent's);
 * written out; removed (the dump started over: the file made for it goes,
 * and the dump's map is made anew). errno kept. */
enum { MAP_DROP, MAP_DONE, MAP_REMOVE };
void map_close(struct session *s, int how);
/* HPROFSTRIP_COMPRESS or _FILTER, or a FIFO: the segment buffer and the
 * child's state for s's next dump; NULL if not wanted or not to be had
 * (said). */
struct pipe_mem *pipe_tables(struct session *s, int kind, int fifo);

/* ---- rawdump.c: bytes as the runtime wrote them ------------------------- */

/* A sealed segment's or a gzip dump's bytes at at, to the file as they
 * come (zeros from its end up to at), sealed if s->nonce. 0 or an errno
 * (s->ob.err). */
int put_raw(struct session *s, int fd, const unsigned char *b, size_t len,
            uint64_t at);
/* A gzip dump's bytes at at: to the file, and inflated in order into the
 * engine. 0 or an errno. */
int put_gz(struct session *s, int fd, const void *buf, size_t len,
           uint64_t at);
/* A gzip stream's end: 0, stripped; -1, the file as written is the dump
 * (or, failed closed, none: s->gz_failed). */
int gz_end(struct session *s, int fd);
/* A gzip dump that fails closed: its file removed while its path is
 * still that file (fd -1: closed, by the identity its first write
 * found). errno kept. */
void gz_remove(struct session *s, int fd);
/* A gzip dump's child has had every byte: its output takes the dump's
 * place, or goes, said. fd: the dump's, or -1 (closed already). */
void gz_end_child(struct session *s, int fd);

/* ---- histofile.c: the class histogram (HPROFSTRIP_HISTO) ------------------ */

/* The engine's tables for s's next dump (kind), zeroed; NULL when not
 * wanted (HPROFSTRIP_HISTO=no, a .pN file) or not to be had (no memory,
 * said once). errno kept. */
struct hs_histo *histo_tables(struct session *s, int kind);
/* s->histo_path: <dump>.histo for s's dump (a relative path made
 * absolute against dirfd). */
void histo_path(struct session *s, int dirfd);
/* The dump's end: its histogram (cut: the counts are of the bytes before
 * cut_at) written to s->histo_path, s->top set; once a dump, and only if
 * it was counted. errno kept. */
void histo_end(struct session *s, int cut, uint64_t cut_at);

/* HPROFSTRIP_SUSPECTS (suspects.c): once s's dump closed whole, a child
 * that writes <dump>.suspects, never waited for; the children ended,
 * reaped (suspects_reap, never blocking) */
void suspects_start(struct session *s);
void suspects_reap(void);
/* The process exits with s's dump open: its histogram of what came,
 * marked cut there, said; s stays as it is (a thread may still write). */
void histo_exit(struct session *s);

/* ---- summary.c ---------------------------------------------------------- */

/* A main dump's end: its summary lines (bytes in and out, what was kept,
 * redacted, tokenized, withheld), said. */
void session_summary(const struct session *s);

/* ---- calls.c: each call of the runtime's -------------------------------- */

/* Each takes s locked and leaves it locked: the caller (api.c's
 * session_call) takes and releases the lock. What a call did: CALL_DONE,
 * the call was made in the dump (its result in c->ret, errno set as the
 * real call's); CALL_PASS, the caller makes the real call; CALL_LET_GO, s
 * is no dump of this runtime's: the caller lets go of it (c->why.line,
 * or NULL, to say after its path), then makes the real call; but with
 * c->why.fix set (HPROFSTRIP_REDACT, and a dump that cannot be redacted),
 * the caller refuses it (refuse.h, with why.line and why.fix) and the
 * call fails (ftruncate: is made). */
enum { CALL_DONE, CALL_PASS, CALL_LET_GO };

struct why {
	const char *line;
	const char *fix;
	char buf[160];
};

/* One call of the runtime's on a dump's fd: what it asks, what it got. */
struct call {
	const struct iovec *iov;   /* write: cnt vectors */
	int cnt;
	int64_t at;                /* ... at at (-1: at fd's position,
	                              which moves) */
	int64_t off;               /* lseek: the offset; ftruncate: the
	                              length (>= 0) */
	int whence;                /* lseek: SEEK_SET, SEEK_CUR or SEEK_END */
	int in_fd;                 /* copy: len bytes of in_fd at *in_off */
	int64_t *in_off, *out_off; /* ... (NULL: at its position) to fd at
	                              *out_off (NULL: at fd's position) */
	size_t len;
	int64_t ret;               /* CALL_DONE: the call's return value */
	struct why why;            /* CALL_LET_GO: why */
};

typedef int (*session_call_fn)(struct session *s, int fd, struct call *c);

/* write, pwrite, writev, pwritev. */
int session_write(struct session *s, int fd, struct call *c);
/* lseek. */
int session_lseek(struct session *s, int fd, struct call *c);
/* ftruncate. */
int session_ftruncate(struct session *s, int fd, struct call *c);
/* sendfile, copy_file_range (fd: the output). */
int session_copy(struct session *s, int fd, struct call *c);

#endif
