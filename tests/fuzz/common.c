/* Shared by the libFuzzer targets: see common.h. */
#include "common.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct hs_keep fz_keep;
int fz_streaming;

void fz_fail(const char *fmt, ...)
{
	va_list ap;

	fputs("fuzz check failed: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

int fz_sink_write(void *user, const void *buf, size_t len)
{
	struct fz_out *o = user;

	if (len > o->limit - o->len) {
		o->over = 1;
		return -1;
	}
	if (o->len + len > o->cap) {
		size_t cap = o->cap ? o->cap : 1 << 16;
		while (cap < o->len + len)
			cap *= 2;
		o->b = realloc(o->b, cap);
		if (!o->b)
			fz_fail("out of memory");
		o->cap = cap;
	}
	memcpy(o->b + o->len, buf, len);
	o->len += len;
	return 0;
}

int fz_sink_patch(void *user, uint64_t off, const void *buf, size_t len)
{
	struct fz_out *o = user;

	if (fz_streaming)
		fz_fail("HS_STREAM output patched at %llu", (unsigned long long)off);
	/* the contract: only bytes already written */
	if (off > o->len || o->len - off < len)
		fz_fail("patch at %llu past the output (%zu bytes)",
		        (unsigned long long)off, o->len);
	memcpy(o->b + off, buf, len);
	return 0;
}

int fz_input(const unsigned char *data, size_t size, const unsigned char **x,
             size_t *n, unsigned *flags, uint32_t *seed)
{
	if (size < FZ_PREFIX)
		return 0;
	*x = data + FZ_PREFIX;
	*n = size - FZ_PREFIX;
	*flags = data[0];
	*seed = (uint32_t)data[1] | (uint32_t)data[2] << 8 |
	        (uint32_t)data[3] << 16;
	return 1;
}

void fz_cuts_init(struct fz_cuts *c, uint32_t seed)
{
	c->s = seed * 0x9E3779B97F4A7C15ull + 1;
	c->whole = seed == 0;
	c->ones = 0;
}

void fz_cuts_ones(struct fz_cuts *c)
{
	c->s = 1;
	c->whole = 0;
	c->ones = 1;
}

size_t fz_next_piece(struct fz_cuts *c, size_t left)
{
	uint64_t r;
	size_t piece;

	if (c->whole)
		return left;
	if (c->ones)
		return left ? 1 : 0;
	c->s ^= c->s << 13;
	c->s ^= c->s >> 7;
	c->s ^= c->s << 17;
	r = c->s;
	/* mostly tiny pieces, some large, some empty feeds */
	if ((r & 0xF0) == 0)
		piece = 0;
	else if ((r & 3) == 0)
		piece = (size_t)(r >> 8) % 4096 + 1;
	else
		piece = (size_t)(r >> 8) % 23 + 1;
	return piece < left ? piece : left;
}

void fz_engine(const unsigned char *in, size_t len, unsigned flags,
               unsigned idsize, struct fz_cuts *c, size_t limit,
               struct hs_census *census, struct fz_run *r)
{
	struct hs_state st;
	struct hs_sink sink;
	size_t pos = 0;
	unsigned empty = 0;

	r->out.len = 0;
	r->out.limit = limit;
	r->out.over = 0;
	sink.write = fz_sink_write;
	sink.patch = fz_sink_patch;
	sink.truncate = NULL;
	sink.user = &r->out;
	if (census)
		memset(census, 0, sizeof *census);
	{
		struct hs_config cfg = { .flags = flags, .idsize = idsize,
		                         .census = census, .keep = &fz_keep };
		if (fz_keep.pending)
			memset(fz_keep.pending, 0,
			       fz_keep.pending_slots * sizeof *fz_keep.pending);
		if (fz_keep.classes)
			memset(fz_keep.classes, 0,
			       fz_keep.class_slots * sizeof *fz_keep.classes);
		static unsigned char *seg;
		if ((flags & HS_STREAM) && !seg && !(seg = malloc(HS_STREAM_BUF)))
			fz_fail("out of memory");
		cfg.seg_buf = seg;
		fz_streaming = (flags & HS_STREAM) != 0;
		hs_init(&st, &cfg, &sink);
	}
	while (pos < len && !st.err) {
		size_t k = c ? fz_next_piece(c, len - pos) : len - pos;
		if (!k && ++empty > 64)  /* a run of empty feeds: move on */
			k = 1;
		if (k)
			empty = 0;
		hs_feed(&st, in + pos, k);
		pos += k;
	}
	if (!st.err)
		hs_finish(&st);
	r->err = st.err;
	r->err_off = st.err_off;
	r->fallback = st.fallback;
	r->fallback_off = st.fallback_off;
	r->fb_in = st.fb_in;
	r->fb_out = st.fb_out;
	r->in_off = st.in_off;
	r->out_off = st.out_off;
	r->arrays = st.arrays;
	r->elem_bytes = st.elem_bytes;
	r->records = st.records;
	r->kept = st.kept;
	r->kept_bytes = st.kept_bytes;
	r->idsize = st.idsize;
	r->version = st.version;
	if (!st.err && st.out_off != r->out.len)
		fz_fail("out_off %llu, but %zu bytes written",
		        (unsigned long long)st.out_off, r->out.len);
	/* a sticky error stops the engine where it says */
	if (st.err && st.err != HS_E_EMIT && st.err_off > st.in_off)
		fz_fail("error offset %llu past the input consumed (%llu)",
		        (unsigned long long)st.err_off,
		        (unsigned long long)st.in_off);
}

void fz_same_bytes(const unsigned char *a, size_t alen,
                   const unsigned char *b, size_t blen, const char *what)
{
	size_t i, n = alen < blen ? alen : blen;

	for (i = 0; i < n; i++)
		if (a[i] != b[i])
			break;
	if (i < alen || i < blen)
		fz_fail("%s: outputs differ at offset %zu (lengths %zu, %zu)",
		        what, i, alen, blen);
}

void fz_same(const struct fz_run *a, const struct fz_run *b, const char *what)
{
	if (a->out.over || b->out.over) {
		size_t n = a->out.len < b->out.len ? a->out.len : b->out.len;
		if (!a->out.over || !b->out.over)
			fz_fail("%s: only one run went over the output limit", what);
		fz_same_bytes(a->out.b, n, b->out.b, n, what);
		return;
	}
	if (a->err != b->err || a->err_off != b->err_off ||
	    a->fallback != b->fallback || a->fallback_off != b->fallback_off)
		fz_fail("%s: error %s@%llu fallback %s@%llu vs %s@%llu "
		        "fallback %s@%llu", what, hs_strerror(a->err),
		        (unsigned long long)a->err_off, hs_strerror(a->fallback),
		        (unsigned long long)a->fallback_off, hs_strerror(b->err),
		        (unsigned long long)b->err_off, hs_strerror(b->fallback),
		        (unsigned long long)b->fallback_off);
	/* (where an error stops the input may depend on a lookahead) */
	if (a->arrays != b->arrays || a->elem_bytes != b->elem_bytes ||
	    a->kept != b->kept || a->kept_bytes != b->kept_bytes ||
	    a->records != b->records || (!a->err && a->in_off != b->in_off))
		fz_fail("%s: counters differ", what);
	if (!a->err)
		fz_same_bytes(a->out.b, a->out.len, b->out.b, b->out.len, what);
}

void fz_free(struct fz_run *r)
{
	free(r->out.b);
	memset(r, 0, sizeof *r);
}

size_t fz_header_len(const unsigned char *in, size_t len)
{
	const unsigned char *nul = memchr(in, 0, len < 64 ? len : 64);
	size_t n;

	if (!nul)
		return 0;
	n = (size_t)(nul - in) + 1 + 12;
	return n <= len ? n : 0;
}
