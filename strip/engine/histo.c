/*
 * HS_HISTO (histo.h): the class histogram, a layer that reads and never
 * changes the output. It reads the texts that may name a class (STRING
 * records, PH_STR or names' PH_NAME), the classes' names (LOAD_CLASS) and
 * instance sizes (CLASS_DUMP's fixed part), and counts each object at its
 * sub-record header, in the phases (the object hook) and on the fast path
 * (sweep.c: the seen layer, st->mode.seen), alike, so its counts do not
 * depend on where the input was cut.
 */
#include "internal.h"

/* ---- tables ------------------------------------------------------------ */

/* The caller's tables are whole, their slot counts powers of 2 of at
 * least 8 (a lookup ends: 1/8 stays empty) */
static int tables_ok(const struct hs_histo *h)
{
	return h->slots && h->classes && h->slot_count >= 8 &&
	       !(h->slot_count & (h->slot_count - 1)) && h->name_slots &&
	       h->names && h->name_slot_count >= 8 &&
	       !(h->name_slot_count & (h->name_slot_count - 1)) &&
	       h->names_size >= 16;
}

/* The class of this id: its index + 1 in classes, placed if new and
 * there is room; 0 past the table (counted once per id tried). */
static uint32_t class_of(struct hs_histo *h, uint64_t id)
{
	unsigned s = id_slot(id, h->slot_count);
	uint32_t i;

	while ((i = h->slots[s]) != 0) {
		if (h->classes[i - 1].id == id)
			return i;
		s = (s + 1) & (h->slot_count - 1);
	}
	if (h->class_count >= h->class_max ||
	    h->class_count >= h->slot_count / 8 * 7) {
		h->classes_past++;
		return 0;
	}
	i = ++h->class_count;
	h->slots[s] = i;
	h->classes[i - 1].id = id;
	return i;
}

/* The class of an object, the last one's when it is the same (runs of one
 * class are common). */
static inline uint32_t object_class(struct hs_histo *h, uint64_t id)
{
	if (h->last && h->last_id == id)
		return h->last;
	h->last_id = id;
	return h->last = class_of(h, id);
}

static const unsigned char *name_at(const struct hs_histo *h, uint32_t off,
                                    uint64_t *id, size_t *n, int *cut)
{
	const unsigned char *e = h->names + off;
	unsigned len = (unsigned)e[8] << 8 | e[9];

	memcpy(id, e, 8);
	*n = len & 0x7FFF;
	*cut = len >> 15;
	return e + 10;
}

const unsigned char *hs_histo_name(const struct hs_histo *h, uint64_t id,
                                   size_t *n, int *cut)
{
	unsigned s;
	uint32_t o;
	uint64_t got;
	const unsigned char *t;

	if (!h->name_slot_count)
		return NULL;
	s = id_slot(id, h->name_slot_count);
	while ((o = h->name_slots[s]) != 0) {
		t = name_at(h, o - 1, &got, n, cut);
		if (got == id)
			return t;
		s = (s + 1) & (h->name_slot_count - 1);
	}
	return NULL;
}

/* Keeps the text (n bytes at t, cut: its record was longer) of STRING
 * id; past the tables, counts it. A later text of the same id wins. A
 * bare identifier (bare) leaves the last quarter of the names to the
 * texts shaped as class names: a dump of many classes has ten times as
 * many identifiers as class names, and they rarely name a class. */
static void name_keep(struct hs_histo *h, uint64_t id, const unsigned char *t,
                      size_t n, int cut, int bare)
{
	uint32_t room = h->names_size - (bare ? h->names_size / 4 : 0);
	unsigned s = id_slot(id, h->name_slot_count);
	uint32_t o, need = 10 + (uint32_t)n;
	uint64_t got;
	size_t gn;
	int gc;

	while ((o = h->name_slots[s]) != 0) {
		name_at(h, o - 1, &got, &gn, &gc);
		if (got == id)
			break;
		s = (s + 1) & (h->name_slot_count - 1);
	}
	if ((!o && h->name_count >= h->name_slot_count / 8 * 7) ||
	    h->names_used > room || need > room - h->names_used) {
		h->names_past++;
		return;
	}
	if (!o)
		h->name_count++;
	h->name_slots[s] = h->names_used + 1;
	memcpy(h->names + h->names_used, &id, 8);
	h->names[h->names_used + 8] = (unsigned char)(n >> 8 | (cut ? 0x80 : 0));
	h->names[h->names_used + 9] = (unsigned char)n;
	memcpy(h->names + h->names_used + 10, t, n);
	h->names_used += need;
}

/* ---- what may name a class --------------------------------------------- */

/* The texts that may name a class, as the dumpers write them: HotSpot's
 * java/lang/String, [Ljava/lang/Object;, a hidden class's +0x...; ART's
 * and the hprof agent's java.lang.String and byte[], ART's synthetic
 * -IA; names with non-ASCII bytes. Never a method descriptor, a literal
 * with a space, a name in angle brackets (<init>) or a field's
 * descriptor (Ljava/lang/String;), but for JDK 21's filler class, whose
 * name is one: most of HotSpot's STRINGs are those. A bare identifier
 * (no separator: a class in the default package, but far more often a
 * method's or a field's name) may name one too. */
enum { NOT_NAME, NAME_SHAPED, NAME_BARE };

static const char filler[] = "Ljdk/internal/vm/FillerArray;";

