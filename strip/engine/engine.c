/*
 * The hprofstrip engine: see hprof.h for the contract.
 *
 * Every input byte is either passed through, dropped, or held in the state
 * and re-emitted (possibly rewritten). Bytes passed through are never copied:
 * the cursor keeps a pending run [run, p) of the caller's buffer and flushes
 * it to the sink when something else must be emitted, or at the end of a
 * feed. Fixed-size headers are parsed in place when they are whole in the
 * input, and gathered into st->scratch when a feed cut them.
 */
#include "hprof.h"

#include <string.h>

enum phase {
	PH_HDR,     /* header string, byte by byte up to its NUL */
	PH_HDR_TAIL,/* u4 id size, u8 timestamp */
	PH_REC,     /* 9-byte record header */
	PH_REC_BODY,/* non-heap record body, passed */
	PH_SUB,     /* heap sub-record tag, or the end of the heap record */
	PH_SUBHDR,  /* fixed part of a sub-record */
	PH_BODY,    /* st->left bytes passed or dropped, then st->next */
	PH_CP,      /* class dump: constant pool entry */
	PH_ST_COUNT,/* class dump: static field count */
	PH_ST,      /* class dump: static field */
	PH_IF_COUNT,/* class dump: instance field count */
	PH_SUB_END, /* sub-record complete */
	PH_STR,     /* keep: a STRING or LOAD_CLASS body, read and passed */
	PH_IF,      /* keep: class dump: instance field, read */
	PH_PEEK,    /* keep: an instance's String.value or Thread.name */
	PH_LOOK,    /* keep: an instance gathered behind a held array */
	PH_XLOOK,   /* keep: the next record's start, behind a held array
	               that ended a heap record */
	PH_RAW_REC, /* fallback: rest of the heap record, verbatim */
	PH_RAW      /* fallback: everything, verbatim */
};

/* ACT_STASH: into keep.hold (keep: an array held back) */
enum act { ACT_PASS, ACT_HOLD, ACT_DROP, ACT_STASH };

#define OPEN_END UINT64_MAX

struct cur {
	const unsigned char *p, *end, *run;
};

/* Zeros for restored elements. Never written, so it stays in .bss. */
static unsigned char zero_page[65536];

#define HS_MSG_(name, msg) msg,
static const char *const messages[] = { HS_ERRORS(HS_MSG_) };
#undef HS_MSG_

const char *hs_strerror(enum hs_err err)
{
	return (unsigned)err < HS_E_COUNT_ ? messages[err] : "unknown error";
}

unsigned hs_type_size(unsigned type, unsigned idsize)
{
	switch (type) {
	case 2: return idsize;       /* object */
	case 4: case 8: return 1;    /* boolean, byte */
	case 5: case 9: return 2;    /* char, short */
	case 6: case 10: return 4;   /* float, int */
	case 7: case 11: return 8;   /* double, long */
	default: return 0;
	}
}

/* Length of a heap sub-record's fixed part, tag included; 0 if unknown. */
static unsigned sub_fixed_len(unsigned tag, unsigned id)
{
	switch (tag) {
#define HS_LEN_(tag, name, ids, bytes) \
	case tag: return 1 + (ids) * id + (bytes);
	HS_SUBRECORDS(HS_LEN_)
#undef HS_LEN_
	default: return 0;
	}
}

const char *hs_rec_name(unsigned tag)
{
	switch (tag) {
#define HS_NAME_(tag, name) case tag: return #name;
	HS_RECORDS(HS_NAME_)
#undef HS_NAME_
	default: return NULL;
	}
}

const char *hs_sub_name(unsigned tag)
{
	switch (tag) {
#define HS_NAME_(tag, name, ids, bytes) case tag: return #name;
	HS_SUBRECORDS(HS_NAME_)
#undef HS_NAME_
	default: return NULL;
	}
}

/* take() gathers a cut sub-record header in scratch */
_Static_assert(sizeof ((struct hs_state *)0)->scratch >= 1 + 7 * 8 + 4 + 4 + 2,
               "scratch holds a class dump's fixed part with 8-byte ids");
_Static_assert(sizeof ((struct hs_state *)0)->hold_hdr >= 1 + 8 + 9,
               "hold_hdr holds an array's header with 8-byte ids");
/* a segment under HS_SEGMENT_SOFT bytes takes a held array and the String
 * gathered behind it (look) */
_Static_assert(HS_SEGMENT_SOFT + HS_HOLD_LIMIT + 18 + 64 <= HS_STREAM_BUF,
               "a held array fits in a stream's segment");

static int is_android_root(unsigned tag)
{
	return (tag >= HS_SUB_ROOT_INTERNED_STRING &&
	        tag <= HS_SUB_ROOT_JNI_MONITOR) || tag == HS_SUB_UNREACHABLE;
}

/* Sub-records --app-only drops in the zygote and image heaps. Like
 * hprof-conv -z, class dumps stay (app objects refer to their classes),
 * and so do roots. */
static int is_instance_dump(unsigned tag)
{
	return tag == HS_SUB_INSTANCE_DUMP || tag == HS_SUB_OBJECT_ARRAY_DUMP ||
	       tag == HS_SUB_PRIMITIVE_ARRAY_DUMP ||
	       tag == HS_SUB_PRIMITIVE_ARRAY_NODATA;
}

static unsigned heap_index(uint32_t type)
{
	switch (type) {
	case 0: return HS_HEAP_DEFAULT;
	case 'A': return HS_HEAP_APP;
	case 'Z': return HS_HEAP_ZYGOTE;
	case 'I': return HS_HEAP_IMAGE;
	case 'J': return HS_HEAP_JIT;
	default: return HS_HEAP_OTHER;
	}
}

static int is_heap_tag(unsigned tag)
{
	return tag == HS_REC_HEAP_DUMP || tag == HS_REC_HEAP_DUMP_SEGMENT;
}

/* HS_JVM converts 1.0.3 only: 1.0.1 and 1.0.2 get a plain restore. */
static int jvm_convert(const struct hs_state *st)
{
	return (st->flags & HS_JVM) && st->version == '3';
}

/* HS_APP_ONLY, with HS_JVM or while stripping, on 1.0.3 only: the zygote
 * and image heaps' objects are dropped, and heap records left empty. */
static int app_only(const struct hs_state *st)
{
	return (st->flags & HS_APP_ONLY) && st->version == '3' &&
	       (!(st->flags & HS_RESTORE) || (st->flags & HS_JVM));
}

/* ... while stripping: the dump stays 1.0.3 and keeps its HEAP_DUMP_INFOs,
 * but each is held back (st->info) until a sub-record it governs is kept:
 * one that governs nothing left (a zygote heap's objects) goes, so no heap
 * record is left with nothing else. */
static int app_strip(const struct hs_state *st)
{
	return app_only(st) && !(st->flags & HS_RESTORE);
}

static int dropped_heap(unsigned heap)
{
	return heap == HS_HEAP_ZYGOTE || heap == HS_HEAP_IMAGE;
}

/* ---- output ---------------------------------------------------------- */

/* Straight to the sink. */
static void sink_write(struct hs_state *st, const void *buf, size_t len,
                       uint64_t counted)
{
	if (st->err || !len)
		return;
	if (st->sink.write(st->sink.user, buf, len)) {
		st->err = HS_E_EMIT;
		st->err_off = st->in_off;
		return;
	}
	st->out_off += counted;
}

static void emit(struct hs_state *st, const void *buf, size_t len)
{
	if (st->err || !len)
		return;
	if (st->gather && !st->own_left) {  /* HS_STREAM: into the segment */
		if (len > HS_STREAM_BUF - st->seg_len) {  /* by construction, never */
			st->err = HS_E_TOOBIG;
			st->err_off = st->sub_in;
			return;
		}
		memcpy(st->seg + st->seg_len, buf, len);
		st->seg_len += len;
		st->out_off += len;
		return;
	}
	if (st->own_left) {  /* a segment of its own: straight through */
		if (len > st->own_left) {
			st->err = HS_E_TOOBIG;
			st->err_off = st->sub_in;
			return;
		}
		st->own_left -= len;
	}
	sink_write(st, buf, len, len);
}

/* ---- HS_STREAM: segments ---------------------------------------------- */

static void segment_header(struct hs_state *st, uint64_t len)
{
	unsigned char h[9];

	h[0] = HS_REC_HEAP_DUMP_SEGMENT;
	memcpy(h + 1, st->seg_time, 4);
	hs_put_be32(h + 5, (uint32_t)len);
	sink_write(st, h, 9, 9);
}

