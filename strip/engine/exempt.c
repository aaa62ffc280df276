/*
 * HS_REDACT's exemptions (see redact.c): what redaction lets through as it
 * came, read from the STRING and LOAD_CLASS records on the way:
 *
 *   the runtime's own classes (hs_framework_name): their statics stay;
 *   the listed sizes (sizes[] below): a field of the list passes as a
 *   reference does.
 *
 * The ids are kept in the caller's tables (struct hs_redact: fw_names,
 * fw_classes, and the listed sizes' ids, st->rd.sized).
 */
#include "internal.h"

#include <string.h>

/* ---- the runtime's own classes: their statics stay ------------------- */

int hs_framework_name(const char *s, size_t n)
{
	static const char *const pre[] = {
		"java", "javax", "jdk", "sun", "com/sun", "android",
		"com/android", "dalvik", "libcore", "org/apache/harmony",
		"org/w3c", "org/xml",
	};
	size_t i, k;

	for (i = 0; i < sizeof pre / sizeof pre[0]; i++) {
		for (k = 0; pre[i][k] && k < n; k++)
			if (s[k] != pre[i][k] && !(pre[i][k] == '/' && s[k] == '.'))
				break;
		/* the whole prefix, then a separator: not "javafx" */
		if (!pre[i][k] && k < n && (s[k] == '/' || s[k] == '.'))
			return 1;
	}
	return 0;
}

/* ---- the sizes that stay ---------------------------------------------- */

/* The runtime's instance fields that are sizes or counts viewers compute
 * with, and nothing a program chooses: a class's whole name (HotSpot's
 * '/'; ART's '.' matches too) and a primitive field it declares. Who
 * reads each (strip/engine/redaction.md: "What the values level keeps" has the table):
 *   NativeAllocationRegistry.size: the native bytes ahat
 *     (AhatClassInstance.asRegisteredNativeAllocation) and perflib
 *     (NativeRegistryPostProcessor) add to the owner of each Cleaner, a
 *     Bitmap's pixels among them on Android 8 and later;
 *   Bitmap.mWidth, mHeight: ahat's bitmap sizes (AhatBitmapInstance);
 *   Buffer.capacity: the bytes of a direct buffer, outside the heap, as
 *     MAT's direct-memory figures and queries read it;
 *   the collections' element counts that MAT's collection queries
 *     (KnownCollectionInfo: fill ratio, collections by size) read; the
 *     object graph, which stays, shows the elements themselves.
 * Not kept: String's hash and coder (made from the text), count (the
 * length and whether the text is Latin-1), pointers (Bitmap.mNativePtr,
 * Buffer.address), positions, limits, mod counts. */
static const char *const sizes[][2] = {
	{ "libcore/util/NativeAllocationRegistry", "size" },
	{ "android/graphics/Bitmap", "mWidth" },
	{ "android/graphics/Bitmap", "mHeight" },
	{ "java/nio/Buffer", "capacity" },
	{ "java/util/ArrayList", "size" },
	{ "java/util/LinkedList", "size" },
	{ "java/util/Vector", "elementCount" },
	{ "java/util/PriorityQueue", "size" },
	{ "java/util/HashMap", "size" },
	{ "java/util/Hashtable", "count" },
	{ "java/util/IdentityHashMap", "size" },
	{ "java/util/WeakHashMap", "size" },
	{ "java/util/TreeMap", "size" },
	{ "java/lang/ThreadLocal$ThreadLocalMap", "size" },
	{ "java/util/concurrent/ConcurrentHashMap", "baseCount" },
	{ "java/util/concurrent/LinkedBlockingDeque", "count" },
};
#define NSIZES (sizeof sizes / sizeof sizes[0])

/* Is the text (n bytes at s) the name w, whole ('/' of w matches '.')? */
static int same_name(const char *s, size_t n, const char *w)
{
	size_t k;

	for (k = 0; k < n && w[k]; k++)
		if (s[k] != w[k] && !(w[k] == '/' && s[k] == '.'))
			return 0;
	return k == n && !w[k];
}

/* The kind (1 a class's name, 2 a field's) and 1 + the first pair that
 * the whole text s (n bytes) names, in *pair; 0 if none. */
static unsigned size_text(const char *s, size_t n, unsigned *pair)
{
	unsigned i;

	for (i = 0; i < NSIZES; i++)
		if (same_name(s, n, sizes[i][0]) || same_name(s, n, sizes[i][1])) {
			*pair = i + 1;
			return same_name(s, n, sizes[i][0]) ? 1 : 2;
		}
	return 0;
}

