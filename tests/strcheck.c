/*
 * strcheck: how many Java String values a stripped dump kept, checked
 * against the original dump with a parser of its own.
 *
 *   strcheck [--json] [--min PCT] [--layout] ORIGINAL STRIPPED
 *
 * ORIGINAL is the unstripped dump, STRIPPED what a strip of it gave
 * (plain, --keep-strings or streaming). From ORIGINAL:
 *   - V: the ids that the `value` field of a java.lang.String instance
 *     points at and that are primitive arrays (a char[] or, JDK 9+, a
 *     byte[]; Android ART's fake `value` field points at the characters it
 *     writes as the next sub-record);
 *   - T: the ids that the `name` field (declared in java.lang.Thread) of a
 *     Thread instance, subclasses included, points at and that are
 *     primitive arrays: the char[] names of JDK <= 8 (elsewhere the name
 *     is a String and T is empty).
 * In STRIPPED, every PRIMITIVE_ARRAY_DUMP (0x23, elements kept) must be
 * in V or T with the elements of ORIGINAL, and every array of ORIGINAL
 * must be there, as 0x23 or as PRIMITIVE_ARRAY_NODATA (0xC3), with its
 * length and type; anything else is a violation (the first few are named
 * on stderr). An id in V or T counts as kept when STRIPPED holds it as
 * 0x23 with identical elements. Arrays are matched by id; should an id
 * occur more than once, its k-th occurrences are matched in file order.
 *
 * Output, one line (or one JSON object with --json) on stdout:
 *   strcheck: STRIPPED: strings N, values V (B bytes), kept K (P%),
 *     thread-name arrays T kept TK, other arrays kept X, violations Y
 * N counts String instances, V and T distinct array ids, B the element
 * bytes of V's arrays, P = 100 K / V (100 when V is empty), X the 0x23
 * arrays of STRIPPED outside V and T (each a violation).
 * --layout adds a line about ORIGINAL (JSON: a "layout" object): where
 * the String class dump lies among the String instances, how many value
 * arrays immediately follow or precede their String, and the distance in
 * bytes from a String's sub-record to its value array's (median, p90,
 * max).
 *
 * Exit status: 0 fine; 1 a violation, or P < PCT with --min; 2 usage, or
 * input that does not parse (one line on stderr naming the offset).
 *
 * Formats: "JAVA PROFILE 1.0.1", "1.0.2" and "1.0.3" (Android), ids of 4
 * or 8 bytes, HEAP_DUMP (0x0C) and HEAP_DUMP_SEGMENT (0x1C) records, the
 * standard sub-records and Android's 0x89-0x8E, 0x90, 0xFE and 0xC3.
 * Class dumps may come after their instances (ART), so ORIGINAL is walked
 * twice: classes, names and arrays first, then the instances.
 *
 * Independent of the product on purpose (nothing from strip/): it walks
 * with the test side's walker (walk.h). C11, libc only.
 */
#include "walk.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAGIC_LEN 17
#define SHOW_VIOLATIONS 10 /* violations named on stderr */

/* ------------------------------------------------------------------ */
/* input: struct walk_dump (tests/walk.h), exit 2 when it does not parse */

static _Noreturn void oom(void)
{
	walk_oom("strcheck");
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		oom();
	return p;
}

static uint64_t rd_id(const struct walk_dump *d, uint64_t off)
{
	return walk_id(&d->w, off);
}

/* ------------------------------------------------------------------ */
/* walking the records                                                */

/* What a walk calls: rec for a top-level record other than a heap record
   (body offset and length), sub for each heap sub-record. */
struct visit {
	void (*rec)(const struct walk_dump *d, unsigned tag, uint64_t body,
	            uint64_t len);
	void (*sub)(const struct walk_dump *d, const struct walk_sub *s);
};