/* The gathered sub-records go out as one segment (counted already). */
static void flush_segment(struct hs_state *st)
{
	if (!st->seg_len || st->err)
		return;
	segment_header(st, st->seg_len);
	sink_write(st, st->seg, st->seg_len, 0);
	st->seg_len = 0;
	st->heap_written++;
	st->sub_seg = 0;  /* the sub-record under way starts the next one */
}

/* The sub-record about to go out is len bytes long: room for it in the
 * segment, after closing the segment if need be, or a segment of its own
 * when it is larger than the buffer. */
static void seg_reserve(struct hs_state *st, uint64_t len)
{
	if (!st->gather || st->seg_len + len <= HS_STREAM_BUF)
		return;
	flush_segment(st);
	if (len <= HS_STREAM_BUF || st->err)
		return;
	if (len > UINT32_MAX) {
		st->err = HS_E_TOOBIG;
		st->err_off = st->sub_in;
		return;
	}
	st->own_start = st->out_off;
	segment_header(st, len);
	st->heap_written++;
	st->own_left = len;
}

/* A header held only to choose its segment (st->stream_hold) goes out
 * now that its sub-record's output length, len, is known. */
static void emit_sized(struct hs_state *st, const unsigned char *h,
                       unsigned n, uint64_t len)
{
	seg_reserve(st, len);
	emit(st, h, n);
	st->act = ACT_PASS;
	st->stream_hold = 0;
}

static void flush(struct hs_state *st, struct cur *c)
{
	if (c->p > c->run)
		emit(st, c->run, (size_t)(c->p - c->run));
	c->run = c->p;
}

static void consume(struct hs_state *st, struct cur *c, size_t n)
{
	c->p += n;
	st->in_off += n;
}

static uint64_t rec_left(const struct hs_state *st)
{
	return st->rec_end - st->in_off;
}

/* Make the next n bytes available contiguously. Passed bytes stay in the
 * pending run; held or dropped ones leave it. NULL: input ran out first,
 * the part seen so far is kept in scratch. */
