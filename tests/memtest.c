/*
 * memtest: each layer's memory is the caller's (hprof.h: "Memory"), seen
 * through the public API alone. Prints sizeof(struct hs_state), at most
 * HS_STATE_MAX. Then redacts a dump built in memory (a runtime class,
 * java/util/ArrayList, whose instances have a listed size and 5 values
 * between 5 references: 6 value spans, HS_FLAT_SPANS) with the fast
 * path's caches given in several ways, and checks:
 *   - with the tools' sizes, the listed size passes and the values are
 *     zeros (the dump means what the checks below assume);
 *   - with the caches at their least (one layout, HS_FLAT_SPANS patches),
 *     the same bytes, and nothing written past them;
 *   - with caches hs_init cannot use (a layout cache of 3 slots or
 *     misaligned, 5 patches or misaligned), the same bytes, and not a
 *     byte of them written;
 *   - with no ids of listed sizes (NULL, misaligned, or 0 slots), the
 *     listed size is zeroed too, the rest the same;
 *   - hs_init clears the layout cache: one left filled by a caller (an
 *     entry saying the class has no values) changes nothing.
 * The histogram's tables (HS_HISTO) too, on the same dump stripped:
 *   - with room, it counts NOBJ instances of the class, names it and
 *     leaves the output as the plain strip's;
 *   - with a class table of 8 slots and class_max 0, they are counted as
 *     past the table, and nothing is written in the classes;
 *   - with 16 bytes of names, the class has no name (names_past);
 *   - with tables hs_init cannot use (3 slots, no names), HS_HISTO is
 *     dropped: not a byte written, the output the plain strip's.
 * Prints one line per failed check and 'mem: N passed, N failed'.
 */
#include "../strip/engine/hprof.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

/* ---- a buffer: the dump built, and the engine's output --------------- */

#include "dumpbuf.h"

static void record(struct buf *b, unsigned tag, const struct buf *body)
{
	u1(b, tag);
	u4(b, 0);
	u4(b, (uint32_t)body->len);
	put(b, body->p, body->len);
}

static void string(struct buf *b, uint32_t id, const char *s)
{
	struct buf r = { 0 };
	u4(&r, id);
	put(&r, s, strlen(s));
	record(b, HS_REC_STRING, &r);
	free(r.p);
}

#define CLS 100u
#define SIZE 0x11223344u    /* the listed size: passes */
#define VALUE 0x55667788u   /* each value: zeroed */
#define REF 0x00000900u     /* each reference: passes */
#define NOBJ 50
#define FIELDS_LEN 44u      /* size, then 5 x (reference, value) */

/* ids of 4 bytes: java/util/ArrayList with an int size, then 5 pairs of
 * a reference and an int; NOBJ instances of it */
static void dump(struct buf *b)
{
	struct buf h = { 0 };
	int i, k;

	put(b, HS_MAGIC "2", HS_MAGIC_LEN + 2);  /* with its NUL */
	u4(b, 4);
	u4(b, 0);
	u4(b, 0);
	string(b, 1, "java/util/ArrayList");
	string(b, 2, "size");
	string(b, 3, "r");
	string(b, 4, "v");
	u4(&h, 1);      /* LOAD_CLASS: serial, class, trace, name */
	u4(&h, CLS);
	u4(&h, 0);
	u4(&h, 1);
	record(b, HS_REC_LOAD_CLASS, &h);
	h.len = 0;
	u1(&h, HS_SUB_CLASS_DUMP);
	u4(&h, CLS);
	u4(&h, 0);
	for (i = 0; i < 6; i++)  /* super, loader, signers, domain, 2 */
		u4(&h, 0);
	u4(&h, FIELDS_LEN);
	u2(&h, 0);      /* constant pool */
	u2(&h, 0);      /* statics */
	u2(&h, 11);
	u4(&h, 2);
	u1(&h, 10);     /* int size */
	for (k = 0; k < 5; k++) {
		u4(&h, 3);
		u1(&h, 2);
		u4(&h, 4);
		u1(&h, 10);
	}
	for (i = 0; i < NOBJ; i++) {
		u1(&h, HS_SUB_INSTANCE_DUMP);
		u4(&h, 0x1000u + (uint32_t)i);
		u4(&h, 0);
		u4(&h, CLS);
		u4(&h, FIELDS_LEN);
		u4(&h, SIZE);
		for (k = 0; k < 5; k++) {
			u4(&h, REF);
			u4(&h, VALUE);
		}
	}
	record(b, HS_REC_HEAP_DUMP_SEGMENT, &h);
	h.len = 0;
	record(b, HS_REC_HEAP_DUMP_END, &h);
	free(h.p);
}

