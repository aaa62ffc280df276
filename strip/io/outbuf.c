/* The patchable output buffer: see outbuf.h. */
#include "outbuf.h"

#include <errno.h>
#include <string.h>

int io_pwrite_full(io_pwrite_fn pw, void *user, int fd, const void *buf,
                   size_t len, uint64_t off)
{
	const unsigned char *p = buf;

	while (len) {
		ssize_t n = pw(user, fd, p, len, (int64_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? errno : EIO;
		p += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

void io_ob_init(struct io_outbuf *o, io_pwrite_fn pwrite, void *user,
                int fd, uint64_t base, void *buf, size_t cap)
{
	memset(o, 0, sizeof *o);
	o->pwrite = pwrite;
	o->user = user;
	o->fd = fd;
	o->base = base;
	o->buf = buf;
	o->cap = cap;
}

/* Writes len bytes at output offset off of the file; 0 or -1. */
static int put(struct io_outbuf *o, const void *buf, size_t len, uint64_t off)
{
	int e;

	if (o->err)
		return -1;
	e = io_pwrite_full(o->pwrite, o->user, o->fd, buf, len, o->base + off);
	if (e) {
		o->err = e;
		return -1;
	}
	return 0;
}

int io_ob_flush(struct io_outbuf *o)
{
	if (o->len && put(o, o->buf, o->len, o->flushed))
		return -1;
	o->flushed += o->len;
	o->len = 0;
	return o->err ? -1 : 0;
}

int io_ob_write(void *user, const void *buf, size_t len)
{
	struct io_outbuf *o = user;
	const unsigned char *p = buf;

	if (o->err)
		return -1;
	if (len >= o->cap / 2) {
		if (io_ob_flush(o) || put(o, buf, len, o->flushed))
			return -1;
		o->flushed += len;
		return 0;
	}
	while (len) {
		size_t k = o->cap - o->len;
		if (k > len)
			k = len;
		memcpy(o->buf + o->len, p, k);
		o->len += k;
		p += k;
		len -= k;
		if (o->len == o->cap && io_ob_flush(o))
			return -1;
	}
	return 0;
}

void io_ob_truncate(struct io_outbuf *o, uint64_t off)
{
	if (off >= o->flushed) {
		if (off - o->flushed < o->len)
			o->len = (size_t)(off - o->flushed);
		return;
	}
	o->len = 0;
	o->flushed = off;
}

int io_ob_patch(void *user, uint64_t off, const void *buf, size_t len)
{
	struct io_outbuf *o = user;
	const unsigned char *p = buf;

	if (o->err)
		return -1;
	if (off > io_ob_size(o) || len > io_ob_size(o) - off) {
		o->err = EINVAL;  /* only bytes already written are patched */
		return -1;
	}
	if (off < o->flushed) {
		size_t k = o->flushed - off < len ? (size_t)(o->flushed - off) : len;
		if (put(o, p, k, off))
			return -1;
		p += k;
		len -= k;
		off += k;
	}
	if (len)
		memcpy(o->buf + (off - o->flushed), p, len);
	return 0;
}

uint64_t io_ob_size(const struct io_outbuf *o)
{
	return o->flushed + o->len;
}
