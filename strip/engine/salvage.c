/*
 * HS_SALVAGE (see hprof.h): a dump cut short keeps what came whole before
 * the cut. On the way, this layer notes the primitive array classes (their
 * names, their LOAD_CLASS records, which class dumps came and which array
 * types went out); at the end it takes back the unfinished unit, closes
 * the record, and completes the class dumps the cut left out. Every hook
 * does nothing unless salvaging.
 */
#include "points.h"

/* The element type a primitive array class name stands for ("[I" in
 * HotSpot dumps, "int[]" in ART's), else 0. */
static unsigned array_class_type(const char *s, size_t n)
{
	static const char *const names[12][2] = {
		[4] = { "[Z", "boolean[]" }, [5] = { "[C", "char[]" },
		[6] = { "[F", "float[]" }, [7] = { "[D", "double[]" },
		[8] = { "[B", "byte[]" }, [9] = { "[S", "short[]" },
		[10] = { "[I", "int[]" }, [11] = { "[J", "long[]" } };
	unsigned t, k;

	for (t = 4; t < 12; t++)
		for (k = 0; k < 2; k++)
			if (strlen(names[t][k]) == n && !memcmp(s, names[t][k], n))
				return t;
	return 0;
}

/* Is this record body one salvage_names wants? "[B" or "byte[]" ...
 * "boolean[]", java.lang.Object, and the classes they name. */
static int salvage_wants_record(const struct hs_state *st, unsigned tag,
                         uint32_t len)
{
	unsigned id = st->idsize;

	if (!st->mode.salvage)
		return 0;
	if (tag == HS_REC_STRING)
		return len >= id + 2 && (len <= id + 9 || len == id + 16);
	return tag == HS_REC_LOAD_CLASS && len == 8 + 2 * id;
}

/* A STRING or LOAD_CLASS record body, whole in h. */
static void salvage_names(struct hs_state *st, const unsigned char *h)
{
	unsigned id = st->idsize, t;

	if (!st->mode.salvage)
		return;
	if (st->rec_tag == HS_REC_STRING) {
		const char *s = (const char *)h + id;
		size_t n = st->rec_len - id;
		if ((t = array_class_type(s, n)) != 0)
			st->sv.arr_name[t] = rd_id(st, h) + 1;
		else if ((n == 16 && !memcmp(s, "java/lang/Object", 16)) ||
		         (n == 16 && !memcmp(s, "java.lang.Object", 16)))
			st->sv.obj_name = rd_id(st, h) + 1;
		return;
	}
	for (t = 4; t < 12; t++)
		if (st->sv.arr_name[t] == rd_id(st, h + 8 + id) + 1) {
			st->sv.arr_class[t] = rd_id(st, h + 4) + 1;
			st->sv.arr_trace[t] = hs_be32(h + 4 + id);
		}
	if (st->sv.obj_name == rd_id(st, h + 8 + id) + 1)
		st->sv.obj_class = rd_id(st, h + 4) + 1;
}

/* A class dump's fixed part, h: is it a primitive array class's? */
static void salvage_class(struct hs_state *st, const unsigned char *h)
{
	uint64_t id = rd_id(st, h + 1);
	unsigned t;

	for (t = 4; t < 12 && st->mode.salvage; t++)
		if (st->sv.arr_class[t] == id + 1)
			st->sv.arr_dumped |= 1u << t;
}

/* A primitive array of element type type goes out. */
static void salvage_array(struct hs_state *st, unsigned type)
{
	if (st->mode.salvage && type < 12)
		st->sv.arr_used |= 1u << type;
}

/* Drops the output from off on. */
static void cut_output(struct hs_state *st, uint64_t off)
{
	if (st->err || off >= st->out_off)
		return;
	if (st->sink.truncate && st->sink.truncate(st->sink.user, off)) {
		eng_error(st, HS_E_SALVAGE_OUT, st->sub_in);
		return;
	}
	st->out_off = off;
}

/* The unfinished sub-record's output, taken back: from where it began,
 * or where a layer that holds it says (UINT64_MAX: gone already). */
static void drop_partial(struct hs_state *st)
{
	uint64_t from = st->sub_out;

	L_CALL(st, take_back, st, &from);
	cut_output(st, from);
	st->have = 0;
}

static void put_id(const struct hs_state *st, unsigned char *p, uint64_t v)
{
	if (st->idsize == 8) {
		hs_put_be32(p, (uint32_t)(v >> 32));
		hs_put_be32(p + 4, (uint32_t)v);
	} else {
		hs_put_be32(p, (uint32_t)v);
	}
}

/* Arrays went out whose class's dump the cut left out: viewers (VisualVM's
 * heap library) refuse a primitive array without its class. Such a class
 * is named in the dump (LOAD_CLASS) and its dump is fixed by the format:
 * java.lang.Object's subclass, no loader, no fields, instance size 0. They
 * go at the end of the heap record the cut fell in (a 1.0.1 dump's one
 * HEAP_DUMP: a second one would be a second dump), else in a heap record
 * of their own. No instance is made up. Returns how many went out. */
