/*
 * HS_KEEP_STRINGS, HS_KEEP_BITMAPS (see hprof.h): the arrays that String
 * values (and JDK <= 8's Thread names), and Android's bitmaps (bitmap.c,
 * this layer's second source), point at keep their elements.
 *
 * On the way through, this layer reads the names of String and Thread
 * (STRING and LOAD_CLASS records), their layouts (class dumps' instance
 * fields, PH_IF), and each instance's String.value or Thread.name
 * (PH_PEEK). Streaming, the ids read wait in the pending table for their
 * arrays, and an array may be held back until a String claims it
 * (hold.c). Every hook does nothing unless keep-strings is on.
 */
#include "internal.h"

/* ---- the classes ------------------------------------------------------ */

static struct hs_class *class_find(const struct hs_state *st, uint64_t id)
{
	struct hs_class *t = st->ks.cfg.classes;
	unsigned slots = st->ks.cfg.class_slots, i;

	if (!slots || !id)
		return NULL;
	for (i = id_slot(id, slots); t[i].id; i = (i + 1) & (slots - 1))
		if (t[i].id == id)
			return &t[i];
	return NULL;
}

/* The class dump just read (st->ks.cls_*). */
static void class_done(struct hs_state *st)
{
	struct hs_class *t = st->ks.cfg.classes;
	unsigned slots = st->ks.cfg.class_slots, i;
	uint64_t id = st->ks.cls_id;

	if (id && id == st->ks.class_string)
		st->string_ref = st->ks.cls_ref;
	if (id && id == st->ks.class_thread)
		st->thread_ref = st->ks.cls_ref;
	if (!slots || !id || class_find(st, id))
		return;
	if (st->ks.cls_count >= slots - slots / 8) {
		st->class_full++;
		return;
	}
	for (i = id_slot(id, slots); t[i].id; i = (i + 1) & (slots - 1))
		;
	t[i].id = id;
	t[i].super = st->ks.cls_super;
	t[i].bytes = st->ks.cls_bytes;
	t[i].ref = -2;
	st->ks.cls_count++;
}

/* Where Thread.name sits in an instance of class id: -1 if it is not a
 * Thread (or not known). An instance holds its class's own fields, then
 * its superclass's, up the chain. */
