/*
 * A record's and a unit's fate, shared by the phases (engine.c) and the
 * layers: a record's header written (or, streaming, its segments begun),
 * its end (the length patched, or the segment closed), a unit's body
 * passed or dropped, and a parse error (sticky, or the fallback's
 * verbatim copy).
 */
#include "points.h"

/* ---- records ----------------------------------------------------------- */

static void census_record_end(struct hs_state *st)
{
	if (st->census && st->rec_len == 0)
		st->census->empty_heap_recs++;
}

void eng_rec_header(struct hs_state *st, struct cur *c)
{
	if (st->rec_hdr_out)
		return;
	eng_flush(st, c);
	/* HS_STREAM: a heap record becomes segments, written later */
	if (!is_heap_tag(st->rec_tag) || !lay_heap_header(st)) {
		eng_emit(st, st->rec_hdr, 9);
		st->heap_written += is_heap_tag(st->rec_tag);
	}
	st->rec_hdr_out = 1;
	st->rec_body_out = st->out_off;
}

/* The heap record's header went out with the input's length: patch it
 * to the output's. 1 on an error. */
static int patch_length(struct hs_state *st)
{
	uint64_t out_len = st->out_off - st->rec_body_out;
	uint64_t in_body = st->in_off - st->rec_body_in;
	unsigned char be[4];

	/* a truncated record (fallback at finish) keeps its missing tail */
	if (st->rec_len > in_body)
		out_len += st->rec_len - in_body;
	if (out_len > UINT32_MAX) {
		eng_error(st, HS_E_TOOBIG, st->rec_body_in - 9);
		return 1;
	}
	if (out_len == hs_be32(st->rec_hdr + 5))
		return 0;
	hs_put_be32(be, (uint32_t)out_len);
	if (!st->sink.patch ||
	    st->sink.patch(st->sink.user, st->rec_body_out - 4, be, 4)) {
		eng_error(st, HS_E_EMIT, st->in_off);
		return 1;
	}
	return 0;
}

/* The heap record is complete: fix its output length. */
void eng_end_record(struct hs_state *st, struct cur *c)
{
	census_record_end(st);
	eng_flush(st, c);
	L_CALL(st, release, st);
	if (!lay_record_close(st) && st->rec_hdr_out && patch_length(st))
		return;
	L_CALL(st, record_closed, st);
	st->rec_hdr_out = 0;
	st->rec_tag = 0;
	st->rec_end = 0;
	st->phase = PH_REC;
}

/* ---- bodies and errors ------------------------------------------------- */

/* Bytes of the current body go out (pass) or not (drop), then `next`. */
int eng_set_body(struct hs_state *st, struct cur *c, uint64_t len,
                 unsigned next, const unsigned char *held, size_t nheld)
{
	if (len > rec_left(st)) {
		eng_fail(st, c, HS_E_OVERRUN, st->sub_in, held, nheld);
		return 1;
	}
	st->left = len;
	st->next = next;
	st->phase = PH_BODY;
	return 1;
}

/* What the layers hold back goes out as it is: a held array (stripped),
 * and in a heap record what goes before its output (a waiting
 * HEAP_DUMP_INFO, which governs the bytes copied next). */
static void release_waiting(struct hs_state *st, struct cur *c, int in_rec)
{
	L_CALL(st, release, st);
	st->have = 0;
	if (in_rec)
		L_CALL(st, goes_out, st, c);
}

/* A parse error at input offset off. held/nheld: bytes consumed but not yet
 * emitted. Without HS_FALLBACK the error is sticky; with it, those bytes
 * go out verbatim and so does the rest of the stream, while the current
 * heap record keeps an exact length. */
void eng_fail(struct hs_state *st, struct cur *c, enum hs_err err,
              uint64_t off, const unsigned char *held, size_t nheld)
{
	int in_rec = is_heap_tag(st->rec_tag) && st->rec_end != 0;

	if (!st->mode.fallback) {
		eng_error(st, err, off);
		return;
	}
	st->fallback = err;
	st->fallback_off = off;
	eng_flush(st, c);
	release_waiting(st, c, in_rec);
	st->phase = in_rec ? PH_RAW_REC : PH_RAW;
	/* (redact: the rest of the record goes out as zeros, never as it
	 * came: step_raw) */
	L_CALL(st, fail, st, nheld);
	/* jvm mode may not have written the record's header yet */
	if (st->phase == PH_RAW_REC)
		eng_rec_header(st, c);
	st->fb_in = st->in_off - nheld;
	st->fb_out = st->out_off;
	eng_emit_held(st, held, nheld);
}

void eng_emit_held(struct hs_state *st, const unsigned char *held, size_t n)
{
	if (lay_zeros_held(st))
		eng_zeros(st, n);
	else
		eng_emit(st, held, n);
}

uint64_t eng_copied(const struct hs_state *st, uint64_t in_off)
{
	if (st->fallback && in_off >= st->fb_in && !lay_zeros_copy(st))
		return in_off - st->fb_in + st->fb_out;
	return UINT64_MAX;
}
