/*
 * HS_KEEP_BITMAPS (see hprof.h): the keep layer's second source, the
 * arrays of Android's pictures. keep.c's hooks call these when bitmaps
 * are on; the decision stays keep's (one pending table, one exact
 * protocol, one place where an array's fate is chosen).
 *
 * On the way through: the names of Bitmap and Bitmap$DumpData and of their
 * fields mBuffer and buffers (STRING, LOAD_CLASS), the fields' offsets
 * (class dumps), each Bitmap's mBuffer and DumpData's buffers (keep's
 * PH_PEEK), a claimed buffers array's elements (PH_ELEMS) and, streaming,
 * the first bytes of a byte[] nobody claimed yet (PH_SIG): a PNG, JPEG or
 * WEBP image keeps its elements in a dump that loads DumpData.
 */
#include "internal.h"

enum { B_BITMAP, B_DUMPDATA, B_MBUFFER, B_BUFFERS };

/* ---- the names, the classes, the layouts ------------------------------- */

static void name_add(struct hs_state *st, unsigned which, uint64_t id)
{
	uint64_t *n = st->bm.names[which];

	if (!n[0] || n[0] == id)
		n[0] = id;
	else if (!n[1])
		n[1] = id;
}

static int name_is(const struct hs_state *st, unsigned which, uint64_t id)
{
	const uint64_t *n = st->bm.names[which];

	return id && (n[0] == id || n[1] == id);
}

/* Is a STRING text n bytes long one bm_names may want? (Bitmap, its
 * DumpData, mBuffer and buffers.) */
int bm_wants_text(uint32_t n)
{
	return n == 23 || n == 32 || n == 7;
}

/* A STRING or LOAD_CLASS record body, whole in h. */
void bm_names(struct hs_state *st, const unsigned char *h)
{
	unsigned id = st->idsize;

	if (st->rec_tag == HS_REC_STRING) {
		static const char *const texts[] = {  /* as B_* */
			"android/graphics/Bitmap",
			"android/graphics/Bitmap$DumpData", "mBuffer", "buffers"
		};
		int w = keep_text(st, h, texts, 4);
		if (w >= 0)
			name_add(st, (unsigned)w, rd_id(st, h));
	} else {  /* LOAD_CLASS: u4 serial, class id, u4 trace, name id */
		uint64_t cls = rd_id(st, h + 4), name = rd_id(st, h + 8 + id);
		if (name_is(st, B_BITMAP, name))
			st->bm.class_bitmap = cls;
		else if (name_is(st, B_DUMPDATA, name))
			st->bm.class_dumpdata = cls;
	}
}

/* A class dump of class cls starts: its layout is known from now on. */
void bm_class(struct hs_state *st, uint64_t cls)
{
	if (cls && cls == st->bm.class_bitmap)
		st->bm.dumped |= 1;
	if (cls && cls == st->bm.class_dumpdata)
		st->bm.dumped |= 2;
}

/* Class cls's own instance field {name, type} at offset off. Both classes
 * are final, so the offset in the class's own fields is the instance's. */
void bm_field(struct hs_state *st, uint64_t cls, uint64_t name,
              unsigned type, uint32_t off)
{
	if (type != 2 || !cls)
		return;
	if (cls == st->bm.class_bitmap && name_is(st, B_MBUFFER, name))
		st->mbuffer_ref = (int32_t)off;
	else if (cls == st->bm.class_dumpdata && name_is(st, B_BUFFERS, name))
		st->buffers_ref = (int32_t)off;
}

/* Is cls a class whose instances the bitmaps source reads? */
int bm_looks(const struct hs_state *st, uint64_t cls)
{
	return cls && (cls == st->bm.class_bitmap ||
	               cls == st->bm.class_dumpdata);
}

/* The offset of the field to read in an instance of cls (bm_looks): -1
 * if it has none, or its class dump is yet to come (counted late). */
int32_t bm_ref_of(struct hs_state *st, uint64_t cls)
{
	int dd = cls == st->bm.class_dumpdata;
	int32_t ref = dd ? st->buffers_ref : st->mbuffer_ref;

	if (ref < 0) {
		if (!(st->bm.dumped & (dd ? 2 : 1)))
			st->late++;
		return -1;
	}
	st->bitmaps++;
	st->bm.field = dd ? 2 : 1;  /* counted by keep_found unless null */
	return ref;
}

/* ---- a DumpData's buffers: the object array's elements ------------------ */

/* Is the object array id a buffers array claimed (take: and taken out of
 * the pending table)? Exact pass 1 once more asks the caller's has too. */
