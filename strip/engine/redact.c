/*
 * HS_REDACT (see hprof.h): every primitive value goes out as zeros, every
 * reference as it came.
 *
 * On the way through, this layer records each class dump's instance field
 * types (PH_IF) in the caller's tables, zeroes the class dump's primitive
 * constant pool and static values (the phases ask at each one), and walks
 * each instance's fields by its class's list and its superclasses'
 * (PH_FIELDS): a run of references passes, a run of values goes out as
 * zeros. An instance whose layout is not all known goes out as zeros
 * whole, and is counted (st->withheld). Every hook does nothing unless
 * redaction is on.
 *
 * The listed sizes (sizes[] below) are the exception: a field of the
 * list is recorded in the tables with RD_KEPT, and passes as a reference
 * does. The STRING records name them (redact_names notes the ids of the
 * listed texts, LOAD_CLASS the ids of the listed classes), the class dump
 * says whether its class is listed, and each of its fields is looked up
 * by its name's id.
 */
#include "internal.h"

/* A field type in the layout tables with this bit: a listed size, passed
 * as it came (the type is the rest) */
#define RD_KEPT 0x80u

/* Deeper than any class hierarchy; a longer chain is a cycle. */
#define CHAIN_MAX 4096

/* The class id's layout, or NULL. Linear probing; a free slot has id 0,
 * and 1/8 of the slots stay free, so a lookup ends. */
static const struct hs_layout *layout_of(const struct hs_state *st,
                                         uint64_t id)
{
	const struct hs_redact *r = &st->rd.cfg;
	unsigned mask = r->class_slots - 1, i;

	if (!r->classes || !id)
		return NULL;
	for (i = id_slot(id, r->class_slots); r->classes[i].id; i = (i + 1) & mask)
		if (r->classes[i].id == id)
			return &r->classes[i];
	return NULL;
}

static void layout_add(struct hs_state *st)
{
	struct hs_redact *r = &st->rd.cfg;
	unsigned mask = r->class_slots - 1, i;
	struct hs_layout *l;

	if (r->class_count >= r->class_slots - r->class_slots / 8) {
		st->layouts_lost++;
		r->types_used = st->rd.cls_first;  /* its types: taken back */
		return;
	}
	for (i = id_slot(st->rd.cls_id, r->class_slots); r->classes[i].id;
	     i = (i + 1) & mask)
		;
	l = &r->classes[i];
	l->id = st->rd.cls_id;
	l->super = st->rd.cls_super;
	l->first = st->rd.cls_first;
	l->count = st->rd.cls_count;
	l->bytes = st->rd.cls_bytes;
	r->class_count++;
}

/* ---- class dumps and instances ----------------------------------------- */

/* A class dump's fixed part h: a class whose list is not in the tables
 * yet (a second pass finds them there) gets it recorded. */
static void redact_class(struct hs_state *st, const unsigned char *h)
{
	unsigned id = st->idsize;

	if (!st->mode.redact)
		return;
	st->rd.cls_fw = (unsigned char)rd_set_has(st->rd.cfg.fw_classes,
	                                       st->rd.cfg.fw_slots,
	                                       rd_id(st, h + 1));
	st->rd.cls_sized = (unsigned char)rd_sized_of(st, 3, rd_id(st, h + 1));
	st->rd.cls_id = rd_id(st, h + 1);
	st->rd.cls_super = rd_id(st, h + 1 + id + 4);
	st->rd.cls_first = st->rd.cfg.types_used;
	st->rd.cls_count = st->rd.cls_bytes = 0;
	st->rd.cls_record = st->rd.cfg.classes && st->rd.cls_id &&
	                    !layout_of(st, st->rd.cls_id);
}

/* The act for a constant pool or static value of basic type type, in a
 * class dump (passed: strip mode never takes or drops one). */
static unsigned redact_value(struct hs_state *st, unsigned type)
{
	if (!st->mode.redact || type == 2 || st->rd.cls_fw)
		return ACT_PASS;
	st->zeroed++;
	return ACT_ZERO;
}

