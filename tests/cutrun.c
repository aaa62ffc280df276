/* The engine run into memory over an input cut into pieces: see cutrun.h. */
#include "cutrun.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cr_fail(const char *fmt, ...)
{
	va_list ap;

	fputs(cr_prefix, stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (cr_abort)
		abort();
	exit(1);
}

static int mem_write(void *user, const void *buf, size_t len)
{
	struct cr_mem *m = user;

	if (len > m->limit - m->len) {
		m->over = 1;
		return -1;
	}
	if (m->len + len > m->cap) {
		size_t cap = m->cap ? m->cap : 1 << 16;
		while (cap < m->len + len)
			cap *= 2;
		m->b = realloc(m->b, cap);
		if (!m->b)
			cr_fail("out of memory");
		m->cap = cap;
	}
	memcpy(m->b + m->len, buf, len);
	m->len += len;
	return 0;
}

static int mem_patch(void *user, uint64_t off, const void *buf, size_t len)
{
	struct cr_mem *m = user;

	if (m->streamed)
		cr_fail("a streamed (HS_STREAM) output was patched at %llu",
		        (unsigned long long)off);
	if (off > m->len || m->len - off < len)
		cr_fail("patch at %llu past the output (%zu bytes)",
		        (unsigned long long)off, m->len);
	memcpy(m->b + off, buf, len);
	return 0;
}

/* --salvage takes back output past a cut */
static int mem_truncate(void *user, uint64_t off)
{
	struct cr_mem *m = user;

	if (off > m->len)
		cr_fail("truncate at %llu past the output (%zu bytes)",
		        (unsigned long long)off, m->len);
	m->len = (size_t)off;
	return 0;
}

void cr_sink(struct hs_sink *s, struct cr_mem *m, size_t limit, int streamed)
{
	m->len = 0;
	m->limit = limit;
	m->over = 0;
	m->streamed = streamed;
	s->write = mem_write;
	s->patch = mem_patch;
	s->truncate = mem_truncate;
	s->user = m;
}

enum hs_err cr_seek_back(struct hs_state *st, const struct cr_rec *rc,
                         uint64_t r)
{
	unsigned char be[4];
	unsigned cut = (unsigned)(r % 5), i;
	enum hs_err e = HS_E_OK;

	hs_put_be32(be, rc->len);
	if (cut == 4) {  /* byte by byte, last first */
		for (i = 4; i-- > 0 && !e;)
			e = hs_rewrite(st, rc->len_off + i, be + i, 1);
		return e;
	}
	if (r >> 8 & 1) {  /* the tail first */
		e = hs_rewrite(st, rc->len_off + cut, be + cut, 4 - cut);
		return e ? e : hs_rewrite(st, rc->len_off, be, cut);
	}
	e = hs_rewrite(st, rc->len_off, be, cut);
	return e ? e : hs_rewrite(st, rc->len_off + cut, be + cut, 4 - cut);
}

size_t cr_heap_records(const unsigned char *in, size_t len, size_t off,
                       struct cr_rec **rec, size_t *cap)
{
	size_t n = 0;

	while (off + 9 <= len) {
		uint32_t l = hs_be32(in + off + 5);
		if (in[off] == 0x0C || in[off] == 0x1C) {
			if (n == *cap) {
				*cap = *cap ? 2 * *cap : 64;
				*rec = realloc(*rec, *cap * sizeof **rec);
				if (!*rec)
					cr_fail("out of memory");
			}
			(*rec)[n].len_off = off + 5;
			(*rec)[n].body = off + 9;
			(*rec)[n].end = off + 9 + l;
			(*rec)[n].len = l;
			n++;
		}
		off += 9 + (size_t)l;
	}
	return n;
}

/* Where the feed stops next for an HS_OPEN_LEN run: the end of the next
 * record to close. */
static size_t open_stop(struct cr_open *o)
{
	while (o->next < o->n && o->next == o->unclosed)
		o->next++;
	return o->next < o->n ? o->rec[o->next].end : SIZE_MAX;
}

void cr_run(const unsigned char *in, size_t len, const struct hs_config *cfg,
            struct cr_cuts *cuts, size_t limit, struct cr_run *r)
{
	static unsigned char *seg;
	struct hs_config c = *cfg;
	struct cr_open *open = cuts ? cuts->open : NULL;
	struct hs_state st;
	struct hs_sink sink;
	size_t pos = 0;
	unsigned empty = 0;

	memset(&r->census, 0, sizeof r->census);
	if (!c.census)
		c.census = &r->census;
	if ((c.flags & HS_STREAM) && !c.seg_buf) {
		if (!seg && !(seg = malloc(HS_STREAM_BUF)))
			cr_fail("out of memory");
		c.seg_buf = seg;
	}
	cr_sink(&sink, &r->out, limit, (c.flags & HS_STREAM) != 0);
	hs_init(&st, &c, &sink);
	while (!st.err) {
		size_t stop = open ? open_stop(open) : SIZE_MAX;
		size_t end = stop < len ? stop : len;
		if (pos < end) {
			size_t k = cuts && cuts->piece ?
			           cuts->piece(cuts->user, pos, end - pos) : end - pos;
			if (!k && ++empty > 64)  /* a run of empty feeds: move on */
				k = 1;
			if (k)
				empty = 0;
			hs_feed(&st, in + pos, k);
			pos += k;
		}
		if (pos == stop) {  /* the writer closes the record */
			const struct cr_rec *rc = &open->rec[open->next];
			enum hs_err e = cr_seek_back(&st, rc,
			                             open->rand(open->user, open->next));
			if (e)
				cr_fail("closing the heap record at %zu: %s", rc->len_off,
				        hs_strerror(e));
			open->next++;
		} else if (pos == len) {
			break;
		}
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
	r->objects = st.objects;
	r->redacted = st.redacted;
	r->withheld = st.withheld;
	r->zeroed = st.zeroed;
	r->names = st.names_tokenized;
	r->records = st.records;
	r->kept = st.kept;
	r->kept_bytes = st.kept_bytes;
	r->idsize = st.idsize;
	r->version = st.version;
}
