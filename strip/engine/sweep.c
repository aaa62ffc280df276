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
 * not salvage, --jvm or --app-only); keeping strings, it takes only what
 * keep.c says it would pass (keep_passes: not a String, not a Thread, no
 * array held), and no primitive array. Streaming (segment.c), it closes
 * segments where seg_sub_boundary and seg_reserve would have.
 *
 * Redacting, it takes the instances whose value spans are cached
 * (redact_flat): one with none passes; one with some stays in the run too,
 * its spans noted as patches, and the run goes out copied through the
 * caller's gather buffer in large pieces, the patches zeroed: one copy in
 * bulk, rather than a piece per field.
 */
#include "internal.h"

/* One sub-record at the cursor, as far as sweep() needs it. */
struct unit {
	unsigned n;          /* its fixed part, tag included */
	uint64_t len;        /* the bytes after it */
	uint64_t out;        /* the output a streamed one is sized at (0: not
	                        sized, or stripped) */
	unsigned type;       /* a primitive array's element type, else 0 */
	uint64_t bytes;      /* ... and its elements' bytes */
	int strip;           /* a primitive array that goes out as a 0xC3 */
	const struct hs_flat *flat; /* redact: an instance's value spans */
};



/* What the sub-record at p (avail bytes there) is: 1 if it is one sweep()
 * takes, its fixed part in, its fields read into u; 0 if the phases must
 * take it (another kind, not whole, not well formed, or a mode's). */
static inline int read_unit(struct hs_state *st, const unsigned char *p,
                            size_t avail, struct unit *u)
{
	unsigned id = st->idsize, sz;

	u->type = 0;
	u->bytes = 0;
	u->strip = 0;
	u->flat = NULL;
	if (st->ks.held_need)  /* keep: every sub-record decides its fate */
		return 0;
	switch (*p) {
	case HS_SUB_INSTANCE_DUMP:  /* id, u4 trace, id class, u4 len */
		u->n = 1 + 2 * id + 8;
		if (avail < u->n || !keep_passes(st, rd_id(st, p + 1 + id + 4)))
			return 0;
		u->len = hs_be32(p + 1 + 2 * id + 4);
		u->out = u->n + u->len;
		if (st->mode.redact && u->len) {
			u->flat = redact_flat_of(st, rd_id(st, p + 1 + id + 4),
			                         u->len);
			if (u->flat->n == HS_FLAT_NONE || (u->flat->n &&
			    u->out > st->rd.cfg.gather_size))
				return 0;
		}
		break;
	case HS_SUB_OBJECT_ARRAY_DUMP:  /* id, u4, u4 count, id class */
		u->n = 1 + 2 * id + 8;
		if (avail < u->n)
			return 0;
		u->len = (uint64_t)hs_be32(p + 1 + id + 4) * id;
		u->out = u->n + u->len;
		break;
	case HS_SUB_PRIMITIVE_ARRAY_DUMP:  /* id, u4, u4 count, u1 type */
		u->n = 1 + id + 9;
		if (avail < u->n || st->mode.keep)  /* keep: kept, held? */
			return 0;
		u->type = p[u->n - 1];
		sz = hs_type_size(u->type, id);
		if (!sz || u->type == 2)
			return 0;
		u->bytes = u->len = (uint64_t)hs_be32(p + 1 + id + 4) * sz;
		/* stripped: a 0xC3 header, not sized; restored: passed */
		u->strip = !st->mode.restore;
		u->out = u->strip ? 0 : u->n + u->len;
		break;
	case HS_SUB_CLASS_DUMP:
	case HS_SUB_HEAP_DUMP_INFO:
	case HS_SUB_PRIMITIVE_ARRAY_NODATA:
		return 0;
	default:  /* a root, or not a sub-record */
		u->n = sub_fixed_len(*p, id);
		if (!u->n || avail < u->n)
			return 0;
		u->len = u->out = 0;
		break;
	}
	return u->len <= avail - u->n;
}

/* Where the phases' segment decisions fall, inline: 1 when the sub-record
 * about to start (out bytes reserved, 0 for none) needs segment.c. */
static inline int seg_due(const struct hs_state *st, const struct cur *c,
                          const unsigned char *p, uint64_t out)
{
	uint64_t v = st->sg.len + (uint64_t)(p - c->run);

	return v >= HS_SEGMENT_SOFT || (out && v + out > HS_STREAM_BUF);
}

/* ---- redacting: the run with patches ---------------------------------- */

/* n zero bytes at p: the usual sizes of a field stored as one, inline */
static inline void zero(unsigned char *p, uint32_t n)
{
	switch (n) {
	case 1: *p = 0; break;
	case 2: memset(p, 0, 2); break;
	case 4: memset(p, 0, 4); break;
	case 8: memset(p, 0, 8); break;
	case 16: memset(p, 0, 16); break;
	default: memset(p, 0, n); break;
	}
}

/* The pending run [c->run, p) out, its patches (value spans, by offset in
 * the run) zeroed: copied in pieces of the gather buffer's size, each
 * zeroed and written; with no patch, as it is (no copy). */