/* Redacting, always: a class's instance fields are read one by one
 * (PH_IF: redact_field, then class_end) to be recorded; a fallback's held
 * bytes go out as zeros (eng_emit_held). */
static int always(const struct hs_state *st)
{
	(void)st;
	return 1;
}

/* PH_IF: an instance field {id name, u1 type} h. */
static void redact_field(struct hs_state *st, const unsigned char *h)
{
	struct hs_redact *r = &st->rd.cfg;
	unsigned type = h[st->idsize];

	if (st->rd.cls_record) {
		if (r->types_used < r->types_size) {
			/* a listed size: marked, to pass */
			r->types[r->types_used++] = (unsigned char)(type |
			    (type != 2 && hs_type_size(type, st->idsize) &&
			     rd_size_kept(st, st->rd.cls_sized, rd_id(st, h))
			     ? RD_KEPT : 0));
		} else {  /* the types are full: this class goes unknown */
			st->layouts_lost++;
			r->types_used = st->rd.cls_first;
			st->rd.cls_record = 0;
		}
	}
	st->rd.cls_count++;
	st->rd.cls_bytes += hs_type_size(type, st->idsize);
}

/* ... and the last was read: the class's layout recorded. */
static void class_end(struct hs_state *st)
{
	if (st->rd.cls_record)
		layout_add(st);
}

/* The layout of an instance of class cls, len bytes of fields: its
 * class's, whose superclasses' are all known too and add up to len; or
 * NULL. */
static const struct hs_layout *instance_layout(const struct hs_state *st,
                                               uint64_t cls, uint64_t len)
{
	const struct hs_layout *first = layout_of(st, cls), *l = first;
	uint64_t sum = 0;
	unsigned depth = 0;

	while (l) {
		sum += l->bytes;
		if (!l->super)
			return sum == len ? first : NULL;
		if (++depth == CHAIN_MAX)
			return NULL;
		l = layout_of(st, l->super);
	}
	return NULL;
}

/* An instance passed (its header h, fixed part st->need bytes, len bytes
 * of fields): 1 if redaction reads its fields (PH_FIELDS), or withholds
 * them all. */
static int redact_instance(struct hs_state *st, struct cur *c, const unsigned char *h,
                    uint64_t len)
{
	const struct hs_layout *l;

	if (!st->mode.redact || st->act != ACT_PASS || !len)
		return 0;
	if (len > rec_left(st)) {
		eng_fail(st, c, HS_E_OVERRUN, st->sub_in, NULL, 0);
		return 1;
	}
	l = instance_layout(st, rd_id(st, h + 1 + st->idsize + 4), len);
	if (!l) {
		st->withheld++;
		st->act = ACT_ZERO;
		return eng_set_body(st, c, len, PH_SUB_END, NULL, 0);
	}
	st->redacted++;
	st->rd.walk = l;
	st->rd.walk_i = 0;
	st->phase = PH_FIELDS;
	return 1;
}

/* An object array of jdk.internal.vm.FillerElement[] (h, len bytes of
 * "ids"): a GC filler, whose words are the dead memory it covers, never
 * references: they go out as zeros (nulls), its id, length and class as
 * they came. 1 if taken. */
static int redact_objarray(struct hs_state *st, struct cur *c,
                           const unsigned char *h, uint64_t len)
{
	if (!st->mode.redact || st->act != ACT_PASS || !len ||
	    !st->rd.filler_class ||
	    rd_id(st, h + 1 + st->idsize + 8) != st->rd.filler_class)
		return 0;
	if (len > rec_left(st)) {
		eng_fail(st, c, HS_E_OVERRUN, st->sub_in, NULL, 0);
		return 1;
	}
	st->act = ACT_ZERO;
	return eng_set_body(st, c, len, PH_SUB_END, NULL, 0);
}

/* A field of this type in the tables passes: a reference, a listed size */
static int passes(unsigned t)
{
	return t == 2 || (t & RD_KEPT);
}

/* PH_FIELDS: the next run of references and listed sizes (passed) or
 * values (zeros) of the instance, as a body; the sub-record's end after
 * the last. */