/* The id's entry of that kind: 1 + its first pair, or 0. */
unsigned rd_sized_of(const struct hs_state *st, unsigned kind, uint64_t id)
{
	unsigned i;

	for (i = 0; i < st->rd.nsized; i++)
		if (st->rd.sized[i].id == id && st->rd.sized[i].kind == kind)
			return st->rd.sized[i].pair;
	return 0;
}

static void sized_add(struct hs_state *st, unsigned kind, uint64_t id,
                      unsigned pair)
{
	struct hs_sized *z;

	if (st->rd.nsized >= st->rd.cfg.sized_slots || rd_sized_of(st, kind, id))
		return;  /* full: that one is zeroed, as all were */
	z = &st->rd.sized[st->rd.nsized++];
	z->id = id;
	z->kind = (unsigned char)kind;
	z->pair = (unsigned char)pair;
}

/* Is the field named by STRING id name, of the class whose first pair is
 * cls - 1, a listed size? */
int rd_size_kept(const struct hs_state *st, unsigned cls, uint64_t name)
{
	unsigned f = rd_sized_of(st, 2, name), i;

	if (!cls || !f)
		return 0;
	for (i = 0; i < NSIZES; i++)
		if (!strcmp(sizes[i][0], sizes[cls - 1][0]) &&
		    !strcmp(sizes[i][1], sizes[f - 1][1]))
			return 1;
	return 0;
}

/* Insert-only sets of ids (0: a free slot); 1/8 of the slots stay free,
 * so a lookup ends. */
int rd_set_has(const uint64_t *t, unsigned slots, uint64_t id)
{
	unsigned i;

	if (!slots || !id)
		return 0;
	for (i = id_slot(id, slots); t[i]; i = (i + 1) & (slots - 1))
		if (t[i] == id)
			return 1;
	return 0;
}

static void set_add(uint64_t *t, unsigned slots, unsigned *count, uint64_t id)
{
	unsigned i;

	if (!slots || !id || *count >= slots - slots / 8 ||
	    rd_set_has(t, slots, id))
		return;
	for (i = id_slot(id, slots); t[i]; i = (i + 1) & (slots - 1))
		;
	t[i] = id;
	++*count;
}

int redact_wants_record(const struct hs_state *st, unsigned tag,
                        uint32_t len)
{
	unsigned id = st->idsize;

	if (!st->mode.redact || !st->rd.cfg.fw_slots)
		return 0;
	if (tag == HS_REC_STRING)
		return len > id;
	return tag == HS_REC_LOAD_CLASS && len == 8 + 2 * id;
}

/* A STRING record's id and the start of its text (n bytes in all at h),
 * or a LOAD_CLASS record: the runtime's class names, then classes. */
void redact_names(struct hs_state *st, const unsigned char *h, unsigned n)
{
	struct hs_redact *r = &st->rd.cfg;
	unsigned id = st->idsize;

	unsigned kind, pair = 0;

	if (st->rec_tag == HS_REC_STRING) {
		static const char filler[] = "[Ljdk/internal/vm/FillerElement;";
		if (n == st->rec_len && n - id == sizeof filler - 1 &&
		    !memcmp(h + id, filler, sizeof filler - 1))
			st->rd.filler_name = rd_id(st, h);
		if (hs_framework_name((const char *)h + id, n - id))
			set_add(r->fw_names, r->fw_slots, &r->fw_names_used,
			        rd_id(st, h));
		/* a listed name, whole */
		if (n == st->rec_len &&
		    (kind = size_text((const char *)h + id, n - id, &pair)))
			sized_add(st, kind, rd_id(st, h), pair);
		return;
	}
	/* LOAD_CLASS: u4 serial, class id, u4 trace, name id */
	if (st->rd.filler_name && rd_id(st, h + 8 + id) == st->rd.filler_name)
		st->rd.filler_class = rd_id(st, h + 4);
	if (rd_set_has(r->fw_names, r->fw_slots, rd_id(st, h + 8 + id)))
		set_add(r->fw_classes, r->fw_slots, &r->fw_classes_used,
		        rd_id(st, h + 4));
	if ((pair = rd_sized_of(st, 1, rd_id(st, h + 8 + id))))
		sized_add(st, 3, rd_id(st, h + 4), pair);
}