static void walk(struct walk_dump *d, const struct visit *v)
{
	struct walk *w = &d->w;
	struct walk_rec r;
	struct walk_sub s;
	int rc, rs;

	for (uint64_t p = w->first; (rc = walk_record(w, p, &r)) > 0;
	     p = r.end) {
		if (!walk_heap_tag(r.tag)) {
			if (v->rec)
				v->rec(d, r.tag, r.body, r.len);
			continue;
		}
		for (uint64_t q = r.body; (rs = walk_sub(w, q, r.end, &s)) > 0;
		     q = s.end) {
			/* the types the walk skipped: instance fields, and
			   a 0xC3's element type */
			if (s.tag == 0x20 && walk_fields(w, &s))
				walk_dump_problem(d);
			if (s.tag == 0xC3 && !s.esize) /* its last byte */
				walk_dump_bad(d, s.end - 1, "invalid element type");
			if (v->sub)
				v->sub(d, &s);
		}
		if (rs < 0)
			walk_dump_problem(d);
	}
	if (rc < 0)
		walk_dump_problem(d);
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

/* STRING (0x01) records: id -> text; LOAD_CLASS (0x02): class -> name. */
struct name {
	uint64_t id, off, len; /* text at off, len bytes; LOAD_CLASS: off is
	                          the name's string id */
};

struct cls {
	uint64_t id, off;      /* class object id, class dump offset */
	uint64_t super;
	uint64_t fields;       /* offset of the instance field table */
	unsigned role;         /* R_* */
	uint64_t value_at;     /* R_STRING: offset of `value` in an instance */
	uint64_t name_at;      /* R_THREAD: offset of Thread's `name` */
};
enum { R_STRING = 1, R_THREAD = 2 };

/* A primitive array (0x23 or 0xC3). */
struct arr {
	uint64_t id, off;      /* id, offset of the sub-record */
	uint64_t len;          /* its length, tag included */
	uint32_t count;
	unsigned char type, tag;
};

/* A String or Thread instance, and the id its field holds. */
struct ref {
	uint64_t off, end;     /* the instance's sub-record */
	uint64_t target;
};

static struct walk_dump orig, strip;
static struct walk_vec strings = WALK_VEC(struct name), loads = WALK_VEC(struct name);
static struct walk_vec classes = WALK_VEC(struct cls);
static struct walk_vec oarrs = WALK_VEC(struct arr), sarrs = WALK_VEC(struct arr);
static struct walk_vec srefs = WALK_VEC(struct ref), trefs = WALK_VEC(struct ref);

/* ------------------------------------------------------------------ */
/* ORIGINAL, first walk: names, classes and arrays                    */

static void index_rec(const struct walk_dump *d, unsigned tag, uint64_t body,
                      uint64_t len)
{
	uint64_t id = d->w.idsize;
	struct name *n;

	if (tag == 0x01) { /* STRING: id, UTF-8 text */
		if (len < id)
			walk_dump_bad(d, body - 9, "STRING record shorter than an id");
		n = push(&strings);
		n->id = rd_id(d, body);
		n->off = body + id;
		n->len = len - id;
	} else if (tag == 0x02) { /* LOAD_CLASS: u4 serial, id class,
	                             u4 stack serial, id name */
		if (len < 2 * id + 8)
			walk_dump_bad(d, body - 9, "LOAD_CLASS record too short");
		n = push(&loads);
		n->id = rd_id(d, body + 4);
		n->off = rd_id(d, body + 4 + id + 4);
		n->len = 0;
	}
}

/* A primitive array sub-record (0x23 or 0xC3) into v. */
static void add_array(struct walk_vec *v, const struct walk_sub *s)
{
	struct arr *a = push(v);
	a->id = s->id;
	a->off = s->off;
	a->len = s->end - s->off;
	a->count = s->count;
	a->type = (unsigned char)s->type;
	a->tag = (unsigned char)s->tag;
}

static void index_sub(const struct walk_dump *d, const struct walk_sub *s)
{
	struct cls *c;

	(void)d;
	switch (s->tag) {
	case 0x20:
		c = push(&classes);
		memset(c, 0, sizeof *c);
		c->id = s->id;
		c->off = s->off;
		c->super = s->cls;
		c->fields = s->data;
		break;
	case 0x23:
	case 0xC3:
		add_array(&oarrs, s);
		break;
	}
}

/* ------------------------------------------------------------------ */
/* class layout                                                       */

/* Does the text of string id sid equal s? With dots, when s is a class
   name spelt with slashes, it does too. */
static int text_is(uint64_t sid, const char *s)
{
	const struct name *n = walk_vec_find(&strings, sid);
	size_t len = strlen(s);

	if (!n || n->len != len)
		return 0;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = orig.w.b[n->off + i];
		if (c != (unsigned char)s[i] && !(s[i] == '/' && c == '.'))
			return 0;
	}
	return 1;
}

