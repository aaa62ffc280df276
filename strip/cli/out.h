/*
 * Output for the offline tools: a 1 MiB buffer (outbuf.h, the one the
 * shim uses too) in front of a file, with in-place patches of bytes
 * already written.
 *
 * A named output is resolved through its symlinks first. A regular or new
 * file is written to a temporary file in the final target's directory and
 * renamed over it only on success, with the input's permission bits less
 * the umask. A device or FIFO is written straight into: in place when it
 * is seekable, else streamed (below). Stdout that is a regular file is
 * written in place (its mode narrowed the same way, cut at the end of the
 * output on success, emptied back to where it started on failure). A
 * non-seekable output (a pipe, a FIFO, a socket, stdout opened O_APPEND)
 * takes the engine's streamed form (HS_STREAM: segments whose lengths are
 * known when written, nothing ever patched): it is written as the output
 * comes, with no spool and bounded memory, and a failed run ends it with a
 * record header that promises more than follows, so no reader takes it for
 * a whole dump.
 */
#ifndef HPROFSTRIP_OUT_H
#define HPROFSTRIP_OUT_H

#include "../io/outbuf.h"

#include <stddef.h>
#include <stdint.h>

enum out_kind {
	OUT_NONE,          /* not open */
	OUT_RENAME,        /* temporary file, renamed over target at commit */
	OUT_INPLACE,       /* stdout, a regular file: patched in place */
	OUT_DIRECT,        /* a seekable device: patched in place */
	OUT_STREAM         /* not seekable: written as it comes (HS_STREAM) */
};

struct out {
	int fd;            /* where bytes go */
	enum out_kind kind;
	int quiet;         /* no messages at all */
	unsigned mode;     /* permission bits a new file gets, less the umask */
	const char *name;  /* for messages: the name given, or "stdout" */
	const char *prog;  /* program name for messages */
	char target[4096]; /* named output after its symlinks */
	char tmp[4096];    /* temporary name while writing a named output */
	uint64_t base;     /* file offset of output byte 0 */
	struct io_outbuf ob;  /* the buffer in front of fd */
	int err;           /* errno of the first failure */
	int text;          /* a text output: a stream that fails gets no
	                      HPROF end (out_abort) */
	int private_;      /* 0600 whatever the input's, and a commit never
	                      replaces a file (link, not rename) */
	int said;          /* out_open's failure was told already */
};

/* path NULL: stdout. mode: the permission bits of the input (0600 when it
 * is not a regular file). quiet: print nothing, even on errors. Then
 * o->kind == OUT_STREAM says the engine must stream (HS_STREAM). */
int out_open(struct out *o, const char *path, const char *prog, unsigned mode,
             int quiet);
/* The same with a buffer of the caller's (out_open's is one, static). */
int out_open_buf(struct out *o, const char *path, const char *prog,
                 unsigned mode, int quiet, void *buf, size_t cap);
int out_write(void *user, const void *buf, size_t len);
int out_patch(void *user, uint64_t off, const void *buf, size_t len);
/* hs_sink.truncate (--salvage): drops the output from off on; a stream
 * cannot take back what went out (-1, ESPIPE). */
int out_truncate(void *user, uint64_t off);
int out_flush(struct out *o);
int out_commit(struct out *o);   /* 0 on success, message printed if not */
void out_abort(struct out *o);
/* The one message for a failed write (o->err), unless quiet. */
void out_report(const struct out *o);

/* A message to stderr, formatted as printf does, in one write: its control
 * characters escaped as ls -b does (escape.h), but for a last newline,
 * so that a file name cannot break a message's line. */
void cli_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
