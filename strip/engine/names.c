/*
 * HS_REDACT_NAMES and HS_UNREDACT (see hprof.h): the text of STRING
 * records, tokenized or given back.
 *
 * A STRING record's id and its text, up to HEAD bytes of it, are read
 * (PH_NAME); the rule (hs_name_kept) decides from the whole text whether
 * it stays, and a longer text does not. A text that does not goes out as
 * a token of the same length, byte for byte as it comes (PH_NAME_TEXT),
 * while its original goes to the caller's map;
 * unredacting, a text the caller's map names goes out as the map has it.
 * Record lengths never change. Every hook does nothing unless names are
 * on.
 */
#include "points.h"

#include <stdlib.h>

/* The bytes of text read before the rule decides. The rule needs a text
 * whole: a longer one is tokenized whole (fail closed). Every name a
 * dump's records use (classes, fields, statics, frames) is at most 166
 * bytes in the corpus and in JDK 17 dumps; the longer texts the runtime
 * makes are method descriptors no record uses (redaction.md: "The two
 * levels"). */
#define HEAD 256u
_Static_assert(sizeof ((struct hs_state *)0)->scratch >= 8 + HEAD,
               "a STRING record's id and head fit in scratch");

/* ---- the rule ---------------------------------------------------------- */

/* The runtime's fixed names (in strcmp order, for bsearch: a name out of
 * order would not be found): the fields of the runtime's classes that
 * Eclipse MAT, VisualVM and Android Studio decode (String, Thread,
 * collections, references, boxes), the statics VisualVM sizes objects
 * by (Class$Atomic's and FutureTask's Unsafe offsets, System.props and
 * the keys it reads there), the sizes the values level keeps (redact.c:
 * capacity, mWidth, mHeight; the counts are among the above); the names
 * HotSpot's dumper writes (<init>, <clinit>, the statics
 * <resolved_references> and <init_lock>); ART's (its heap names, the
 * statics $classOverhead and $classOverhead2, the fields
 * runtimeInternalObjects, shadow$_klass_ and shadow$_monitor_,
 * <ILLEGAL>); Dalvik's static $staticOverhead. */
static const char *const kept[] = {
	"$classOverhead", "$classOverhead2", "$staticOverhead", "<ILLEGAL>",
	"<clinit>", "<init>", "<init_lock>", "<resolved_references>",
	"HI_BYTE_SHIFT", "LO_BYTE_SHIFT", "accessOrder", "after",
	"annotationDataOffset", "annotationTypeOffset", "app", "baseCount",
	"before", "c", "call", "capacity", "capacityIncrement", "cause", "classLoader",
	"classes", "coder", "color", "comparator", "componentType",
	"contextClassLoader", "count", "counterCells", "daemon",
	"declaringClass", "default", "defaults", "detailMessage",
	"discovered", "eetop", "elementCount", "elementData", "elements",
	"entrySet", "equals", "fileName", "first", "group", "groups", "hash",
	"hashCode", "hashIsZero", "head", "holder", "image", "intCompact",
	"intVal", "item", "jit", "key", "keySet", "last", "left",
	"lineNumber", "list", "loadFactor", "m", "mHeight", "mWidth", "mag", "main", "map",
	"methodName", "modCount", "module", "name", "nativePeer", "next",
	"nextTable", "nthreads", "offset", "ordinal", "packageName",
	"packages", "parent", "path", "precision", "prev", "priority",
	"properties", "props", "queue", "referent", "right", "root", "run",
	"runnerOffset", "runtimeInternalObjects", "s", "scale",
	"shadow$_klass_", "shadow$_monitor_", "signum", "size", "sizeCtl",
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

	if (n >= sizeof buf || memchr(s, 0, n))
		return 0;
	memcpy(buf, s, n);
	buf[n] = 0;
	return bsearch(&p, kept, sizeof kept / sizeof kept[0], sizeof kept[0],
	               cmp_name) != NULL;
}

/* A byte of a Java identifier, ASCII only: a letter, a digit, '_', '$'. */
static int ident_byte(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_' || c == '$';
}

/* The length of a class name's suffix the runtime adds: HotSpot's hidden
 * classes' "+0x" and hex digits (java/lang/invoke/LambdaForm$MH+0x...),
 * the "-IA" of ART's synthetic classes (java.lang.String-IA); else 0. */
