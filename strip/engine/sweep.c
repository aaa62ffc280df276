/*
 * The fast path. Most of a heap record is sub-records that need no
 * decision: an instance or an object array passed as it is, a root, and
 * (stripping) a primitive array whose elements go. Each is a fixed part
 * and a length read from it. While such sub-records lie whole in the
 * input of one feed, sweep() reads them in one tight loop instead of
 * through the phases (a tag, a header, a body, an end: four steps each).
 *
 * Its output, counts and census are the phases', byte for byte, at any
 * cut of the input: it stops before the first sub-record that is not
 * whole in this feed, not one of those kinds, or not well formed, and the
 * phases take that one as they would have. It runs only in the modes
 * whose layers do nothing at a sub-record of those kinds (st->mode.sweep:
 * not keep-strings, salvage, --jvm or --app-only). Streaming (segment.c),
 * it closes segments where seg_sub_boundary and seg_reserve would have.
 */
#include "internal.h"

/* Where the phases' segment decisions fall, inline: 1 when the sub-record
 * about to start (out bytes reserved, 0 for none) needs segment.c. */
static inline int seg_due(const struct hs_state *st, const struct cur *c,
                          const unsigned char *p, uint64_t out)
{
	uint64_t v = st->sg.len + (uint64_t)(p - c->run);

	return v >= HS_SEGMENT_SOFT || (out && v + out > HS_STREAM_BUF);
}

/* Stripping: the array at p (header n bytes, bytes of elements) goes out
 * as a 0xC3, as strip_array writes it; the input up to p goes first.
 * st->in_off is past its header, as in the phases. */
static void strip_one(struct hs_state *st, struct cur *c,
                      const unsigned char *p, unsigned n, uint64_t bytes)
{
	unsigned char t = HS_SUB_PRIMITIVE_ARRAY_NODATA;

	c->p = p;
	eng_flush(st, c);
	eng_emit(st, &t, 1);
	eng_emit(st, p + 1, n - 1);
	c->p = c->run = p + n + bytes;
	st->arrays++;
	st->elem_bytes += bytes;
}

int sweep(struct hs_state *st, struct cur *c)
{
	const unsigned char *start = c->p, *p = c->p, *lim = c->end, *last = NULL;
	unsigned id = st->idsize, fix = 1 + 2 * id + 8, tag, n;
	uint64_t in0 = st->in_off, left = rec_left(st), len, bytes, out;
	struct hs_census *cen = st->census;
	int strip = !st->mode.restore, stream = st->sg.gather;
	unsigned sz, ti = 0;

	if (left < (uint64_t)(lim - p))
		lim = p + left;
	while (p < lim && !st->err) {
		size_t avail = (size_t)(lim - p);

		tag = *p;
		bytes = 0;
		switch (tag) {
		case HS_SUB_INSTANCE_DUMP:  /* id, u4 trace, id class, u4 len */
			n = fix;
			if (avail < n)
				goto out;
			len = hs_be32(p + 1 + 2 * id + 4);
			out = n + len;
			break;
		case HS_SUB_OBJECT_ARRAY_DUMP:  /* id, u4, u4 count, id class */
			n = fix;
			if (avail < n)
				goto out;
			len = (uint64_t)hs_be32(p + 1 + id + 4) * id;
			out = n + len;
			break;
		case HS_SUB_PRIMITIVE_ARRAY_DUMP:  /* id, u4, u4 count, u1 type */
			n = 1 + id + 9;
			if (avail < n)
				goto out;
			ti = p[n - 1];
			sz = hs_type_size(ti, id);
			if (!sz || ti == 2)
				goto out;
			bytes = (uint64_t)hs_be32(p + 1 + id + 4) * sz;
			len = bytes;
			/* stripped: its 0xC3 header, reserving nothing */
			out = strip ? 0 : n + len;
			break;
		case HS_SUB_CLASS_DUMP:
		case HS_SUB_HEAP_DUMP_INFO:
		case HS_SUB_PRIMITIVE_ARRAY_NODATA:
			goto out;
		default:  /* a root, or not a sub-record */
			n = sub_fixed_len(tag, id);
			if (!n || avail < n)
				goto out;
			len = out = 0;
			break;
		}
		if (len > avail - n)
			goto out;
		/* the phases give it a segment of its own */
		if (out > HS_STREAM_BUF && stream)
			goto out;
		if (stream && seg_due(st, c, p, out)) {
			/* where the phases are: for segment.c, and errors */
			st->in_off = st->sub_in = in0 + (uint64_t)(p - start);
			seg_room(st, c, p, out);
			if (st->err)
				goto out;
		}
		if (tag == HS_SUB_PRIMITIVE_ARRAY_DUMP) {
			if (strip) {
				st->sub_in = in0 + (uint64_t)(p - start);
				st->in_off = st->sub_in + n;
				strip_one(st, c, p, n, bytes);
			}
			if (cen) {
				cen->prim_count[ti]++;
				cen->prim_bytes[ti] += bytes;
			}
		}
		st->objects += tag == HS_SUB_INSTANCE_DUMP ||
		               tag == HS_SUB_OBJECT_ARRAY_DUMP ||
		               tag == HS_SUB_PRIMITIVE_ARRAY_DUMP;
		if (cen) {
			cen->sub_count[tag]++;
			cen->sub_bytes[tag] += n + len;
			cen->heap_bytes[st->heap] += n + len;
		}
		last = p;
		p += n + len;
	}
out:
	st->in_off = in0 + (uint64_t)(p - start);
	c->p = p;
	if (!last)
		return 0;
	/* as the phases leave them after the last one */
	st->sub_tag = *last;
	st->sub_in = in0 + (uint64_t)(last - start);
	st->act = *last == HS_SUB_PRIMITIVE_ARRAY_DUMP && strip ? ACT_DROP
	                                                       : ACT_PASS;
	st->sub_drop = 0;
	return 1;
}
