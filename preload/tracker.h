/*
 * Inside dump tracking (hprofstrip.h): the trackers and the fd table, shared by
 * tracker.c (which fds are dumps, and their lifetimes) and write.c (the
 * write path). Not an interface for anyone else.
 */
#ifndef HPROFSTRIP_TRACKER_H
#define HPROFSTRIP_TRACKER_H

#include "../strip/hprof.h"
#include "../strip/outbuf.h"
#include "pipe.h"
#include "policy.h"
#include "hprofstrip.h"

#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>

#define MAX_TRACKERS 16
#define MAX_FD 65536
#define OUT_BUF (64u * 1024)
#define IN_BUF (64u * 1024)

enum { T_FREE, T_MAIN, T_SEGMENT };

struct tracker {
	int kind;
	int refs;                /* fds that refer to it */
	pid_t pid;               /* the process that tracks it (vfork) */
	pthread_mutex_t lock;
	char path[256];          /* for messages (may be cut) */
	char base[PATH_MAX];     /* the dump's path (a segment's: without .pN) */
	struct hs_state st;
	struct hs_outbuf ob;     /* the engine's sink, into the file */
	uint64_t voff;           /* the runtime's file position */
	uint64_t ext;            /* ftruncate past the end: zeros up to here */
	int warned;              /* a fallback or a lost rewrite was reported */
	int trunc_at_end;        /* file had old content: cut it at close */
	uint64_t seg_in, seg_out, seg_arrays; /* merged .pN segments */
	struct tracker *main;    /* segment: its main file, if open */
	struct keep_mem *keep;   /* HPROFSTRIP_KEEP=strings: its tables,
	                            mapped at its first dump, then reused */
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

extern struct hst_io hst;  /* the real I/O functions (hst_setup) */
extern uint64_t hst_born_ms; /* when the process began (hst_setup) */

/* fd's tracker, or NULL. */
struct tracker *tracker_of(int fd);
/* An untracked fd's write of buf at at (-1: its position): the tracker of
 * the dump it starts, if it starts one (sniffing), else NULL. */
struct tracker *tracker_sniff(int fd, const void *buf, size_t len, int64_t at);
/* A write that is not a dump's went to fd (sendfile, copy_file_range):
 * the first write decides, so fd is not sniffed any more. */
void tracker_untracked_write(int fd);
/* t, judged no dump of this runtime's (vetting), lets go of fd and
 * every other fd that refers to it: each is written as it comes from now
 * on. The bytes held so far go to the file first (at 0), and fd's
 * position is set where the program thinks it is. why: the rest of a
 * line to say after the path, or NULL. Called with t->lock held; returns with it released. */
void tracker_let_go(struct tracker *t, int fd, const char *why);
/* Start over: ftruncate(fd, 0). */
void tracker_restart(struct tracker *t);
/* Writes the tracker's buffered output to fd; 0, or -1 (t->ob.err). */
int tracker_flush(struct tracker *t, int fd);
/* The dump's first write, to fd: its child starts (pipe_pending). */
void tracker_first_write(struct tracker *t, int fd);
/* Feeds zeros up to input offset at (the runtime wrote past its end). */
void tracker_gap(struct tracker *t, uint64_t at);
/* Says once that the engine fell back to copying verbatim. */
void tracker_report(struct tracker *t);

#endif
