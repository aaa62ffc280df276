/*
 * Inside dump tracking (hprofstrip.h): a runtime's gzip dump
 * (-XX:HeapDumpGzipLevel, jcmd GC.heap_dump -gz) inflated as it is
 * written. The C library has no inflate, so `gzip -dc` from PATH does it,
 * (igzip -dc, ISA-L's, when it is there: twice as fast), a child started
 * with pipe_spawn when the dump's first bytes show gzip:
 * the runtime's bytes go to its stdin (a socket: no SIGPIPE), and what it
 * writes comes back on a pipe, within the same call, to be stripped as
 * the runtime's plain dump would be (session.c). Memory: the buffer
 * below, whatever the dump's size. Not an interface for anyone else.
 */
#ifndef HPROFSTRIP_INFLATE_H
#define HPROFSTRIP_INFLATE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct inflater {
	pid_t pid;            /* gzip -dc, 0 when none */
	int in, out;          /* our ends of its stdin and its stdout */
	int status, reaped;
	int err;              /* the first failure, sticky (an errno) */
	uint64_t fed, got;    /* bytes given it, bytes it gave back */
	const char *what;     /* "igzip -dc" or "gzip -dc", for messages */
	unsigned char buf[64u * 1024];
};

/* What comes back, len bytes, to the caller's put. */
typedef void (*inflate_put)(void *user, const void *buf, size_t len);

/* Starts gzip -dc. 0, or an errno (nothing started). errno kept. */
int inflate_start(struct inflater *f);
/* len bytes of the runtime's gzip stream in; what comes back meanwhile
 * goes to put. 0, or an errno (f->err: the child failed). */
int inflate_push(struct inflater *f, const void *buf, size_t len,
                 inflate_put put, void *user);
/* The stream's end: the rest comes back to put, and the child is waited
 * for. 0 if it exited 0; else -1 and why in msg. */
int inflate_end(struct inflater *f, inflate_put put, void *user, char *msg,
                size_t size);
/* Kills and waits for the child (the dump started over, or the process
 * forked: forget=1 only closes our ends). */
void inflate_stop(struct inflater *f, int forget);

#endif