static int class_is(uint64_t cid, const char *name)
{
	const struct name *l = walk_vec_find(&loads, cid);
	return l && text_is(l->off, name);
}

/* Offset in an instance of c's bytes of the object field fname declared
   in class owner (c itself or a superclass): 1 and *at, or 0 when owner
   declares no such field. The instance holds c's own fields, then its
   superclass's, and so on up the chain. */
static int field_at(const struct cls *c, uint64_t owner, const char *fname,
                    uint64_t *at)
{
	uint64_t id = orig.w.idsize, acc = 0;

	for (size_t depth = 0; depth <= classes.n; depth++) {
		uint64_t p = c->fields, n = walk_u(&orig.w, p, 2);
		p += 2;
		for (uint64_t i = 0; i < n; i++, p += id + 1) {
			unsigned t = orig.w.b[p + id];
			if (c->id == owner && t == 2 &&
			    text_is(rd_id(&orig, p), fname)) {
				*at = acc;
				return 1;
			}
			acc += walk_type_size(&orig.w, t);
		}
		if (c->id == owner)
			return 0;
		const struct cls *s = walk_vec_find(&classes, c->super);
		if (!s)
			walk_dump_bad(&orig, c->off, "a superclass has no class dump: "
			    "the instance layout is unknown");
		c = s;
	}
	walk_dump_bad(&orig, c->off, "the superclass chain loops");
	return 0;
}

/* The class named name in c's superclass chain (c included), or NULL. */
static const struct cls *ancestor(const struct cls *c, const char *name)
{
	for (size_t depth = 0; c && depth <= classes.n; depth++) {
		if (class_is(c->id, name))
			return c;
		c = c->super ? walk_vec_find(&classes, c->super) : NULL;
	}
	return NULL;
}

static void resolve_roles(void)
{
	struct cls *cs = classes.p;
	const struct cls *t;

	for (size_t i = 0; i < classes.n; i++) {
		struct cls *c = &cs[i];
		if (class_is(c->id, "java/lang/String")) {
			if (field_at(c, c->id, "value", &c->value_at))
				c->role |= R_STRING;
			else
				fprintf(stderr, "strcheck: %s: class dump at "
				        "offset %llu: java.lang.String has no "
				        "object field `value`\n", orig.name,
				        (unsigned long long)c->off);
		}
		if ((t = ancestor(c, "java/lang/Thread")) &&
		    field_at(c, t->id, "name", &c->name_at))
			c->role |= R_THREAD;
	}
}

/* ------------------------------------------------------------------ */
/* ORIGINAL, second walk: String and Thread instances                 */

/* Instance s of a String or Thread class: into refs, the id its field at
   offset `at` of its field values holds (what: its kind, if too short). */
static void add_ref(const struct walk_dump *d, struct walk_vec *refs,
                    const struct walk_sub *s, uint64_t at, const char *what)
{
	struct ref *r;

	if (at + d->w.idsize > s->count)
		walk_dump_bad(d, s->off, "%s", what);
	r = push(refs);
	r->off = s->off;
	r->end = s->end;
	r->target = rd_id(d, s->data + at);
}

static void instance_sub(const struct walk_dump *d, const struct walk_sub *s)
{
	const struct cls *c;

	if (s->tag != 0x21)
		return;
	c = walk_vec_find(&classes, s->cls);
	if (!c || !c->role)
		return;
	if (c->role & R_STRING)
		add_ref(d, &srefs, s, c->value_at,
		        "String instance shorter than its fields");
	if (c->role & R_THREAD)
		add_ref(d, &trefs, s, c->name_at,
		        "Thread instance shorter than its fields");
}

/* The distinct targets of refs that are primitive arrays in ORIGINAL,
   sorted; *nul and *other count refs holding null or something else. */