static const unsigned char *take(struct hs_state *st, struct cur *c,
                                 unsigned n, unsigned act)
{
	size_t avail = (size_t)(c->end - c->p);
	const unsigned char *h;

	if (act != ACT_PASS)
		flush(st, c);
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

/* ---- keeping String values (HS_KEEP_STRINGS) -------------------------- */

static uint64_t rd_id(const struct hs_state *st, const unsigned char *p)
{
	return st->idsize == 4 ? hs_be32(p)
	                       : (uint64_t)hs_be32(p) << 32 | hs_be32(p + 4);
}

/* Strip mode keeping strings. */
static int keep_on(const struct hs_state *st)
{
	return (st->flags & HS_KEEP_STRINGS) && !(st->flags & HS_RESTORE);
}

/* ... and reading fields (not pass 2 of the exact mode, which asks). */
static int keep_reads(const struct hs_state *st)
{
	return keep_on(st) && !st->keep.has;
}

/* ... and streaming: the pending table and the hold-back. */
static int keep_streams(const struct hs_state *st)
{
	return keep_reads(st) && !st->keep.found;
}

/* Ids are addresses: multiply, keep the high bits. */
static unsigned slot_of(uint64_t id, unsigned slots)
{
	return (unsigned)((id * 0x9E3779B97F4A7C15u) >> 32) & (slots - 1);
}

/* Linear probing; removal shifts the entries after it back, so no
 * tombstones (Knuth 6.4, algorithm R). */
static void pend_remove(struct hs_state *st, unsigned i)
{
	uint64_t *t = st->keep.pending;
	unsigned mask = st->keep.pending_slots - 1, j = i, k;

	for (;;) {
		j = (j + 1) & mask;
		if (!t[j])
			break;
		k = slot_of(t[j], mask + 1);
		/* t[j] may move to i unless its home lies cyclically in (i, j] */
		if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		t[i] = t[j];
		i = j;
	}
	t[i] = 0;
	st->pend_count--;
}

static void pend_put(struct hs_state *st, uint64_t id)
{
	uint64_t *t = st->keep.pending;
	unsigned slots = st->keep.pending_slots, i;

	if (!slots)
		return;
	/* full (7/8): evict one, sweeping the table like a clock hand */
	if (st->pend_count >= slots - slots / 8) {
		while (!t[st->pend_hand])
			st->pend_hand = (st->pend_hand + 1) & (slots - 1);
		pend_remove(st, st->pend_hand);
		st->pend_hand = (st->pend_hand + 1) & (slots - 1);
		st->evicted++;
	}
	for (i = slot_of(id, slots); t[i]; i = (i + 1) & (slots - 1))
		if (t[i] == id)
			return;
	t[i] = id;
	st->pend_count++;
}

/* Is id pending? Then it is taken out. */
static int pend_take(struct hs_state *st, uint64_t id)
{
	uint64_t *t = st->keep.pending;
	unsigned slots = st->keep.pending_slots, i;

	if (!slots)
		return 0;
	for (i = slot_of(id, slots); t[i]; i = (i + 1) & (slots - 1))
		if (t[i] == id) {
			pend_remove(st, i);
			return 1;
		}
	return 0;
}

static struct hs_class *class_find(const struct hs_state *st, uint64_t id)
{
	struct hs_class *t = st->keep.classes;
	unsigned slots = st->keep.class_slots, i;

	if (!slots || !id)
		return NULL;
	for (i = slot_of(id, slots); t[i].id; i = (i + 1) & (slots - 1))
		if (t[i].id == id)
			return &t[i];
	return NULL;
}

/* The class dump just read (st->cls_*). */
static void class_done(struct hs_state *st)
{
	struct hs_class *t = st->keep.classes;
	unsigned slots = st->keep.class_slots, i;
	uint64_t id = st->cls_id;

	if (id && id == st->class_string)
		st->string_ref = st->cls_ref;
	if (id && id == st->class_thread)
		st->thread_ref = st->cls_ref;
	if (!slots || !id || class_find(st, id))
		return;
	if (st->cls_count >= slots - slots / 8) {
		st->class_full++;
		return;
	}
	for (i = slot_of(id, slots); t[i].id; i = (i + 1) & (slots - 1))
		;
	t[i].id = id;
	t[i].super = st->cls_super;
	t[i].bytes = st->cls_bytes;
	t[i].ref = -2;
	st->cls_count++;
}

/* Where Thread.name sits in an instance of class id: -1 if it is not a
 * Thread (or not known). An instance holds its class's own fields, then
 * its superclass's, up the chain. */
static int32_t thread_ref_of(struct hs_state *st, uint64_t id)
{
	struct hs_class *e = class_find(st, id), *c = e;
	uint64_t off = 0;
	int depth;

	if (!class_find(st, st->class_thread) || !e) {
		st->late++;  /* Thread's or this class's dump is yet to come */
		return -1;
	}
	if (st->thread_ref < 0)
		return -1;
	if (e->ref != -2)
		return e->ref;
	for (depth = 0; depth < 64 && off < INT32_MAX; depth++) {
		if (c->id == st->class_thread) {
			e->ref = (int32_t)(off + (uint64_t)st->thread_ref);
			return e->ref;
		}
		off += c->bytes;
		if (!c->super) {
			e->ref = -1;
			return -1;
		}
		c = class_find(st, c->super);
		if (!c) {  /* not known (yet): ask again next time */
			st->late++;
			return -1;
		}
	}
	e->ref = -1;
	return -1;
}

/* A String's value (or a Thread's name) points at id. */
static void keep_found(struct hs_state *st, uint64_t id)
{
	if (!id)
		return;
	if (id == st->claimed) {  /* kept already (xlook_resolve) */
		st->claimed = 0;
		return;
	}
	if (st->keep.found)
		st->keep.found(st->keep.user, id);
	else
		pend_put(st, id);
}

/* Does the array id keep its elements? */
static int keep_wants(struct hs_state *st, uint64_t id)
{
	if (st->expect == 1) {  /* right after a String of unknown layout */
		keep_found(st, id);
		return st->keep.found ? 0 : (pend_take(st, id), 1);
	}
	if (st->keep.has)
		return st->keep.has(st->keep.user, id) != 0;
	return pend_take(st, id);
}

enum { N_STRING, N_THREAD, N_VALUE, N_NAME };

static void name_add(struct hs_state *st, unsigned which, uint64_t id)
{
	unsigned i;

	for (i = 0; i < 4; i++)
		if (!st->names[which][i] || st->names[which][i] == id) {
			st->names[which][i] = id;
			return;
		}
}

static int name_is(const struct hs_state *st, unsigned which, uint64_t id)
{
	unsigned i;

	for (i = 0; id && i < 4; i++)
		if (st->names[which][i] == id)
			return 1;
	return 0;
}

/* A STRING or LOAD_CLASS record body, whole in h: the names and classes
 * of String and Thread. */
/* HS_SALVAGE: the element type a primitive array class name stands for
 * ("[I" in HotSpot dumps, "int[]" in ART's), else 0 */
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

static void read_array_names(struct hs_state *st, const unsigned char *h)
{
	unsigned id = st->idsize, t;

	if (st->rec_tag == HS_REC_STRING) {
		const char *s = (const char *)h + id;
		size_t n = st->rec_len - id;
		if ((t = array_class_type(s, n)) != 0)
			st->arr_name[t] = rd_id(st, h) + 1;
		else if ((n == 16 && !memcmp(s, "java/lang/Object", 16)) ||
		         (n == 16 && !memcmp(s, "java.lang.Object", 16)))
			st->obj_name = rd_id(st, h) + 1;
		return;
	}
	for (t = 4; t < 12; t++)
		if (st->arr_name[t] == rd_id(st, h + 8 + id) + 1) {
			st->arr_class[t] = rd_id(st, h + 4) + 1;
			st->arr_trace[t] = hs_be32(h + 4 + id);
		}
	if (st->obj_name == rd_id(st, h + 8 + id) + 1)
		st->obj_class = rd_id(st, h + 4) + 1;
}

static void read_names(struct hs_state *st, const unsigned char *h)
{
	unsigned id = st->idsize;

	if (st->flags & HS_SALVAGE)
		read_array_names(st, h);
	if (st->rec_tag == HS_REC_STRING) {
		const char *s = (const char *)h + id;
		size_t n = st->rec_len - id;
		uint64_t sid = rd_id(st, h);
#define IS_(lit) (n == sizeof lit - 1 && !memcmp(s, lit, n))
		if (IS_("java/lang/String") || IS_("java.lang.String"))
			name_add(st, N_STRING, sid);
		else if (IS_("java/lang/Thread") || IS_("java.lang.Thread"))
			name_add(st, N_THREAD, sid);
		else if (IS_("value"))
			name_add(st, N_VALUE, sid);
		else if (IS_("name"))
			name_add(st, N_NAME, sid);
#undef IS_
	} else {  /* LOAD_CLASS: u4 serial, class id, u4 trace, name id */
		uint64_t cls = rd_id(st, h + 4), name = rd_id(st, h + 8 + id);
		if (name_is(st, N_STRING, name))
			st->class_string = cls;
		else if (name_is(st, N_THREAD, name))
			st->class_thread = cls;
	}
}

/* Is this record body one read_names wants? */
static int names_record(const struct hs_state *st, unsigned tag, uint32_t len)
{
	unsigned id = st->idsize;

	/* salvage: "[B" or "byte[]" ... "boolean[]", and java.lang.Object */
	if ((st->flags & HS_SALVAGE) && tag == HS_REC_STRING && len >= id + 2 &&
	    (len <= id + 9 || len == id + 16))
		return 1;
	if ((st->flags & HS_SALVAGE) && tag == HS_REC_LOAD_CLASS)
		return len == 8 + 2 * id;
	if (!keep_reads(st))
		return 0;
	if (tag == HS_REC_STRING)
		return len == id + 16 || len == id + 5 || len == id + 4;
	return tag == HS_REC_LOAD_CLASS && len == 8 + 2 * id;
}

/* The held array's first len bytes go out as they came: its header
 * (st->hold_hdr), then its elements (the caller's keep.hold). */
static void emit_held(struct hs_state *st, size_t len)
{
	size_t n = 1 + st->idsize + 9;

	emit(st, st->hold_hdr, len < n ? len : n);
	if (len > n)
		emit(st, st->keep.hold, len - n);
}

/* The held array goes out, whole (kept) or stripped. Nothing is passed
 * while an array is held, so it goes out in its place. */
static void release_held(struct hs_state *st, int keep)
{
	unsigned n = 1 + st->idsize + 9;
	unsigned char t = HS_SUB_PRIMITIVE_ARRAY_NODATA;

	if (!st->hold_need)
		return;
	if (keep) {
		emit_held(st, st->hold_need);
		st->kept++;
		st->kept_bytes += st->hold_need - n;
	} else {
		emit(st, &t, 1);
		emit(st, st->hold_hdr + 1, n - 1);
		st->arrays++;
		st->elem_bytes += st->hold_need - n;
	}
	st->hold_need = st->hold_len = 0;
}

/* ---- errors and fallback --------------------------------------------- */

static void emit_rec_header(struct hs_state *st, struct cur *c);
static void emit_info(struct hs_state *st, struct cur *c);

/* HS_STREAM with HS_FALLBACK, inside a heap record: the whole sub-records
 * gathered go out as a segment, and the rest of the input record, from
 * the nheld bytes held back on, as a segment of its own whose length is
 * the record's remaining input (nothing is ever patched). A placeholder
 * record (JDK 8) has no known length: a segment header that promises 4 GiB
 * goes out instead, so readers see the dump cut at this point, never
 * garbage they take for records. */
static void stream_fallback(struct hs_state *st, size_t nheld)
{
	unsigned char h[9];
	uint64_t from = st->in_off - nheld;
	uint64_t left = st->rec_end ? st->rec_end - from : UINT32_MAX;

	flush_segment(st);
	st->gather = 0;
	st->rec_hdr_out = 1;
	h[0] = HS_REC_HEAP_DUMP_SEGMENT;
	memcpy(h + 1, st->seg_time, 4);
	hs_put_be32(h + 5, (uint32_t)left);
	emit(st, h, 9);
	if (st->phase == PH_RAW_REC) {  /* end_record finds nothing to patch */
		hs_put_be32(st->rec_hdr + 5, (uint32_t)left);
		st->rec_len = left;
		st->rec_body_in = from;
		st->rec_body_out = st->out_off;
	}
}

/* A parse error at input offset off. held/nheld: bytes consumed but not yet
 * emitted. Without HS_FALLBACK the error is sticky; with it, those bytes
 * go out verbatim and so does the rest of the stream, while the current
 * heap record keeps an exact length. */
static void fail(struct hs_state *st, struct cur *c, enum hs_err err,
                 uint64_t off, const unsigned char *held, size_t nheld)
{
	if (!(st->flags & HS_FALLBACK)) {
		st->err = err;
		st->err_off = off;
		return;
	}
	st->fallback = err;
	st->fallback_off = off;
	st->maybe_open = 0;
	flush(st, c);
	release_held(st, 0);
	st->have = 0;
	/* app-only: a held HEAP_DUMP_INFO governs the bytes copied next */
	if (st->info_len && is_heap_tag(st->rec_tag) && st->rec_end != 0)
		emit_info(st, c);
	st->phase = is_heap_tag(st->rec_tag) && st->rec_end != 0 ? PH_RAW_REC
	                                                         : PH_RAW;
	if (st->seg && (st->phase == PH_RAW_REC ||
	                (is_heap_tag(st->rec_tag) && (st->gather || st->open))))
		stream_fallback(st, nheld);
	/* jvm mode may not have written the record's header yet */
	if (st->phase == PH_RAW_REC)
		emit_rec_header(st, c);
	st->fb_in = st->in_off - nheld;
	st->fb_out = st->out_off;
	emit(st, held, nheld);
}

/* ---- records ---------------------------------------------------------- */

static void emit_rec_header(struct hs_state *st, struct cur *c)
{
	if (st->rec_hdr_out)
		return;
	flush(st, c);
	if (st->seg && is_heap_tag(st->rec_tag)) {  /* HS_STREAM: segments */
		st->had_segments = 1;
		memcpy(st->seg_time, st->rec_hdr + 1, 4);
		st->need_end |= st->rec_tag == HS_REC_HEAP_DUMP;
		st->gather = 1;
		st->rec_hdr_out = 1;
		st->rec_body_out = st->out_off;
		return;
	}
	emit(st, st->rec_hdr, 9);
	st->rec_hdr_out = 1;
	st->rec_body_out = st->out_off;
	st->heap_written += is_heap_tag(st->rec_tag);
}

/* app-only strip: the held HEAP_DUMP_INFO goes out, before a sub-record
 * of its heap that is kept (or the bytes copied after a fallback). */
static void emit_info(struct hs_state *st, struct cur *c)
{
	if (!st->info_len)
		return;
	emit_rec_header(st, c);
	flush(st, c);
	emit(st, st->info, st->info_len);
	st->info_len = 0;
}

/* The heap record is complete: fix its output length. */
static void end_record(struct hs_state *st, struct cur *c)
{
	if (st->census && st->rec_len == 0)
		st->census->empty_heap_recs++;
	flush(st, c);
	release_held(st, 0);
	if (st->gather) {
		flush_segment(st);
		st->gather = 0;
	} else if (st->rec_hdr_out) {
		uint64_t out_len = st->out_off - st->rec_body_out;
		uint64_t in_body = st->in_off - st->rec_body_in;
		/* a truncated record (fallback at finish) keeps its missing tail */
		if (st->rec_len > in_body)
			out_len += st->rec_len - in_body;
		if (out_len > UINT32_MAX) {
			st->err = HS_E_TOOBIG;
			st->err_off = st->rec_body_in - 9;
			return;
		}
		if (out_len != hs_be32(st->rec_hdr + 5)) {
			unsigned char be[4];
			hs_put_be32(be, (uint32_t)out_len);
			if (!st->sink.patch ||
			    st->sink.patch(st->sink.user, st->rec_body_out - 4, be,
			                   4)) {
				st->err = HS_E_EMIT;
				st->err_off = st->in_off;
				return;
			}
		}
	}
	/* HS_STREAM: a HEAP_DUMP that became segments is a dump of its own
	 * (the hprof agent writes one per dump): its END follows its segments
	 * at once. A record cut short (salvage, a fallback at the end) gets
	 * none here, nor one after a fallback (what follows it is verbatim). */
	if (st->need_end && st->rec_tag == HS_REC_HEAP_DUMP &&
	    st->in_off == st->rec_end && !st->fallback) {
		static const unsigned char end[9] = { HS_REC_HEAP_DUMP_END };
		emit(st, end, sizeof end);
		st->need_end = st->had_segments = 0;
	}
	st->rec_hdr_out = 0;
	st->open = 0;
	st->rec_tag = 0;
	st->rec_end = 0;
	st->phase = PH_REC;
}

/* A gzip stream's first two bytes (RFC 1952): a -gz dump */
#define GZIP_ID1 0x1F
#define GZIP_ID2 0x8B

static int step_header(struct hs_state *st, struct cur *c)
{
	if (c->p == c->end)
		return 0;
	while (c->p < c->end) {
		unsigned char b = *c->p;
		unsigned i = st->have;
		if (i == 1 && st->scratch[0] == GZIP_ID1) {  /* byte 0 was */
			fail(st, c, b == GZIP_ID2 ? HS_E_GZIP : HS_E_MAGIC, 0,
			     st->scratch, i);
			return 1;
		}
		if (i < HS_MAGIC_LEN && b != (unsigned char)HS_MAGIC[i] &&
		    !(i == 0 && b == GZIP_ID1)) {
			fail(st, c, HS_E_MAGIC, i, st->scratch, i);
			return 1;
		}
		if (i == 0 && b == GZIP_ID1 && c->p + 1 < c->end &&
		    c->p[1] != GZIP_ID2) {
			fail(st, c, HS_E_MAGIC, 0, st->scratch, 0);
			return 1;
		}
		if (i >= sizeof st->header - 1 && b != 0) {
			fail(st, c, HS_E_HEADER, i, st->scratch, i);
			return 1;
		}
		st->scratch[st->have++] = b;
		consume(st, c, 1);
		c->run = c->p;
		if (b == 0) {
			memcpy(st->header, st->scratch, st->have);
			st->version = st->have > HS_MAGIC_LEN + 1 ? st->header[HS_MAGIC_LEN] : 0;
			st->need = st->have; /* header string length, NUL included */
			st->phase = PH_HDR_TAIL;
			return 1;
		}
	}
	return 0;
}

static int step_header_tail(struct hs_state *st, struct cur *c)
{
	unsigned n = st->need;
	const unsigned char *h;

	if (c->p == c->end)
		return 0;
	/* scratch already holds the string: gather the 12 bytes after it */
	{
		size_t k = n + 12 - st->have, avail = (size_t)(c->end - c->p);
		if (k > avail)
			k = avail;
		memcpy(st->scratch + st->have, c->p, k);
		st->have += (unsigned)k;
		consume(st, c, k);
		c->run = c->p;
		if (st->have < n + 12)
			return 0;
	}
	h = st->scratch + n;
	st->idsize = hs_be32(h);
	st->timestamp = (uint64_t)hs_be32(h + 4) << 32 | hs_be32(h + 8);
	if (st->idsize != 4 && st->idsize != 8) {
		st->have = 0;
		fail(st, c, HS_E_IDSIZE, n, st->scratch, n + 12);
		return 1;
	}
	if ((st->flags & HS_JVM) && st->version == '3')
		st->scratch[HS_MAGIC_LEN] = '2';
	if (st->seg && st->version == '1')  /* HS_STREAM: segments are 1.0.2 */
		st->scratch[HS_MAGIC_LEN] = '2';
	emit(st, st->scratch, n + 12);
	st->have = 0;
	st->phase = PH_REC;
	return 1;
}

static int step_record(struct hs_state *st, struct cur *c)
{
	const unsigned char *h;
	uint32_t len;

	if (c->p == c->end)
		return 0;
	h = take(st, c, 9, ACT_HOLD);
	if (!h)
		return 0;
	memcpy(st->rec_hdr, h, 9);
	st->records++;
	st->rec_tag = h[0];
	if (is_heap_tag(st->rec_tag) && st->same_until > st->in_off - 9)
		st->same_until = st->in_off - 9;
	len = hs_be32(h + 5);
	st->rec_len = len;
	st->rec_body_in = st->in_off;
	st->rec_end = st->in_off + len;
	st->rec_hdr_out = 0;
	if (st->census) {
		st->census->rec_count[st->rec_tag]++;
		st->census->rec_bytes[st->rec_tag] += 9 + (uint64_t)len;
	}
	if (st->rec_tag == HS_REC_HEAP_DUMP_SEGMENT)
		st->had_segments = st->in_segments = 1;
	if (!is_heap_tag(st->rec_tag)) {
		if (st->rec_tag == HS_REC_HEAP_DUMP_END)
			st->need_end = st->had_segments = st->in_segments = 0;
		emit_rec_header(st, c);
		st->left = len;
		st->phase = names_record(st, st->rec_tag, len) ? PH_STR
		                                               : PH_REC_BODY;
		return 1;
	}
	/* a placeholder or an empty record: the next byte tells (step_sub) */
	st->maybe_open = len == 0 && (st->flags & HS_OPEN_LEN);
	/* each heap record starts in the default heap (the writers reset it,
	 * and hprof-conv reads it so) */
	st->heap = HS_HEAP_DEFAULT;
	st->info_len = 0;
	/* jvm and app-only modes write a heap record's header only once it
	 * holds output, so records left empty disappear */
	if (!jvm_convert(st) && !app_only(st))
		emit_rec_header(st, c);
	st->phase = PH_SUB;
	return 1;
}

static int step_rec_body(struct hs_state *st, struct cur *c)
{
	size_t avail = (size_t)(c->end - c->p);
	size_t k;

	if (st->left == 0) {
		st->phase = PH_REC;
		st->rec_tag = 0;
		st->rec_end = 0;
		return 1;
	}
	if (!avail)
		return 0;
	k = st->left < avail ? (size_t)st->left : avail;
	consume(st, c, k);
	st->left -= k;
	return 1;
}

/* After a heap record header of length 0 (HS_OPEN_LEN): does the next
 * byte start a sub-record (the length is a placeholder: JDK 8 patches it
 * later) or the next record (the record is empty, as ART writes some)?
 * Writers put heap records last, before HEAP_DUMP_END: ART writes its
 * strings, classes and traces first, so its empty segments are followed
 * by 0x1C or 0x2C, never by a sub-record tag. Tags 0x01-0x08, which both
 * can be, are sub-records here. */
static int opens_record(const struct hs_state *st, unsigned tag)
{
	return sub_fixed_len(tag, st->idsize) != 0;
}

static unsigned choose_act(const struct hs_state *st, unsigned tag)
{
	unsigned f = st->flags;

	if (app_only(st) && is_instance_dump(tag) && dropped_heap(st->heap))
		return ACT_DROP;
	/* app-only strip: taken, then held or passed (sub_header_done) */
	if (tag == HS_SUB_HEAP_DUMP_INFO && (jvm_convert(st) || app_strip(st)))
		return ACT_DROP;
	if (jvm_convert(st) && is_android_root(tag))
		return ACT_HOLD;
	if (f & HS_RESTORE)
		return tag == HS_SUB_PRIMITIVE_ARRAY_NODATA ? ACT_HOLD : ACT_PASS;
	return tag == HS_SUB_PRIMITIVE_ARRAY_DUMP ? ACT_HOLD : ACT_PASS;
}

static int step_sub(struct hs_state *st, struct cur *c)
{
	unsigned tag, n;

	if (st->in_off == st->rec_end) {
		if (!st->maybe_open && st->hold_need) {
			flush(st, c);
			st->xlook_len = 0;
			st->phase = PH_XLOOK;
			return 1;
		}
		if (!st->maybe_open) {
			end_record(st, c);
			return 1;
		}
		if (c->p == c->end)
			return 0;
		st->maybe_open = 0;
		if (!opens_record(st, *c->p)) {
			end_record(st, c);
			return 1;
		}
		st->open = 1;
		st->rec_end = OPEN_END;
	}
	if (c->p == c->end)
		return 0;
	tag = *c->p;
	n = sub_fixed_len(tag, st->idsize);
	if (!n) {
		fail(st, c, HS_E_SUBTAG, st->in_off, NULL, 0);
		return 1;
	}
	if (n > rec_left(st)) {
		fail(st, c, HS_E_OVERRUN, st->in_off, NULL, 0);
		return 1;
	}
	st->sub_tag = (unsigned char)tag;
	st->sub_in = st->in_off;
	st->act = choose_act(st, tag);
	st->sub_drop = st->act == ACT_DROP;
	/* keep: 2 right after a String of unknown layout, 1 at the next */
	st->expect = st->expect == 2;
	if (st->hold_need) {
		/* an instance may be the String that claims the held array */
		if (tag == HS_SUB_INSTANCE_DUMP && st->act != ACT_DROP)
			st->act = ACT_HOLD;
		else
			release_held(st, 0);
	}
	if (st->act != ACT_DROP)
		emit_rec_header(st, c);
	/* HS_STREAM: a segment closes at a sub-record boundary once it is
	 * big; one whose length shows in its fixed part is held until that
	 * decides its segment */
	if (st->gather) {
		flush(st, c);  /* what the segment holds must not depend on cuts */
		if (st->seg_len >= HS_SEGMENT_SOFT)
			flush_segment(st);
	}
	if (st->act != ACT_DROP)
		emit_info(st, c);
	/* where it starts, should --salvage have to take it back */
	st->sub_out = st->out_off + (uint64_t)(c->p - c->run);
	st->sub_seg = st->seg_len;
	st->stream_hold = st->gather && st->act == ACT_PASS &&
	                  (tag == HS_SUB_INSTANCE_DUMP ||
	                   tag == HS_SUB_OBJECT_ARRAY_DUMP ||
	                   tag == HS_SUB_PRIMITIVE_ARRAY_DUMP);
	if (st->stream_hold)
		st->act = ACT_HOLD;
	st->need = n;
	st->phase = PH_SUBHDR;
	return 1;
}

/* Bytes of the current body go out (pass) or not (drop), then `next`. */
static int set_body(struct hs_state *st, struct cur *c, uint64_t len,
                    unsigned next, const unsigned char *held, size_t nheld)
{
	if (len > rec_left(st)) {
		fail(st, c, HS_E_OVERRUN, st->sub_in, held, nheld);
		return 1;
	}
	st->left = len;
	st->next = next;
	st->phase = PH_BODY;
	return 1;
}

static void restore_zeros(struct hs_state *st, uint64_t n)
{
	while (n && !st->err) {
		size_t k = n < sizeof zero_page ? (size_t)n : sizeof zero_page;
		emit(st, zero_page, k);
		n -= k;
	}
}

/* keep: an instance whose header h was just read. A String's value
 * field or a Thread's name is read on the way (PH_PEEK); behind a held
 * array, a String is gathered until its value shows whether it claims
 * that array (PH_LOOK). */
static int instance_start(struct hs_state *st, struct cur *c,
                          const unsigned char *h)
{
	unsigned id = st->idsize, n = st->need;
	uint64_t cls = rd_id(st, h + 1 + id + 4);
	uint64_t len = hs_be32(h + 1 + 2 * id + 4);
	int32_t ref = -1;
	int is_string = cls && cls == st->class_string;

	if (len > rec_left(st))
		return set_body(st, c, len, PH_SUB_END, h,
		                st->act == ACT_PASS ? 0 : n);
	if (is_string) {
		st->strings++;
		ref = st->string_ref;
		if (ref >= 0)
			;
		else if (st->version == '3')
			st->expect = 2;  /* ART: its value is the next array */
		else
			st->late++;
	} else if (cls && st->class_thread) {
		ref = thread_ref_of(st, cls);
	}
	if (ref >= 0 && (uint64_t)ref + id > len)
		ref = -1;
	if (st->hold_need) {  /* h was held (step_sub) */
		if (is_string && ref >= 0 && n + (unsigned)ref + id <= sizeof st->look) {
			memcpy(st->look, h, n);
			st->look_len = n;
			st->look_need = n + (unsigned)ref + id;
			st->left = len;
			st->phase = PH_LOOK;
			return 1;
		}
		release_held(st, 0);
		emit_sized(st, h, n, n + len);
	} else if (st->stream_hold) {
		emit_sized(st, h, n, n + len);
	}
	if (ref < 0)
		return set_body(st, c, len, PH_SUB_END, NULL, 0);
	st->rest = len - (uint64_t)ref - id;
	return set_body(st, c, (uint64_t)ref, PH_PEEK, NULL, 0);
}

/* keep: an array's header h, its elements bytes long. 1 if this decided
 * its fate: kept whole, or held back (streaming, a char[] or byte[] that a
 * String may claim next). */
static int keep_array(struct hs_state *st, struct cur *c,
                      const unsigned char *h, uint64_t bytes)
{
	unsigned n = st->need, type = h[n - 1];
	uint64_t id = rd_id(st, h + 1);

	if (keep_wants(st, id)) {
		seg_reserve(st, n + bytes);
		emit(st, h, n);
		st->kept++;
		st->kept_bytes += bytes;
		st->act = ACT_PASS;
		return set_body(st, c, bytes, PH_SUB_END, NULL, 0);
	}
	if (!keep_streams(st) || (type != 5 && type != 8) ||
	    bytes > st->keep.hold_size)
		return 0;
	memcpy(st->hold_hdr, h, n);
	st->hold_len = n;
	st->hold_need = n + (size_t)bytes;
	st->hold_id = id;
	st->act = ACT_STASH;
	return set_body(st, c, bytes, PH_SUB_END, NULL, 0);
}

/* PH_PEEK: the field's id, then the rest of the instance. */
static int step_peek(struct hs_state *st, struct cur *c)
{
	const unsigned char *h;

	if (c->p == c->end)
		return 0;
	/* an app-only strip reads the Strings it drops too */
	h = take(st, c, st->idsize, st->act);
	if (!h)
		return 0;
	keep_found(st, rd_id(st, h));
	return set_body(st, c, st->rest, PH_SUB_END, NULL, 0);
}

/* PH_LOOK: a String behind a held array, gathered up to its value. */
static int step_look(struct hs_state *st, struct cur *c)
{
	size_t avail = (size_t)(c->end - c->p), k = st->look_need - st->look_len;
	uint64_t v;

	if (k) {
		if (!avail)
			return 0;
		if (k > avail)
			k = avail;
		memcpy(st->look + st->look_len, c->p, k);
		consume(st, c, k);
		c->run = c->p;
		st->look_len += (unsigned)k;
		st->left -= k;
		return 1;
	}
	v = rd_id(st, st->look + st->look_len - st->idsize);
	if (v == st->hold_id) {
		release_held(st, 1);
	} else {
		release_held(st, 0);
		keep_found(st, v);
	}
	emit(st, st->look, st->look_len);
	st->look_len = st->look_need = 0;
	st->act = ACT_PASS;
	st->next = PH_SUB_END;
	st->phase = PH_BODY;
	return 1;
}

/* PH_XLOOK: does what st->xlook holds (the bytes after a heap record
 * that ended with an array held) start a String that claims the array?
 * 1 yes, 0 no, -1 not known yet. As step_sub and instance_start decide
 * inside a record: the next record is a heap record whose first
 * sub-record is a String instance, whose value id fits in look. */
static int xlook_claims(const struct hs_state *st)
{
	const unsigned char *x = st->xlook;
	unsigned n = st->xlook_len, id = st->idsize, hn = 1 + 2 * id + 8;
	int32_t ref = st->string_ref;
	uint64_t len, ilen;
	int open;

	if (n < 9)
		return -1;
	len = hs_be32(x + 5);
	/* a JDK 8 placeholder: its length comes later (step_sub) */
	open = len == 0 && (st->flags & HS_OPEN_LEN);
	if (!is_heap_tag(x[0]) || (len < hn && !open))
		return 0;
	if (n < 10)
		return -1;
	if (x[9] != HS_SUB_INSTANCE_DUMP)
		return 0;
	if (n < 9 + hn)
		return -1;
	ilen = hs_be32(x + 9 + 1 + 2 * id + 4);
	if (!st->class_string || ref < 0 ||
	    rd_id(st, x + 9 + 1 + id + 4) != st->class_string ||
	    (uint64_t)ref + id > ilen || (hn + ilen > len && !open) ||
	    hn + (uint64_t)ref + id > sizeof st->look)
		return 0;
	if (n < 9 + hn + (unsigned)ref + id)
		return -1;
	return rd_id(st, x + 9 + hn + (unsigned)ref) == st->hold_id;
}

static int step(struct hs_state *st, struct cur *c);

/* The held array goes out, kept or stripped, as the last sub-record of
 * its record, which is then closed; the bytes gathered after it are fed
 * as usual. */
static void xlook_resolve(struct hs_state *st, struct cur *c, int keep)
{
	struct cur x;

	st->in_off -= st->xlook_len;  /* back at the record's end */
	if (keep)
		st->claimed = st->hold_id;
	release_held(st, keep);
	end_record(st, c);
	x.p = x.run = st->xlook;
	x.end = x.p + st->xlook_len;
	while (!st->err && step(st, &x))
		;
	if (!st->err)
		flush(st, &x);
	st->xlook_len = 0;
	st->claimed = 0;
}

/* PH_XLOOK: the next record's header and first sub-record are gathered
 * until they show whether a String there claims the held array (HotSpot
 * ends a segment after a large array, and the String made around it
 * starts the next one). */
static int step_xlook(struct hs_state *st, struct cur *c)
{
	int keep;

	while ((keep = xlook_claims(st)) < 0) {
		if (c->p == c->end)
			return 0;
		st->xlook[st->xlook_len++] = *c->p;
		consume(st, c, 1);
		c->run = c->p;
	}
	xlook_resolve(st, c, keep);
	return 1;
}

/* PH_STR: a STRING or LOAD_CLASS body, passed, read on the way. */
static int step_str(struct hs_state *st, struct cur *c)
{
	const unsigned char *h;

	if (c->p == c->end && st->rec_len)
		return 0;
	h = take(st, c, (unsigned)st->rec_len, ACT_PASS);
	if (!h)
		return 0;
	read_names(st, h);
	st->left = 0;
	st->phase = PH_REC_BODY;
	return 1;
}

static int sub_header_done(struct hs_state *st, struct cur *c,
                           const unsigned char *h)
{
	unsigned id = st->idsize, tag = st->sub_tag, n = st->need;
	unsigned char t;

	switch (tag) {
	case HS_SUB_INSTANCE_DUMP:
		if (keep_reads(st))
			return instance_start(st, c, h);
		if (st->stream_hold)
			emit_sized(st, h, n, n + (uint64_t)hs_be32(h + 1 + 2 * id + 4));
		return set_body(st, c, hs_be32(h + 1 + 2 * id + 4), PH_SUB_END, h,
		                st->act == ACT_PASS ? 0 : n);
	case HS_SUB_OBJECT_ARRAY_DUMP:
		if (st->stream_hold)
			emit_sized(st, h, n,
			           n + (uint64_t)hs_be32(h + 1 + id + 4) * id);
		return set_body(st, c, (uint64_t)hs_be32(h + 1 + id + 4) * id,
		                PH_SUB_END, h, st->act == ACT_PASS ? 0 : n);
	case HS_SUB_CLASS_DUMP:
		st->cls_id = rd_id(st, h + 1);
		for (t = 4; t < 12 && (st->flags & HS_SALVAGE); t++)
			if (st->arr_class[t] == st->cls_id + 1)
				st->arr_dumped |= 1u << t;
		st->cls_super = rd_id(st, h + 1 + id + 4);
		st->cls_bytes = 0;
		st->cls_ref = -1;
		st->count = (unsigned)h[n - 2] << 8 | h[n - 1];
		st->phase = st->count ? PH_CP : PH_ST_COUNT;
		return 1;
	case HS_SUB_HEAP_DUMP_INFO:
		st->heap = (unsigned char)heap_index(hs_be32(h + 1));
		if (app_strip(st)) {
			/* held until a sub-record it governs is kept; one held
			 * before governs nothing, and goes */
			memcpy(st->info, h, n);
			st->info_len = (unsigned char)n;
		}
		st->phase = PH_SUB_END;
		return 1;
	case HS_SUB_PRIMITIVE_ARRAY_DUMP:
	case HS_SUB_PRIMITIVE_ARRAY_NODATA: {
		unsigned sz = hs_type_size(h[n - 1], id);
		uint64_t bytes = (uint64_t)hs_be32(h + 1 + id + 4) * sz;
		unsigned ti = h[n - 1];

		if (!sz || ti == 2) {
			fail(st, c, HS_E_TYPE, st->sub_in + n - 1, h,
			     st->act == ACT_PASS ? 0 : n);
			return 1;
		}
		if (st->act != ACT_DROP && ti < 12)
			st->arr_used |= 1u << ti;
		if (st->stream_hold)  /* a 0x23 passed whole */
			emit_sized(st, h, n, n + bytes);
		if (st->census) {
			if (tag == HS_SUB_PRIMITIVE_ARRAY_DUMP) {
				st->census->prim_count[ti]++;
				st->census->prim_bytes[ti] += bytes;
			} else {
				st->census->nodata_count[ti]++;
				st->census->nodata_bytes[ti] += bytes;
			}
		}
		if (tag == HS_SUB_PRIMITIVE_ARRAY_NODATA) {
			if (st->act == ACT_HOLD) {  /* restore */
				uint64_t body = st->out_off - st->rec_body_out;
				seg_reserve(st, n + bytes);
				if (!st->gather && body + n + bytes > UINT32_MAX) {
					st->err = HS_E_TOOBIG;
					st->err_off = st->sub_in;
					return 1;
				}
				t = HS_SUB_PRIMITIVE_ARRAY_DUMP;
				emit(st, &t, 1);
				emit(st, h + 1, n - 1);
				restore_zeros(st, bytes);
				st->arrays++;
				st->elem_bytes += bytes;
			}
			st->phase = PH_SUB_END;
			return 1;
		}
		if (st->act == ACT_HOLD) {  /* strip */
			if (bytes > rec_left(st)) {
				fail(st, c, HS_E_OVERRUN, st->sub_in, h, n);
				return 1;
			}
			if (keep_on(st) && keep_array(st, c, h, bytes))
				return 1;
			t = HS_SUB_PRIMITIVE_ARRAY_NODATA;
			emit(st, &t, 1);
			emit(st, h + 1, n - 1);
			st->arrays++;
			st->elem_bytes += bytes;
			st->act = ACT_DROP;
		}
		return set_body(st, c, bytes, PH_SUB_END, h,
		                st->act == ACT_PASS ? 0 : n);
	}
	default:
		if (st->act == ACT_HOLD) {  /* Android root -> ROOT_UNKNOWN */
			t = HS_SUB_ROOT_UNKNOWN;
			emit(st, &t, 1);
			emit(st, h + 1, id);
		}
		st->phase = PH_SUB_END;
		return 1;
	}
}

static int step_subhdr(struct hs_state *st, struct cur *c)
{
	const unsigned char *h;

	if (c->p == c->end)
		return 0;
	h = take(st, c, st->need, st->act);
	if (!h)
		return 0;
	return sub_header_done(st, c, h);
}

static int step_body(struct hs_state *st, struct cur *c)
{
	size_t avail, k;

	if (st->left == 0) {
		st->phase = st->next;
		return 1;
	}
	avail = (size_t)(c->end - c->p);
	if (!avail)
		return 0;
	k = st->left < avail ? (size_t)st->left : avail;
	if (st->act != ACT_PASS)
		flush(st, c);
	if (st->act == ACT_STASH) {
		memcpy(st->keep.hold + (st->hold_len - (1 + st->idsize + 9)),
		       c->p, k);
		st->hold_len += k;
	}
	consume(st, c, k);
	if (st->act != ACT_PASS)
		c->run = c->p;
	st->left -= k;
	return 1;
}

/* Class dump: constant pool entries {u2 index, u1 type, value}, statics
 * {id name, u1 type, value}, instance fields {id name, u1 type}. */
static int step_class(struct hs_state *st, struct cur *c)
{
	unsigned id = st->idsize, n, sz;
	const unsigned char *h;

	switch (st->phase) {
	case PH_CP: n = 3; break;
	case PH_ST: case PH_IF: n = id + 1; break;
	default: n = 2; break;
	}
	/* before waiting for input: the record's end may be here already */
	if (st->have == 0 && n > rec_left(st)) {
		fail(st, c, HS_E_OVERRUN, st->sub_in, NULL, 0);
		return 1;
	}
	if (c->p == c->end)
		return 0;
	h = take(st, c, n, st->act);
	if (!h)
		return 0;
	switch (st->phase) {
	case PH_CP:
	case PH_ST:
		sz = hs_type_size(h[n - 1], id);
		if (!sz) {
			fail(st, c, HS_E_TYPE, st->in_off - 1, NULL, 0);
			return 1;
		}
		st->count--;
		return set_body(st, c, sz,
		                st->count ? st->phase : st->phase + 1, NULL, 0);
	case PH_ST_COUNT:
	case PH_IF_COUNT:
		st->count = (unsigned)h[0] << 8 | h[1];
		if (st->phase == PH_ST_COUNT) {
			st->phase = st->count ? PH_ST : PH_IF_COUNT;
			return 1;
		}
		if (!keep_reads(st))  /* instance fields: skipped */
			return set_body(st, c, (uint64_t)st->count * (id + 1),
			                PH_SUB_END, NULL, 0);
		/* read one by one; they must fit, as when they are skipped */
		if ((uint64_t)st->count * (id + 1) > rec_left(st)) {
			fail(st, c, HS_E_OVERRUN, st->sub_in, NULL, 0);
			return 1;
		}
		if (!st->count) {
			class_done(st);
			st->phase = PH_SUB_END;
			return 1;
		}
		st->phase = PH_IF;
		return 1;
	default: { /* PH_IF: {name id, type}; instance field types are not
	            checked, as when the fields are skipped */
		uint64_t name = rd_id(st, h);
		unsigned type = h[id];
		if (type == 2 &&
		    ((st->cls_id == st->class_string && name_is(st, N_VALUE, name)) ||
		     (st->cls_id == st->class_thread && name_is(st, N_NAME, name))))
			st->cls_ref = (int32_t)st->cls_bytes;
		st->cls_bytes += hs_type_size(type, id);
		if (--st->count)
			return 1;
		class_done(st);
		st->phase = PH_SUB_END;
		return 1;
	}
	}
}

static int step_sub_end(struct hs_state *st)
{
	if (!st->sub_drop && is_instance_dump(st->sub_tag))
		st->objects++;
	if (st->census) {
		uint64_t b = st->in_off - st->sub_in;
		st->census->sub_count[st->sub_tag]++;
		st->census->sub_bytes[st->sub_tag] += b;
		st->census->heap_bytes[st->heap] += b;
	}
	st->phase = PH_SUB;
	return 1;
}

static int step_raw(struct hs_state *st, struct cur *c)
{
	size_t avail = (size_t)(c->end - c->p), k = avail;

	if (st->phase == PH_RAW_REC) {
		if (st->in_off == st->rec_end) {
			end_record(st, c);
			if (!st->err)
				st->phase = PH_RAW;
			return 1;
		}
		if (rec_left(st) < k)
			k = (size_t)rec_left(st);
	}
	if (!k)
		return 0;
	consume(st, c, k);
	return 1;
}

static int step(struct hs_state *st, struct cur *c)
{
	switch (st->phase) {
	case PH_HDR: return step_header(st, c);
	case PH_HDR_TAIL: return step_header_tail(st, c);
	case PH_REC: return step_record(st, c);
	case PH_REC_BODY: return step_rec_body(st, c);
	case PH_SUB: return step_sub(st, c);
	case PH_SUBHDR: return step_subhdr(st, c);
	case PH_BODY: return step_body(st, c);
	case PH_CP: case PH_ST_COUNT: case PH_ST: case PH_IF_COUNT: case PH_IF:
		return step_class(st, c);
	case PH_SUB_END: return step_sub_end(st);
	case PH_STR: return step_str(st, c);
	case PH_PEEK: return step_peek(st, c);
	case PH_LOOK: return step_look(st, c);
	case PH_XLOOK: return step_xlook(st, c);
	default: return step_raw(st, c);
	}
}

/* ---- API -------------------------------------------------------------- */

void hs_init(struct hs_state *st, const struct hs_config *cfg,
             const struct hs_sink *sink)
{
	unsigned flags = cfg->flags;

	memset(st, 0, sizeof *st);
	st->flags = flags;
	st->sink = *sink;
	st->census = cfg->census;
	if ((flags & HS_KEEP_STRINGS) && cfg->keep)
		st->keep = *cfg->keep;
	else
		st->flags &= ~(unsigned)HS_KEEP_STRINGS;
	if (!st->keep.hold)
		st->keep.hold_size = 0;
	else if (st->keep.hold_size > HS_HOLD_LIMIT)
		st->keep.hold_size = HS_HOLD_LIMIT;
	/* a placeholder that was never patched: the writer was cut */
	if (flags & HS_SALVAGE)
		st->flags |= HS_OPEN_LEN;
	/* a stream never patches, not even in a fallback (stream_fallback) */
	if ((flags & HS_STREAM) && cfg->seg_buf) {
		st->seg = cfg->seg_buf;
		st->same_until = 0;
	} else {
		st->flags &= ~(unsigned)HS_STREAM;
	}
	st->string_ref = st->thread_ref = -1;
	if (st->keep.layout_known) {
		st->string_ref = st->keep.string_ref;
		st->thread_ref = st->keep.thread_ref;
	}
	st->phase = (flags & HS_NO_HEADER) ? PH_REC : PH_HDR;
	st->idsize = (flags & HS_NO_HEADER) ? (cfg->idsize ? cfg->idsize : 8) : 0;
	/* the conversion rewrites the header's version byte; a stream
	 * rewrites nothing */
	st->same_until = (flags & HS_JVM) || st->seg ? 0 : UINT64_MAX;
}

enum hs_err hs_feed(struct hs_state *st, const void *in, size_t len)
{
	struct cur c;

	c.p = c.run = (const unsigned char *)in;
	c.end = c.p + len;
	while (!st->err && step(st, &c))
		;
	if (!st->err)
		flush(st, &c);
	return st->err;
}

/* Inside a heap record whose end is known. */
static int in_heap_record(const struct hs_state *st)
{
	return st->rec_tag && is_heap_tag(st->rec_tag) && !st->open &&
	       st->rec_end;
}

/* Are the bytes gathered in scratch passed (in the output already)? */
static int unit_passed(const struct hs_state *st)
{
	switch (st->phase) {
	case PH_STR:
		return 1;
	case PH_SUBHDR: case PH_CP: case PH_ST_COUNT: case PH_ST:
	case PH_IF_COUNT: case PH_IF: case PH_PEEK:
		return st->act == ACT_PASS;
	default:
		return 0;
	}
}

/* ---- HS_SALVAGE -------------------------------------------------------- */

/* Drops the output from off on. */
static void cut_output(struct hs_state *st, uint64_t off)
{
	if (st->err || off >= st->out_off)
		return;
	if (st->sink.truncate && st->sink.truncate(st->sink.user, off)) {
		st->err = HS_E_SALVAGE_OUT;
		st->err_off = st->sub_in;
		return;
	}
	st->out_off = off;
}

/* The unfinished sub-record's output, taken back. */
static void drop_partial(struct hs_state *st)
{
	if (st->own_left) {  /* a segment of its own: header and all */
		cut_output(st, st->own_start);
		st->own_left = 0;
		st->heap_written--;
	} else if (st->gather) {
		st->out_off -= st->seg_len - st->sub_seg;
		st->seg_len = st->sub_seg;
	} else {
		cut_output(st, st->sub_out);
	}
	if (st->phase == PH_BODY && st->act == ACT_STASH)
		st->hold_need = st->hold_len = 0;
	st->look_len = 0;
	st->have = 0;
	st->zeros = 0;
	st->stream_hold = 0;
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
static unsigned complete_array_classes(struct hs_state *st, struct cur *c,
                                       int in_heap)
{
	unsigned id = st->idsize, n = 15 + 7 * id, t, k = 0;
	unsigned missing = st->arr_used & ~st->arr_dumped;
	unsigned char h[9], d[15 + 7 * 8];

	for (t = 4; t < 12; t++)
		k += (missing >> t & 1) && st->arr_class[t];
	if (!k)
		return 0;
	if (in_heap) {
		emit_rec_header(st, c);
	} else {
		h[0] = st->version == '1' && !st->seg ? HS_REC_HEAP_DUMP
		                                      : HS_REC_HEAP_DUMP_SEGMENT;
		memset(h + 1, 0, 4);
		hs_put_be32(h + 5, k * n);
		emit(st, h, 9);
		st->heap_written++;
		if (h[0] == HS_REC_HEAP_DUMP_SEGMENT)
			st->had_segments = 1;
	}
	for (t = 4; t < 12; t++) {
		if (!(missing >> t & 1) || !st->arr_class[t])
			continue;
		memset(d, 0, sizeof d);
		d[0] = HS_SUB_CLASS_DUMP;
		put_id(st, d + 1, st->arr_class[t] - 1);
		hs_put_be32(d + 1 + id, st->arr_trace[t]);
		if (st->obj_class)
			put_id(st, d + 1 + id + 4, st->obj_class - 1);
		emit(st, d, n);
		st->arr_dumped |= 1u << t;
		st->salvage_classes++;
	}
	return k;
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
	case PH_REC_BODY:
	case PH_STR:  /* inside a record outside the heap: all of it goes */
		from = st->rec_body_in - 9;
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
		break;
	default:  /* inside a heap record: it ends after its last whole unit */
		from = st->in_off;
		if (st->phase != PH_SUB) {
			from = st->sub_in;
			st->salvage_subs = 1;
			drop_partial(st);
		}
		if (st->census)
			st->census->rec_bytes[st->rec_tag] += from - st->rec_body_in -
			                                       st->rec_len;
		st->rec_len = from - st->rec_body_in;
		st->open = 0;
		/* a record left empty goes, header and all */
		if (!complete_array_classes(st, c, 1) && !st->gather &&
		    st->rec_hdr_out && st->out_off == st->rec_body_out &&
		    !st->hold_need) {
			cut_output(st, st->rec_body_out - 9);
			st->rec_hdr_out = 0;
			st->heap_written--;
		}
		end_record(st, c);
		break;
	}
	st->salvage_from = from;
	complete_array_classes(st, c, 0);
	if (st->had_segments)
		st->need_end = 1;
}

enum hs_err hs_finish(struct hs_state *st)
{
	struct cur c = { 0, 0, 0 };
	enum hs_err e = HS_E_OK;

	if (st->err)
		return st->err;
	st->maybe_open = 0;  /* nothing follows: that record was empty */
	/* run what needs no input: record ends, body ends */
	while (!st->err && step(st, &c))
		;
	if (st->phase == PH_XLOOK) {  /* nothing came to claim the array */
		xlook_resolve(st, &c, 0);
		while (!st->err && step(st, &c))
			;
	}
	if (st->err)
		return st->err;
	if (st->flags & HS_SALVAGE) {
		if (st->phase != PH_HDR && st->phase != PH_HDR_TAIL &&
		    st->phase != PH_RAW && st->phase != PH_RAW_REC &&
		    (st->phase != PH_REC || st->have || st->in_segments))
			salvage(st, &c);
		if (st->salvaged && !st->err &&
		    (!st->heap_written || !st->objects)) {
			st->err = HS_E_NOHEAP;
			st->err_off = st->in_off;
		}
		if (st->err)
			return st->err;
	}
	switch (st->phase) {
	case PH_REC:
		if (st->have) {  /* it ended inside a record header */
			e = HS_E_TRUNCATED;
		} else if (!st->records && !(st->flags & HS_NO_HEADER)) {
			e = HS_E_NORECORDS;
		} else {
			if (st->need_end) {  /* --salvage: segments cut short */
				static const unsigned char end[9] = {
					HS_REC_HEAP_DUMP_END };
				emit(st, end, sizeof end);
				st->need_end = 0;
			}
			return st->err;
		}
		break;
	case PH_RAW:
		return HS_E_OK;
	case PH_HDR:
		e = st->in_off ? HS_E_SHORT : HS_E_EMPTY;
		break;
	case PH_HDR_TAIL:
		e = HS_E_SHORT;
		break;
	case PH_SUB:
		if (st->open) {  /* the writer never patched: close it here */
			st->rec_len = st->in_off - st->rec_body_in;
			end_record(st, &c);
			return st->err;
		}
		/* fall through */
	default:
		e = HS_E_TRUNCATED;
		break;
	}
	if (st->flags & HS_FALLBACK) {
		if (!st->fallback) {
			st->fallback = e;
			st->fallback_off = st->in_off;
		}
		/* keep: an array being held back goes out as far as it came,
		 * verbatim; a held array whole, then a String gathered behind
		 * it */
		/* HS_STREAM: a segment holds whole sub-records only, so the
		 * unfinished one is left out and the output ends after the
		 * last whole one (the input was cut there too) */
		int partial = !st->gather;
		if (partial && st->phase == PH_BODY && st->act == ACT_STASH) {
			emit_held(st, st->hold_len);
			st->hold_need = st->hold_len = 0;
		}
		release_held(st, 0);
		if (partial && st->phase == PH_LOOK) {
			emit(st, st->look, st->look_len);
			st->look_len = 0;
		}
		/* held bytes of an unfinished unit go out verbatim, before the
		 * record's length is fixed (a passed unit's are out already) */
		if (partial && st->have && !unit_passed(st)) {
			if (in_heap_record(st))
				emit_rec_header(st, &c);
			emit(st, st->scratch, st->have);
		}
		st->have = 0;
		if (!st->err && in_heap_record(st))
			end_record(st, &c);
		return st->err;
	}
	st->err = e;
	st->err_off = st->in_off;
	return e;
}

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
	while (!st->err && step(st, &c))
		;
	return st->err;
}

