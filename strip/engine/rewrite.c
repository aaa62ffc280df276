/*
 * hs_rewrite: the writer rewrote bytes it had written (see hprof.h). Bytes
 * that went out unchanged are patched in the output; the length of a JDK 8
 * placeholder record (HS_OPEN_LEN), in whatever pieces it comes, closes
 * that record.
 */
#include "points.h"

/* HS_OPEN_LEN: the writer patched the length of the heap record whose
 * length field sits at input offset len_off to value. Closes the record
 * once value bytes of its body have been fed. */
static enum hs_err close_record(struct hs_state *st, uint64_t len_off,
                                uint32_t value)
{
	uint64_t fed;
	struct cur c = { 0, 0, 0 };

	if (st->err)
		return st->err;
	if (st->maybe_open && len_off == st->rec_body_in - 4) {
		st->maybe_open = 0;
		st->open = 1;
	}
	if (!st->open || len_off != st->rec_body_in - 4)
		return HS_E_PATCH;
	fed = st->in_off - st->rec_body_in;
	if (value < fed)
		return HS_E_PATCH;
	st->open = 0;
	st->rec_len = value;
	st->rec_end = st->rec_body_in + value;
	/* close now if the body is all in */
	while (!st->err && eng_step(st, &c))
		;
	return st->err;
}

/* Overwrites output bytes at output offset out through the sink. */
static enum hs_err rewrite_out(struct hs_state *st, uint64_t out,
                               const void *buf, size_t len)
{
	if (!st->sink.patch || st->sink.patch(st->sink.user, out, buf, len))
		eng_error(st, HS_E_EMIT, st->in_off);
	return st->err;
}

/* Bytes of the open record's 4-byte length field, in any order and any
 * pieces (JDK 8 seeks back and writes it whole; a cut write may split it).
 * Once all four are in, the record is closed with that length. */
static enum hs_err rewrite_len(struct hs_state *st, uint64_t lo,
                               const unsigned char *b, size_t len,
                               uint64_t in_off)
{
	size_t i;

	if (st->patch_off != lo)
		st->patch_mask = 0;
	st->patch_off = lo;
	for (i = 0; i < len; i++) {
		st->patch[in_off - lo + i] = b[i];
		st->patch_mask |= 1u << (in_off - lo + i);
	}
	if (st->patch_mask != 0xF)
		return HS_E_OK;
	st->patch_mask = 0;
	return close_record(st, lo, hs_be32(st->patch));
}

enum hs_err hs_rewrite(struct hs_state *st, uint64_t in_off, const void *buf,
                       size_t len)
{
	uint64_t same, lo, copied;

	if (st->err)
		return st->err;
	if (len > st->in_off || in_off > st->in_off - len)
		return HS_E_REWRITE;  /* not fed yet: not a rewrite */
	if (!len)
		return HS_E_OK;
	if (lay_rewrite(st, in_off, len)) {
		struct cur c = { 0, 0, 0 };
		eng_resolve(st, &c, 0);
		if (st->err)
			return st->err;
	}
	same = st->same_until < st->out_off ? st->same_until : st->out_off;
	lo = st->open || st->maybe_open ? st->rec_body_in - 4 : UINT64_MAX;
	if (in_off + len <= same)
		return rewrite_out(st, in_off, buf, len);
	if ((copied = eng_copied(st, in_off)) != UINT64_MAX)
		return rewrite_out(st, copied, buf, len);
	if (lo != UINT64_MAX && in_off >= lo && in_off + len <= lo + 4)
		return rewrite_len(st, lo, buf, len, in_off);
	return HS_E_REWRITE;
}