static void patched_flush(struct hs_state *st, struct cur *c,
                          const unsigned char *p)
{
	const struct hs_patch *pt = st->rd.patch, *end = pt + st->rd.npatch;
	size_t size = st->rd.cfg.gather_size, off = 0, len = (size_t)(p - c->run);
	unsigned char *g = st->rd.cfg.gather;

	if (!st->rd.npatch) {
		c->p = p;
		eng_flush(st, c);
		return;
	}
	while (off < len && !st->err) {
		size_t k = len - off < size ? len - off : size;
		memcpy(g, c->run + off, k);
		/* a span lies whole in the piece: the pieces end at spans'
		 * ends (redact_one makes sure) */
		for (; pt < end && pt->off + pt->len <= off + k; pt++)
			zero(g + (pt->off - off), pt->len);
		eng_emit(st, g, k);
		off += k;
	}
	st->rd.npatch = 0;
	c->run = c->p = p;
}

/* The run's patches, if any, applied as it goes out up to p; else it
 * stays pending, as it does when nothing is redacted. */
static void patches_out(struct hs_state *st, struct cur *c,
                        const unsigned char *p)
{
	if (st->rd.npatch)
		patched_flush(st, c, p);
}

/* Redacting: the instance at p (u) has value spans: noted as patches of
 * the run, zeroed when it goes out (patched_flush). */
static void redact_one(struct hs_state *st, struct cur *c,
                       const unsigned char *p, const struct unit *u)
{
	size_t i, at;
	struct hs_patch *pt;

	/* room for its spans, and its bytes in one piece of the gather
	 * buffer: else what came before goes out first */
	at = (size_t)(p - c->run);
	if (st->rd.npatch + u->flat->n > st->rd.cfg.patch_slots ||
	    at % st->rd.cfg.gather_size + u->n + u->len > st->rd.cfg.gather_size) {
		patched_flush(st, c, p);
		at = 0;
	}
	pt = st->rd.patch + st->rd.npatch;
	for (i = 0; i < u->flat->n; i++, pt++) {
		pt->off = (uint32_t)(at + u->n + u->flat->span[i][0]);
		pt->len = u->flat->span[i][1];
	}
	st->rd.npatch += u->flat->n;
}

/* Stripping: the array at p (header n bytes, bytes of elements) goes out
 * as a 0xC3, as strip_array writes it; the input up to p goes first.
 * st->in_off is past its header, as in the phases. */
static void strip_one(struct hs_state *st, struct cur *c,
                      const unsigned char *p, unsigned n, uint64_t bytes)
{
	unsigned char t = HS_SUB_PRIMITIVE_ARRAY_NODATA;

	patched_flush(st, c, p);
	eng_emit(st, &t, 1);
	eng_emit(st, p + 1, n - 1);
	c->p = c->run = p + n + bytes;
	st->arrays++;
	st->elem_bytes += bytes;
}

/* The unit at p goes out: a stripped array as a 0xC3, an instance with
 * values redacted; anything else stays in the run. */
static void unit_out(struct hs_state *st, struct cur *c, const unsigned char *p,
                     const struct unit *u)
{
	if (u->strip)
		strip_one(st, c, p, u->n, u->bytes);
	if (u->flat) {
		st->redacted++;
		if (u->flat->n)
			redact_one(st, c, p, u);
	}
}

int sweep(struct hs_state *st, struct cur *c)
{
	const unsigned char *start = c->p, *p = c->p, *lim = c->end, *last = NULL;
	uint64_t in0 = st->in_off, left = rec_left(st), swept = 0;
	struct hs_census *cen = st->census;
	int stream = st->sg.gather, last_strip = 0;
	struct unit u;

	if (left < (uint64_t)(lim - p))
		lim = p + left;
	while (p < lim && !st->err && read_unit(st, p, (size_t)(lim - p), &u)) {
		/* the phases give it a segment of its own */
		if (u.out > HS_STREAM_BUF && stream)
			break;
		if (stream && seg_due(st, c, p, u.out)) {
			patches_out(st, c, p);  /* before the segment closes */
			/* where the phases are: for segment.c, and errors */
			st->in_off = st->sub_in = in0 + (uint64_t)(p - start);
			seg_room(st, c, p, u.out);
			if (st->err)
				break;
		}
		if (u.strip) {  /* where the phases are, for errors */
			st->sub_in = in0 + (uint64_t)(p - start);
			st->in_off = st->sub_in + u.n;
		}
		unit_out(st, c, p, &u);
		st->objects += *p == HS_SUB_INSTANCE_DUMP ||
		               *p == HS_SUB_OBJECT_ARRAY_DUMP ||
		               *p == HS_SUB_PRIMITIVE_ARRAY_DUMP;
		if (cen) {
			cen->sub_count[*p]++;
			cen->sub_bytes[*p] += u.n + u.len;
			cen->heap_bytes[st->heap] += u.n + u.len;
			cen->prim_count[u.type] += u.type != 0;
			cen->prim_bytes[u.type] += u.bytes;
		}
		last = p;
		last_strip = u.strip;
		p += u.n + u.len;
		swept++;
	}
	st->in_off = in0 + (uint64_t)(p - start);
	c->p = p;
	/* the rest stays in the run, which goes out after (patched now) */
	patches_out(st, c, p);
	if (!last)
		return 0;
	/* as the phases leave them after the last one */
	keep_swept(st, swept);
	st->sub_tag = *last;
	st->sub_in = in0 + (uint64_t)(last - start);
	st->act = last_strip ? ACT_DROP : ACT_PASS;
	st->sub_drop = 0;
	return 1;
}
