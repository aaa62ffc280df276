/*
 * HS_KEEP_STRINGS, streaming (see hprof.h): the hold-back. A char[] or
 * byte[] array that no String claimed yet is held back, its elements in
 * the caller's keep.hold, until the next sub-record shows whether a String
 * claims it: an instance behind it is gathered up to its value (PH_LOOK,
 * read in keep.c), and when the array ends a heap record, the next
 * record's start is (PH_XLOOK). A held array goes out in its place, kept
 * whole or stripped; nothing is passed while one is held. Every hook does
 * nothing unless an array is held.
 */
#include "internal.h"

_Static_assert(sizeof ((struct hs_state *)0)->ks.held_hdr >= 1 + 8 + 9,
               "held_hdr holds an array's header with 8-byte ids");
/* a segment under HS_SEGMENT_SOFT bytes takes a held array and the String
 * gathered behind it (look) */
_Static_assert(HS_SEGMENT_SOFT + HS_HOLD_LIMIT + 18 + 64 <= HS_STREAM_BUF,
               "a held array fits in a stream's segment");

/* The held array's first len bytes go out as they came: its header
 * (st->ks.held_hdr), then its elements (the caller's keep.hold). */
static void emit_held(struct hs_state *st, size_t len)
{
	size_t n = 1 + st->idsize + 9;

	eng_emit(st, st->ks.held_hdr, len < n ? len : n);
	if (len > n)
		eng_emit(st, st->ks.cfg.hold, len - n);
}

/* The held array goes out, whole (kept) or stripped. Nothing is passed
 * while an array is held, so it goes out in its place. */
void hold_release(struct hs_state *st, int whole)
{
	unsigned n = 1 + st->idsize + 9;
	unsigned char t = HS_SUB_PRIMITIVE_ARRAY_NODATA;

	if (!st->ks.held_need)
		return;
	if (whole) {
		emit_held(st, st->ks.held_need);
		st->kept++;
		st->kept_bytes += st->ks.held_need - n;
	} else {
		eng_emit(st, &t, 1);
		eng_emit(st, st->ks.held_hdr + 1, n - 1);
		st->arrays++;
		st->elem_bytes += st->ks.held_need - n;
	}
	st->ks.held_need = st->ks.held_len = 0;
}

/* An array's header h, its elements bytes long, that no String claimed
 * yet: streaming, a char[] or byte[] that one may claim next is held
 * back (its elements stashed in the caller's keep.hold, as its body goes
 * by). 1 if so. */
int hold_array(struct hs_state *st, const unsigned char *h, uint64_t bytes)
{
	unsigned n = st->need, type = h[n - 1];

	if (!st->mode.keep_streams || !st->mode.keep_strings ||
	    (type != 5 && type != 8) ||
	    bytes > st->ks.cfg.hold_size)
		return 0;
	memcpy(st->ks.held_hdr, h, n);
	st->ks.held_len = n;
	st->ks.held_need = n + (size_t)bytes;
	st->ks.held_id = rd_id(st, h + 1);
	st->act = ACT_STASH;
	return 1;
}

/* ... and k more of its elements, p, go by (ACT_STASH). */
void hold_stash(struct hs_state *st, const unsigned char *p, size_t k)
{
	size_t n = 1 + st->idsize + 9;

	memcpy(st->ks.cfg.hold + (st->ks.held_len - n), p, k);
	st->ks.held_len += k;
}

/* A String instance whose header h was taken behind a held array, its
 * fields len bytes, its value at ref: gathered up to its value, which
 * shows whether it claims the array (PH_LOOK). 1 if so; 0 if its value
 * cannot be read. */
int hold_look(struct hs_state *st, const unsigned char *h, uint64_t len,
              int32_t ref)
{
	unsigned n = st->need, id = st->idsize;

	if (ref < 0 || n + (unsigned)ref + id > sizeof st->ks.look)
		return 0;
	memcpy(st->ks.look, h, n);
	st->ks.look_len = n;
	st->ks.look_need = n + (unsigned)ref + id;
	st->left = len;
	st->phase = PH_LOOK;
	return 1;
}

/* ---- an array held at the end of a heap record ------------------------- */

/* The heap record ends (at st->rec_end): 1 if an array is held, and its
 * end waits for the next record's start (PH_XLOOK). */
int hold_record_end(struct hs_state *st, struct cur *c)
{
	if (!st->ks.held_need)
		return 0;
	eng_flush(st, c);
	st->ks.xlook_len = 0;
	st->phase = PH_XLOOK;
	return 1;
}