/* ---- the engine --------------------------------------------------------- */

static int sink_write(void *user, const void *p, size_t n)
{
	put(user, p, n);
	return 0;
}

static int sink_patch(void *user, uint64_t off, const void *p, size_t n)
{
	struct buf *b = user;

	if (off + n > b->len)
		return -1;
	memcpy(b->p + off, p, n);
	return 0;
}

/* the caches given (each NULL: none) */
struct caches {
	struct hs_flat *flat;
	unsigned flat_slots;
	struct hs_patch *patch;
	unsigned patch_slots;
	struct hs_sized *sized;
	unsigned sized_slots;
};

/* keep's flags and tables asked for with redaction (keep_redact_checks),
 * and the flags hs_init left in effect */
static unsigned keep_flags, redact_flags;
static uint64_t keep_pending[HS_KEEP_MIN_SLOTS];
static struct hs_keep keep_tables = { .pending = keep_pending,
                                      .pending_slots = HS_KEEP_MIN_SLOTS };

/* the dump in, redacted (values level) with the tools' tables and the
 * caches c, into out; 0, or the engine's error */
static enum hs_err redact(const struct buf *in, const struct caches *c,
                          struct buf *out)
{
	static struct hs_layout classes[64];
	static unsigned char types[4096], gather[HS_REDACT_GATHER];
	static uint64_t fw_names[64], fw_classes[64];
	static struct hs_state st;
	struct hs_redact r = {
		.classes = classes, .class_slots = 64,
		.types = types, .types_size = sizeof types,
		.gather = gather, .gather_size = sizeof gather,
		.fw_names = fw_names, .fw_classes = fw_classes, .fw_slots = 64,
		.flat = c->flat, .flat_slots = c->flat_slots,
		.patch = c->patch, .patch_slots = c->patch_slots,
		.sized = c->sized, .sized_slots = c->sized_slots,
	};
	struct hs_config cfg = { .flags = HS_REDACT | keep_flags,
	                         .redact = &r, .keep = &keep_tables };
	struct hs_sink sink = { sink_write, sink_patch, out, NULL };
	enum hs_err err;

	memset(classes, 0, sizeof classes);
	memset(fw_names, 0, sizeof fw_names);
	memset(fw_classes, 0, sizeof fw_classes);
	out->len = 0;
	hs_init(&st, &cfg, &sink);
	redact_flags = st.flags;
	err = hs_feed(&st, in->p, in->len);
	return err ? err : hs_finish(&st);
}

/* how many times the 4 bytes of v are in b */
static int count(const struct buf *b, uint32_t v)
{
	unsigned char c[4];
	size_t i;
	int n = 0;

	hs_put_be32(c, v);
	for (i = 0; i + 4 <= b->len; i++)
		n += !memcmp(b->p + i, c, 4);
	return n;
}

static int same(const struct buf *a, const struct buf *b)
{
	return a->len == b->len && !memcmp(a->p, b->p, a->len);
}

