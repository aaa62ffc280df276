/*
 * redactcheck: whether a dump redacted in "values" mode zeroed every
 * primitive value but the runtime's own statics and constants, and kept
 * every reference, checked against the original with a parser of its own.
 *
 *   redactcheck [--withheld N] [--names MAP] ORIGINAL REDACTED
 *
 * ORIGINAL is the input dump (arrays as 0x23, or stripped to 0xC3);
 * REDACTED what the product made of it: stripped (0xC3) or restored
 * (0x23, every element zero), maybe streamed, so its heap may be cut into
 * other records (HEAP_DUMP 0x0C become HEAP_DUMP_SEGMENT 0x1C, a 1.0.1
 * header 1.0.2, HEAP_DUMP_END 0x2C added). So the heap sub-records of
 * all heap records are compared as one sequence, and the other records as
 * another, 0x2C left out of both. The header's version is the same or
 * 1.0.1 become 1.0.2, the id size the same (the time stamp is not
 * compared). Sub-record by sub-record, in order, the tags the same (but
 * 0x23 and 0xC3 for each other) and:
 *   - INSTANCE_DUMP (0x21): id, stack serial, class and length equal; the
 *     field bytes, split by the class's instance fields and then its
 *     superclasses' (the class dumps of ORIGINAL, wherever they lie):
 *     object fields (type 2) as in ORIGINAL, every other field zero. A
 *     class of the chain without a class dump, or fields that do not
 *     take the instance's length, fail.
 *   - CLASS_DUMP (0x20): ids, serial and instance size equal; constant
 *     pool entries and static fields: index or name and type equal, the
 *     value as in ORIGINAL if an object or if the class is the runtime's
 *     (below), else zero; instance fields equal.
 *   - primitive arrays: id, serial, length and type equal; 0x23 elements
 *     zero.
 *   - anything else (object arrays, roots, HEAP_DUMP_INFO 0xFE): equal.
 * The other records are equal byte for byte, in the same number.
 *
 * The runtime's classes keep their static and constant pool values (the
 * JDK's and Android's constants, which viewers read: VisualVM sizes
 * objects from Unsafe's field offsets). A class is the runtime's when the
 * name of its LOAD_CLASS record (0x02: the STRING record its name id
 * points at; of either given twice, the first in ORIGINAL), wherever in
 * ORIGINAL they lie, starts with java, javax, jdk, sun, com/sun, android,
 * com/android, dalvik, libcore, org/apache/harmony, org/w3c or org/xml
 * and then a separator, '/' or '.' ("javafx/..." is not), where a '/' of
 * a prefix is '.' too (HotSpot's java/lang/String, Android's
 * java.lang.String). A class without a LOAD_CLASS or its STRING is not
 * the runtime's. The fields of its instances are zeroed all the same,
 * but for the sizes listed below.
 *
 * Sizes: a primitive instance field whose declaring class's name (its
 * LOAD_CLASS's STRING, as above, '.' for '/' too) and name (its STRING)
 * are a pair of this list is as in ORIGINAL, in every instance whose
 * chain holds the class; any other primitive field is zero:
 *   libcore/util/NativeAllocationRegistry size; android/graphics/Bitmap
 *   mWidth and mHeight; java/nio/Buffer capacity; the element counts of
 *   java/util ArrayList, LinkedList, PriorityQueue, HashMap,
 *   IdentityHashMap, WeakHashMap, TreeMap (size), Vector (elementCount),
 *   Hashtable (count), java/lang/ThreadLocal$ThreadLocalMap (size),
 *   java/util/concurrent ConcurrentHashMap (baseCount) and
 *   LinkedBlockingDeque (count).
 * (strip/engine/redaction.md's table, "What the values level keeps", says who reads
 * them; this list is written apart from the engine's on purpose.)
 *
 * --names MAP: REDACTED is of "names" mode (--redact=names), MAP its
 * names map. Everything above holds but for the texts of STRING records
 * (0x01): each record has its id, length and header as in ORIGINAL, and
 * its text, when the rule below keeps it, equal; any other text (the
 * "tokenized") has become a token of the same shape:
 *   - a leading run of '[' and the byte after it (an array class's type
 *     letter: [LFoo;) as they were;
 *   - every other byte that is not a word byte ([A-Za-z0-9_], or 0x80 and
 *     up) as it was: separators, punctuation, spaces;
 *   - every word byte a word byte of its kind: a digit a digit, an
 *     upper-case letter an upper-case letter, any other ([a-z], '_', a
 *     byte of 0x80 and up) a lower-case letter;
 *   - not the original text when it has 4 word bytes or more (a token
 *     equals its word by chance 1 in 26 a letter);
 *   - each word (a maximal run of word bytes, the leading run and type
 *     letter left out) has one token across the dump: the same word in
 *     two tokenized texts became the same letters (a table of every word
 *     seen, by a hash of its text, its token beside it);
 *   - MAP holds its original: MAP is an HPROF file, "JAVA PROFILE 1.0.2",
 *     ORIGINAL's id size, REDACTED's time stamp, then STRING records only, one for
 *     each tokenized text, in REDACTED's order, with its id and
 *     ORIGINAL's text byte for byte; none for a kept text, none more.
 * The rule, what stays readable: a text of at most 256 bytes (a writer
 * decides on a text's first 256 bytes: a longer one is tokenized) that is
 * whole
 *   - a name of the runtime's classes: pieces of [A-Za-z0-9_$], two or
 *     more, joined by '/' (HotSpot) or by '.' (ART), one of the two
 *     throughout, that starts as the prefixes above say; then maybe
 *     "+0x" and lower-case hex digits (HotSpot's hidden classes:
 *     java/lang/invoke/LambdaForm$MH+0x0000000800c01000) or "-IA" (ART's
 *     java.lang.String-IA);
 *   - a field descriptor: a run of '[' (none too), then one of ZBCSIJFD
 *     or 'L', a runtime class's name joined by '/', ';' ("I", "[[I",
 *     "[Ljava/lang/String;");
 *   - a method descriptor: '(', field descriptors as above, ')', 'V' or a
 *     field descriptor ("()V", "(Ljava/lang/String;I)Z");
 *   - ART's: a primitive type's name, or a runtime class's name joined
 *     by '.', then one "[]" or more ("byte[]", "java.lang.Object[][]"),
 *     or a primitive type's name or "void" alone;
 *   - one of the member and heap names the viewers read and the names the
 *     runtimes' dumpers make (the list in kept_words below: value, count,
 *     next, table ..., <init>, <clinit>, <resolved_references>,
 *     shadow$_klass_ ...);
 *   - empty (nothing to tokenize).
 *
 * --withheld N: a one-pass writer cannot know an instance's layout when a
 * class dump of its chain comes after it (ART, the JDK 6 hprof agent), so
 * it zeroes all its field bytes, references too, and says how many. Of
 * the instances whose field bytes are all zero, those the check above
 * fails on (a reference lost, the layout unknown) were withheld for sure:
 * more than N fail. Those it passes (every reference null, or none)
 * cannot be told from a redaction, but may have been withheld when a
 * class dump of their chain comes later in ORIGINAL. N must lie between
 * the sure count and the sure plus those: an exact count of the sure
 * would fail a writer that counts every instance it withheld.
 *
 * Output, one line on stdout (statics and constants: the primitive ones,
 * zeroed those of the other classes, kept the runtime's):
 *   redactcheck: I instances (N withheld), C classes (R the runtime's),
 *     S statics zeroed, T runtime statics kept, K constants zeroed,
 *     L runtime constants kept, Z sizes kept, A arrays: every value
 *     zero but the runtime's statics and constants and the sizes, every
 *     reference kept
 *   (with --names, then: ", X names tokenized, Y kept")
 * On failure one line on stderr, naming REDACTED's offset (of the first
 * wrong byte where a byte is wrong) and what is wrong (a class by its
 * name too, when it has one):
 *   redactcheck: REDACTED: offset X: instance 0x... field 3 `count`
 *     (int) is not zero
 *   redactcheck: REDACTED: offset X: class 0x... (java/lang/Foo) static
 *     field 2 `SIZE` (int) differs from the original
 *   redactcheck: REDACTED: offset X: STRING 0x... `com/app/Foo`: byte 3
 *     '/' became 'x': a token keeps every byte that is not a word byte
 * (a fault of MAP's own header or records names MAP's offset; a record
 * missing from MAP, or not the original, the STRING's in REDACTED)
 * Exit status: 0 fine; 1 a failure (REDACTED or MAP does not parse
 * either);
 * 2 usage, or ORIGINAL does not parse (it names ORIGINAL's offset).
 *
 * Independent of the product on purpose (nothing from strip/): it walks
 * with the test side's walker (walk.h). C11, libc only.
 */