static int redact_step_fields(struct hs_state *st, struct cur *c)
{
	const struct hs_layout *l = st->rd.walk;
	const unsigned char *t;
	uint32_t i = st->rd.walk_i;
	uint64_t run = 0;
	int ref;

	while (i == l->count) {
		if (!l->super) {  /* all of them: instance_layout made sure */
			st->act = ACT_PASS;
			st->phase = PH_SUB_END;
			return 1;
		}
		l = st->rd.walk = layout_of(st, l->super);
		i = 0;
	}
	t = st->rd.cfg.types + l->first;
	ref = passes(t[i]);
	while (i < l->count && passes(t[i]) == ref)
		run += hs_type_size(t[i++] & ~RD_KEPT, st->idsize);
	st->rd.walk_i = i;
	st->act = ref ? ACT_PASS : ACT_ZERO;
	return eng_set_body(st, c, run, PH_FIELDS, NULL, 0);
}

/* The value spans' slot in the cache, and a hit there, inline (once an
 * instance) */
static inline struct hs_flat *redact_flat_slot(struct hs_state *st,
                                               uint64_t cls)
{
	return &st->rd.flat[(unsigned)((cls * 0x9E3779B97F4A7C15u) >> 32) &
	                    st->rd.flat_mask];
}

/* ---- the fast path's layouts (sweep.c) ---------------------------------- */

/* The value spans of an instance of class cls with len bytes of fields,
 * from the cache or made from the layouts (merged across classes); n is
 * HS_FLAT_NONE when the phases must take it. A layout not known yet is
 * not cached: its class dump may come later. */
static const struct hs_flat *redact_flat(struct hs_state *st, uint64_t cls,
                                  uint64_t len)
{
	static const struct hs_flat none = { 0, 0, HS_FLAT_NONE, { { 0, 0 } } };
	struct hs_flat *f = redact_flat_slot(st, cls);
	const struct hs_layout *l;
	uint32_t off = 0, i;
	unsigned n = 0;

	if (f->cls == cls && f->len == len && cls)
		return f;
	if (!(l = instance_layout(st, cls, len)))
		return &none;
	f->cls = cls;
	f->len = (uint32_t)len;
	f->n = HS_FLAT_NONE;
	if (len > 0xFFFF)
		return f;
	for (; l; l = l->super ? layout_of(st, l->super) : NULL) {
		const unsigned char *t = st->rd.cfg.types + l->first;
		for (i = 0; i < l->count; i++) {
			unsigned sz = hs_type_size(t[i] & ~RD_KEPT, st->idsize);
			if (!passes(t[i]) && sz) {
				if (n && f->span[n - 1][0] + f->span[n - 1][1] == off)
					f->span[n - 1][1] = (uint16_t)(f->span[n - 1][1] + sz);
				else if (n == HS_FLAT_SPANS)
					return f;
				else {
					f->span[n][0] = (uint16_t)off;
					f->span[n][1] = (uint16_t)sz;
					n++;
				}
			}
			off += sz;
		}
	}
	f->n = (uint16_t)n;
	return f;
}

/* ... from the cache, inline (a hit: once an instance) */
static inline const struct hs_flat *redact_flat_of(struct hs_state *st,
                                                   uint64_t cls, uint64_t len)
{
	const struct hs_flat *f = redact_flat_slot(st, cls);

	return f->cls == cls && f->len == len && cls ? f
	                                             : redact_flat(st, cls, len);
}

/* ---- the fast path's run with patches (sweep.c) ----------------------- */

/* n zero bytes at p: the usual sizes of a field stored as one, inline */
static inline void zero(unsigned char *p, uint32_t n)
{
	switch (n) {
	case 1: *p = 0; break;
	case 2: memset(p, 0, 2); break;
	case 4: memset(p, 0, 4); break;
	case 8: memset(p, 0, 8); break;
	case 16: memset(p, 0, 16); break;
	default: memset(p, 0, n); break;
	}
}