int bm_claimed_list(struct hs_state *st, uint64_t id, int take)
{
	if (st->ks.cfg.has && st->ks.cfg.has(st->ks.cfg.user, id))
		return 1;
	return take ? pend_take(st, id) : pend_has(st, id);
}

/* An object array's header h, len bytes of ids: a claimed one is read id
 * by id as it passes (PH_ELEMS). 1 if so. */
int bm_objarray(struct hs_state *st, struct cur *c, const unsigned char *h,
                uint64_t len)
{
	unsigned id = st->idsize;

	if (!bm_claimed_list(st, rd_id(st, h + 1), 1))
		return 0;
	st->bitmap_lists_read++;
	eng_set_body(st, c, len, PH_SUB_END, h,
	             st->act == ACT_PASS ? 0 : st->need);
	if (st->phase == PH_BODY) {  /* (not the fallback) */
		st->bm.elems = hs_be32(h + 1 + id + 4);
		st->phase = PH_ELEMS;
	}
	return 1;
}

/* PH_ELEMS: the next element id, claimed; then the end. */
int bm_step_elems(struct hs_state *st, struct cur *c)
{
	const unsigned char *h;
	uint64_t v;

	if (!st->bm.elems) {
		st->phase = PH_BODY;  /* st->left is 0: its end */
		return 1;
	}
	h = eng_unit(st, c, st->idsize);
	if (!h)
		return 0;
	st->left -= st->idsize;
	st->bm.elems--;
	v = rd_id(st, h);
	if (v) {
		st->bitmap_refs++;
		keep_found(st, v);
	}
	return 1;
}

/* ---- streaming: an image's signature ------------------------------------ */

/* Do the first n bytes of p begin a PNG, JPEG or WEBP file? */
static int is_image(const unsigned char *p, unsigned n)
{
	static const unsigned char png[8] = { 0x89, 'P', 'N', 'G',
	                                      '\r', '\n', 0x1A, '\n' };

	if (n >= 8 && !memcmp(p, png, 8))
		return 1;
	if (n >= 3 && p[0] == 0xFF && p[1] == 0xD8 && p[2] == 0xFF)
		return 1;
	return n >= 12 && !memcmp(p, "RIFF", 4) && !memcmp(p + 8, "WEBP", 4);
}

/* A byte[] (header h, taken; bytes of elements) nobody claimed, streaming
 * in a dump that loads DumpData: its header and first elements wait in
 * st->bm.sig until they show an image (PH_SIG). 1 if so. */
int bm_sig_start(struct hs_state *st, const unsigned char *h, uint64_t bytes)
{
	unsigned n = st->need;

	if (!st->mode.keep_bitmaps || !st->mode.keep_streams ||
	    !st->bm.class_dumpdata || h[n - 1] != 8 || bytes < 3 ||
	    n > sizeof st->bm.sig - 12)
		return 0;
	memcpy(st->bm.sig, h, n);
	st->bm.sig_hdr = (unsigned char)n;
	st->bm.sig_len = n;
	st->bm.sig_need = n + (unsigned)(bytes < 12 ? bytes : 12);
	st->left = bytes;
	st->phase = PH_SIG;
	return 1;
}

/* ... its fate, the first elements read: kept whole (an image), held
 * (keep-strings' hold-back), or stripped as strip_array would. */
static int sig_decide(struct hs_state *st, struct cur *c)
{
	unsigned n = st->bm.sig_hdr, got = st->bm.sig_len - n;
	uint64_t bytes = got + st->left;
	unsigned char t = HS_SUB_PRIMITIVE_ARRAY_NODATA;

	if (is_image(st->bm.sig + n, got)) {
		seg_reserve(st, n + bytes);
		eng_emit(st, st->bm.sig, st->bm.sig_len);
		st->kept++;
		st->kept_bytes += bytes;
		st->images++;
		st->act = ACT_PASS;
	} else if (hold_array(st, st->bm.sig, bytes)) {
		hold_stash(st, st->bm.sig + n, got);
	} else {
		eng_emit(st, &t, 1);
		eng_emit(st, st->bm.sig + 1, n - 1);
		st->arrays++;
		st->elem_bytes += bytes;
		st->act = ACT_DROP;
	}
	st->bm.sig_len = st->bm.sig_need = 0;
	return eng_set_body(st, c, st->left, PH_SUB_END, NULL, 0);
}

/* PH_SIG: the first elements gathered, then the decision. */
int bm_step_sig(struct hs_state *st, struct cur *c)
{
	if (st->bm.sig_len == st->bm.sig_need)
		return sig_decide(st, c);
	return eng_gather(st, c, st->bm.sig, &st->bm.sig_len, st->bm.sig_need);
}