#include "walk.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAGIC_LEN 17 /* "JAVA PROFILE 1.0.": the version digit next */

/* ------------------------------------------------------------------ */
/* input: struct walk_dump (tests/walk.h)                             */

static _Noreturn void oom(void)
{
	walk_oom("redactcheck");
}

/* ------------------------------------------------------------------ */
/* walking the records                                                */


/* Where a walk of one dump is: its records other than the heap's, and
   its heap sub-records as one sequence whatever records hold them. */
struct cursor {
	uint64_t rec;          /* the next top-level record */
	uint64_t sub, end;     /* the next sub-record, its heap record's end */
};

static struct cursor start(const struct walk_dump *d)
{
	return (struct cursor){ d->w.first, 0, 0 };
}

/* The next heap record (heap 1) or other record (heap 0), HEAP_DUMP_END
   skipped: 1, or 0 at the end of the file. */
static int next_record(struct walk_dump *d, struct cursor *c, struct walk_rec *r,
                       int heap)
{
	int rc;

	while ((rc = walk_record(&d->w, c->rec, r)) > 0) {
		c->rec = r->end;
		if (walk_heap_tag(r->tag) == heap && r->tag != 0x2C)
			return 1;
	}
	if (rc < 0)
		walk_dump_problem(d);
	return 0;
}

/* The next heap sub-record: 1, or 0 after the last. */
static int next_sub(struct walk_dump *d, struct cursor *c, struct walk_sub *s)
{
	struct walk_rec r;

	while (c->sub == c->end) {
		if (!next_record(d, c, &r, 1))
			return 0;
		c->sub = r.body;
		c->end = r.end;
	}
	if (walk_sub(&d->w, c->sub, c->end, s) < 0)
		walk_dump_problem(d);
	c->sub = s->end;
	return 1;
}

/* ------------------------------------------------------------------ */
/* tables: growable arrays, sorted once filled, searched by id        */

/* walk.h's tables; a push that finds no memory ends the run */
static void *push(struct walk_vec *v)
{
	void *e = walk_vec_push(v);

	if (!e)
		oom();
	return e;
}

/* STRING (0x01) records: id -> text, for the names in messages and
   the runtime's classes. */
struct name {
	uint64_t id, off, len;  /* text at off, len bytes */
};

/* LOAD_CLASS (0x02) records: class id -> the string id of its name. */
struct loaded {
	uint64_t id, off, name;
};

/* A class dump of ORIGINAL; of a class dumped twice (two heap dumps in a
   file), the first is the one found. */
struct cls {
	uint64_t id, off;       /* class object id, class dump offset */
	uint64_t super;
	uint64_t fields;        /* offset of the instance field table */
	const char *sized;      /* a class of the sizes' list: its name
	                           there; else NULL */
};

static struct walk_dump orig, red, map;
static struct walk_vec strings = WALK_VEC(struct name), classes = WALK_VEC(struct cls);
static struct walk_vec loads = WALK_VEC(struct loaded);

/* ------------------------------------------------------------------ */
/* the sizes that stay                                                */

/* (class, field): a size or count viewers compute with (the header) */
static const struct {
	const char *cls, *field;
} size_list[] = {
	{ "libcore/util/NativeAllocationRegistry", "size" },
	{ "android/graphics/Bitmap", "mWidth" },
	{ "android/graphics/Bitmap", "mHeight" },
	{ "java/nio/Buffer", "capacity" },
	{ "java/util/ArrayList", "size" },
	{ "java/util/LinkedList", "size" },
	{ "java/util/PriorityQueue", "size" },
	{ "java/util/HashMap", "size" },
	{ "java/util/IdentityHashMap", "size" },
	{ "java/util/WeakHashMap", "size" },
	{ "java/util/TreeMap", "size" },
	{ "java/util/Vector", "elementCount" },
	{ "java/util/Hashtable", "count" },
	{ "java/lang/ThreadLocal$ThreadLocalMap", "size" },
	{ "java/util/concurrent/ConcurrentHashMap", "baseCount" },
	{ "java/util/concurrent/LinkedBlockingDeque", "count" },
};

/* Is the text s (n bytes) the name w, whole, a '.' of s standing for a
   '/' of w? */
static int is_name(const unsigned char *s, uint64_t n, const char *w)
{
	uint64_t len = strlen(w);

	if (n != len)
		return 0;
	for (uint64_t i = 0; i < n; i++)
		if (s[i] != (unsigned char)w[i] && !(w[i] == '/' && s[i] == '.'))
			return 0;
	return 1;
}

/* The text of STRING sid in ORIGINAL, NULL if none (*n its length) */
static const unsigned char *text_of(uint64_t sid, uint64_t *n);

/* Class cid's name in the sizes' list, NULL when it is not there (or has
   no LOAD_CLASS or STRING). */
static const char *sized_class(uint64_t cid)
{
	const struct loaded *l = walk_vec_find(&loads, cid);
	const unsigned char *s;
	uint64_t n;

	if (!l || !(s = text_of(l->name, &n)))
		return NULL;
	for (size_t i = 0; i < sizeof size_list / sizeof *size_list; i++)
		if (is_name(s, n, size_list[i].cls))
			return size_list[i].cls;
	return NULL;
}