/* PH_XLOOK: does what st->ks.xlook holds (the bytes after a heap record
 * that ended with an array held) start a String that claims the array?
 * 1 yes, 0 no, -1 not known yet. As keep_sub_start and keep_instance
 * decide inside a record: the next record is a heap record whose first
 * sub-record is a String instance, whose value id fits in look. */
static int xlook_claims(const struct hs_state *st)
{
	const unsigned char *x = st->ks.xlook;
	unsigned n = st->ks.xlook_len, id = st->idsize, hn = 1 + 2 * id + 8;
	int32_t ref = st->string_ref;
	uint64_t len, ilen;
	int open;

	if (n < 9)
		return -1;
	len = hs_be32(x + 5);
	/* a JDK 8 placeholder: its length comes later (step_sub) */
	open = len == 0 && st->mode.open_len;
	if (!is_heap_tag(x[0]) || (len < hn && !open))
		return 0;
	if (n < 10)
		return -1;
	if (x[9] != HS_SUB_INSTANCE_DUMP)
		return 0;
	if (n < 9 + hn)
		return -1;
	ilen = hs_be32(x + 9 + 1 + 2 * id + 4);
	if (!st->ks.class_string || ref < 0 ||
	    rd_id(st, x + 9 + 1 + id + 4) != st->ks.class_string ||
	    (uint64_t)ref + id > ilen || (hn + ilen > len && !open) ||
	    hn + (uint64_t)ref + id > sizeof st->ks.look)
		return 0;
	if (n < 9 + hn + (unsigned)ref + id)
		return -1;
	return rd_id(st, x + 9 + hn + (unsigned)ref) == st->ks.held_id;
}

/* PH_XLOOK is decided, claimed saying whether a String there claims the
 * held array: the input goes back to the record's end and the array goes
 * out in its place, its record's last sub-record; x is set over the bytes
 * gathered, which the core feeds again once it has closed the record
 * (eng_resolve). 0 if no array waits at a record's end. */
int hold_resolve(struct hs_state *st, int claimed, struct cur *x)
{
	if (st->phase != PH_XLOOK)
		return 0;
	st->in_off -= st->ks.xlook_len;  /* back at the record's end */
	if (claimed)
		st->ks.claimed = st->ks.held_id;
	hold_release(st, claimed);
	x->p = x->run = st->ks.xlook;
	x->end = x->p + st->ks.xlook_len;
	return 1;
}

/* ... and they were fed. */
void hold_resolved(struct hs_state *st)
{
	st->ks.xlook_len = 0;
	st->ks.claimed = 0;
}

/* Does a rewrite of input bytes [in_off, in_off + len) reach the bytes
 * gathered after a held array (PH_XLOOK)? Then the array is given up and
 * they are fed first. */
int hold_looked_at(const struct hs_state *st, uint64_t in_off, size_t len)
{
	return st->phase == PH_XLOOK &&
	       in_off + len > st->in_off - st->ks.xlook_len;
}

/* PH_XLOOK: the next record's header and first sub-record are gathered
 * until they show whether a String there claims the held array (HotSpot
 * ends a segment after a large array, and the String made around it
 * starts the next one): 1 yes, 0 no, -1 not known before the input ran
 * out. */
int hold_look_ahead(struct hs_state *st, struct cur *c)
{
	int claimed;

	while ((claimed = xlook_claims(st)) < 0) {
		if (c->p == c->end)
			return -1;
		st->ks.xlook[st->ks.xlook_len++] = *c->p;
		consume(st, c, 1);
		c->run = c->p;
	}
	return claimed;
}

/* ---- the end ----------------------------------------------------------- */

/* HS_FALLBACK at the end of a stream cut inside a record: an array being
 * held back goes out as far as it came, verbatim (when partial units go
 * out at all); a held array whole, then a String gathered behind it. */
void hold_finish(struct hs_state *st, int partial)
{
	if (partial && st->phase == PH_BODY && st->act == ACT_STASH) {
		emit_held(st, st->ks.held_len);
		st->ks.held_need = st->ks.held_len = 0;
	}
	hold_release(st, 0);
	if (partial && st->phase == PH_LOOK) {
		eng_emit(st, st->ks.look, st->ks.look_len);
		st->ks.look_len = 0;
	}
}

/* HS_SALVAGE: the unfinished sub-record is taken back: an array being
 * held back with it, or the String gathered behind one. */
void hold_drop_partial(struct hs_state *st)
{
	if (st->phase == PH_BODY && st->act == ACT_STASH)
		st->ks.held_need = st->ks.held_len = 0;
	st->ks.look_len = 0;
}