static int name_like(const unsigned char *t, size_t n)
{
	int shaped = 0;
	size_t i;

	if (!n)
		return NOT_NAME;
	if (t[0] == 'L' && t[n - 1] == ';')
		return n == sizeof filler - 1 && !memcmp(t, filler, n)
		       ? NAME_SHAPED : NOT_NAME;
	for (i = 0; i < n; i++) {
		unsigned c = t[i];
		if (c >= 0x80 || (c >= 'a' && c <= 'z') ||
		    (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    c == '_' || c == '$')
			continue;
		switch (c) {
		case '/': case '.': case '[': case ']': case '+': case '-':
			shaped = 1;
			continue;
		case ';':  /* ends an array's descriptor */
			if (i == n - 1 && t[0] == '[') {
				shaped = 1;
				continue;
			}
			return NOT_NAME;
		default:
			return NOT_NAME;
		}
	}
	return shaped ? NAME_SHAPED : NAME_BARE;
}

/* ---- the hooks --------------------------------------------------------- */

/* STRING: its id and up to HS_HISTO_NAME_MAX bytes of text; LOAD_CLASS:
 * serial, class id, trace serial, name id. */
static uint32_t reads_record(const struct hs_state *st, unsigned tag,
                             uint32_t len)
{
	unsigned id = st->idsize;

	if (tag == HS_REC_STRING && len > id)
		return len < id + HS_HISTO_NAME_MAX ? len
		                                     : id + HS_HISTO_NAME_MAX;
	if (tag == HS_REC_LOAD_CLASS && len >= 8 + 2 * id)
		return 8 + 2 * id;
	return 0;
}

static void string_read(struct hs_state *st, const unsigned char *h,
                        unsigned n)
{
	unsigned id = st->idsize;
	unsigned char shown[HS_HISTO_NAME_MAX];
	size_t k = n - id;
	int whole = n == st->rec_len, like;

	if (k > HS_HISTO_NAME_MAX)
		k = HS_HISTO_NAME_MAX;
	names_view(st, h + id, k, whole, shown);
	like = name_like(shown, k);
	if (like != NOT_NAME)
		name_keep(st->hg, rd_id(st, h), shown, k, !whole,
		          like == NAME_BARE);
}

static void record(struct hs_state *st, const unsigned char *h, unsigned n)
{
	unsigned id = st->idsize;
	uint32_t i;

	if (st->rec_tag == HS_REC_STRING && n > id) {
		string_read(st, h, n);
	} else if (st->rec_tag == HS_REC_LOAD_CLASS && n >= 8 + 2 * id) {
		i = class_of(st->hg, rd_id(st, h + 4));
		if (i)
			st->hg->classes[i - 1].name = rd_id(st, h + 8 + id);
	}
}

/* A class dump's fixed part: its id, and its instance size after seven
 * ids and a trace serial. */
static void class_start(struct hs_state *st, const unsigned char *h)
{
	unsigned id = st->idsize;
	uint32_t i = class_of(st->hg, rd_id(st, h + 1));

	st->hg->class_dumps++;
	if (i) {
		st->hg->classes[i - 1].size = hs_be32(h + 1 + 7 * id + 4);
		st->hg->classes[i - 1].flags |= HS_HISTO_SIZED;
	}
}

/* An object's sub-record header h (whole): counted in its class's column
 * of the current heap, or its element type's. */
static void count(struct hs_state *st, const unsigned char *h)
{
	struct hs_histo *g = st->hg;
	struct hs_histo_count *c;
	unsigned id = st->idsize, heap = st->heap;
	uint64_t bytes;
	uint32_t i;

	switch (h[0]) {
	case HS_SUB_INSTANCE_DUMP:  /* id, u4 trace, id class, u4 len */
		i = object_class(g, rd_id(st, h + 1 + id + 4));
		bytes = hs_be32(h + 1 + 2 * id + 4);
		break;
	case HS_SUB_OBJECT_ARRAY_DUMP:  /* id, u4, u4 count, id class */
		i = object_class(g, rd_id(st, h + 1 + id + 8));
		bytes = (uint64_t)hs_be32(h + 1 + id + 4) * id;
		if (i)
			g->classes[i - 1].flags |= HS_HISTO_ARRAY;
		break;
	default:  /* 0x23, 0xC3: id, u4, u4 count, u1 type */
		c = &g->prim[h[1 + id + 8] % 12][heap];
		c->n++;
		c->bytes += (uint64_t)hs_be32(h + 1 + id + 4) *
		            hs_type_size(h[1 + id + 8], id);
		return;
	}
	c = i ? &g->classes[i - 1].heap[heap] : &g->other[heap];
	c->n++;
	c->bytes += bytes;
}

/* the phases: an object's header, unless --app-only drops it (it is not
 * in the output) */
static void object(struct hs_state *st, const unsigned char *h)
{
	if (!st->sub_drop)
		count(st, h);
}

/* the fast path (which --app-only never takes): the unit at p, whole, which the phases would have
 * counted at its header */
static void sweep_seen(struct hs_state *st, const unsigned char *p,
                       const struct unit *u)
{
	(void)u;
	if (*p == HS_SUB_INSTANCE_DUMP || *p == HS_SUB_OBJECT_ARRAY_DUMP ||
	    *p == HS_SUB_PRIMITIVE_ARRAY_DUMP)
		count(st, p);
}

static void init(struct hs_state *st, const struct hs_config *cfg)
{
	if ((st->flags & HS_HISTO) && cfg->histo && tables_ok(cfg->histo))
		st->hg = cfg->histo;
	else
		st->flags &= ~(unsigned)HS_HISTO;
}

const struct hs_layer histo_layer = {
	.init = init,
	/* records */
	.reads_record = reads_record,
	.record = record,
	/* sub-records, class dumps */
	.object = object,
	.class_start = class_start,
	/* fast path */
	.sweep_seen = sweep_seen,
};