/* the caller's memory: room for 8 of each, filled with a mark */
#define ROOM 8
static union {
	struct hs_flat flat[ROOM + 1];
	struct hs_patch patch[ROOM + 1];
	struct hs_sized sized[ROOM + 1];
	unsigned char bytes[(ROOM + 1) * sizeof(struct hs_flat)];
} mem;

static void mark(void)
{
	memset(mem.bytes, 0xA5, sizeof mem.bytes);
}

/* are the bytes of mem from byte `from` on still the mark? */
static int marked(size_t from)
{
	size_t i;

	for (i = from; i < sizeof mem.bytes; i++)
		if (mem.bytes[i] != 0xA5)
			return 0;
	return 1;
}

/* the dump in, stripped with the histogram's tables h, into out; the
 * flags in effect in *flags */
static enum hs_err histo(const struct buf *in, struct hs_histo *h,
                         struct buf *out, unsigned *flags)
{
	static struct hs_state st;
	struct hs_config cfg = { .flags = h ? HS_HISTO : 0, .histo = h };
	struct hs_sink sink = { sink_write, sink_patch, out, NULL };
	enum hs_err err;

	out->len = 0;
	hs_init(&st, &cfg, &sink);
	err = hs_feed(&st, in->p, in->len);
	*flags = st.flags;
	return err ? err : hs_finish(&st);
}

/* histogram tables in mem (marked first): slots, class_max classes and
 * names bytes of names */
static uint32_t h_slots[ROOM], h_name_slots[ROOM];
static unsigned char h_names[4096];

static struct hs_histo tables(unsigned slots, unsigned class_max,
                              uint32_t names)
{
	struct hs_histo h;

	memset(&h, 0, sizeof h);
	memset(h_slots, 0, sizeof h_slots);
	memset(h_name_slots, 0, sizeof h_name_slots);
	h.slots = h_slots;
	h.slot_count = slots;
	h.classes = (struct hs_histo_class *)(void *)mem.bytes;
	h.class_max = class_max;
	h.name_slots = h_name_slots;
	h.name_slot_count = ROOM;
	h.names = h_names;
	h.names_size = names;
	return h;
}

static void histo_checks(const struct buf *in)
{
	struct buf plain = { 0 }, out = { 0 };
	struct hs_histo h;
	const unsigned char *name;
	size_t n = 0;
	int cut = 0;
	unsigned flags;
	enum hs_err err;

	histo(in, NULL, &plain, &flags);
	mark();
	h = tables(ROOM, 1, sizeof h_names);
	memset(mem.bytes, 0, sizeof(struct hs_histo_class));
	err = histo(in, &h, &out, &flags);
	name = hs_histo_name(&h, h.classes[0].name, &n, &cut);
	CHECK(!err && (flags & HS_HISTO) && same(&out, &plain) &&
	      h.class_count == 1 && h.classes[0].id == CLS &&
	      h.classes[0].heap[0].n == NOBJ && h.classes[0].size == FIELDS_LEN &&
	      (h.classes[0].flags & HS_HISTO_SIZED) &&
	      name && n == 19 && !memcmp(name, "java/util/ArrayList", 19) &&
	      marked(sizeof(struct hs_histo_class)),
	      "histogram: %s, %u classes, %llu instances, %s, %s",
	      hs_strerror(err), h.class_count,
	      (unsigned long long)h.classes[0].heap[0].n,
	      same(&out, &plain) ? "same bytes" : "other bytes",
	      name ? "named" : "no name");

	mark();
	h = tables(ROOM, 0, sizeof h_names);
	err = histo(in, &h, &out, &flags);
	CHECK(!err && h.class_count == 0 && h.other[0].n == NOBJ &&
	      h.classes_past > 0 && marked(0),
	      "histogram, no room for a class: %s, %llu past, %llu others, %s",
	      hs_strerror(err), (unsigned long long)h.classes_past,
	      (unsigned long long)h.other[0].n, marked(0) ? "untouched" : "written");

	mark();
	h = tables(ROOM, 1, 16);
	memset(mem.bytes, 0, sizeof(struct hs_histo_class));
	err = histo(in, &h, &out, &flags);
	CHECK(!err && h.classes[0].heap[0].n == NOBJ && h.names_past > 0 &&
	      !hs_histo_name(&h, h.classes[0].name, &n, &cut),
	      "histogram, 16 bytes of names: %s, %llu texts past",
	      hs_strerror(err), (unsigned long long)h.names_past);

	mark();
	h = tables(3, 1, sizeof h_names);
	err = histo(in, &h, &out, &flags);
	CHECK(!err && !(flags & HS_HISTO) && same(&out, &plain) && marked(0),
	      "histogram tables of 3 slots: %s, %s, %s", hs_strerror(err),
	      flags & HS_HISTO ? "kept" : "dropped",
	      marked(0) ? "untouched" : "written");
	mark();
	h = tables(ROOM, 1, sizeof h_names);
	h.names = NULL;
	err = histo(in, &h, &out, &flags);
	CHECK(!err && !(flags & HS_HISTO) && same(&out, &plain) && marked(0),
	      "histogram without names: %s, %s, %s", hs_strerror(err),
	      flags & HS_HISTO ? "kept" : "dropped",
	      marked(0) ? "untouched" : "written");
	free(plain.p);
	free(out.p);
}

