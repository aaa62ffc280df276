/*
 * --baseline OLD when OLD is a histogram's text (histo.h:
 * histo_list_parse): hprofstrip --histo's jmap layout, or its --json.
 * Either must be whole: a Total that equals the sum of the rows, so a
 * file cut short or edited is refused, not compared.
 */
#include "histo.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Where the parse is, and why it stopped. */
struct parse {
	const char *p, *end;
	unsigned line;         /* the text: the line p is on (1-based) */
	char *why;
	size_t size;
	int failed;
	int jmap;              /* a jmap -histo text: "class name (module)",
	                          each name followed by its module */
};

static int fail(struct parse *ps, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int fail(struct parse *ps, const char *fmt, ...)
{
	va_list ap;

	if (!ps->failed) {
		va_start(ap, fmt);
		vsnprintf(ps->why, ps->size, fmt, ap);
		va_end(ap);
	}
	ps->failed = 1;
	return -1;
}

/* A decimal number at *s (before end), no sign: -1 if none or too
 * large. */
static int number(const char **s, const char *end, uint64_t *v)
{
	const char *p = *s;

	*v = 0;
	if (p == end || *p < '0' || *p > '9')
		return -1;
	for (; p < end && *p >= '0' && *p <= '9'; p++) {
		if (*v > (UINT64_MAX - 9) / 10)
			return -1;
		*v = *v * 10 + (uint64_t)(*p - '0');
	}
	*s = p;
	return 0;
}

static const char *blanks(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	return p;
}

int histo_text_head(const unsigned char *head, size_t n)
{
	const char *p = blanks((const char *)head, (const char *)head + n);
	size_t left = n - (size_t)(p - (const char *)head);

	return (left >= 1 && *p == '{') || (left >= 3 && !memcmp(p, "num", 3));
}

/* ---- the text ------------------------------------------------------------ */

/* The line at ps->p: [*s, *e), ps->p after it. 0 at the end. */
static int next_line(struct parse *ps, const char **s, const char **e)
{
	const char *nl;

	if (ps->p >= ps->end)
		return 0;
	nl = memchr(ps->p, '\n', (size_t)(ps->end - ps->p));
	*s = ps->p;
	*e = nl ? nl : ps->end;
	ps->p = nl ? nl + 1 : ps->end;
	ps->line++;
	return 1;
}

/* The header " num #instances #bytes [heap...] class name": the number
 * of heap columns, or -1. */
static int header(struct parse *ps, const char *s, const char *e)
{
	static const char *const want[] = { "num", "#instances", "#bytes" };
	int words = 0, i;
	size_t n;

	for (i = 0; i < 3; i++) {
		s = blanks(s, e);
		n = strlen(want[i]);
		if ((size_t)(e - s) < n || memcmp(s, want[i], n) ||
		    (s + n < e && s[n] != ' '))
			return fail(ps, "line %u: not a histogram's header "
			            "(\" num     #instances         #bytes ... "
			            "class name\")", ps->line);
		s += n;
	}
	while ((s = blanks(s, e)) < e && (size_t)(e - s) != 10 &&
	       ((size_t)(e - s) != 19 || memcmp(s, "class name (module)", 19))) {
		while (s < e && *s != ' ')
			s++;
		words++;
	}
	/* jmap -histo's of JDK 9+: "class name (module)" */
	if ((size_t)(e - s) == 10 + 9 && !memcmp(s, "class name (module)", 19))
		ps->jmap = 1;
	else if ((size_t)(e - s) != 10 || memcmp(s, "class name", 10) ||
	         words > HS_HISTO_HEAPS)
		return fail(ps, "line %u: not a histogram's header (it ends "
		            "\"class name\" after at most %d heap columns)",
		            ps->line, HS_HISTO_HEAPS);
	return words;
}

/* The numbers of a row or the Total after its label: instances, bytes,
 * then heaps numbers, each after blanks; *s after them. */
static int counts(struct parse *ps, const char **s, const char *e,
                  int heaps, uint64_t *n, uint64_t *bytes)
{
	uint64_t skip;
	int i;

	*s = blanks(*s, e);
	if (number(s, e, n))
		return fail(ps, "line %u: no instance count", ps->line);
	*s = blanks(*s, e);
	if (number(s, e, bytes))
		return fail(ps, "line %u: no byte count", ps->line);
	for (i = 0; i < heaps; i++) {
		*s = blanks(*s, e);
		if (number(s, e, &skip))
			return fail(ps, "line %u: a heap's bytes missing",
			            ps->line);
	}
	return 0;
}

/* A row "   N:  instances  bytes [heaps]  name" (N the rank expected). */
static int row(struct parse *ps, struct histo_list *l, const char *s,
               const char *e, int heaps, uint64_t rank)
{
	uint64_t got, n = 0, bytes = 0;

	s = blanks(s, e);
	if (number(&s, e, &got) || s == e || *s != ':' || got != rank)
		return fail(ps, "line %u: not row %" PRIu64 " (\"%4" PRIu64
		            ": instances bytes name\") nor the Total", ps->line,
		            rank, rank);
	s++;
	if (counts(ps, &s, e, heaps, &n, &bytes))
		return -1;
	if (s == e || *s != ' ' || (s = blanks(s, e)) == e)
		return fail(ps, "line %u: no class name", ps->line);
	/* jmap's: the name, then " (java.base@17.0.15)"; a class name
	 * holds no blank */
	if (ps->jmap && memchr(s, ' ', (size_t)(e - s)))
		e = memchr(s, ' ', (size_t)(e - s));
	if (histo_list_add(l, s, (size_t)(e - s), n, bytes))
		return fail(ps, "out of memory");
	return 0;
}

/* "# cut: the dump could not be read past byte N: ..." (io/histo.c) */
static void note(struct histo_list *l, const char *s, const char *e)
{
	static const char cut[] = "# cut: the dump could not be read past byte ";
	size_t n = sizeof cut - 1;

	if ((size_t)(e - s) <= n || memcmp(s, cut, n))
		return;
	s += n;
	if (!number(&s, e, &l->cut_at))
		l->cut = 1;
}

static int text(struct parse *ps, struct histo_list *l)
{
	const char *s, *e;
	uint64_t rank = 0, tn, tb, sn = 0, sb = 0;
	int heaps, total = 0;
	size_t i;

	if (!next_line(ps, &s, &e) || (heaps = header(ps, s, e)) < 0)
		return fail(ps, "line 1: not a histogram's header");
	if (!next_line(ps, &s, &e) || s == e ||
	    (size_t)(e - s) != strspn(s, "-"))
		return fail(ps, "line 2: not the line of '-' under the header");
	while (!total && next_line(ps, &s, &e)) {
		const char *t = blanks(s, e);
		if ((size_t)(e - t) >= 5 && !memcmp(t, "Total", 5)) {
			t += 5;
			if (counts(ps, &t, e, heaps, &tn, &tb))
				return -1;
			total = 1;
		} else if (row(ps, l, s, e, heaps, ++rank)) {
			return -1;
		}
	}
	if (!total)
		return fail(ps, "line %u: the text ends before its Total row "
		            "(cut short?)", ps->line);
	while (next_line(ps, &s, &e)) {
		if (s < e && *s != '#')
			return fail(ps, "line %u: text after the Total row "
			            "that is no '#' note", ps->line);
		note(l, s, e);
	}
	for (i = 0; i < l->count; i++)
		sn += l->c[i].n, sb += l->c[i].bytes;
	if (sn != tn || sb != tb)
		return fail(ps, "the Total (%" PRIu64 " instances, %" PRIu64
		            " bytes) is not the sum of the rows (%" PRIu64 ", %"
		            PRIu64 "): an edited or damaged file", tn, tb, sn, sb);
	return 0;
}

/* ---- JSON ---------------------------------------------------------------- */

#define JSON_DEPTH 32

static void ws(struct parse *ps)
{
	while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' ||
	                           *ps->p == '\n' || *ps->p == '\r'))
		ps->line += *ps->p++ == '\n';
}