/* The pending run [c->run, p) out, its patches (value spans, by offset in
 * the run) zeroed: copied in pieces of the gather buffer's size, each
 * zeroed and written; with no patch, as it is (no copy). */
static void patched_flush(struct hs_state *st, struct cur *c,
                          const unsigned char *p)
{
	const struct hs_patch *pt = st->rd.patch, *end = pt + st->rd.npatch;
	size_t size = st->rd.cfg.gather_size, off = 0, len = (size_t)(p - c->run);
	unsigned char *g = st->rd.cfg.gather;

	if (!st->rd.npatch) {
		c->p = p;
		eng_flush(st, c);
		return;
	}
	while (off < len && !st->err) {
		size_t k = len - off < size ? len - off : size;
		memcpy(g, c->run + off, k);
		/* a span lies whole in the piece: the pieces end at spans'
		 * ends (redact_one makes sure) */
		for (; pt < end && pt->off + pt->len <= off + k; pt++)
			zero(g + (pt->off - off), pt->len);
		eng_emit(st, g, k);
		off += k;
	}
	st->rd.npatch = 0;
	c->run = c->p = p;
}

/* The run's patches, if any, applied as it goes out up to p; else it
 * stays pending, as it does when nothing is redacted. */
static void patches_out(struct hs_state *st, struct cur *c,
                        const unsigned char *p)
{
	if (st->rd.npatch)
		patched_flush(st, c, p);
}

/* Redacting: the instance at p (u) has value spans: noted as patches of
 * the run, zeroed when it goes out (patched_flush). */
static void redact_one(struct hs_state *st, struct cur *c,
                       const unsigned char *p, const struct unit *u)
{
	size_t i, at;
	struct hs_patch *pt;

	/* room for its spans, and its bytes in one piece of the gather
	 * buffer: else what came before goes out first */
	at = (size_t)(p - c->run);
	if (st->rd.npatch + u->flat->n > st->rd.cfg.patch_slots ||
	    at % st->rd.cfg.gather_size + u->n + u->len > st->rd.cfg.gather_size) {
		patched_flush(st, c, p);
		at = 0;
	}
	pt = st->rd.patch + st->rd.npatch;
	for (i = 0; i < u->flat->n; i++, pt++) {
		pt->off = (uint32_t)(at + u->n + u->flat->span[i][0]);
		pt->len = u->flat->span[i][1];
	}
	st->rd.npatch += u->flat->n;
}

/* ---- the layer's hooks ------------------------------------------------- */

/* The bytes of a STRING record it reads: the id and this much text (the
 * longest listed class name whole, as names.c's HEAD) */
#define REDACT_PEEK 64u

static uint32_t reads_record(const struct hs_state *st, unsigned tag,
                             uint32_t len)
{
	if (!redact_wants_record(st, tag, len))
		return 0;
	return len < st->idsize + REDACT_PEEK ? len : st->idsize + REDACT_PEEK;
}

static void record(struct hs_state *st, const unsigned char *h, unsigned n)
{
	if (redact_wants_record(st, st->rec_tag, (uint32_t)st->rec_len))
		redact_names(st, h, n);
}

/* ACT_ZERO: as many zeros go out */
static void body(struct hs_state *st, const unsigned char *p, size_t k)
{
	(void)p;
	if (st->act == ACT_ZERO)
		eng_zeros(st, k);
}

static int step(struct hs_state *st, struct cur *c)
{
	return st->phase == PH_FIELDS ? redact_step_fields(st, c) : -1;
}

/* A fallback: the rest of its heap record goes out as zeros, never as it
 * came (step_raw). */
static void fail(struct hs_state *st, size_t nheld)
{
	(void)nheld;
	st->rd.zero_rest = 1;
}

static int zeros_copy(const struct hs_state *st)
{
	return st->rd.zero_rest;
}

/* sweep.c: an instance u at p whose value spans are cached passes (u->flat),
 * if its bytes fit a piece of the gather buffer; else the phases take it. */