static size_t class_suffix(const char *s, size_t n)
{
	size_t i = n;

	if (n >= 3 && !memcmp(s + n - 3, "-IA", 3))
		return 3;
	while (i && strchr("0123456789abcdef", s[i - 1]) && s[i - 1])
		i--;
	return i < n && i >= 3 && !memcmp(s + i - 3, "+0x", 3) ? n - i + 3
	                                                       : 0;
}

/* A runtime class's name, whole: two identifiers or more joined by sep
 * ('/': HotSpot's internal form; '.': ART's binary name), its package
 * one of hs_framework_name's, and maybe a suffix above. */
static int class_name(const char *s, size_t n, char sep)
{
	size_t i, seg = 0, seps = 0;

	n -= class_suffix(s, n);
	for (i = 0; i < n; i++) {
		if (s[i] == sep) {
			if (!seg)
				return 0;
			seg = 0;
			seps++;
		} else if (ident_byte((unsigned char)s[i])) {
			seg++;
		} else {
			return 0;
		}
	}
	return seg && seps && hs_framework_name(s, n);
}

/* The length of the field descriptor (JVMS 4.3.2) that s starts with: a
 * run of '[', then a base type letter or L, a runtime class's internal
 * name and ';'; else 0. */
static size_t field_desc(const char *s, size_t n)
{
	const char *semi;
	size_t d = 0;

	while (d < n && s[d] == '[')
		d++;
	if (d == n)
		return 0;
	if (s[d] && strchr("BCDFIJSZ", s[d]))
		return d + 1;
	if (s[d] != 'L' || !(semi = memchr(s + d, ';', n - d)))
		return 0;
	return class_name(s + d + 1, (size_t)(semi - s) - d - 1, '/')
	       ? (size_t)(semi - s) + 1 : 0;
}

/* A method descriptor (JVMS 4.3.3), whole, each class in it the
 * runtime's: (Ljava/lang/String;I)V */
static int method_desc(const char *s, size_t n)
{
	size_t i = 1, k;

	if (n < 3 || s[0] != '(')
		return 0;
	while (i < n && s[i] != ')') {
		if (!(k = field_desc(s + i, n - i)))
			return 0;
		i += k;
	}
	if (++i >= n)
		return 0;
	return (i + 1 == n && s[i] == 'V') || field_desc(s + i, n - i) == n - i;
}

/* A primitive type's name, as ART spells it. */
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

/* ART's class names: a primitive type's name (int), alone or with "[]"
 * for each dimension (int[][]); void alone; a runtime class's binary name
 * with "[]" for each dimension (java.lang.String[]). */
static int art_name(const char *s, size_t n)
{
	size_t e = n;

	while (e >= 2 && s[e - 2] == '[' && s[e - 1] == ']')
		e -= 2;
	if (prim_name(s, e) || (e == n && n == 4 && !memcmp(s, "void", 4)))
		return 1;
	return e < n && class_name(s, e, '.');
}

/*
 * The rule (redaction.md says it in these words, "The two levels"):
 *
 * A text stays readable only when the whole text is the runtime's,
 * decided from the grammar of JVM names and descriptors (JVMS 4.2-4.3),
 * not from how it starts:
 * - a runtime class's name: identifiers (ASCII letters, digits, `_`, `$`)
 *   joined by `/` (HotSpot's `java/lang/String`) or by `.` (ART's
 *   `java.lang.String`), one of the two throughout, its package one of
 *   the runtime's (the prefixes of the values level,
 *   `hs_framework_name`); then maybe HotSpot's hidden-class suffix (`+0x`
 *   and hex digits: `java/lang/invoke/LambdaForm$MH+0x0000000800c01000`)
 *   or ART's `-IA`;
 * - a field or method descriptor whose every class is a runtime class:
 *   `I`, `[B`, `[[I`, `Ljava/lang/String;`, `[Ljava/lang/Object;`,
 *   `(Ljava/lang/String;I)V` (an application class in a descriptor is a
 *   name to hide: the whole descriptor becomes a token);
 * - ART's primitive and array class names: `int`, `void`, `byte[]`,
 *   `java.lang.String[]`;
 * - a fixed list (`kept[]` in `names.c`): about a hundred member and heap
 *   names the viewers read (`value`, `count`, `table`, `next`, `name`,
 *   `referent`, VisualVM's `props` and `Unsafe` offsets, the sizes the
 *   values level keeps: `capacity`, `mWidth`, `mHeight`...) and the names
 *   the dumpers make: HotSpot's `<init>`, `<clinit>`,
 *   `<resolved_references>`, `<init_lock>`; ART's `shadow$_klass_`,
 *   `shadow$_monitor_`, `$classOverhead`, `$classOverhead2`,
 *   `runtimeInternalObjects`, `<ILLEGAL>`; Dalvik's `$staticOverhead`.
 *
 * Anything else becomes a token: a text with `=`, a space, a tab, a
 * newline, `:`, a `;` outside a descriptor or markup is no name, so
 * `javax.net.ssl.keyStorePassword=S3cr3tPW` and `<apiKey>...</apiKey>`
 * go whole. So does every text longer than 256 bytes: the engine decides
 * on a text's first 256 bytes and never keeps one it has not seen whole.
 */