static int json_fail(struct parse *ps, const char *what)
{
	return fail(ps, "line %u: JSON: %s", ps->line + 1, what);
}

static int expect(struct parse *ps, char c)
{
	ws(ps);
	if (ps->p == ps->end || *ps->p != c) {
		char what[32];
		snprintf(what, sizeof what, "'%c' expected", c);
		return json_fail(ps, what);
	}
	ps->p++;
	return 0;
}

/* \uXXXX's four digits at p: the code unit, or -1 */
static long hex4(const char *p, const char *end)
{
	long v = 0;
	int i;

	for (i = 0; i < 4; i++) {
		char c = p + i < end ? p[i] : 0;
		int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f'
		        ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
		if (d < 0)
			return -1;
		v = v << 4 | d;
	}
	return v;
}

/* A code point as UTF-8 into out; below 0x100, \u00XX is the byte XX
 * (io/histo.c writes a byte that is no UTF-8 so). */
static size_t put_code(char *out, long cp)
{
	if (cp < 0x100)
		return out[0] = (char)cp, 1;
	if (cp < 0x800)
		return out[0] = (char)(0xC0 | cp >> 6),
		       out[1] = (char)(0x80 | (cp & 0x3F)), 2;
	if (cp < 0x10000)
		return out[0] = (char)(0xE0 | cp >> 12),
		       out[1] = (char)(0x80 | (cp >> 6 & 0x3F)),
		       out[2] = (char)(0x80 | (cp & 0x3F)), 3;
	return out[0] = (char)(0xF0 | cp >> 18),
	       out[1] = (char)(0x80 | (cp >> 12 & 0x3F)),
	       out[2] = (char)(0x80 | (cp >> 6 & 0x3F)),
	       out[3] = (char)(0x80 | (cp & 0x3F)), 4;
}