/* ---- rewrites ---------------------------------------------------------- */

/* Overwrites output bytes at output offset out through the sink. */
static enum hs_err rewrite_out(struct hs_state *st, uint64_t out,
                               const void *buf, size_t len)
{
	if (!st->sink.patch || st->sink.patch(st->sink.user, out, buf, len)) {
		st->err = HS_E_EMIT;
		st->err_off = st->in_off;
	}
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
	uint64_t same, lo;

	if (st->err)
		return st->err;
	if (len > st->in_off || in_off > st->in_off - len)
		return HS_E_REWRITE;  /* not fed yet: not a rewrite */
	if (!len)
		return HS_E_OK;
	/* bytes gathered after a held array (PH_XLOOK) are rewritten: the
	 * array is given up and they are fed first */
	if (st->phase == PH_XLOOK && in_off + len > st->in_off - st->xlook_len) {
		struct cur c = { 0, 0, 0 };
		xlook_resolve(st, &c, 0);
		if (st->err)
			return st->err;
	}
	same = st->same_until < st->out_off ? st->same_until : st->out_off;
	lo = st->open || st->maybe_open ? st->rec_body_in - 4 : UINT64_MAX;
	if (in_off + len <= same)
		return rewrite_out(st, in_off, buf, len);
	if (st->fallback && in_off >= st->fb_in)
		return rewrite_out(st, in_off - st->fb_in + st->fb_out, buf, len);
	if (lo != UINT64_MAX && in_off >= lo && in_off + len <= lo + 4)
		return rewrite_len(st, lo, buf, len, in_off);
	return HS_E_REWRITE;
}
