/*
 * HS_STREAM: output that is never patched (see hprof.h). A heap record's
 * sub-records gather in the caller's segment buffer (st->sg.buf: eng_emit
 * puts them there) and go out as a HEAP_DUMP_SEGMENT once its length is
 * known; a sub-record larger than the buffer gets a segment of its own,
 * written straight through. The parse does not know about any of this: it
 * emits, and at its fixed points (internal.h) this layer closes segments
 * and reserves room. Every function here does nothing unless the dump is
 * streamed.
 */
#include "internal.h"

/* A segment's header: the input record's time, and len. */
static void segment_header(struct hs_state *st, uint64_t len)
{
	unsigned char h[9];

	h[0] = HS_REC_HEAP_DUMP_SEGMENT;
	memcpy(h + 1, st->sg.time, 4);
	hs_put_be32(h + 5, (uint32_t)len);
	eng_sink_write(st, h, 9, 9);
}

/* The gathered sub-records go out as one segment (counted already). */
static void flush_segment(struct hs_state *st)
{
	if (!st->sg.len || st->err)
		return;
	segment_header(st, st->sg.len);
	eng_sink_write(st, st->sg.buf, st->sg.len, 0);
	st->sg.len = 0;
	st->heap_written++;
	st->sg.sub_start = 0;  /* the sub-record under way starts the next */
}

/* The sub-record about to go out is len bytes long: room for it in the
 * segment, after closing the segment if need be, or a segment of its own
 * when it is larger than the buffer. 1 if it goes into segments (whose
 * records have no 4 GiB limit to keep). */
int seg_reserve(struct hs_state *st, uint64_t len)
{
	if (!st->sg.gather)
		return 0;
	if (st->sg.len + len <= HS_STREAM_BUF)
		return 1;
	flush_segment(st);
	if (len <= HS_STREAM_BUF || st->err)
		return 1;
	if (len > UINT32_MAX) {
		eng_error(st, HS_E_TOOBIG, st->sub_in);
		return 1;
	}
	st->sg.own_start = st->out_off;
	segment_header(st, len);
	st->heap_written++;
	st->sg.own_left = len;
	return 1;
}

/* File header: segments are 1.0.2, so a 1.0.1 dump becomes one. */
static void seg_header(struct hs_state *st, unsigned char *version)
{
	if (st->mode.stream && st->version == '1')
		*version = '2';
}

/* A heap record's header is due: it becomes segments, and nothing is
 * written now. 1 if so. */
static int seg_record_start(struct hs_state *st)
{
	if (!st->mode.stream)
		return 0;
	st->had_segments = 1;
	memcpy(st->sg.time, st->rec_hdr + 1, 4);
	st->need_end |= st->rec_tag == HS_REC_HEAP_DUMP;
	st->sg.gather = 1;
	return 1;
}

/* A sub-record that goes out starts: a segment closes here once it is
 * big. */
static void seg_sub_boundary(struct hs_state *st, struct cur *c)
{
	if (!st->sg.gather)
		return;
	eng_flush(st, c);  /* what the segment holds must not depend on cuts */
	if (st->sg.len >= HS_SEGMENT_SOFT)
		flush_segment(st);
}

/* sweep.c: a sub-record at p, passed or stripped whole, starts where a
 * segment closes (seg_due): the boundary as above, and room for the out
 * bytes it is sized at (0: it is not sized). */
static void seg_room(struct hs_state *st, struct cur *c, const unsigned char *p,
              uint64_t out)
{
	c->p = p;
	seg_sub_boundary(st, c);
	if (out)
		seg_reserve(st, out);
}

/* ... and begins here: one whose output length shows in its fixed part
 * (an instance, an array passed whole) is taken until that decides its
 * segment (seg_sized). */
static void seg_sub_start(struct hs_state *st, unsigned tag)
{
	st->sg.sub_start = st->sg.len;
	st->sg.sizing = st->sg.gather && st->act == ACT_PASS &&
	                (tag == HS_SUB_INSTANCE_DUMP ||
	                 tag == HS_SUB_OBJECT_ARRAY_DUMP ||
	                 tag == HS_SUB_PRIMITIVE_ARRAY_DUMP);
	if (st->sg.sizing)
		st->act = ACT_TAKE;
}

/* A sub-record header h (n bytes) that was taken goes out now that its
 * output length, len, is known (room reserved for it), and the rest of
 * the sub-record is passed. */
void seg_emit_sized(struct hs_state *st, const unsigned char *h, unsigned n,
                    uint64_t len)
{
	seg_reserve(st, len);
	eng_emit(st, h, n);
	st->act = ACT_PASS;
	st->sg.sizing = 0;
}

/* ... when it was taken only to choose its segment (seg_sub_start). */
void seg_sized(struct hs_state *st, const unsigned char *h, unsigned n,
               uint64_t len)
{
	if (st->sg.sizing)
		seg_emit_sized(st, h, n, len);
}

/* The heap record ends: what it gathered goes out. 1 if it gathered
 * (there is no length to patch). */
static int seg_record_end(struct hs_state *st)
{
	if (!st->sg.gather)
		return 0;
	flush_segment(st);
	st->sg.gather = 0;
	return 1;
}