/* One escape after its backslash (at ps->p) into out: its length, or 0. */
static size_t escape(struct parse *ps, char *out)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *k = ps->p < ps->end ? strchr(from, *ps->p) : NULL;
	long cp, lo;

	if (k && *k) {
		ps->p++;
		return out[0] = to[k - from], 1;
	}
	if (ps->p == ps->end || *ps->p != 'u' ||
	    (cp = hex4(ps->p + 1, ps->end)) < 0)
		return 0;
	ps->p += 5;
	if (cp >= 0xD800 && cp < 0xDC00) {  /* a surrogate pair */
		if (ps->end - ps->p < 6 || ps->p[0] != '\\' || ps->p[1] != 'u' ||
		    (lo = hex4(ps->p + 2, ps->end)) < 0xDC00 || lo > 0xDFFF)
			return 0;
		ps->p += 6;
		cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
	}
	return put_code(out, cp);
}

/* A string into buf (size bytes, NUL-ended; NULL: skipped); its length. */
static int string(struct parse *ps, char *buf, size_t size, size_t *len)
{
	char u[4];
	size_t n = 0, k;

	if (expect(ps, '"'))
		return -1;
	while (ps->p < ps->end && *ps->p != '"') {
		if ((unsigned char)*ps->p < 0x20)
			return json_fail(ps, "a control character in a string");
		if (*ps->p == '\\') {
			ps->p++;
			if (!(k = escape(ps, u)))
				return json_fail(ps, "a bad escape in a string");
		} else {
			u[0] = *ps->p++;
			k = 1;
		}
		if (buf && n + k >= size)
			return json_fail(ps, "a string too long for a class name");
		if (buf)
			memcpy(buf + n, u, k);
		n += k;
	}
	if (ps->p == ps->end)
		return json_fail(ps, "a string without its end");
	ps->p++;
	if (buf)
		buf[n] = 0;
	if (len)
		*len = n;
	return 0;
}

static int skip(struct parse *ps, int depth);

/* The members of an object after its '{', each given to member (NULL:
 * skipped) with its key, or the elements of an array after its '['. */
static int members(struct parse *ps, int depth, char close,
                   int (*member)(struct parse *ps, const char *key,
                                 void *user), void *user)
{
	char key[64];

	ws(ps);
	if (ps->p < ps->end && *ps->p == close)
		return ps->p++, 0;
	for (;;) {
		if (close == '}') {
			if (string(ps, key, sizeof key, NULL) || expect(ps, ':'))
				return -1;
			if (member ? member(ps, key, user) : skip(ps, depth + 1))
				return -1;
		} else if (member ? member(ps, NULL, user)
		                  : skip(ps, depth + 1)) {
			return -1;
		}
		ws(ps);
		if (ps->p < ps->end && *ps->p == close)
			return ps->p++, 0;
		if (expect(ps, ','))
			return -1;
	}
}

/* Any value, passed over. */
static int skip(struct parse *ps, int depth)
{
	static const char *const words[] = { "true", "false", "null" };
	size_t i;

	ws(ps);
	if (depth > JSON_DEPTH)
		return json_fail(ps, "nested too deep");
	if (ps->p == ps->end)
		return json_fail(ps, "a value expected");
	if (*ps->p == '"')
		return string(ps, NULL, 0, NULL);
	if (*ps->p == '{' || *ps->p == '[')
		return members(ps, depth, *ps->p++ == '{' ? '}' : ']', NULL, NULL);
	for (i = 0; i < 3; i++)
		if ((size_t)(ps->end - ps->p) >= strlen(words[i]) &&
		    !memcmp(ps->p, words[i], strlen(words[i])))
			return ps->p += strlen(words[i]), 0;
	if (*ps->p == '-')
		ps->p++;
	if (ps->p == ps->end || *ps->p < '0' || *ps->p > '9')
		return json_fail(ps, "a value expected");
	while (ps->p < ps->end && strchr("0123456789.eE+-", *ps->p))
		ps->p++;
	return 0;
}