static int32_t thread_ref_of(struct hs_state *st, uint64_t id)
{
	struct hs_class *e = class_find(st, id), *c = e;
	uint64_t off = 0;
	int depth;

	if (!class_find(st, st->ks.class_thread) || !e) {
		st->late++;  /* Thread's or this class's dump is yet to come */
		return -1;
	}
	if (st->thread_ref < 0)
		return -1;
	if (e->ref != -2)
		return e->ref;
	for (depth = 0; depth < 64 && off < INT32_MAX; depth++) {
		if (c->id == st->ks.class_thread) {
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

/* Does the array id keep its elements? */
static int keep_wants(struct hs_state *st, uint64_t id)
{
	if (st->ks.expect == 1) {  /* right after a String of unknown layout */
		keep_found(st, id);
		return st->ks.cfg.found ? 0 : (pend_take(st, id), 1);
	}
	if (st->ks.cfg.has)
		return st->ks.cfg.has(st->ks.cfg.user, id) != 0;
	return pend_take(st, id);
}

/* ---- the names: STRING and LOAD_CLASS records -------------------------- */

enum { N_STRING, N_THREAD, N_VALUE, N_NAME };

static void name_add(struct hs_state *st, unsigned which, uint64_t id)
{
	unsigned i;

	for (i = 0; i < 4; i++)
		if (!st->ks.names[which][i] || st->ks.names[which][i] == id) {
			st->ks.names[which][i] = id;
			return;
		}
}

static int name_is(const struct hs_state *st, unsigned which, uint64_t id)
{
	unsigned i;

	for (i = 0; id && i < 4; i++)
		if (st->ks.names[which][i] == id)
			return 1;
	return 0;
}

/* Is this record body one keep_names wants? */
static int keep_wants_record(const struct hs_state *st, unsigned tag, uint32_t len)
{
	unsigned id = st->idsize;

	if (!st->mode.keep_reads)
		return 0;
	if (tag == HS_REC_STRING)
		return (st->mode.keep_strings &&
		        (len == id + 16 || len == id + 5 || len == id + 4)) ||
		       (st->mode.keep_bitmaps && bm_wants_text(len - id));
	return tag == HS_REC_LOAD_CLASS && len == 8 + 2 * id;
}

/* A STRING or LOAD_CLASS record body, whole in h: the names and classes
 * of String and Thread. */
static void keep_names(struct hs_state *st, const unsigned char *h)
{
	unsigned id = st->idsize;

	if (!st->mode.keep_reads)
		return;
	if (st->mode.keep_bitmaps)
		bm_names(st, h);
	if (!st->mode.keep_strings)
		return;
	if (st->rec_tag == HS_REC_STRING) {
		static const char *const texts[] = {  /* as N_* */
			"java/lang/String", "java/lang/Thread", "value", "name"
		};
		int w = keep_text(st, h, texts, 4);
		if (w >= 0)
			name_add(st, (unsigned)w, rd_id(st, h));
	} else {  /* LOAD_CLASS: u4 serial, class id, u4 trace, name id */
		uint64_t cls = rd_id(st, h + 4), name = rd_id(st, h + 8 + id);
		if (name_is(st, N_STRING, name))
			st->ks.class_string = cls;
		else if (name_is(st, N_THREAD, name))
			st->ks.class_thread = cls;
	}
}

/* ---- class dumps: the layouts of String and Thread --------------------- */

/* A class dump's fixed part, h. */
static void keep_class(struct hs_state *st, const unsigned char *h)
{
	unsigned id = st->idsize;

	if (!st->mode.keep_reads)
		return;
	st->ks.cls_id = rd_id(st, h + 1);
	st->ks.cls_super = rd_id(st, h + 1 + id + 4);
	st->ks.cls_bytes = 0;
	st->ks.cls_ref = -1;
	if (st->mode.keep_bitmaps)
		bm_class(st, st->ks.cls_id);
}

/* Its instance fields are next: 1 if they are read here one by one
 * (PH_IF: keep_field, then class_done) rather than skipped. */
static int keep_fields(const struct hs_state *st)
{
	return st->mode.keep_reads;
}

/* PH_IF: one instance field {name id, type}, h; instance field types are
 * not checked, as when the fields are skipped. */
static void keep_field(struct hs_state *st, const unsigned char *h)
{
	unsigned id = st->idsize;
	uint64_t name = rd_id(st, h), cls = st->ks.cls_id;
	unsigned type = h[id];

	if (type == 2 &&
	    ((cls == st->ks.class_string && name_is(st, N_VALUE, name)) ||
	     (cls == st->ks.class_thread && name_is(st, N_NAME, name))))
		st->ks.cls_ref = (int32_t)st->ks.cls_bytes;
	if (st->mode.keep_bitmaps)
		bm_field(st, cls, name, type, st->ks.cls_bytes);
	st->ks.cls_bytes += hs_type_size(type, id);
}

/* A sub-record starts (its act chosen): behind a held array, an instance
 * may be the String that claims it (taken, to look at: keep_instance);
 * anything else releases it. */
static void keep_sub_start(struct hs_state *st, unsigned tag)
{
	/* 2 right after a String of unknown layout, 1 at the next */
	st->ks.expect = st->ks.expect == 2;
	if (!st->ks.held_need)
		return;
	if (tag == HS_SUB_INSTANCE_DUMP && st->act != ACT_DROP)
		st->act = ACT_TAKE;
	else
		hold_release(st, 0);
}

/* An instance whose header h was just read, its fields len bytes: 1 if
 * it is read here. A String's value field or a Thread's name is read on
 * the way (PH_PEEK); behind a held array, a String is gathered until its
 * value shows whether it claims that array (PH_LOOK). */
static int keep_instance(struct hs_state *st, struct cur *c, const unsigned char *h,
                  uint64_t len)
{
	unsigned id = st->idsize, n = st->need;
	uint64_t cls;
	int32_t ref = -1;
	int is_string;

	if (!st->mode.keep_reads)
		return 0;
	cls = rd_id(st, h + 1 + id + 4);
	is_string = cls && cls == st->ks.class_string;
	if (len > rec_left(st))
		return eng_set_body(st, c, len, PH_SUB_END, h,
		                    st->act == ACT_PASS ? 0 : n);
	if (is_string) {
		st->strings++;
		ref = st->string_ref;
		if (ref >= 0)
			;
		else if (st->version == '3')
			st->ks.expect = 2;  /* ART: its value comes next */
		else
			st->late++;
	} else if (st->mode.keep_bitmaps && bm_looks(st, cls)) {
		ref = bm_ref_of(st, cls);
	} else if (cls && st->ks.class_thread) {
		ref = thread_ref_of(st, cls);
	}
	if (ref >= 0 && (uint64_t)ref + id > len)
		ref = -1;
	if (st->ks.held_need) {  /* h was taken (keep_sub_start) */
		if (is_string && hold_look(st, h, len, ref))
			return 1;
		hold_release(st, 0);
		seg_emit_sized(st, h, n, n + len);
	} else {
		seg_sized(st, h, n, n + len);
	}
	if (ref < 0)
		return eng_set_body(st, c, len, PH_SUB_END, NULL, 0);
	st->ks.rest = len - (uint64_t)ref - id;
	return eng_set_body(st, c, (uint64_t)ref, PH_PEEK, NULL, 0);
}

/* An array's header h, its elements bytes long, that stripping would
 * strip. 1 if this decided its fate: kept whole, or held back
 * (streaming: hold_array). */
static int keep_array(struct hs_state *st, struct cur *c, const unsigned char *h,
               uint64_t bytes)
{
	unsigned n = st->need;
	uint64_t id = rd_id(st, h + 1);

	if (!st->mode.keep)
		return 0;
	if (keep_wants(st, id)) {
		seg_reserve(st, n + bytes);
		eng_emit(st, h, n);
		st->kept++;
		st->kept_bytes += bytes;
		st->act = ACT_PASS;
	} else if (bm_sig_start(st, h, bytes)) {
		return 1;
	} else if (!hold_array(st, h, bytes)) {
		return 0;
	}
	return eng_set_body(st, c, bytes, PH_SUB_END, NULL, 0);
}

/* sweep.c: does keep_instance look at an instance of class cls (read a
 * field, or count it late)? 0 if it would only pass it: not a String,
 * and a class known not to be a Thread (thread_ref_of found it so, or
 * Thread.name's place is not known). The sweep asks with no array held. */
static int keep_looks(const struct hs_state *st, uint64_t cls)
{
	const struct hs_class *e;

	if (!cls)
		return 0;
	if (cls == st->ks.class_string ||
	    (st->mode.keep_bitmaps && bm_looks(st, cls)))
		return 1;
	if (!st->ks.class_thread)
		return 0;
	/* not known yet: thread_ref_of counts it late */
	if (!class_find(st, st->ks.class_thread) || !(e = class_find(st, cls)))
		return 1;
	if (st->thread_ref < 0)
		return 0;
	return e->ref != -1;
}

/* sweep.c: n sub-records went by that keep only passed; keep_sub_start's
 * part for each (right after a String of unknown layout, the next one is
 * its value's candidate; two on, none is). */
static void keep_swept(struct hs_state *st, uint64_t n)
{
	st->ks.expect = n == 1 && st->ks.expect == 2;
}

/* PH_PEEK: the field's id, then the rest of the instance. */
static int keep_step_peek(struct hs_state *st, struct cur *c)
{
	/* an app-only strip reads the Strings it drops too */
	const unsigned char *h = eng_unit(st, c, st->idsize);

	if (!h)
		return 0;
	keep_found(st, rd_id(st, h));
	return eng_set_body(st, c, st->ks.rest, PH_SUB_END, NULL, 0);
}

/* PH_LOOK: a String behind a held array, gathered up to its value. */
static int keep_step_look(struct hs_state *st, struct cur *c)
{
	uint64_t v;

	if (st->ks.look_len < st->ks.look_need)
		return eng_gather(st, c, st->ks.look, &st->ks.look_len,
		                  st->ks.look_need);
	v = rd_id(st, st->ks.look + st->ks.look_len - st->idsize);
	if (v == st->ks.held_id) {
		hold_release(st, 1);
	} else {
		hold_release(st, 0);
		keep_found(st, v);
	}
	eng_emit(st, st->ks.look, st->ks.look_len);
	st->ks.look_len = st->ks.look_need = 0;
	st->act = ACT_PASS;
	st->next = PH_SUB_END;
	st->phase = PH_BODY;
	return 1;
}

/* ---- the layer's hooks ------------------------------------------------- */

static uint32_t reads_record(const struct hs_state *st, unsigned tag,
                             uint32_t len)
{
	return keep_wants_record(st, tag, len) ? len : 0;
}

static void record(struct hs_state *st, const unsigned char *h, unsigned n)
{
	(void)n;
	if (keep_wants_record(st, st->rec_tag, (uint32_t)st->rec_len))
		keep_names(st, h);
}

/* ACT_STASH: a held array's elements */
static void body(struct hs_state *st, const unsigned char *p, size_t k)
{
	if (st->act == ACT_STASH)
		hold_stash(st, p, k);
}

static int step(struct hs_state *st, struct cur *c)
{
	switch (st->phase) {
	case PH_PEEK: return keep_step_peek(st, c);
	case PH_LOOK: return keep_step_look(st, c);
	case PH_ELEMS: return bm_step_elems(st, c);
	case PH_SIG: return bm_step_sig(st, c);
	default: return -1;
	}
}

static void release(struct hs_state *st)
{
	hold_release(st, 0);
}

/* An array is held (it goes out at the record's end). */
static int holds(const struct hs_state *st)
{
	return st->ks.held_need != 0;
}

static void take_back(struct hs_state *st, uint64_t *from)
{
	(void)from;
	hold_drop_partial(st);
}

/* The writer rewrote input bytes [in_off, in_off + len): 1 if a look
 * past a record's end read them (it is over then: eng_resolve). */
static int rewrite(const struct hs_state *st, uint64_t in_off, size_t len)
{
	return hold_looked_at(st, in_off, len);
}

/* An object array's header h, len bytes of ids: bitmaps read a claimed
 * DumpData.buffers array's (bm_objarray). 1 if taken. */
static int objarray(struct hs_state *st, struct cur *c, const unsigned char *h,
                    uint64_t len)
{
	if (!st->mode.keep_bitmaps || !st->mode.keep_reads)
		return 0;
	return bm_objarray(st, c, h, len);
}

/* sweep.c: the sub-record u at p passes as keep would pass it: no array
 * held, not a primitive array (kept, held?), not an object array bitmaps
 * read, not an instance keep looks at. */
static int sweep_unit(struct hs_state *st, const unsigned char *p,
                      struct unit *u)
{
	(void)u;
	if (st->ks.held_need || *p == HS_SUB_PRIMITIVE_ARRAY_DUMP)
		return 0;
	if (*p == HS_SUB_OBJECT_ARRAY_DUMP)
		return !st->mode.keep_bitmaps || !st->mode.keep_reads ||
		       !bm_claimed_list(st, rd_id(st, p + 1), 0);
	return *p != HS_SUB_INSTANCE_DUMP ||
	       !st->mode.keep_reads ||
	       !keep_looks(st, rd_id(st, p + 1 + st->idsize + 4));
}

static void init(struct hs_state *st, const struct hs_config *cfg)
{
	struct hs_keep *k = &st->ks.cfg;

	if ((st->flags & (HS_KEEP_STRINGS | HS_KEEP_BITMAPS)) && cfg->keep)
		*k = *cfg->keep;
	else
		st->flags &= ~(unsigned)(HS_KEEP_STRINGS | HS_KEEP_BITMAPS);
	if (!table_ok(k->pending_slots))
		k->pending_slots = 0;
	if (!table_ok(k->class_slots))
		k->class_slots = 0;
	if (!k->hold)
		k->hold_size = 0;
	/* a held array and its String fit in a segment (hprof.h) */
	if (k->hold_size > HS_HOLD_LIMIT)
		k->hold_size = HS_HOLD_LIMIT;
	st->string_ref = st->thread_ref = -1;
	st->mbuffer_ref = st->buffers_ref = -1;
	if (k->layout_known) {
		st->string_ref = k->string_ref;
		st->thread_ref = k->thread_ref;
		st->mbuffer_ref = k->mbuffer_ref;
		st->buffers_ref = k->buffers_ref;
	}
}

const struct hs_layer keep_layer = {
	.init = init,
	/* records */
	.reads_record = reads_record, .record = record,
	/* sub-records */
	.sub_start = keep_sub_start, .instance = keep_instance,
	.array = keep_array, .objarray = objarray,
	/* class dumps */
	.class_start = keep_class, .fields = keep_fields,
	.field = keep_field, .class_end = class_done,
	/* bodies, phases */
	.body = body, .step = step,
	/* record ends */
	.record_end = hold_record_end, .release = release,
	/* finish, rewrite */
	.finishing = hold_finish, .holds = holds, .take_back = take_back,
	.rewrite = rewrite,
	/* fast path */
	.sweep_unit = sweep_unit, .swept = keep_swept,
};