int hs_name_kept(const char *s, size_t n, int whole)
{
	if (!whole || !n)
		return 0;
	return class_name(s, n, '/') || class_name(s, n, '.') ||
	       field_desc(s, n) == n || method_desc(s, n) || art_name(s, n) ||
	       in_list(s, n);
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
 * '['s and its type letter: [LFoo; is the array of Foo's token. *hp and
 * *lead carry the word's hash and the text's start from one piece of a
 * text to the next. */
static void tokenize_with(const struct hs_names *cfg, uint64_t *hp,
                          unsigned char *lead, const unsigned char *p,
                          size_t n, unsigned char *out)
{
	uint64_t h = *hp, k0 = cfg->key[0], k1 = cfg->key[1];
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned c = p[i];
		uint64_t r;
		if (*lead == 1 && c == '[')
			*lead = 2;
		if (*lead == 2 && c != '[') {
			*lead = 0;
			out[i] = (unsigned char)c;  /* the type letter */
			continue;
		}
		*lead = *lead == 2 ? 2 : 0;
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
	*hp = h;
}

static void tokenize(struct hs_state *st, const unsigned char *p, size_t n,
                     unsigned char *out)
{
	tokenize_with(&st->nm.cfg, &st->nm.h, &st->nm.lead, p, n, out);
}

/* The start of a STRING text (n bytes at p; whole: all of it) as it goes
 * out, into out: its token while names are tokenized and the rule does
 * not keep it, else as it came (histo.c: a class's name as the dump
 * shows it). A text's token starts as its start's token does. */
void names_view(const struct hs_state *st, const unsigned char *p, size_t n,
                int whole, unsigned char *out)
{
	uint64_t h = st->nm.cfg.key[0];
	unsigned char lead = 1;

	if (st->mode.names != 1 || hs_name_kept((const char *)p, n, whole)) {
		memcpy(out, p, n);
		return;
	}
	tokenize_with(&st->nm.cfg, &h, &lead, p, n, out);
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

static int names_wants_record(const struct hs_state *st, unsigned tag, uint32_t len)
{
	return st->mode.names && tag == HS_REC_STRING && len > st->idsize;
}

/* PH_NAME: a STRING record's id and the start of its text, taken: the
 * other layers read them as they came (they read only the runtime's
 * names, which stay); the id goes out, and the text, kept, tokenized or
 * given back. */
static int names_step_head(struct hs_state *st, struct cur *c)
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
	L_CALL(st, record, st, h, n);  /* the other layers read it */
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
static int names_step_text(struct hs_state *st, struct cur *c)
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

/* ---- the layer's hooks ------------------------------------------------- */

static int step(struct hs_state *st, struct cur *c)
{
	switch (st->phase) {
	case PH_NAME: return names_step_head(st, c);
	case PH_NAME_TEXT: return names_step_text(st, c);
	default: return -1;
	}
}

static void init(struct hs_state *st, const struct hs_config *cfg)
{
	if ((st->flags & (HS_REDACT_NAMES | HS_UNREDACT)) && cfg->names)
		st->nm.cfg = *cfg->names;
}

const struct hs_layer names_layer = {
	.init = init,
	/* records */
	.takes_record = names_wants_record,
	/* bodies, phases */
	.step = step,
};