static unsigned complete_classes(struct hs_state *st, struct cur *c,
                                 int in_heap)
{
	unsigned id = st->idsize, n = 15 + 7 * id, t, k = 0;
	unsigned missing = st->sv.arr_used & ~st->sv.arr_dumped;
	unsigned char h[9], d[15 + 7 * 8];

	for (t = 4; t < 12; t++)
		k += (missing >> t & 1) && st->sv.arr_class[t];
	if (!k)
		return 0;
	if (in_heap) {
		eng_rec_header(st, c);
	} else {
		h[0] = st->version == '1' && !st->mode.stream
		       ? HS_REC_HEAP_DUMP : HS_REC_HEAP_DUMP_SEGMENT;
		memset(h + 1, 0, 4);
		hs_put_be32(h + 5, k * n);
		eng_emit(st, h, 9);
		st->heap_written++;
		if (h[0] == HS_REC_HEAP_DUMP_SEGMENT)
			st->had_segments = 1;
	}
	for (t = 4; t < 12; t++) {
		if (!(missing >> t & 1) || !st->sv.arr_class[t])
			continue;
		memset(d, 0, sizeof d);
		d[0] = HS_SUB_CLASS_DUMP;
		put_id(st, d + 1, st->sv.arr_class[t] - 1);
		hs_put_be32(d + 1 + id, st->sv.arr_trace[t]);
		if (st->sv.obj_class)
			put_id(st, d + 1 + id + 4, st->sv.obj_class - 1);
		eng_emit(st, d, n);
		st->sv.arr_dumped |= 1u << t;
		st->salvage_classes++;
	}
	return k;
}

/* A cut inside a record outside the heap: all of it goes. */
static uint64_t cut_record(struct hs_state *st)
{
	cut_output(st, st->rec_body_out - 9);
	st->records--;
	if (st->census) {
		st->census->rec_count[st->rec_tag]--;
		st->census->rec_bytes[st->rec_tag] -= 9 + st->rec_len;
	}
	st->salvage_recs = 1;
	st->have = 0;
	st->rec_tag = 0;
	st->rec_end = 0;
	st->rec_hdr_out = 0;
	st->phase = PH_REC;
	return st->rec_body_in - 9;
}

/* ... and the census counts a heap record's input up to from. */
static void cut_counted(struct hs_state *st, uint64_t from)
{
	if (st->census)
		st->census->rec_bytes[st->rec_tag] += from - st->rec_body_in -
		                                       st->rec_len;
}

/* The heap record cut at from is from - rec_body_in bytes long: a
 * placeholder's length is known now. */
static void shorten_record(struct hs_state *st, uint64_t from)
{
	cut_counted(st, from);
	st->rec_len = from - st->rec_body_in;
	st->open = 0;
}

/* A cut inside a heap record: it ends after its last whole unit. */
static uint64_t cut_heap_record(struct hs_state *st, struct cur *c)
{
	uint64_t from = st->in_off;

	if (st->phase != PH_SUB) {
		from = st->sub_in;
		st->salvage_subs = 1;
		drop_partial(st);
	}
	shorten_record(st, from);
	/* a record left empty goes, header and all (unless a layer holds
	 * output: one gathering has written nothing yet, and a held array
	 * will go out) */
	if (!complete_classes(st, c, 1) && !lay_holds(st) &&
	    st->rec_hdr_out && st->out_off == st->rec_body_out) {
		cut_output(st, st->rec_body_out - 9);
		st->rec_hdr_out = 0;
		st->heap_written--;
	}
	eng_end_record(st, c);
	return from;
}

/* The stream ended inside a record, or after a segment with no END: keep
 * what came whole before the cut, close the heap record with its exact
 * length, and say what was dropped. */
static void salvage(struct hs_state *st, struct cur *c)
{
	uint64_t from;

	st->salvaged = 1;
	switch (st->phase) {
	case PH_REC:  /* inside a record header: nothing of it went out; or
	               * after a whole segment, with no HEAP_DUMP_END */
		from = st->in_off - st->have;
		st->salvage_recs = st->have != 0;
		st->have = 0;
		break;
	case PH_NAME_TEXT:  /* a name tokenized in part: not counted */
		st->names_tokenized--;
		/* fall through */
	case PH_REC_BODY:
	case PH_STR:
	case PH_NAME:
		from = cut_record(st);
		break;
	default:
		from = cut_heap_record(st, c);
		break;
	}
	st->salvage_from = from;
	complete_classes(st, c, 0);
	if (st->had_segments)
		st->need_end = 1;
}

/* The stream ended (the phases have run what needs no input): a cut
 * inside a record is salvaged, or one after the file header began and
 * before anything whole of the heap is an error. Returns st->err. */
static int salvage_finish(struct hs_state *st, struct cur *c)
{
	if (!st->mode.salvage)
		return 0;
	if (st->phase != PH_HDR && st->phase != PH_HDR_TAIL &&
	    st->phase != PH_RAW && st->phase != PH_RAW_REC &&
	    (st->phase != PH_REC || st->have || st->in_segments))
		salvage(st, c);
	if (st->salvaged && !st->err && (!st->heap_written || !st->objects))
		eng_error(st, HS_E_NOHEAP, st->in_off);
	return st->err;
}

/* ---- the layer's hooks ------------------------------------------------- */

static uint32_t reads_record(const struct hs_state *st, unsigned tag,
                             uint32_t len)
{
	return salvage_wants_record(st, tag, len) ? len : 0;
}

/* the record read whole (PH_STR; a name's start too, PH_NAME, when that is
 * all of it) */
static void record(struct hs_state *st, const unsigned char *h, unsigned n)
{
	if (n == st->rec_len &&
	    salvage_wants_record(st, st->rec_tag, (uint32_t)st->rec_len))
		salvage_names(st, h);
}

/* a placeholder that was never patched: the writer was cut */
static void init(struct hs_state *st, const struct hs_config *cfg)
{
	(void)cfg;
	if (st->flags & HS_SALVAGE)
		st->flags |= HS_OPEN_LEN;
}

const struct hs_layer salvage_layer = {
	.init = init,
	/* records */
	.reads_record = reads_record, .record = record,
	/* sub-records */
	.array_out = salvage_array,
	/* class dumps */
	.class_start = salvage_class,
	/* finish, rewrite */
	.finish = salvage_finish,
};