/* Is the field named by STRING sid, declared by the listed class cls, a
   size of the list? */
static int sized_field(const char *cls, uint64_t sid)
{
	const unsigned char *s;
	uint64_t n;

	if (!cls || !(s = text_of(sid, &n)))
		return 0;
	for (size_t i = 0; i < sizeof size_list / sizeof *size_list; i++)
		if (!strcmp(size_list[i].cls, cls) &&
		    is_name(s, n, size_list[i].field))
			return 1;
	return 0;
}

/* ------------------------------------------------------------------ */
/* ORIGINAL, first walk: names and class dumps                        */

static void index_orig(void)
{
	struct cursor c = start(&orig);
	struct walk_rec r;
	struct walk_sub s;
	struct name *n;
	struct loaded *l;
	struct cls *k;
	unsigned id = orig.w.idsize;

	while (next_record(&orig, &c, &r, 0))
		if (r.tag == 0x01 && r.len >= id) {
			n = push(&strings);
			n->id = walk_id(&orig.w, r.body);
			n->off = r.body + id;
			n->len = r.len - id;
		} else if (r.tag == 0x02 && r.len >= 8 + 2 * id) {
			/* u4 serial, id class, u4 stack serial, id name */
			l = push(&loads);
			l->id = walk_id(&orig.w, r.body + 4);
			l->off = r.off;
			l->name = walk_id(&orig.w, r.body + 8 + id);
		}
	/* the whole heap is walked: ORIGINAL's faults are found (exit 2)
	   before any comparison, and every class dump is known, since one
	   may come after its instances (ART) */
	c = start(&orig);
	while (next_sub(&orig, &c, &s))
		if (s.tag == 0x20) {
			k = push(&classes);
			k->id = s.id;
			k->off = s.off;
			k->super = s.cls;
			k->fields = s.data;
		}
	walk_vec_sort(&strings, walk_by_key_off);
	walk_vec_sort(&loads, walk_by_key_off);
	walk_vec_sort(&classes, walk_by_key_off);
	for (size_t i = 0; i < classes.n; i++) {
		k = (struct cls *)classes.p + i;
		k->sized = sized_class(k->id);
	}
}

/* ------------------------------------------------------------------ */
/* the runtime's classes                                              */

/* A name of n bytes at s for a message, into buf (size at least 4 * 64
   + 1): its first 64 bytes, a UTF-8 character cut there left out;
   control bytes and bytes of no well-formed UTF-8 character as \xHH, so
   that the message is one line of text whatever the dump holds. */
static const char *printable(const unsigned char *s, uint64_t n, char *buf,
                             size_t size)
{
	size_t o = 0;
	uint64_t i = 0, k, m = n < 64 ? n : 64;

	while (i < m && o + 5 < size) {
		unsigned c = s[i];
		/* the length of a well-formed character starting here, 0 if
		   none (no overlong forms, surrogates or past U+10FFFF) */
		k = c >= 0x20 && c < 0x7F ? 1
		    : c >= 0xC2 && c <= 0xDF ? 2
		    : c >= 0xE0 && c <= 0xEF ? 3
		    : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
		for (uint64_t j = 1; j < k; j++)
			if (i + j >= m || (s[i + j] & 0xC0) != 0x80)
				k = 0;
		if (k >= 3) {
			unsigned d = s[i + 1];
			if ((c == 0xE0 && d < 0xA0) || (c == 0xED && d > 0x9F) ||
			    (c == 0xF0 && d < 0x90) || (c == 0xF4 && d > 0x8F))
				k = 0;
		}
		if (k && o + k < size) {
			memcpy(buf + o, s + i, (size_t)k);
			o += (size_t)k;
			i += k;
		} else if (i + 4 > m && m < n && c >= 0xC0 && !k) {
			break;  /* a character the cut at 64 bytes split */
		} else {
			o += (size_t)snprintf(buf + o, size - o, "\\x%02X", c);
			i++;
		}
	}
	buf[o] = 0;
	return buf;
}

/* Is the name s (n bytes) one of the runtime's: a prefix, then '/' or
   '.'? A '/' in a prefix stands for '.' too. */
static int runtime_name(const unsigned char *s, uint64_t n)
{
	static const char *const prefixes[] = {
		"java", "javax", "jdk", "sun", "com/sun", "android",
		"com/android", "dalvik", "libcore", "org/apache/harmony",
		"org/w3c", "org/xml",
	};

	for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++) {
		const char *p = prefixes[i];
		uint64_t len = strlen(p), j;
		if (n <= len)
			continue;
		for (j = 0; j < len; j++)
			if (s[j] != (unsigned char)p[j] &&
			    !(p[j] == '/' && s[j] == '.'))
				break;
		if (j == len && (s[len] == '/' || s[len] == '.'))
			return 1;
	}
	return 0;
}

/* Is class cid the runtime's? Its name, " (name)" cut at 64 bytes, into
   buf when it has one, else "". */
static int runtime_class(uint64_t cid, char *buf, size_t size)
{
	const struct loaded *l = walk_vec_find(&loads, cid);
	const struct name *n = l ? walk_vec_find(&strings, l->name) : NULL;

	buf[0] = 0;
	if (!n)
		return 0;
	char t[4 * 64 + 1];

	snprintf(buf, size, " (%s)", printable(orig.w.b + n->off, n->len, t,
	                                        sizeof t));
	return runtime_name(orig.w.b + n->off, n->len);
}

/* ------------------------------------------------------------------ */
/* what is wrong, in words                                            */

/* The first thing wrong with a sub-record of REDACTED, and where: kept
   until it is known whether a withheld instance excuses it. */
struct wrong {
	uint64_t off;
	char what[1024];
};

static int wrong(struct wrong *e, uint64_t off, const char *fmt, ...)
{
	va_list ap;

	e->off = off;
	va_start(ap, fmt);
	vsnprintf(e->what, sizeof e->what, fmt, ap);
	va_end(ap);
	return -1;
}

static const char *type_name(unsigned t)
{
	static const char *const names[12] = {
		[2] = "object", [4] = "boolean", [5] = "char", [6] = "float",
		[7] = "double", [8] = "byte", [9] = "short", [10] = "int",
		[11] = "long",
	};
	return t < 12 && names[t] ? names[t] : "?";
}

static const unsigned char *text_of(uint64_t sid, uint64_t *n)
{
	const struct name *s = walk_vec_find(&strings, sid);

	if (!s)
		return NULL;
	*n = s->len;
	return orig.w.b + s->off;
}

/* " `name`" for string id sid into buf (empty when there is no such
   STRING record), cut at 64 bytes. */
