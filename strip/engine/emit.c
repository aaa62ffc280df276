/*
 * The output, and the input's cursor. Every output byte leaves through
 * eng_emit: straight to the sink, or (HS_STREAM, segment.c decides where
 * segments begin and end) into the segment gathering, or counted against
 * a segment of its own. Passed input bytes wait in the cursor's pending
 * run until something else must go out (eng_flush); a unit the engine
 * reads is made contiguous by eng_take.
 */
#include "internal.h"

void eng_sink_write(struct hs_state *st, const void *buf, size_t len,
                    uint64_t counted)
{
	if (st->err || !len)
		return;
	if (st->sink.write(st->sink.user, buf, len)) {
		eng_error(st, HS_E_EMIT, st->in_off);
		return;
	}
	st->out_off += counted;
}

void eng_emit(struct hs_state *st, const void *buf, size_t len)
{
	if (st->err || !len)
		return;
	if (st->sg.gather && !st->sg.own_left) {  /* HS_STREAM: gathered */
		if (len > HS_STREAM_BUF - st->sg.len) {  /* by construction, never */
			eng_error(st, HS_E_TOOBIG, st->sub_in);
			return;
		}
		memcpy(st->sg.buf + st->sg.len, buf, len);
		st->sg.len += len;
		st->out_off += len;
		return;
	}
	if (st->sg.own_left) {  /* a segment of its own: straight through */
		if (len > st->sg.own_left) {
			eng_error(st, HS_E_TOOBIG, st->sub_in);
			return;
		}
		st->sg.own_left -= len;
	}
	eng_sink_write(st, buf, len, len);
}

void eng_flush(struct hs_state *st, struct cur *c)
{
	if (c->p > c->run)
		eng_emit(st, c->run, (size_t)(c->p - c->run));
	c->run = c->p;
}

/* Make the next n bytes available contiguously. Passed bytes stay in the
 * pending run; taken or dropped ones leave it. NULL: input ran out first,
 * the part seen so far is kept in scratch. */
const unsigned char *eng_take(struct hs_state *st, struct cur *c, unsigned n,
                              unsigned act)
{
	size_t avail = (size_t)(c->end - c->p);
	const unsigned char *h;

	if (act != ACT_PASS)
		eng_flush(st, c);
	if (st->have == 0 && avail >= n) {
		h = c->p;
		consume(st, c, n);
	} else {
		size_t k = n - st->have;
		if (k > avail)
			k = avail;
		memcpy(st->scratch + st->have, c->p, k);
		st->have += (unsigned)k;
		consume(st, c, k);
		h = st->have == n ? st->scratch : NULL;
		if (h)
			st->have = 0;
	}
	if (act != ACT_PASS)
		c->run = c->p;
	return h;
}

/* The next n bytes of the unit being read, taken as st->act says; NULL
 * until they are all in. */
const unsigned char *eng_unit(struct hs_state *st, struct cur *c, unsigned n)
{
	return c->p == c->end ? NULL : eng_take(st, c, n, st->act);
}

/* A HEAP_DUMP_END for the segments that went out. */
void eng_dump_end(struct hs_state *st)
{
	static const unsigned char end[9] = { HS_REC_HEAP_DUMP_END };

	eng_emit(st, end, sizeof end);
	st->need_end = 0;
}