int main(void)
{
	static struct hs_flat flat[HS_REDACT_FLAT];
	static struct hs_patch patch[HS_REDACT_PATCHES];
	static struct hs_sized sized[HS_REDACT_SIZED];
	const struct caches tools = { flat, HS_REDACT_FLAT, patch,
	                              HS_REDACT_PATCHES, sized, HS_REDACT_SIZED };
	struct buf in = { 0 }, ref = { 0 }, out = { 0 };
	struct caches c;
	enum hs_err err;
	unsigned i;

	printf("sizeof(struct hs_state): %zu bytes (at most %u)\n",
	       sizeof(struct hs_state), HS_STATE_MAX);
	CHECK(sizeof(struct hs_state) <= HS_STATE_MAX, "the state is too large");
	dump(&in);

	/* the tools' caches: the size passes, the values go */
	err = redact(&in, &tools, &ref);
	CHECK(!err && count(&ref, SIZE) == NOBJ && count(&ref, VALUE) == 0 &&
	      count(&ref, REF) == 5 * NOBJ,
	      "the tools' caches: %s, %d sizes, %d values, %d references",
	      hs_strerror(err), count(&ref, SIZE), count(&ref, VALUE),
	      count(&ref, REF));

	/* at their least: the same bytes, nothing written past them */
	mark();
	c = tools;
	c.flat = mem.flat;
	c.flat_slots = 1;
	err = redact(&in, &c, &out);
	CHECK(!err && same(&out, &ref) && marked(sizeof(struct hs_flat)),
	      "a layout cache of 1: %s, %s, %s", hs_strerror(err),
	      same(&out, &ref) ? "same bytes" : "other bytes",
	      marked(sizeof(struct hs_flat)) ? "nothing past it"
	                                     : "written past it");
	mark();
	c = tools;
	c.patch = mem.patch;
	c.patch_slots = HS_FLAT_SPANS;
	err = redact(&in, &c, &out);
	CHECK(!err && same(&out, &ref) &&
	      marked(HS_FLAT_SPANS * sizeof(struct hs_patch)),
	      "%u patches: %s, %s, %s", HS_FLAT_SPANS, hs_strerror(err),
	      same(&out, &ref) ? "same bytes" : "other bytes",
	      marked(HS_FLAT_SPANS * sizeof(struct hs_patch))
	          ? "nothing past them" : "written past them");

	/* caches hs_init cannot use: the same bytes, not a byte written */
	mark();
	c = tools;
	c.flat = mem.flat;
	c.flat_slots = 3;
	err = redact(&in, &c, &out);
	CHECK(!err && same(&out, &ref) && marked(0),
	      "a layout cache of 3 (not a power of 2): %s, %s, %s",
	      hs_strerror(err), same(&out, &ref) ? "same bytes" : "other bytes",
	      marked(0) ? "untouched" : "written");
	mark();
	c = tools;
	c.flat = (struct hs_flat *)(void *)(mem.bytes + 1);
	c.flat_slots = 4;
	err = redact(&in, &c, &out);
	CHECK(!err && same(&out, &ref) && marked(0),
	      "a misaligned layout cache: %s, %s, %s", hs_strerror(err),
	      same(&out, &ref) ? "same bytes" : "other bytes",
	      marked(0) ? "untouched" : "written");
	mark();
	c = tools;
	c.patch = mem.patch;
	c.patch_slots = HS_FLAT_SPANS - 1;
	err = redact(&in, &c, &out);
	CHECK(!err && same(&out, &ref) && marked(0),
	      "%u patches (fewer than HS_FLAT_SPANS): %s, %s, %s",
	      HS_FLAT_SPANS - 1, hs_strerror(err),
	      same(&out, &ref) ? "same bytes" : "other bytes",
	      marked(0) ? "untouched" : "written");
	mark();
	c = tools;
	c.patch = (struct hs_patch *)(void *)(mem.bytes + 1);
	c.patch_slots = ROOM - 1;
	err = redact(&in, &c, &out);
	CHECK(!err && same(&out, &ref) && marked(0),
	      "misaligned patches: %s, %s, %s", hs_strerror(err),
	      same(&out, &ref) ? "same bytes" : "other bytes",
	      marked(0) ? "untouched" : "written");

	/* no ids of listed sizes: the size is zeroed too, the rest the same */
	for (i = 0; i < 3; i++) {
		mark();
		c = tools;
		c.sized = i == 0 ? NULL : mem.sized;
		if (i == 1)  /* misaligned */
			c.sized = (struct hs_sized *)(void *)(mem.bytes + 1);
		c.sized_slots = i == 2 ? 0 : ROOM - 1;
		err = redact(&in, &c, &out);
		CHECK(!err && out.len == ref.len && count(&out, SIZE) == 0 &&
		      count(&out, VALUE) == 0 && count(&out, REF) == 5 * NOBJ &&
		      marked(0),
		      "listed sizes' ids %s: %s, %d sizes, %d values, %s",
		      i == 0 ? "NULL" : i == 1 ? "misaligned" : "of 0 slots",
		      hs_strerror(err), count(&out, SIZE), count(&out, VALUE),
		      marked(0) ? "untouched" : "written");
	}

	/* a layout cache left filled: hs_init clears it */
	for (i = 0; i < HS_REDACT_FLAT; i++) {
		memset(&flat[i], 0, sizeof flat[i]);
		flat[i].cls = CLS;
		flat[i].len = FIELDS_LEN;  /* n 0: no values, all pass */
	}
	err = redact(&in, &tools, &out);
	CHECK(!err && same(&out, &ref),
	      "a layout cache left filled: %s, %d values out", hs_strerror(err),
	      count(&out, VALUE));

	/* redaction fails closed: hs_init drops both keep sources, so the
	 * dump is redacted as without them */
	keep_flags = HS_KEEP_BITMAPS | HS_KEEP_STRINGS;
	err = redact(&in, &tools, &out);
	CHECK(!err && same(&out, &ref) && (redact_flags & HS_REDACT) &&
	      !(redact_flags & (HS_KEEP_BITMAPS | HS_KEEP_STRINGS)),
	      "redaction asked to keep strings and bitmaps: %s, flags %#x, %s",
	      hs_strerror(err), redact_flags,
	      same(&out, &ref) ? "as without" : "output differs");
	keep_flags = 0;

	histo_checks(&in);
	free(in.p);
	free(ref.p);
	free(out.p);
	return check_done("mem");
}