static void name_of(uint64_t sid, char *buf, size_t size)
{
	const struct name *n = walk_vec_find(&strings, sid);

	char t[4 * 64 + 1];

	if (!n)
		buf[0] = 0;
	else
		snprintf(buf, size, " `%s`", printable(orig.w.b + n->off,
		         n->len, t, sizeof t));
}

static unsigned long long ull(uint64_t v)
{
	return (unsigned long long)v;
}

/* ------------------------------------------------------------------ */
/* comparing bytes                                                    */

/* The index of the first byte where a and b differ, n if none. */
static uint64_t differs(const unsigned char *a, const unsigned char *b,
                        uint64_t n)
{
	uint64_t i = 0;

	if (memcmp(a, b, (size_t)n) == 0)
		return n;
	while (a[i] == b[i])
		i++;
	return i;
}

/* The index of the first byte of p that is not zero, n if none. */
static uint64_t nonzero(const unsigned char *p, uint64_t n)
{
	uint64_t i = 0;

	while (i < n && !p[i])
		i++;
	return i;
}

/* Bytes [rel, rel + n) of the sub-records o (ORIGINAL) and r (REDACTED)
   equal, offsets taken from the start of each: else what is wrong, at the
   first byte that differs. */
static int same(const struct walk_sub *o, const struct walk_sub *r,
                uint64_t rel, uint64_t n, const char *what, struct wrong *e)
{
	uint64_t i = differs(orig.w.b + o->off + rel, red.w.b + r->off + rel,
	                     n);
	return i == n ? 0
	              : wrong(e, r->off + rel + i, "%s differs from the "
	                      "original", what);
}

/* The value of basic type t at rel in both sub-records: an object, or
   any value kept (keep), as in the original, any other zero. 0 when it
   is, else the offset in REDACTED of its first wrong byte (never 0: the
   header is there). */
static uint64_t wrong_byte(const struct walk_sub *o, const struct walk_sub *r,
                           uint64_t rel, unsigned t, int keep)
{
	uint64_t n = walk_type_size(&orig.w, t), i;

	if (t == 2 || keep)
		i = differs(orig.w.b + o->off + rel, red.w.b + r->off + rel, n);
	else
		i = nonzero(red.w.b + r->off + rel, n);
	return i == n ? 0 : r->off + rel + i;
}

/* The value named what, of type t, kept or not, is wrong at offset at. */
static int wrong_value(struct wrong *e, uint64_t at, unsigned t, int keep,
                       const char *what)
{
	return wrong(e, at, "%s (%s) %s", what, type_name(t),
	             t == 2 || keep ? "differs from the original"
	                            : "is not zero");
}

/* ------------------------------------------------------------------ */
/* the sub-records                                                    */

/* What was seen, for the last line. */
struct tally {
	uint64_t instances, classes, arrays;
	uint64_t runtime;      /* classes that are the runtime's */
	/* primitive values: zeroed (the others') and kept (the runtime's) */
	uint64_t statics, statics_kept, constants, constants_kept;
	uint64_t sizes;        /* instance fields of the sizes' list kept */
	uint64_t withheld;     /* all zero where a reference was lost */
	uint64_t could;        /* all zero, could have been withheld */
};

/*
 * CLASS_DUMP: class, stack serial, superclass, loader, signers,
 * protection domain, 2 reserved, instance size; then the constant pool
 * (u2 count; u2 index, u1 type, value), the static fields (u2 count; id
 * name, u1 type, value) and the instance fields (u2 count; id name, u1
 * type). The walk checked that each dump is whole; the types are compared
 * before their sizes are trusted, so both dumps are read at the same
 * offsets.
 */
static int class_dump(const struct walk_sub *o, const struct walk_sub *r,
                      struct tally *t, struct wrong *e)
{
	uint64_t id = orig.w.idsize, rel = 1 + 7 * id + 8, n, at;
	const unsigned char *b = orig.w.b + o->off;
	char what[800], nm[272], cn[272];
	unsigned ty;
	int keep = runtime_class(o->id, cn, sizeof cn);

	snprintf(what, sizeof what, "class 0x%llx%s", ull(o->id), cn);
	if (same(o, r, 0, rel + 2, what, e)) /* and the pool's count */
		return -1;
	n = walk_u(&orig.w, o->off + rel, 2);
	rel += 2;
	for (uint64_t i = 0; i < n; i++) {
		snprintf(what, sizeof what, "class 0x%llx%s constant pool "
		         "entry %llu (index %llu)", ull(o->id), cn, ull(i),
		         ull(walk_u(&orig.w, o->off + rel, 2)));
		if (same(o, r, rel, 3, what, e))
			return -1;
		ty = b[rel + 2];
		if ((at = wrong_byte(o, r, rel + 3, ty, keep)))
			return wrong_value(e, at, ty, keep, what);
		t->constants_kept += ty != 2 && keep;
		t->constants += ty != 2 && !keep;
		rel += 3 + walk_type_size(&orig.w, ty);
	}
	snprintf(what, sizeof what, "class 0x%llx%s static field count",
	         ull(o->id), cn);
	if (same(o, r, rel, 2, what, e))
		return -1;
	n = walk_u(&orig.w, o->off + rel, 2);
	rel += 2;
	for (uint64_t i = 0; i < n; i++) {
		name_of(walk_id(&orig.w, o->off + rel), nm, sizeof nm);
		snprintf(what, sizeof what, "class 0x%llx%s static field "
		         "%llu%s", ull(o->id), cn, ull(i), nm);
		if (same(o, r, rel, id + 1, what, e))
			return -1;
		ty = b[rel + id];
		if ((at = wrong_byte(o, r, rel + id + 1, ty, keep)))
			return wrong_value(e, at, ty, keep, what);
		t->statics_kept += ty != 2 && keep;
		t->statics += ty != 2 && !keep;
		rel += id + 1 + walk_type_size(&orig.w, ty);
	}
	/* the count first: r's table is as long as o's once it is equal */
	snprintf(what, sizeof what, "class 0x%llx%s instance fields",
	         ull(o->id), cn);
	if (same(o, r, rel, 2, what, e) ||
	    same(o, r, rel + 2, o->end - o->off - rel - 2, what, e))
		return -1;
	t->classes++;
	t->runtime += keep;
	return 0;
}

/* The bytes the fields of o's class and its superclasses take, checked
   against o's length; *later: a class dump of the chain comes after o in
   ORIGINAL (a one-pass writer could not know the layout). 0, or -1 when
   the layout is unknown or does not fit (e at r's first field byte). */
