/*
 * HS_JVM and HS_APP_ONLY on an Android (1.0.3) dump (see hprof.h): the
 * conversion to a JVM dump (1.0.2: Android roots become ROOT_UNKNOWN, the
 * HEAP_DUMP_INFOs go), and the zygote and image heaps' objects dropped.
 * Both write a heap record's header only once it holds output, so records
 * left empty disappear. The layer is on only when one of them is in
 * effect (resolve_mode).
 */
#include "internal.h"

static int is_android_root(unsigned tag)
{
	return (tag >= HS_SUB_ROOT_INTERNED_STRING &&
	        tag <= HS_SUB_ROOT_JNI_MONITOR) || tag == HS_SUB_UNREACHABLE;
}

static int dropped_heap(unsigned heap)
{
	return heap == HS_HEAP_ZYGOTE || heap == HS_HEAP_IMAGE;
}

/* File header: a converted dump is 1.0.2. */
static void header(struct hs_state *st, unsigned char *version)
{
	if (st->mode.convert)
		*version = '2';
}

/* A heap record starts: its header waits for output (1), and no
 * HEAP_DUMP_INFO waits yet. */
static int heap_start(struct hs_state *st)
{
	st->info_len = 0;
	return 1;
}

/* The act for a sub-record of this tag; -1: the core's. Like hprof-conv
 * -z, --app-only keeps class dumps (app objects refer to their classes)
 * and roots. */
static int act(const struct hs_state *st, unsigned tag)
{
	if (st->mode.app_only && is_instance_dump(tag) &&
	    dropped_heap(st->heap))
		return ACT_DROP;
	/* app-only strip: taken, then waits or goes (heap_info) */
	if (tag == HS_SUB_HEAP_DUMP_INFO &&
	    (st->mode.convert || st->mode.app_strip))
		return ACT_DROP;
	if (st->mode.convert && is_android_root(tag))
		return ACT_TAKE;
	return -1;
}

/* A HEAP_DUMP_INFO h (n bytes), app-only strip: it waits until a
 * sub-record it governs is kept (goes_out); one waiting before governs
 * nothing, and goes. */
static void heap_info(struct hs_state *st, const unsigned char *h, unsigned n)
{
	if (!st->mode.app_strip)
		return;
	memcpy(st->info, h, n);
	st->info_len = (unsigned char)n;
}

/* app-only strip: the waiting HEAP_DUMP_INFO goes out, before a
 * sub-record of its heap that is kept (or the bytes copied after a
 * fallback). */
static void goes_out(struct hs_state *st, struct cur *c)
{
	if (!st->info_len)
		return;
	eng_rec_header(st, c);
	eng_flush(st, c);
	eng_emit(st, st->info, st->info_len);
	st->info_len = 0;
}

const struct hs_layer android_layer = {
	/* records */
	.header = header,
	/* heap records */
	.heap_start = heap_start, .act = act, .heap_info = heap_info,
	/* sub-records */
	.goes_out = goes_out,
};
