/*
 * One side of the differential target (diff.h): a df_req run through
 * common.c's fz_engine with the tables fuzz_engine.c gives each mode.
 * Compiled against the new engine's headers here, and, as a copy in
 * FUZZ_BUILD/old/tests/fuzz/ (tests/fuzz/fuzz.mk), against the old
 * engine's, whose struct hs_redact has no caches (the state held them, at
 * the sizes HS_REDACT_FLAT, HS_REDACT_PATCHES and HS_REDACT_SIZED give
 * the new one).
 */
#include "common.h"
#include "diff.h"

#include <string.h>

static struct cr_run R;

/* keep: tiny tables (evictions, arrays over 64 bytes not held back), or
 * the exact mode's callbacks */
static void keep_tables(const struct df_req *q)
{
	static uint64_t pending[64];
	static unsigned char hold[64];
	static struct hs_class classes[16];

	memset(&fz_keep, 0, sizeof fz_keep);
	fz_keep.classes = classes;
	fz_keep.class_slots = 16;
	fz_keep.user = q->user;
	if (q->tables == DF_KEEP_TINY) {
		fz_keep.pending = pending;
		fz_keep.pending_slots = 64;
		fz_keep.hold = hold;
		fz_keep.hold_size = sizeof hold;
	} else if (q->tables == DF_KEEP_FOUND) {
		fz_keep.found = q->found;
	} else if (q->tables == DF_KEEP_HAS) {
		fz_keep.has = q->has;
		fz_keep.classes = NULL;
		fz_keep.class_slots = 0;
	}
}

/* redact: roomy or tiny tables (layouts lost, a gather buffer that fills) */
static void redact_tables(const struct df_req *q)
{
	static struct hs_layout classes[1024];
	static unsigned char types[4096], gather[4096];
	static uint64_t fw_names[1024], fw_classes[1024];
	unsigned slots = q->tables == DF_REDACT_TINY ? 16 : 1024;

	memset(&fz_redact, 0, sizeof fz_redact);
	fz_redact.classes = classes;
	fz_redact.class_slots = slots;
	fz_redact.types = types;
	fz_redact.types_size = q->tables == DF_REDACT_TINY ? 8 : sizeof types;
	fz_redact.gather = gather;
	fz_redact.gather_size = q->tables == DF_REDACT_TINY ? 64 : sizeof gather;
	fz_redact.fw_names = fw_names;
	fz_redact.fw_classes = fw_classes;
	fz_redact.fw_slots = slots;
#ifdef HS_REDACT_FLAT
	{
		/* the caches the old state had, at its sizes */
		static struct hs_flat flat[HS_REDACT_FLAT];
		static struct hs_patch patch[HS_REDACT_PATCHES];
		static struct hs_sized sized[HS_REDACT_SIZED];

		fz_redact.flat = flat;
		fz_redact.flat_slots = HS_REDACT_FLAT;
		fz_redact.patch = patch;
		fz_redact.patch_slots = HS_REDACT_PATCHES;
		fz_redact.sized = sized;
		fz_redact.sized_slots = HS_REDACT_SIZED;
	}
#endif
}

static uint64_t fnv(const void *p, size_t n)
{
	const unsigned char *b = p;
	uint64_t h = 0xCBF29CE484222325u;

	while (n--)
		h = (h ^ *b++) * 0x100000001B3u;
	return h;
}

static void answer(struct df_out *o)
{
	o->b = R.out.b;
	o->len = R.out.len;
	o->over = R.out.over;
	o->err = R.err;
	o->fallback = R.fallback;
	o->err_off = R.err_off;
	o->fallback_off = R.fallback_off;
	o->fb_in = R.fb_in;
	o->fb_out = R.fb_out;
	o->in_off = R.in_off;
	o->out_off = R.out_off;
	o->arrays = R.arrays;
	o->elem_bytes = R.elem_bytes;
	o->records = R.records;
	o->kept = R.kept;
	o->kept_bytes = R.kept_bytes;
	o->objects = R.objects;
	o->redacted = R.redacted;
	o->withheld = R.withheld;
	o->zeroed = R.zeroed;
	o->names = R.names;
	o->census = fnv(&R.census, sizeof R.census);
	o->idsize = R.idsize;
	o->version = R.version;
	o->errname = hs_strerror(R.err);
}

void df_run(const struct df_req *q, struct df_out *o)
{
	struct fz_cuts c;

	memset(&fz_keep, 0, sizeof fz_keep);
	memset(&fz_redact, 0, sizeof fz_redact);
	memset(&fz_names, 0, sizeof fz_names);
	if (q->tables >= DF_KEEP_TINY && q->tables <= DF_KEEP_HAS)
		keep_tables(q);
	if (q->tables == DF_REDACT_ROOMY || q->tables == DF_REDACT_TINY)
		redact_tables(q);
	fz_names.key[0] = q->key[0];
	fz_names.key[1] = q->key[1];
	fz_names.original = q->original;
	fz_names.rename = q->rename;
	fz_names.user = q->user;
	fz_cuts_init(&c, q->seed);
	fz_engine(q->in, q->len, q->flags, q->idsize, &c, q->limit, NULL, &R);
	answer(o);
}