static void targets(const struct walk_vec *refs, struct walk_vec *ids, size_t *nul,
                    size_t *other)
{
	const struct ref *r = refs->p;

	*nul = *other = 0;
	for (size_t i = 0; i < refs->n; i++) {
		if (!r[i].target)
			++*nul;
		else if (!walk_vec_find(&oarrs, r[i].target))
			++*other;
		else
			*(uint64_t *)push(ids) = r[i].target;
	}
	walk_vec_sort(ids, walk_by_key);
	size_t k = 0;
	uint64_t *v = ids->p;
	for (size_t i = 0; i < ids->n; i++)
		if (!k || v[k - 1] != v[i])
			v[k++] = v[i];
	ids->n = k;
}

/* ------------------------------------------------------------------ */
/* comparing STRIPPED with ORIGINAL                                   */

static void strip_sub(const struct walk_dump *d, const struct walk_sub *s)
{
	(void)d;
	if (s->tag == 0x23 || s->tag == 0xC3)
		add_array(&sarrs, s);
}

static uint64_t violations;

/* A violation about array a of dump d: counted, the first few named. */
static void violation(const struct walk_dump *d, const struct arr *a,
                      const char *what)
{
	if (++violations <= SHOW_VIOLATIONS)
		fprintf(stderr, "strcheck: %s: violation: array 0x%llx at "
		        "offset %llu: %s\n", d->name, (unsigned long long)a->id,
		        (unsigned long long)a->off, what);
}

/* What strcheck measures. */
struct result {
	size_t strings, threads;   /* String and Thread instances */
	size_t values_null;        /* Strings whose value is null */
	size_t values_other;       /* ... or not a primitive array */
	struct walk_vec V, T;           /* value and thread-name array ids */
	uint64_t value_bytes;      /* element bytes of V's arrays */
	uint64_t kept;             /* 0x23 arrays in STRIPPED */
	uint64_t kept_v, kept_t;   /* ids of V and T kept intact */
	uint64_t other;            /* 0x23 arrays outside V and T */
};

/* Index of id in the sorted id list v, or -1. */
static long long index_of(const struct walk_vec *v, uint64_t id)
{
	const uint64_t *p = walk_vec_find(v, id);
	return p ? p - (const uint64_t *)v->p : -1;
}

/* Match the arrays of both files by id (k-th occurrence with k-th) and
   count what was kept. */
static void compare(struct result *r)
{
	const struct arr *o = oarrs.p, *s = sarrs.p;
	unsigned char *vk, *tk; /* which ids of V and T were kept */
	size_t i = 0, j = 0;

	vk = memset(xrealloc(NULL, r->V.n), 0, r->V.n);
	tk = memset(xrealloc(NULL, r->T.n), 0, r->T.n);
	while (i < oarrs.n || j < sarrs.n) {
		if (j == sarrs.n || (i < oarrs.n && o[i].id < s[j].id)) {
			violation(&orig, &o[i++], "missing from the "
			          "stripped dump");
			continue;
		}
		const struct arr *b = &s[j++], *a = NULL;
		if (i < oarrs.n && o[i].id == b->id)
			a = &o[i++];
		long long vi = index_of(&r->V, b->id);
		long long ti = index_of(&r->T, b->id);
		if (b->tag == 0x23) {
			r->kept++;
			if (vi < 0 && ti < 0) {
				r->other++;
				violation(&strip, b,
				          a ? "kept, but not a String value"
				            : "kept, but not in the original");
				continue;
			}
		}
		if (!a) {
			violation(&strip, b, "not in the original");
			continue;
		}
		if (a->count != b->count || a->type != b->type) {
			violation(&strip, b, "length or type differs from the "
			          "original");
			continue;
		}
		if (b->tag != 0x23)
			continue;
		/* the whole sub-record after the tag: header and elements */
		if (a->tag != 0x23 || a->len != b->len ||
		    memcmp(orig.w.b + a->off + 1, strip.w.b + b->off + 1,
		           (size_t)a->len - 1) != 0) {
			violation(&strip, b, "kept, but its elements differ");
			continue;
		}
		if (vi >= 0 && !vk[vi]) {
			vk[vi] = 1;
			r->kept_v++;
		}
		if (ti >= 0 && !tk[ti]) {
			tk[ti] = 1;
			r->kept_t++;
		}
	}
	free(vk);
	free(tk);
}

/* ------------------------------------------------------------------ */
/* layout of String values in ORIGINAL (--layout)                     */

