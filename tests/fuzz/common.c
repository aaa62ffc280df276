/* Shared by the libFuzzer targets: see common.h. */
#include "common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct hs_keep fz_keep;
struct hs_redact fz_redact;
struct hs_names fz_names;

const char cr_prefix[] = "fuzz check failed: ";
const int cr_abort = 1;

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

static size_t piece(void *user, size_t pos, size_t left)
{
	(void)pos;
	return fz_next_piece(user, left);
}

struct cr_cuts fz_pieces(struct fz_cuts *c)
{
	struct cr_cuts cuts = { c ? piece : NULL, c, NULL };
	return cuts;
}

void fz_engine(const unsigned char *in, size_t len, unsigned flags,
               unsigned idsize, struct fz_cuts *c, size_t limit,
               struct hs_census *census, struct cr_run *r)
{
	struct hs_config cfg = { .flags = flags, .idsize = idsize,
	                         .census = census, .keep = &fz_keep,
	                         .redact = &fz_redact, .names = &fz_names };
	struct cr_cuts cuts = fz_pieces(c);

	if (census)
		memset(census, 0, sizeof *census);
	if (fz_keep.pending)
		memset(fz_keep.pending, 0,
		       fz_keep.pending_slots * sizeof *fz_keep.pending);
	if (fz_keep.classes)
		memset(fz_keep.classes, 0,
		       fz_keep.class_slots * sizeof *fz_keep.classes);
	if (fz_redact.classes)
		memset(fz_redact.classes, 0,
		       fz_redact.class_slots * sizeof *fz_redact.classes);
	fz_redact.types_used = fz_redact.class_count = 0;
	if (fz_redact.fw_names) {
		memset(fz_redact.fw_names, 0,
		       fz_redact.fw_slots * sizeof *fz_redact.fw_names);
		memset(fz_redact.fw_classes, 0,
		       fz_redact.fw_slots * sizeof *fz_redact.fw_classes);
	}
	fz_redact.fw_names_used = fz_redact.fw_classes_used = 0;
	cr_run(in, len, &cfg, &cuts, limit, r);
	if (!r->err && r->out_off != r->out.len)
		fz_fail("out_off %llu, but %zu bytes written",
		        (unsigned long long)r->out_off, r->out.len);
	/* a sticky error stops the engine where it says */
	if (r->err && r->err != HS_E_EMIT && r->err_off > r->in_off)
		fz_fail("error offset %llu past the input consumed (%llu)",
		        (unsigned long long)r->err_off,
		        (unsigned long long)r->in_off);
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

void fz_same(const struct cr_run *a, const struct cr_run *b, const char *what)
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

void fz_free(struct cr_run *r)
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
