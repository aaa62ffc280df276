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

/* Zeros for restored elements and redacted values. Never written, so it
 * stays in .bss. */
static const unsigned char zero_page[65536];

void eng_zeros(struct hs_state *st, uint64_t n)
{
	while (n && !st->err) {
		size_t k = n < sizeof zero_page ? (size_t)n : sizeof zero_page;
		eng_emit(st, zero_page, k);
		n -= k;
	}
}

/* A HEAP_DUMP_END for the segments that went out. */
void eng_dump_end(struct hs_state *st)
{
	static const unsigned char end[9] = { HS_REC_HEAP_DUMP_END };

	eng_emit(st, end, sizeof end);
	st->need_end = 0;
}