struct layout {
	uint64_t class_off;     /* the (first) String class dump; 0: none */
	uint64_t before_class;  /* String instances before that class dump */
	uint64_t resolved;      /* Strings whose value is an array */
	uint64_t follows;       /* ... whose array is the next sub-record */
	uint64_t precedes;      /* ... whose array is the previous one */
	uint64_t median, p90, max; /* |array offset - String offset| */
};

static struct layout layout(void)
{
	const struct ref *r = srefs.p;
	const struct cls *cs = classes.p;
	struct layout l;
	uint64_t *dist = xrealloc(NULL, srefs.n * sizeof *dist);

	memset(&l, 0, sizeof l);
	for (size_t i = 0; i < classes.n; i++)
		if ((cs[i].role & R_STRING) &&
		    (!l.class_off || cs[i].off < l.class_off))
			l.class_off = cs[i].off;
	for (size_t i = 0; i < srefs.n; i++) {
		const struct arr *a = walk_vec_find(&oarrs, r[i].target);
		if (r[i].off < l.class_off)
			l.before_class++;
		if (!r[i].target || !a)
			continue;
		l.follows += a->off == r[i].end;
		l.precedes += a->off + a->len == r[i].off;
		dist[l.resolved++] = a->off > r[i].off ? a->off - r[i].off
		                                       : r[i].off - a->off;
	}
	walk_vec_sort(&(struct walk_vec){ dist, l.resolved, l.resolved, sizeof *dist },
	     walk_by_key);
	if (l.resolved) {
		l.median = dist[(l.resolved - 1) / 2];
		l.p90 = dist[(l.resolved * 9 + 9) / 10 - 1];
		l.max = dist[l.resolved - 1];
	}
	free(dist);
	return l;
}

/* ------------------------------------------------------------------ */
/* output                                                             */

static void json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

/* The kept share of V in hundredths of a percent, rounded down: 100%
   means every value was kept. 100% when V is empty. */
static unsigned long long hundredths(const struct result *r)
{
	return r->V.n ? (unsigned long long)(r->kept_v * 10000 / r->V.n)
	              : 10000;
}

static void print_json(const struct result *r, const struct layout *l)
{
	unsigned long long h = hundredths(r);

	printf("{\"file\":");
	json_str(strip.name);
	printf(",\"original\":");
	json_str(orig.name);
	printf(",\"strings\":%zu,\"values\":%zu,\"value_bytes\":%llu,"
	       "\"kept\":%llu,\"kept_pct\":%llu.%02llu,",
	       r->strings, r->V.n, (unsigned long long)r->value_bytes,
	       (unsigned long long)r->kept_v, h / 100, h % 100);
	printf("\"values_null\":%zu,\"values_not_array\":%zu,"
	       "\"threads\":%zu,\"thread_name_arrays\":%zu,"
	       "\"thread_name_kept\":%llu,",
	       r->values_null, r->values_other, r->threads, r->T.n,
	       (unsigned long long)r->kept_t);
	printf("\"arrays\":%zu,\"arrays_kept\":%llu,\"other_kept\":%llu,"
	       "\"violations\":%llu",
	       oarrs.n, (unsigned long long)r->kept,
	       (unsigned long long)r->other, (unsigned long long)violations);
	if (l)
		printf(",\"layout\":{\"string_class_dump\":%llu,"
		       "\"strings_before_class_dump\":%llu,"
		       "\"values_resolved\":%llu,\"values_follow\":%llu,"
		       "\"values_precede\":%llu,\"distance_median\":%llu,"
		       "\"distance_p90\":%llu,\"distance_max\":%llu}",
		       (unsigned long long)l->class_off,
		       (unsigned long long)l->before_class,
		       (unsigned long long)l->resolved,
		       (unsigned long long)l->follows,
		       (unsigned long long)l->precedes,
		       (unsigned long long)l->median,
		       (unsigned long long)l->p90, (unsigned long long)l->max);
	printf("}\n");
}

