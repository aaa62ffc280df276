/*
 * HS_REDACT_NAMES and HS_UNREDACT (see hprof.h): the text of STRING
 * records, tokenized or given back.
 *
 * A STRING record's id and the start of its text are read (PH_NAME); the
 * rule (hs_name_kept) decides from them whether the name stays. A text
 * that does not goes out as a token of the same length, byte for byte as
 * it comes (PH_NAME_TEXT), while its original goes to the caller's map;
 * unredacting, a text the caller's map names goes out as the map has it.
 * Record lengths never change. Every hook does nothing unless names are
 * on.
 */
#include "internal.h"

#include <stdlib.h>

/* The bytes of text read before the rule decides: enough for every name
 * the list holds and every prefix the rule looks at. */
#define HEAD 64u

/* ---- the rule ---------------------------------------------------------- */

/* Member and heap names the viewers read, kept readable (in strcmp
 * order, for bsearch: a name out of order would not be found): the
 * fields of the runtime's classes that
 * Eclipse MAT, VisualVM and Android Studio decode (String, Thread,
 * collections, references, boxes), the statics VisualVM sizes objects
 * by (Class$Atomic's and FutureTask's Unsafe offsets, System.props and
 * the keys it reads there), and ART's heap names. */
static const char *const kept[] = {
	"HI_BYTE_SHIFT", "LO_BYTE_SHIFT", "accessOrder", "after",
	"annotationDataOffset", "annotationTypeOffset", "app", "baseCount",
	"before", "c", "call", "capacityIncrement", "cause", "classLoader",
	"classes", "coder", "color", "comparator", "componentType",
	"contextClassLoader", "count", "counterCells", "daemon",
	"declaringClass", "default", "defaults", "detailMessage",
	"discovered", "eetop", "elementCount", "elementData", "elements",
	"entrySet", "equals", "fileName", "first", "group", "groups", "hash",
	"hashCode", "hashIsZero", "head", "holder", "image", "intCompact",
	"intVal", "item", "jit", "key", "keySet", "last", "left",
	"lineNumber", "list", "loadFactor", "m", "mag", "main", "map",
	"methodName", "modCount", "module", "name", "nativePeer", "next",
	"nextTable", "nthreads", "offset", "ordinal", "packageName",
	"packages", "parent", "path", "precision", "prev", "priority",
	"properties", "props", "queue", "referent", "right", "root", "run",
	"runnerOffset", "s", "scale", "signum", "size", "sizeCtl",
	"stackSize", "stackTrace", "suppressedExceptions",
	"systemProperties", "table", "tail", "target", "threadLocals",
	"threadStatus", "threads", "threshold", "tid", "toString",
	"transferIndex", "val", "value", "values", "waitersOffset", "zygote",
};

static int cmp_name(const void *key, const void *elem)
{
	const char *const *k = key, *const *e = elem;
	return strcmp(*k, *e);
}

static int in_list(const char *s, size_t n)
{
	char buf[32];
	const char *p = buf;

	if (n >= sizeof buf)
		return 0;
	memcpy(buf, s, n);
	buf[n] = 0;
	return bsearch(&p, kept, sizeof kept / sizeof kept[0], sizeof kept[0],
	               cmp_name) != NULL;
}

/* A primitive type's descriptor letter (HotSpot's [I). */
static int prim_letter(const char *s, size_t n)
{
	return n == 1 && s[0] && strchr("ZBCSIJFD", s[0]) != NULL;
}

/* A primitive type's name (ART's int[]). */
static int prim_name(const char *s, size_t n)
{
	static const char *const prim[] = { "boolean", "byte", "char", "short",
		"int", "long", "float", "double" };
	size_t i;

	for (i = 0; i < sizeof prim / sizeof prim[0]; i++)
		if (strlen(prim[i]) == n && !memcmp(prim[i], s, n))
			return 1;
	return 0;
}

int hs_name_kept(const char *s, size_t n, int whole)
{
	size_t d = 0, e = n;

	/* HotSpot's array classes: [[I, [Ljava/lang/String; */
	while (d < n && s[d] == '[')
		d++;
	if (d && d < n && s[d] == 'L')
		return hs_framework_name(s + d + 1, n - d - 1);
	if (d)
		return whole && prim_letter(s + d, n - d);
	if (hs_framework_name(s, n))
		return 1;
	/* the runtime's internal names: <init>, <resolved_references>,
	 * ART's shadow$_klass_ */
	if (n >= 7 && !memcmp(s, "shadow$", 7))
		return 1;
	if (!whole)
		return 0;
	if (n >= 2 && s[0] == '<' && s[n - 1] == '>')
		return 1;
	/* ART's array classes: int[], byte[][] */
	while (e >= 2 && s[e - 2] == '[' && s[e - 1] == ']')
		e -= 2;
	if (e < n)
		return prim_name(s, e);
	return in_list(s, n);
}

/* ---- tokens ------------------------------------------------------------ */

/* A byte that shapes a name (a separator, punctuation) stays; letters,
 * digits, '_' and non-ASCII bytes become letters and digits. */