static int sweep_unit(struct hs_state *st, const unsigned char *p,
                      struct unit *u)
{
	if (*p == HS_SUB_OBJECT_ARRAY_DUMP)  /* a filler: the phases zero it */
		return !st->rd.filler_class || !u->len ||
		       rd_id(st, p + 1 + st->idsize + 8) != st->rd.filler_class;
	if (*p != HS_SUB_INSTANCE_DUMP || !u->len)
		return 1;
	u->flat = redact_flat_of(st, rd_id(st, p + 1 + st->idsize + 4), u->len);
	return u->flat->n != HS_FLAT_NONE &&
	       (!u->flat->n || u->out <= st->rd.cfg.gather_size);
}

/* ... it goes out: its spans noted, to be zeroed */
static void sweep_out(struct hs_state *st, struct cur *c,
                      const unsigned char *p, const struct unit *u)
{
	if (!u->flat)
		return;
	st->redacted++;
	if (u->flat->n)
		redact_one(st, c, p, u);
}

static void init(struct hs_state *st, const struct hs_config *cfg);

const struct hs_layer redact_layer = {
	.init = init,
	/* records */
	.reads_record = reads_record, .record = record,
	/* sub-records */
	.instance = redact_instance, .objarray = redact_objarray,
	/* class dumps */
	.class_start = redact_class, .value = redact_value,
	.fields = always, .field = redact_field,
	.class_end = class_end,
	/* bodies, phases */
	.body = body, .step = step,
	/* fallback */
	.fail = fail, .zeros_held = always, .zeros_copy = zeros_copy,
	/* fast path */
	.sweep_unit = sweep_unit, .sweep_out = sweep_out,
	.sweep_flush = patches_out,
};

/* ---- the caller's caches; what the front ends read ---------------------- */

/* Is p aligned to a (a power of 2)? */
static int aligned(const void *p, size_t a)
{
	return ((uintptr_t)p & (a - 1)) == 0;
}

static void redact_caches(struct hs_state *st)
{
	struct hs_redact *r = &st->rd.cfg;
	unsigned n = r->flat_slots;

	st->rd.flat = &st->rd.flat_one;
	st->rd.flat_mask = 0;
	if (r->flat && n && !(n & (n - 1)) &&
	    aligned(r->flat, _Alignof(struct hs_flat))) {
		/* cleared: another dump's entries would pass values */
		memset(r->flat, 0, n * sizeof *r->flat);
		st->rd.flat = r->flat;
		st->rd.flat_mask = n - 1;
	}
	if (r->patch && r->patch_slots >= HS_FLAT_SPANS &&
	    aligned(r->patch, _Alignof(struct hs_patch)))
		st->rd.patch = r->patch;
	else {  /* the fast path writes no instance with values */
		r->gather = NULL;
		r->gather_size = 0;
	}
	if (r->sized && aligned(r->sized, _Alignof(struct hs_sized)))
		st->rd.sized = r->sized;
	else
		r->sized_slots = 0;
}

/* no layouts (every instance withheld) without whole tables */
static void init(struct hs_state *st, const struct hs_config *cfg)
{
	struct hs_redact *r = &st->rd.cfg;

	if ((st->flags & HS_REDACT) && cfg->redact)
		*r = *cfg->redact;
	if (!table_ok(r->class_slots) || !r->types ||
	    r->types_used > r->types_size)
		r->classes = NULL;
	if (!r->gather)
		r->gather_size = 0;
	if (!table_ok(r->fw_slots) || !r->fw_names || !r->fw_classes ||
	    r->fw_names_used >= r->fw_slots || r->fw_classes_used >= r->fw_slots)
		r->fw_slots = 0;
	redact_caches(st);
}

void hs_redact_filled(const struct hs_state *st, struct hs_redact *r)
{
	r->types_used = st->rd.cfg.types_used;
	r->class_count = st->rd.cfg.class_count;
	r->fw_names_used = st->rd.cfg.fw_names_used;
	r->fw_classes_used = st->rd.cfg.fw_classes_used;
}

int hs_fallback_zeros(const struct hs_state *st)
{
	return st->rd.zero_rest;
}