static int layout(const struct walk_sub *o, const struct walk_sub *r,
                  int *later, struct wrong *e)
{
	uint64_t id = orig.w.idsize, size = 0, cid = o->cls;

	*later = 0;
	for (size_t depth = 0; depth <= classes.n; depth++) {
		const struct cls *c = walk_vec_find(&classes, cid);
		if (!c)
			return wrong(e, r->data, "instance 0x%llx: class "
			             "0x%llx of its chain has no class dump in "
			             "the original: its layout is unknown",
			             ull(o->id), ull(cid));
		*later |= c->off > o->off;
		uint64_t p = c->fields, n = walk_u(&orig.w, p, 2);
		for (p += 2; n--; p += id + 1)
			size += walk_type_size(&orig.w, orig.w.b[p + id]);
		if (!(cid = c->super))
			return size == o->count
			       ? 0
			       : wrong(e, r->data, "instance 0x%llx: the "
			               "fields of class 0x%llx and its "
			               "superclasses take %llu bytes, the "
			               "instance has %lu", ull(o->id),
			               ull(o->cls), ull(size),
			               (unsigned long)o->count);
	}
	return wrong(e, r->data, "instance 0x%llx: the superclass chain of "
	             "class 0x%llx loops", ull(o->id), ull(o->cls));
}

/* The field values of instance o against r's, split by the layout that
   layout() found sound: the class's own fields first, then its
   superclass's, and so on; a size of the list as in the original. Named
   only when wrong: this runs for every field of every instance. */
static int fields(const struct walk_sub *o, const struct walk_sub *r,
                  struct tally *t, struct wrong *e)
{
	uint64_t id = orig.w.idsize, rel = o->data - o->off, k = 0, at;
	char what[400], nm[272];

	for (const struct cls *c = walk_vec_find(&classes, o->cls); c;
	     c = c->super ? walk_vec_find(&classes, c->super) : NULL) {
		uint64_t p = c->fields, n = walk_u(&orig.w, p, 2);
		for (p += 2; n--; p += id + 1, k++) {
			unsigned ty = orig.w.b[p + id];
			int keep = ty != 2 && c->sized &&
			           sized_field(c->sized, walk_id(&orig.w, p));
			if ((at = wrong_byte(o, r, rel, ty, keep))) {
				name_of(walk_id(&orig.w, p), nm, sizeof nm);
				snprintf(what, sizeof what, "instance 0x%llx "
				         "field %llu%s%s", ull(o->id), ull(k),
				         nm, keep ? ", a size of the list," : "");
				return wrong_value(e, at, ty, keep, what);
			}
			t->sizes += keep;
			rel += walk_type_size(&orig.w, ty);
		}
	}
	return 0;
}

/* INSTANCE_DUMP: id, u4 stack serial, id class, u4 length, field values.
   Wrong but all zero, it is a withheld instance while there are fewer
   than allowed. */
static int instance(const struct walk_sub *o, const struct walk_sub *r,
                    struct tally *t, uint64_t allowed, struct wrong *e)
{
	int later = 0, zero;
	char what[64];

	snprintf(what, sizeof what, "instance 0x%llx", ull(o->id));
	if (same(o, r, 0, o->data - o->off, what, e))
		return -1;
	t->instances++;
	zero = nonzero(red.w.b + r->data, r->count) == r->count;
	if (!layout(o, r, &later, e) && !fields(o, r, t, e)) {
		t->could += zero && later;
		return 0;
	}
	if (!zero)
		return -1;
	if (t->withheld < allowed) {
		t->withheld++;
		return 0;
	}
	size_t len = strlen(e->what);
	snprintf(e->what + len, sizeof e->what - len, "; its field bytes are "
	         "all zero, as a withheld instance's, but --withheld %llu "
	         "allows no more", ull(allowed));
	return -1;
}

/* PRIMITIVE_ARRAY_DUMP (0x23) or NODATA (0xC3): id, u4 stack serial,
   u4 length, u1 type the same; elements, if any, zero. */
static int prim_array(const struct walk_sub *o, const struct walk_sub *r,
                      struct tally *t, struct wrong *e)
{
	uint64_t hdr = orig.w.idsize + 4 + 4 + 1, i;
	char what[64];

	snprintf(what, sizeof what, "primitive array 0x%llx", ull(o->id));
	if (same(o, r, 1, hdr, what, e))
		return -1;
	if (r->tag == 0x23) {
		uint64_t n = r->end - r->data;
		if ((i = nonzero(red.w.b + r->data, n)) < n)
			return wrong(e, r->data + i, "primitive array 0x%llx "
			             "element %llu (%s) is not zero",
			             ull(o->id), ull(i / r->esize),
			             type_name(r->type));
	}
	t->arrays++;
	return 0;
}

/* The length of the shorter of o and r. */
static uint64_t shorter(const struct walk_sub *o, const struct walk_sub *r)
{
	uint64_t a = o->end - o->off, b = r->end - r->off;
	return a < b ? a : b;
}

static int is_prim_array(unsigned tag)
{
	return tag == 0x23 || tag == 0xC3;
}

static int sub_record(const struct walk_sub *o, const struct walk_sub *r,
                      struct tally *t, uint64_t allowed, struct wrong *e)
{
	char what[32];

	if (o->tag != r->tag && !(is_prim_array(o->tag) &&
	                          is_prim_array(r->tag)))
		return wrong(e, r->off, "sub-record tag 0x%02X where the "
		             "original has 0x%02X (at offset %llu)", r->tag,
		             o->tag, ull(o->off));
	switch (o->tag) {
	case 0x20:
		return class_dump(o, r, t, e);
	case 0x21:
		return instance(o, r, t, allowed, e);
	case 0x23:
	case 0xC3:
		return prim_array(o, r, t, e);
	default: /* object arrays, roots, HEAP_DUMP_INFO: as they were (an
	            object array's length is in its header: one that differs
	            is a byte that differs before the shorter ends) */
		snprintf(what, sizeof what, "sub-record 0x%02X", o->tag);
		return same(o, r, 0, shorter(o, r), what, e);
	}
}

/* ------------------------------------------------------------------ */
/* --names: the texts of STRING records                               */

/* The member and heap names that stay readable (the spec's list). */
static const char *const kept_words[] = {
	"accessOrder", "after", "app", "baseCount", "before", "c", "call",
	"capacityIncrement", "cause", "classLoader", "classes", "coder",
	"color", "comparator", "componentType", "contextClassLoader", "count",
	"counterCells", "daemon", "declaringClass", "default", "detailMessage",
	"discovered", "eetop", "elementCount", "elementData", "elements",
	"entrySet", "equals", "fileName", "first", "group", "groups", "hash",
	"hashCode", "hashIsZero", "head", "holder", "image", "intCompact",
	"intVal", "item", "jit", "key", "keySet", "last", "left",
	"lineNumber", "list", "loadFactor", "m", "mag", "main", "methodName",
	"modCount", "module", "name", "nativePeer", "next", "nextTable",
	"nthreads", "offset", "ordinal", "packageName", "packages", "parent",
	"path", "precision", "prev", "priority", "queue", "referent", "right",
	"root", "run", "s", "scale", "signum", "size", "sizeCtl", "stackSize",
	"stackTrace", "suppressedExceptions", "table", "tail", "target",
	"threadLocals", "threadStatus", "threads", "threshold", "tid",
	"toString", "transferIndex", "value", "values", "zygote",
	/* the statics VisualVM sizes objects by, and System.props' keys */
	"HI_BYTE_SHIFT", "LO_BYTE_SHIFT", "annotationDataOffset",
	"annotationTypeOffset", "defaults", "map", "properties", "props",
	"runnerOffset", "systemProperties", "val", "waitersOffset",
	/* the sizes the values level keeps, for viewers to find by name */
	"capacity", "mHeight", "mWidth",
	/* the names the dumpers make: HotSpot's methods and statics */
	"<init>", "<clinit>", "<resolved_references>", "<init_lock>",
	/* ART's statics, fields and heap names; Dalvik's static */
	"$classOverhead", "$classOverhead2", "runtimeInternalObjects",
	"shadow$_klass_", "shadow$_monitor_", "<ILLEGAL>", "$staticOverhead",
};

