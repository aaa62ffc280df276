/*
 * A patchable output buffer: the one place where engine output meets a
 * file, shared by the shim and the offline tools. It is the engine's sink
 * (io_ob_write, io_ob_patch): bytes collect in caller-owned memory and go
 * to the file with the caller's pwrite function at base + their output
 * offset; a patch of bytes still in the buffer is a memcpy, of bytes
 * already in the file one pwrite. No allocation, no global state; the
 * caller chooses when to flush (the shim before each intercepted call
 * returns, the tools when the buffer fills).
 */
#ifndef HPROFSTRIP_OUTBUF_H
#define HPROFSTRIP_OUTBUF_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The file's writer: pwrite of len bytes of buf at off to fd; user is
 * what the buffer's owner gave io_ob_init (its own state, or NULL). */
typedef ssize_t (*io_pwrite_fn)(void *user, int fd, const void *buf,
                                size_t len, int64_t off);

struct io_outbuf {
	io_pwrite_fn pwrite;   /* the file's writer */
	void *user;            /* ... its first argument */
	int fd;                /* the file (may change between calls) */
	uint64_t base;         /* file offset of output byte 0 */
	uint64_t flushed;      /* output bytes already in the file */
	unsigned char *buf;    /* caller's memory, cap bytes */
	size_t cap, len;       /* size of buf; bytes in it */
	int err;               /* errno of the first failed write, sticky */
};

void io_ob_init(struct io_outbuf *o, io_pwrite_fn pwrite, void *user,
                int fd, uint64_t base, void *buf, size_t cap);
/* hs_sink.write: appends; writes of at least cap / 2 bytes go straight to
 * the file after what is buffered. */
int io_ob_write(void *o, const void *buf, size_t len);
/* hs_sink.patch: overwrites len output bytes at output offset off. */
int io_ob_patch(void *o, uint64_t off, const void *buf, size_t len);
/* Drops the output from offset off on: what is buffered goes; what is in
 * the file already stays there, to be written over (the caller cuts the
 * file). Later writes go on at off. */
void io_ob_truncate(struct io_outbuf *o, uint64_t off);
/* Writes what is buffered. 0, or -1 with o->err set. */
int io_ob_flush(struct io_outbuf *o);
/* Output bytes so far, buffered or not. */
uint64_t io_ob_size(const struct io_outbuf *o);

/* pwrite until done, retrying short writes and EINTR: 0, or an errno. */
int io_pwrite_full(io_pwrite_fn pw, void *user, int fd, const void *buf,
                   size_t len, uint64_t off);

#endif