static int json_number(struct parse *ps, uint64_t *v)
{
	ws(ps);
	if (number(&ps->p, ps->end, v))
		return json_fail(ps, "a count expected (a whole number)");
	return 0;
}

/* A class of "classes", or "total": its name, instances and bytes. */
struct jclass {
	char name[IO_HISTO_NAME_BUF];
	size_t len;
	uint64_t n, bytes;
	unsigned have;         /* 1 name, 2 instances, 4 bytes */
};

static int class_member(struct parse *ps, const char *key, void *user)
{
	struct jclass *c = user;

	if (!strcmp(key, "name"))
		return c->have |= 1, string(ps, c->name, sizeof c->name,
		                             &c->len);
	if (!strcmp(key, "instances"))
		return c->have |= 2, json_number(ps, &c->n);
	if (!strcmp(key, "bytes"))
		return c->have |= 4, json_number(ps, &c->bytes);
	return skip(ps, 2);
}

static int class_element(struct parse *ps, const char *key, void *user)
{
	struct histo_list *l = user;
	struct jclass c;

	(void)key;
	memset(&c, 0, sizeof c);
	if (expect(ps, '{') || members(ps, 2, '}', class_member, &c))
		return -1;
	if (c.have != 7)
		return json_fail(ps, "a class without its name, instances or "
		                 "bytes");
	if (histo_list_add(l, c.name, c.len, c.n, c.bytes))
		return fail(ps, "out of memory");
	return 0;
}

/* The top object's members, and what was seen of them. */
struct jtop {
	struct histo_list *l;
	struct jclass total;
	unsigned have;         /* 1 "histogram", 2 "classes", 4 "total" */
};

static int top_member(struct parse *ps, const char *key, void *user)
{
	struct jtop *t = user;
	char word[16];

	if (!strcmp(key, "histogram")) {
		t->have |= 1;
		if (string(ps, word, sizeof word, NULL) ||
		    strcmp(word, "hprofstrip"))
			return json_fail(ps, "\"histogram\" is not "
			                 "\"hprofstrip\"");
		return 0;
	}
	if (!strcmp(key, "classes"))
		return t->have |= 2, expect(ps, '[') ||
		       members(ps, 1, ']', class_element, t->l);
	if (!strcmp(key, "total"))
		return t->have |= 4, expect(ps, '{') ||
		       members(ps, 1, '}', class_member, &t->total);
	if (!strcmp(key, "cut_at"))
		return json_number(ps, &t->l->cut_at);
	if (!strcmp(key, "cut")) {
		ws(ps);
		t->l->cut = ps->end - ps->p >= 4 && !memcmp(ps->p, "true", 4);
	}
	return skip(ps, 1);
}

static int json(struct parse *ps, struct histo_list *l)
{
	struct jtop t;
	uint64_t sn = 0, sb = 0;
	size_t i;

	memset(&t, 0, sizeof t);
	t.l = l;
	if (expect(ps, '{') || members(ps, 0, '}', top_member, &t))
		return -1;
	ws(ps);
	if (ps->p != ps->end)
		return json_fail(ps, "text after the object");
	if (t.have != 7 || (t.total.have & 6) != 6)
		return fail(ps, "JSON: not hprofstrip --histo --json's object "
		            "(\"histogram\", \"classes\", \"total\")");
	if (!l->cut)
		l->cut_at = 0;
	for (i = 0; i < l->count; i++)
		sn += l->c[i].n, sb += l->c[i].bytes;
	if (sn != t.total.n || sb != t.total.bytes)
		return fail(ps, "JSON: the total is not the sum of the "
		            "classes: an edited or damaged file");
	return 0;
}

int histo_list_parse(struct histo_list *l, const char *text_, size_t len,
                     char *why, size_t size)
{
	struct parse ps;
	const char *first;
	int rc;

	memset(l, 0, sizeof *l);
	memset(&ps, 0, sizeof ps);
	ps.p = text_;
	ps.end = text_ + len;
	ps.why = why;
	ps.size = size;
	first = blanks(ps.p, ps.end);
	rc = first < ps.end && *first == '{' ? json(&ps, l) : text(&ps, l);
	if (rc) {
		histo_list_free(l);
		return -1;
	}
	l->jmap = ps.jmap;
	histo_list_end(l);
	return 0;
}
