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
 * whose layers do nothing at a sub-record of those kinds, or say so
 * (st->mode.sweep: not salvage, --jvm or --app-only). Three layers have
 * a say, their hooks resolved once (internal.h): the unit layer
 * (st->mode.unit) hands the phases the sub-records it acts at (keep: a
 * String, a Thread, any primitive array, all while an array is held;
 * redact: an instance whose value spans are not cached) and writes the
 * run its way (redact: its spans zeroed, copied in bulk through the
 * caller's gather buffer); the room layer (st->mode.room, stream) closes
 * segments where the phases would have; the seen layer (st->mode.seen,
 * histo) counts every sub-record the loop passes.
 */
#include "internal.h"

/* What the sub-record at p (avail bytes there) is: 1 if it is one sweep()
 * takes, its fixed part in, its fields read into u; 0 if the phases must
 * take it (another kind, not whole, not well formed, or one the unit
 * layer, ul, hands them). */
static inline int read_unit(struct hs_state *st, const struct hs_layer *ul,
                            const unsigned char *p, size_t avail,
                            struct unit *u)
{
	unsigned id = st->idsize, sz;

	u->type = 0;
	u->bytes = 0;
	u->strip = 0;
	u->flat = NULL;
	switch (*p) {
	case HS_SUB_INSTANCE_DUMP:  /* id, u4 trace, id class, u4 len */
		u->n = 1 + 2 * id + 8;
		if (avail < u->n)
			return 0;
		u->len = hs_be32(p + 1 + 2 * id + 4);
		u->out = u->n + u->len;
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
		if (avail < u->n)
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
	return u->len <= avail - u->n && (!ul || ul->sweep_unit(st, p, u));
}

/* Stripping: the array at p (header n bytes, bytes of elements) goes out
 * as a 0xC3, as strip_array writes it; the input up to p goes first.
 * st->in_off is past its header, as in the phases. */
static void strip_one(struct hs_state *st, const struct hs_layer *ul,
                      struct cur *c, const unsigned char *p, unsigned n,
                      uint64_t bytes)
{
	unsigned char t = HS_SUB_PRIMITIVE_ARRAY_NODATA;

	if (ul && ul->sweep_flush)
		ul->sweep_flush(st, c, p);
	c->p = p;
	eng_flush(st, c);
	eng_emit(st, &t, 1);
	eng_emit(st, p + 1, n - 1);
	c->p = c->run = p + n + bytes;
	st->arrays++;
	st->elem_bytes += bytes;
}

/* The unit at p goes out: a stripped array as a 0xC3, or as the unit
 * layer has it (redact: its values zeroed); anything else stays in the
 * run. */
static void unit_out(struct hs_state *st, const struct hs_layer *ul,
                     struct cur *c, const unsigned char *p,
                     const struct unit *u)
{
	if (u->strip)
		strip_one(st, ul, c, p, u->n, u->bytes);
	if (ul && ul->sweep_out)
		ul->sweep_out(st, c, p, u);
}

/* The run goes out up to p, as the unit layer has it (its patches
 * applied); else it stays pending. */
static void run_out(struct hs_state *st, const struct hs_layer *ul,
                    struct cur *c, const unsigned char *p)
{
	if (ul && ul->sweep_flush)
		ul->sweep_flush(st, c, p);
}

int sweep(struct hs_state *st, struct cur *c)
{
	const unsigned char *start = c->p, *p = c->p, *lim = c->end, *last = NULL;
	uint64_t in0 = st->in_off, left = rec_left(st), swept = 0;
	struct hs_census *cen = st->census;
	const struct hs_layer *ul = st->mode.unit, *rl = st->mode.room;
	const struct hs_layer *sl = st->mode.seen;
	int last_strip = 0, due;
	struct unit u;

	if (left < (uint64_t)(lim - p))
		lim = p + left;
	while (p < lim && !st->err &&
	       read_unit(st, ul, p, (size_t)(lim - p), &u)) {
		if (rl && (due = rl->sweep_due(st, c, p, &u)) != 0) {
			if (due < 0)  /* the phases take it (a room of its own) */
				break;
			run_out(st, ul, c, p);  /* before the room is made */
			/* where the phases are: for the layer, and errors */
			st->in_off = st->sub_in = in0 + (uint64_t)(p - start);
			rl->sweep_room(st, c, p, u.out);
			if (st->err)
				break;
		}
		if (u.strip) {  /* where the phases are, for errors */
			st->sub_in = in0 + (uint64_t)(p - start);
			st->in_off = st->sub_in + u.n;
		}
		if (sl)
			sl->sweep_seen(st, p, &u);
		unit_out(st, ul, c, p, &u);
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
	run_out(st, ul, c, p);
	if (!last)
		return 0;
	/* as the phases leave them after the last one */
	if (ul && ul->swept)
		ul->swept(st, swept);
	st->sub_tag = *last;
	st->sub_in = in0 + (uint64_t)(last - start);
	st->act = last_strip ? ACT_DROP : ACT_PASS;
	st->sub_drop = 0;
	return 1;
}