static int shapes(unsigned c)
{
	return c < 0x80 && !(c >= '0' && c <= '9') && !(c >= 'A' && c <= 'Z') &&
	       !(c >= 'a' && c <= 'z') && c != '_';
}

static uint64_t mix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xBF58476D1CE4E5B9u;
	x ^= x >> 27;
	x *= 0x94D049BB133111EBu;
	return x ^ (x >> 31);
}

/* n bytes of text at p, tokenized into out: each byte of a word (between
 * shaping bytes) from a keyed hash of the word up to it, so a word
 * becomes the same token wherever it is, and a digit stays a digit, an
 * upper-case letter upper case. An array class's descriptor keeps its
 * '['s and its type letter: [LFoo; is the array of Foo's token. */
static void tokenize(struct hs_state *st, const unsigned char *p, size_t n,
                     unsigned char *out)
{
	uint64_t h = st->nm.h, k0 = st->nm.cfg.key[0], k1 = st->nm.cfg.key[1];
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned c = p[i];
		uint64_t r;
		if (st->nm.lead == 1 && c == '[')
			st->nm.lead = 2;
		if (st->nm.lead == 2 && c != '[') {
			st->nm.lead = 0;
			out[i] = (unsigned char)c;  /* the type letter */
			continue;
		}
		st->nm.lead = st->nm.lead == 2 ? 2 : 0;
		if (shapes(c)) {
			out[i] = (unsigned char)c;
			h = k0;
			continue;
		}
		h = (h ^ c) * 0x100000001B3u;
		r = mix(h ^ k1) >> 8;
		out[i] = (unsigned char)(c >= '0' && c <= '9' ? '0' + r % 10
		                         : c >= 'A' && c <= 'Z' ? 'A' + r % 26
		                         : 'a' + r % 26);
	}
	st->nm.h = h;
}

/* n bytes of the current text (from nm.at on): its token or its original
 * out, and the original to the caller's map. */
static void text_out(struct hs_state *st, const unsigned char *p, size_t n)
{
	struct hs_names *cfg = &st->nm.cfg;
	unsigned char buf[256];
	size_t k;

	if (st->nm.orig) {  /* unredact */
		eng_emit(st, st->nm.orig + st->nm.at, n);
		st->nm.at += (uint32_t)n;
		return;
	}
	if (cfg->original)
		cfg->original(cfg->user, st->idsize, st->nm.id, st->nm.len,
		              st->nm.at, p, n);
	st->nm.at += (uint32_t)n;
	while (n && !st->err) {
		k = n < sizeof buf ? n : sizeof buf;
		tokenize(st, p, k, buf);
		eng_emit(st, buf, k);
		p += k;
		n -= k;
	}
}

/* ---- the phases -------------------------------------------------------- */

int names_wants_record(const struct hs_state *st, unsigned tag, uint32_t len)
{
	return st->mode.names && tag == HS_REC_STRING && len > st->idsize;
}

/* PH_NAME: a STRING record's id and the start of its text, taken: the
 * other layers read them as they came (they read only the runtime's
 * names, which stay); the id goes out, and the text, kept, tokenized or
 * given back. */
int names_step_head(struct hs_state *st, struct cur *c)
{
	unsigned id = st->idsize, n;
	uint32_t len = (uint32_t)st->rec_len;
	const unsigned char *h;

	n = len < id + HEAD ? len : id + HEAD;
	if (c->p == c->end)
		return 0;
	h = eng_take(st, c, n, ACT_TAKE);
	if (!h)
		return 0;
	if (salvage_wants_record(st, HS_REC_STRING, len) && n == len)
		salvage_names(st, h);
	if (redact_wants_record(st, HS_REC_STRING, len))
		redact_names(st, h, n);
	st->nm.id = rd_id(st, h);
	st->nm.len = len - id;
	st->nm.at = 0;
	st->nm.h = st->nm.cfg.key[0];
	st->nm.lead = 1;
	st->nm.orig = NULL;
	if (st->mode.names == 2)
		st->nm.orig = st->nm.cfg.rename(st->nm.cfg.user, st->nm.id,
		                                st->nm.len);
	st->nm.tok = st->nm.orig ||
	             (st->mode.names == 1 &&
	              !hs_name_kept((const char *)h + id, n - id, n == len));
	eng_emit(st, h, st->nm.tok ? id : n);
	if (st->nm.tok) {
		st->names_tokenized++;
		text_out(st, h + id, n - id);
	}
	st->left = len - n;
	st->phase = st->nm.tok ? PH_NAME_TEXT : PH_REC_BODY;
	return 1;
}

/* PH_NAME_TEXT: the rest of a text tokenized or given back. */
int names_step_text(struct hs_state *st, struct cur *c)
{
	size_t avail = (size_t)(c->end - c->p), k;

	if (!st->left) {
		st->phase = PH_REC_BODY;
		return 1;
	}
	if (!avail)
		return 0;
	k = st->left < avail ? (size_t)st->left : avail;
	eng_flush(st, c);
	text_out(st, c->p, k);
	consume(st, c, k);
	c->run = c->p;
	st->left -= k;
	return 1;
}