static void print_text(const struct result *r, const struct layout *l)
{
	unsigned long long h = hundredths(r);

	printf("strcheck: %s: strings %zu, values %zu (%llu bytes), "
	       "kept %llu (%llu.%llu%%), thread-name arrays %zu kept %llu, "
	       "other arrays kept %llu, violations %llu\n",
	       strip.name, r->strings, r->V.n,
	       (unsigned long long)r->value_bytes,
	       (unsigned long long)r->kept_v, h / 100, h / 10 % 10, r->T.n,
	       (unsigned long long)r->kept_t, (unsigned long long)r->other,
	       (unsigned long long)violations);
	if (l)
		printf("strcheck: %s: layout: String class dump at offset "
		       "%llu, after %llu of %zu Strings; of %llu values, %llu "
		       "follow their String, %llu precede it; distance median "
		       "%llu, p90 %llu, max %llu bytes\n",
		       orig.name, (unsigned long long)l->class_off,
		       (unsigned long long)l->before_class, r->strings,
		       (unsigned long long)l->resolved,
		       (unsigned long long)l->follows,
		       (unsigned long long)l->precedes,
		       (unsigned long long)l->median,
		       (unsigned long long)l->p90, (unsigned long long)l->max);
}

/* ------------------------------------------------------------------ */
/* main                                                               */

static void usage(void)
{
	fprintf(stderr, "usage: strcheck [--json] [--min PCT] [--layout] "
	        "ORIGINAL STRIPPED\n");
	exit(2);
}

int main(int argc, char **argv)
{
	int json = 0, want_layout = 0, nfiles = 0;
	double min = -1;
	const char *files[2] = { NULL, NULL };
	struct result r = { .V = WALK_VEC(uint64_t), .T = WALK_VEC(uint64_t) };
	size_t t_null, t_other;
	struct layout l;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *pct = NULL;
		char *endp;
		if (!strcmp(a, "--json"))
			json = 1;
		else if (!strcmp(a, "--layout"))
			want_layout = 1;
		else if (!strcmp(a, "--min") && i + 1 < argc)
			pct = argv[++i];
		else if (!strncmp(a, "--min=", 6))
			pct = a + 6;
		else if (!walk_operand(files, &nfiles, a))
			usage();
		if (pct) {
			min = strtod(pct, &endp);
			if (!*pct || *endp || !(min >= 0 && min <= 100))
				usage();
		}
	}
	if (nfiles != 2)
		usage();

	walk_dump_load(&orig, "strcheck", files[0], 2);
	walk_dump_load(&strip, "strcheck", files[1], 2);
	walk_dump_header(&orig, WALK_SKIP_FIELDS);
	walk_dump_header(&strip, WALK_SKIP_FIELDS);
	if (strip.w.idsize != orig.w.idsize)
		walk_dump_bad(&strip, MAGIC_LEN + 2, "identifier size differs from the "
		    "original's");

	/* ORIGINAL: everything indexed first, then the instances, since a
	   class dump may come after its instances */
	walk(&orig, &(struct visit){ index_rec, index_sub });
	walk_vec_sort(&strings, walk_by_key);
	walk_vec_sort(&loads, walk_by_key);
	walk_vec_sort(&classes, walk_by_key);
	walk_vec_sort(&oarrs, walk_by_key_off);
	resolve_roles();
	walk(&orig, &(struct visit){ NULL, instance_sub });
	r.strings = srefs.n;
	r.threads = trefs.n;
	targets(&srefs, &r.V, &r.values_null, &r.values_other);
	targets(&trefs, &r.T, &t_null, &t_other);
	for (size_t i = 0; i < r.V.n; i++) {
		const struct arr *a = walk_vec_find(&oarrs, ((uint64_t *)r.V.p)[i]);
		r.value_bytes += (uint64_t)a->count *
		                 walk_type_size(&orig.w, a->type);
	}

	walk(&strip, &(struct visit){ NULL, strip_sub });
	walk_vec_sort(&sarrs, walk_by_key_off);
	compare(&r);
	if (violations > SHOW_VIOLATIONS)
		fprintf(stderr, "strcheck: %s: %llu violations in all\n",
		        strip.name, (unsigned long long)violations);

	if (want_layout)
		l = layout();
	if (json)
		print_json(&r, want_layout ? &l : NULL);
	else
		print_text(&r, want_layout ? &l : NULL);
	if (fflush(stdout) != 0)
		walk_die_sys("strcheck", "stdout");
	int below = min >= 0 && 100.0 * (double)r.kept_v < min * (double)r.V.n;
	free(r.V.p);
	free(r.T.p);
	return violations || below ? 1 : 0;
}