/* A HEAP_DUMP that became segments is a dump of its own (the hprof agent
 * writes one per dump): its END follows its segments at once. A record
 * cut short (salvage, a fallback at the end) gets none here, nor one
 * after a fallback (what follows it is verbatim). */
static void seg_dump_end(struct hs_state *st)
{
	if (st->need_end && st->rec_tag == HS_REC_HEAP_DUMP &&
	    st->in_off == st->rec_end && !st->fallback) {
		eng_dump_end(st);
		st->had_segments = 0;
	}
}

/* With HS_FALLBACK, inside a heap record: the whole sub-records gathered
 * go out as a segment, and the rest of the input record, from the nheld
 * bytes held back on, as a segment of its own whose length is the
 * record's remaining input (nothing is ever patched). A placeholder
 * record (JDK 8) has no known length: a segment header that promises 4
 * GiB goes out instead, so readers see the dump cut at this point, never
 * garbage they take for records. */
static uint64_t rest_of_record(const struct hs_state *st, uint64_t from)
{
	/* an open placeholder's end is OPEN_END: no length to go by */
	return st->open || !st->rec_end ? UINT32_MAX : st->rec_end - from;
}

/* ... in a heap record that gathers, or a placeholder */
static int in_segments(const struct hs_state *st)
{
	return is_heap_tag(st->rec_tag) && (st->sg.gather || st->open);
}

static void seg_fallback(struct hs_state *st, size_t nheld)
{
	unsigned char h[9];
	uint64_t from = st->in_off - nheld;
	uint64_t left = rest_of_record(st, from);

	if (!st->mode.stream || (st->phase != PH_RAW_REC && !in_segments(st)))
		return;
	flush_segment(st);
	st->sg.gather = 0;
	st->rec_hdr_out = 1;
	h[0] = HS_REC_HEAP_DUMP_SEGMENT;
	memcpy(h + 1, st->sg.time, 4);
	hs_put_be32(h + 5, (uint32_t)left);
	eng_emit(st, h, 9);
	if (st->phase == PH_RAW_REC) {  /* nothing to patch at its end */
		hs_put_be32(st->rec_hdr + 5, (uint32_t)left);
		st->rec_len = left;
		st->rec_body_in = from;
		st->rec_body_out = st->out_off;
	}
}

/* HS_SALVAGE: the unfinished sub-record is taken back. Returns the
 * output offset from which the sink must drop it: the header of a segment
 * of its own, or where the sub-record began (st->sub_out); UINT64_MAX
 * when it was only gathered, and is gone already. */
static uint64_t seg_drop_partial(struct hs_state *st)
{
	st->sg.sizing = 0;
	if (st->sg.own_left) {
		st->sg.own_left = 0;
		st->heap_written--;
		return st->sg.own_start;
	}
	if (st->sg.gather) {
		st->out_off -= st->sg.len - st->sg.sub_start;
		st->sg.len = st->sg.sub_start;
		return UINT64_MAX;
	}
	return st->sub_out;
}

/* ---- the fast path's segments (sweep.c) -------------------------------- */

/* Does the sub-record u at p start where the phases close a segment (1),
 * or need a segment of its own (-1: the phases take it)? 0: neither. */
static int sweep_due(const struct hs_state *st, const struct cur *c,
                     const unsigned char *p, const struct unit *u)
{
	uint64_t v;

	if (!st->sg.gather)
		return 0;
	if (u->out > HS_STREAM_BUF)
		return -1;
	v = st->sg.len + (uint64_t)(p - c->run);
	return v >= HS_SEGMENT_SOFT || (u->out && v + u->out > HS_STREAM_BUF);
}

/* An instance passed: sized, when it was taken for that (seg_sub_start);
 * never taken here. */
static int sized_instance(struct hs_state *st, struct cur *c,
                          const unsigned char *h, uint64_t len)
{
	(void)c;
	seg_sized(st, h, st->need, st->need + len);
	return 0;
}

/* What's left of a unit the input cut: whole sub-records only go out
 * while a segment gathers (the unfinished one is left out). */
static int gathering(const struct hs_state *st)
{
	return st->sg.gather;
}

/* HS_SALVAGE: the unfinished sub-record is taken back (seg_drop_partial):
 * from where */
static void take_back(struct hs_state *st, uint64_t *from)
{
	*from = seg_drop_partial(st);
}

/* a stream never patches, not even in a fallback (seg_fallback) */
static void init(struct hs_state *st, const struct hs_config *cfg)
{
	if ((st->flags & HS_STREAM) && cfg->seg_buf)
		st->sg.buf = cfg->seg_buf;
	else
		st->flags &= ~(unsigned)HS_STREAM;
}

const struct hs_layer stream_layer = {
	.init = init,
	/* records */
	.header = seg_header,
	/* heap records */
	.heap_header = seg_record_start,
	/* sub-records */
	.sub_boundary = seg_sub_boundary, .sub_begun = seg_sub_start,
	.instance = sized_instance, .sized = seg_sized,
	.reserve = seg_reserve,
	/* record ends */
	.record_close = seg_record_end, .record_closed = seg_dump_end,
	/* fallback */
	.fail = seg_fallback,
	/* finish, rewrite */
	.whole_units = gathering, .holds = gathering, .take_back = take_back,
	/* fast path */
	.sweep_due = sweep_due, .sweep_room = seg_room,
};
