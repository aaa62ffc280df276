/*
 * The ids that claim an array's elements (HS_KEEP_STRINGS, HS_KEEP_BITMAPS):
 * a String's value, a Thread's name, a Bitmap's mBuffer, a DumpData's
 * buffers and their elements. Exact pass 1 reports each to the caller
 * (found); streaming, each waits in the caller's pending table until its
 * array comes, or is evicted when the table is full (and so does a
 * buffers id in exact pass 1, when the caller gives a table).
 */
#include "internal.h"

/* A STRING record's body h: which of the n texts its text is (a class
 * name given with '/' matches its '.' form too, ART's), or -1. */
int keep_text(const struct hs_state *st, const unsigned char *h,
              const char *const *texts, unsigned n)
{
	const char *s = (const char *)h + st->idsize;
	size_t len = st->rec_len - st->idsize, i;
	unsigned w;

	for (w = 0; w < n; w++) {
		for (i = 0; i < len && texts[w][i]; i++)
			if (s[i] != texts[w][i] &&
			    !(texts[w][i] == '/' && s[i] == '.'))
				break;
		if (i == len && !texts[w][i])
			return (int)w;
	}
	return -1;
}

/* Linear probing; removal shifts the entries after it back, so no
 * tombstones (Knuth 6.4, algorithm R). */
static void pend_remove(struct hs_state *st, unsigned i)
{
	uint64_t *t = st->ks.cfg.pending;
	unsigned mask = st->ks.cfg.pending_slots - 1, j = i, k;

	for (;;) {
		j = (j + 1) & mask;
		if (!t[j])
			break;
		k = id_slot(t[j], mask + 1);
		/* t[j] may move to i unless its home lies cyclically in (i, j] */
		if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		t[i] = t[j];
		i = j;
	}
	t[i] = 0;
	st->ks.pend_count--;
}

void pend_put(struct hs_state *st, uint64_t id)
{
	uint64_t *t = st->ks.cfg.pending;
	unsigned slots = st->ks.cfg.pending_slots, i;

	if (!slots || !id || pend_has(st, id))
		return;  /* (pending already: nothing else goes for it) */
	/* full (7/8): evict one, sweeping the table like a clock hand */
	if (st->ks.pend_count >= slots - slots / 8) {
		while (!t[st->ks.pend_hand])
			st->ks.pend_hand = (st->ks.pend_hand + 1) & (slots - 1);
		pend_remove(st, st->ks.pend_hand);
		st->ks.pend_hand = (st->ks.pend_hand + 1) & (slots - 1);
		st->evicted++;
	}
	for (i = id_slot(id, slots); t[i]; i = (i + 1) & (slots - 1))
		;
	t[i] = id;
	st->ks.pend_count++;
}

/* Is id pending? Then it is taken out. */
int pend_take(struct hs_state *st, uint64_t id)
{
	uint64_t *t = st->ks.cfg.pending;
	unsigned slots = st->ks.cfg.pending_slots, i;

	if (!slots)
		return 0;
	for (i = id_slot(id, slots); t[i]; i = (i + 1) & (slots - 1))
		if (t[i] == id) {
			pend_remove(st, i);
			return 1;
		}
	return 0;
}

/* Is id pending? (It stays.) */
int pend_has(const struct hs_state *st, uint64_t id)
{
	const uint64_t *t = st->ks.cfg.pending;
	unsigned slots = st->ks.cfg.pending_slots, i;

	if (!slots || !id)
		return 0;
	for (i = id_slot(id, slots); t[i]; i = (i + 1) & (slots - 1))
		if (t[i] == id)
			return 1;
	return 0;
}

/* A String's value (or a Thread's name) points at id. */
void keep_found(struct hs_state *st, uint64_t id)
{
	int list = st->bm.field == 2;

	if (id && st->bm.field)  /* a bitmap's field: counted */
		*(list ? &st->bitmap_lists : &st->bitmap_refs) += 1;
	st->bm.field = 0;
	if (!id)
		return;
	if (id == st->ks.claimed) {  /* kept already (hold_resolve) */
		st->ks.claimed = 0;
		return;
	}
	if (st->ks.cfg.found)
		st->ks.cfg.found(st->ks.cfg.user, id);
	/* exact pass 1 pends a DumpData's buffers too, in the caller's
	 * table if it gave one: its elements are read when it comes after */
	if (!st->ks.cfg.found || list)
		pend_put(st, id);
}