/* Is s (n bytes) exactly the C string w? */
static int is(const unsigned char *s, uint64_t n, const char *w)
{
	return strlen(w) == n && !memcmp(s, w, (size_t)n);
}

static int kept_word(const unsigned char *s, uint64_t n)
{
	for (size_t i = 0; i < sizeof kept_words / sizeof *kept_words; i++)
		if (is(s, n, kept_words[i]))
			return 1;
	return 0;
}

/* A primitive type's name, as ART spells it. */
static int primitive_name(const unsigned char *s, uint64_t n)
{
	static const char *const prim[] = { "boolean", "byte", "char",
		"short", "int", "long", "float", "double" };

	for (size_t i = 0; i < sizeof prim / sizeof *prim; i++)
		if (is(s, n, prim[i]))
			return 1;
	return 0;
}

/* A byte of a piece of a class name. */
static int piece_byte(unsigned c)
{
	return c == '_' || c == '$' || (c >= '0' && c <= '9') ||
	       (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

/* s (n bytes) less a suffix the runtimes give class names: "-IA", or
   "+0x" and lower-case hex digits; its length without it. */
static uint64_t unsuffixed(const unsigned char *s, uint64_t n)
{
	uint64_t i;

	if (n >= 3 && s[n - 3] == '-' && s[n - 2] == 'I' && s[n - 1] == 'A')
		return n - 3;
	for (i = n; i > 0; i--)
		if (!((s[i - 1] >= '0' && s[i - 1] <= '9') ||
		      (s[i - 1] >= 'a' && s[i - 1] <= 'f')))
			break;
	if (i < n && i >= 3 && s[i - 3] == '+' && s[i - 2] == '0' &&
	    s[i - 1] == 'x')
		return i - 3;
	return n;
}

/* Is s (n bytes) a runtime class's name, its pieces joined by sep? */
static int class_of_runtime(const unsigned char *s, uint64_t n, unsigned sep)
{
	uint64_t m = unsuffixed(s, n), i, start = 0, pieces = 0;

	for (i = 0; i <= m; i++) {
		if (i < m && s[i] != sep) {
			if (!piece_byte(s[i]))
				return 0;
			continue;
		}
		if (i == start)  /* an empty piece */
			return 0;
		pieces++;
		start = i + 1;
	}
	return pieces >= 2 && runtime_name(s, m);
}

/* The field descriptor at s + *at (within n bytes): 1, *at past it; 0
   when there is none there. */
static int field_type(const unsigned char *s, uint64_t n, uint64_t *at)
{
	uint64_t i = *at, j;

	while (i < n && s[i] == '[')
		i++;
	if (i == n)
		return 0;
	if (memchr("ZBCSIJFD", s[i], 8)) {
		*at = i + 1;
		return 1;
	}
	if (s[i] != 'L')
		return 0;
	for (j = i + 1; j < n && s[j] != ';'; j++)
		;
	if (j == n || !class_of_runtime(s + i + 1, j - i - 1, '/'))
		return 0;
	*at = j + 1;
	return 1;
}

static int method_type(const unsigned char *s, uint64_t n)
{
	uint64_t at = 1;

	if (n < 3 || s[0] != '(')
		return 0;
	while (at < n && s[at] != ')')
		if (!field_type(s, n, &at))
			return 0;
	if (at + 2 == n && s[at + 1] == 'V')
		return 1;
	at++;
	return at < n && field_type(s, n, &at) && at == n;
}

/* ART's class names: int, void, byte[], java.lang.Object[][] */
static int art_class(const unsigned char *s, uint64_t n)
{
	uint64_t e = n;

	while (e >= 2 && s[e - 2] == '[' && s[e - 1] == ']')
		e -= 2;
	if (e == n)
		return primitive_name(s, n) || is(s, n, "void");
	return primitive_name(s, e) || class_of_runtime(s, e, '.');
}

/* Does the rule keep the text s (n bytes)? */
static int name_kept(const unsigned char *s, uint64_t n)
{
	uint64_t at = 0;

	if (n == 0)
		return 1;
	if (n > 256)
		return 0;
	return class_of_runtime(s, n, '/') || class_of_runtime(s, n, '.') ||
	       (field_type(s, n, &at) && at == n) || method_type(s, n) ||
	       art_class(s, n) || kept_word(s, n);
}

static int word_byte(unsigned c)
{
	return c >= 0x80 || c == '_' || (c >= '0' && c <= '9') ||
	       (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

/* The bytes of a text that no token changes: its leading run of '[' and
   the byte after it, when there is such a run. */
static uint64_t lead_of(const unsigned char *s, uint64_t n)
{
	uint64_t d = 0;

	while (d < n && s[d] == '[')
		d++;
	return d && d < n ? d + 1 : d;
}

/* What a word byte c of the original may become, in words. */
static const char *kind_of(unsigned c)
{
	return c >= '0' && c <= '9' ? "a digit"
	       : c >= 'A' && c <= 'Z' ? "an upper-case letter"
	                              : "a lower-case letter";
}

static int of_kind(unsigned c, unsigned t)
{
	return c >= '0' && c <= '9' ? t >= '0' && t <= '9'
	       : c >= 'A' && c <= 'Z' ? t >= 'A' && t <= 'Z'
	                              : t >= 'a' && t <= 'z';
}

/* A byte for a message: 'c', or \xHH. */
static const char *shown(unsigned c, char buf[8])
{
	if (c >= 0x20 && c < 0x7F && c != '\'')
		snprintf(buf, 8, "'%c'", c);
	else
		snprintf(buf, 8, "\\x%02X", c);
	return buf;
}

/* Every word of the tokenized texts seen, its token beside it: offsets
   into ORIGINAL (the word) and REDACTED (its token), open addressing by
   a hash of the word's text. */
struct word {
	uint64_t hash, woff, toff, len; /* len 0: a free slot */
};
static struct word *words;
static size_t words_slots, words_used;

static uint64_t hash_of(const unsigned char *p, uint64_t n)
{
	uint64_t h = 0xCBF29CE484222325u;

	while (n--)
		h = (h ^ *p++) * 0x100000001B3u;
	return h ^ (h >> 29);
}

static struct word *word_slot(uint64_t h, const unsigned char *w,
                              uint64_t n)
{
	size_t i = (size_t)h & (words_slots - 1);

	for (; words[i].len; i = (i + 1) & (words_slots - 1))
		if (words[i].hash == h && words[i].len == n &&
		    !memcmp(orig.w.b + words[i].woff, w, (size_t)n))
			break;
	return &words[i];
}

static void words_grow(void)
{
	struct word *old = words;
	size_t n = words_slots;

	words_slots = n ? 2 * n : 1u << 16;
	words = calloc(words_slots, sizeof *words);
	if (!words)
		oom();
	for (size_t i = 0; i < n; i++)
		if (old[i].len)
			*word_slot(old[i].hash, orig.w.b + old[i].woff,
			           old[i].len) = old[i];
	free(old);
}

/* The word at woff in ORIGINAL (n bytes) became the token at toff in
   REDACTED: the same as everywhere before, else a failure at its first
   byte that is not. */
static void word_seen(uint64_t woff, uint64_t toff, uint64_t n,
                      uint64_t sid)
{
	const unsigned char *w = orig.w.b + woff, *t = red.w.b + toff;
	uint64_t h = hash_of(w, n), i;
	struct word *e;

	if (2 * (words_used + 1) > words_slots)
		words_grow();
	e = word_slot(h, w, n);
	if (!e->len) {
		*e = (struct word){ h, woff, toff, n };
		words_used++;
		return;
	}
	if ((i = differs(red.w.b + e->toff, t, n)) < n) {
		char a[4 * 64 + 1], b[4 * 64 + 1], c[4 * 64 + 1];
		walk_dump_bad(&red, toff + i, "STRING 0x%llx: the word `%s` became `%s`, "
		    "but `%s` at offset %llu: a word has one token across the "
		    "dump", ull(sid), printable(w, n, a, sizeof a),
		    printable(t, n, b, sizeof b),
		    printable(red.w.b + e->toff, n, c, sizeof c), ull(e->toff));
	}
}

/* The names map, walked beside REDACTED's STRING records. */
static struct cursor map_at;
static uint64_t names_tokenized, names_kept;

static void map_header(void)
{
	uint64_t t = map.w.first - 8;

	if (map.w.version != '2')
		walk_dump_bad(&map, MAGIC_LEN, "names map header JAVA PROFILE 1.0.%c, "
		    "not 1.0.2", map.w.version);
	if (map.w.idsize != orig.w.idsize)
		walk_dump_bad(&map, MAGIC_LEN + 2, "names map identifier size %u, the "
		    "original's %u", map.w.idsize, orig.w.idsize);
	/* the dump's own: a map tells whose it is */
	if (memcmp(map.w.b + t, red.w.b + red.w.first - 8, 8))
		walk_dump_bad(&map, t, "names map time stamp is not the dump's");
	map_at = start(&map);
}

/* The next record of the map, whatever its tag: 1, or 0 at its end. */
static int map_next(struct walk_rec *m)
{
	int rc = walk_record(&map.w, map_at.rec, m);

	if (rc < 0)
		walk_dump_problem(&map);
	if (rc > 0)
		map_at.rec = m->end;
	return rc > 0;
}

/* The tokenized STRING record r (o in ORIGINAL): the next record of the
   map is its original. */
static void map_holds(const struct walk_rec *o, const struct walk_rec *r,
                      uint64_t sid, const char *text)
{
	unsigned id = orig.w.idsize;
	struct walk_rec m;
	uint64_t i;

	if (!map_next(&m))
		walk_dump_bad(&red, r->off, "STRING 0x%llx %s: tokenized, but the names "
		    "map has no more records: its original is not there",
		    ull(sid), text);
	if (m.tag != 0x01 || m.len != o->len)
		walk_dump_bad(&red, r->off, "STRING 0x%llx %s: tokenized, but the names "
		    "map's next record (offset %llu) is %s of %llu bytes, not "
		    "its original's STRING of %llu", ull(sid), text,
		    ull(m.off), m.tag == 0x01 ? "a STRING" : "no STRING",
		    ull(m.len), ull(o->len));
	if (walk_id(&map.w, m.body) != sid)
		walk_dump_bad(&red, r->off, "STRING 0x%llx %s: tokenized, but the names "
		    "map's next record (offset %llu) is the STRING of 0x%llx",
		    ull(sid), text, ull(m.off),
		    ull(walk_id(&map.w, m.body)));
	i = differs(orig.w.b + o->body + id, map.w.b + m.body + id,
	            o->len - id);
	if (i < o->len - id)
		walk_dump_bad(&red, r->off, "STRING 0x%llx %s: tokenized, but the names "
		    "map's record of it (offset %llu) differs from the "
		    "original at its offset %llu", ull(sid), text,
		    ull(m.off), ull(m.body + id + i));
}

/* The text of STRING record r against o's (the same id and length: the
   bytes before the text were equal). */
static void name_text(const struct walk_rec *o, const struct walk_rec *r)
{
	unsigned id = orig.w.idsize;
	uint64_t n = o->len - id, at = r->body + id, sid, i, lead, nw = 0;
	const unsigned char *s = orig.w.b + o->body + id, *t = red.w.b + at;
	char text[4 * 64 + 3], t64[4 * 64 + 1], b1[8], b2[8];

	sid = walk_id(&orig.w, o->body);
	snprintf(text, sizeof text, "`%s`", printable(s, n, t64, sizeof t64));
	if (name_kept(s, n)) {
		if ((i = differs(s, t, n)) < n)
			walk_dump_bad(&red, at + i, "STRING 0x%llx %s: a name the rule "
			    "keeps (the runtime's) differs from the original",
			    ull(sid), text);
		names_kept++;
		return;
	}
	lead = lead_of(s, n);
	for (i = lead; i < n; i++)
		nw += word_byte(s[i]);
	if (nw >= 4 && !memcmp(s, t, (size_t)n))
		walk_dump_bad(&red, at, "STRING 0x%llx %s: not tokenized: the original "
		    "text (%llu letters and digits)", ull(sid), text, ull(nw));
	for (i = 0; i < n; i++) {
		unsigned c = s[i], x = t[i];
		if (i < lead || !word_byte(c)) {
			if (x != c)
				walk_dump_bad(&red, at + i, "STRING 0x%llx %s: byte %llu "
				    "%s became %s: a token keeps %s", ull(sid),
				    text, ull(i), shown(c, b1), shown(x, b2),
				    i < lead ? "an array's leading '[' run and "
				    "type letter" : "every byte that is not a "
				    "word byte");
		} else if (!of_kind(c, x))
			walk_dump_bad(&red, at + i, "STRING 0x%llx %s: byte %llu %s "
			    "became %s, not %s", ull(sid), text, ull(i),
			    shown(c, b1), shown(x, b2), kind_of(c));
	}
	for (i = lead; i < n;) {
		uint64_t j = i;
		while (j < n && word_byte(s[j]))
			j++;
		if (j > i)
			word_seen(o->body + id + i, at + i, j - i, sid);
		i = j + (j < n);
	}
	map_holds(o, r, sid, text);
	names_tokenized++;
}

/* After the last STRING record: the map holds no more. */
static void map_end(void)
{
	struct walk_rec m;

	if (map_next(&m))
		walk_dump_bad(&red, red.f.size, "the names map has a record more "
		    "(0x%02X at its offset %llu%s): for no tokenized text",
		    m.tag, ull(m.off), m.tag == 0x01 ? ", a STRING" : "");
}

/* ------------------------------------------------------------------ */
/* the whole files                                                    */

/* Header: the version the same, or 1.0.1 become 1.0.2 (streamed); the id
   size the same. The time stamp is not compared: a runtime writing under
   the shim stamps its own, and it holds no value of the heap. */
static void header(void)
{
	int ov = orig.w.version, rv = red.w.version;

	if (rv != ov && !(ov == '1' && rv == '2'))
		walk_dump_bad(&red, MAGIC_LEN, "header JAVA PROFILE 1.0.%c, the "
		    "original's 1.0.%c", rv, ov);
	if (red.w.idsize != orig.w.idsize)
		walk_dump_bad(&red, MAGIC_LEN + 2, "identifier size %u, the original's "
		    "%u", red.w.idsize, orig.w.idsize);
}

/* The records other than the heap's, in order, byte for byte; with
   --names (names), a STRING's text as name_text says. */
static void records(int names)
{
	struct cursor co = start(&orig), cr = start(&red);
	struct walk_rec o, r;
	int ho, hr;

	for (;;) {
		ho = next_record(&orig, &co, &o, 0);
		hr = next_record(&red, &cr, &r, 0);
		if (!ho && !hr)
			return;
		if (!hr)
			walk_dump_bad(&red, red.f.size, "records end; the original has "
			    "record 0x%02X at offset %llu", o.tag, ull(o.off));
		if (!ho)
			walk_dump_bad(&red, r.off, "record 0x%02X, the original has no "
			    "more", r.tag);
		/* the length is in the header: one that differs is a byte
		   that differs before either body ends */
		uint64_t n = 9 + (o.len < r.len ? o.len : r.len);
		int text = names && o.tag == 0x01 && o.len >= orig.w.idsize;
		if (text)  /* up to the text: tag, time, length, id */
			n = 9 + orig.w.idsize;
		uint64_t i = differs(orig.w.b + o.off, red.w.b + r.off, n);
		if (i < n)
			walk_dump_bad(&red, r.off + i, "record 0x%02X differs from the "
			    "original's at offset %llu", r.tag, ull(o.off));
		if (text)
			name_text(&o, &r);
	}
}

/* The heap sub-records, in order, one against one. */
static void heap(struct tally *t, uint64_t allowed)
{
	struct cursor co = start(&orig), cr = start(&red);
	struct walk_sub o, r;
	struct wrong e;
	int ho, hr;

	for (;;) {
		ho = next_sub(&orig, &co, &o);
		hr = next_sub(&red, &cr, &r);
		if (!ho && !hr)
			return;
		if (!hr)
			walk_dump_bad(&red, red.f.size, "heap sub-records end; the "
			    "original has 0x%02X at offset %llu", o.tag,
			    ull(o.off));
		if (!ho)
			walk_dump_bad(&red, r.off, "heap sub-record 0x%02X, the original "
			    "has no more", r.tag);
		if (sub_record(&o, &r, t, allowed, &e))
			walk_dump_bad(&red, e.off, "%s", e.what);
	}
}

/* ------------------------------------------------------------------ */
/* main                                                               */

static void usage(void)
{
	fprintf(stderr, "usage: redactcheck [--withheld N] [--names MAP] "
	        "ORIGINAL REDACTED\n");
	exit(2);
}

/* N of --withheld: decimal digits only. */
static uint64_t count_arg(const char *s)
{
	char *end;

	if (*s < '0' || *s > '9')
		usage();
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (*end || errno)
		usage();
	return v;
}

int main(int argc, char **argv)
{
	const char *files[2] = { NULL, NULL }, *map_path = NULL;
	int nfiles = 0;
	uint64_t allowed = 0;
	struct tally t = { 0 };

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--withheld") && i + 1 < argc)
			allowed = count_arg(argv[++i]);
		else if (!strncmp(a, "--withheld=", 11))
			allowed = count_arg(a + 11);
		else if (!strcmp(a, "--names") && i + 1 < argc)
			map_path = argv[++i];
		else if (!strncmp(a, "--names=", 8) && a[8])
			map_path = a + 8;
		else if (!walk_operand(files, &nfiles, a))
			usage();
	}
	if (nfiles != 2)
		usage();

	/* ORIGINAL's faults are not the product's: exit 2, not 1 */
	walk_dump_load(&orig, "redactcheck", files[0], 2);
	walk_dump_load(&red, "redactcheck", files[1], 1);
	if (map_path)
		walk_dump_load(&map, "redactcheck", map_path, 1);
	walk_dump_header(&orig, 0);
	walk_dump_header(&red, 0);
	header();
	if (map_path) {
		walk_dump_header(&map, 0);
		map_header();
	}
	index_orig();
	records(map_path != NULL);
	if (map_path)
		map_end();
	heap(&t, allowed);
	if (t.withheld + t.could < allowed)
		walk_dump_bad(&red, red.f.size, "--withheld %llu, but %llu instances had "
		    "a reference zeroed or an unknown layout, and %llu more "
		    "were all zero before a class dump of their layout",
		    ull(allowed), ull(t.withheld), ull(t.could));

	printf("redactcheck: %llu instances (%llu withheld), %llu classes "
	       "(%llu the runtime's), %llu statics zeroed, %llu runtime "
	       "statics kept, %llu constants zeroed, %llu runtime constants "
	       "kept, %llu sizes kept, %llu arrays: every value zero but the "
	       "runtime's statics and constants and the sizes, every "
	       "reference kept", ull(t.instances),
	       ull(allowed), ull(t.classes), ull(t.runtime), ull(t.statics),
	       ull(t.statics_kept), ull(t.constants), ull(t.constants_kept),
	       ull(t.sizes), ull(t.arrays));
	if (map_path)
		printf(", %llu names tokenized, %llu kept",
		       ull(names_tokenized), ull(names_kept));
	putchar('\n');
	if (fflush(stdout) != 0)
		walk_die_sys("redactcheck", "stdout");
	walk_unload(&orig.f);
	walk_unload(&red.f);
	if (map_path)
		walk_unload(&map.f);
	free(words);
	free(strings.p);
	free(classes.p);
	free(loads.p);
	return 0;
}
