/*
 * The class histogram's rows and their text (histo.h): sorted in the
 * caller's rows, names turned into jmap's form, written through the
 * caller's out(). No allocation; the sort is a heapsort in place.
 */
#include "histo.h"
#include "../engine/hprof.h"
#include "lineout.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* the heaps' names, HS_HEAP_* order (hprof.h) */
static const char *const heap_name[HS_HISTO_HEAPS] = {
	"default", "app", "zygote", "image", "jit", "other"
};

/* primitive array types 4..11 (HPROF's basic types) in jmap's form */
static const char prim_letter[12] = {
	0, 0, 0, 0, 'Z', 'C', 'F', 'D', 'B', 'S', 'I', 'J'
};

/* ---- counts ------------------------------------------------------------ */

static uint64_t class_bytes(const struct hs_histo_class *c,
                            const struct hs_histo_count *k, unsigned idsize)
{
	if (c && (c->flags & (HS_HISTO_ARRAY | HS_HISTO_SIZED)) == HS_HISTO_SIZED)
		return k->n * ((uint64_t)c->size + idsize);
	return k->bytes + k->n * idsize;
}

void io_histo_heap(const struct hs_histo *h, const struct io_histo_meta *m,
                   const struct io_histo_row *r, unsigned heap,
                   uint64_t *n, uint64_t *bytes)
{
	const struct hs_histo_class *c = NULL;
	const struct hs_histo_count *k;

	if (r->what == IO_HISTO_OTHER) {
		k = &h->other[heap];
	} else if (r->what & IO_HISTO_PRIM) {
		k = &h->prim[r->what & 15][heap];
	} else {
		c = &h->classes[r->what];
		k = &c->heap[heap];
	}
	*n = k->n;
	*bytes = class_bytes(c, k, m->idsize);
}

size_t io_histo_room(const struct hs_histo *h)
{
	return (size_t)h->class_count + 8 + 1;
}

static void row_sum(const struct hs_histo *h, const struct io_histo_meta *m,
                    struct io_histo_row *r)
{
	uint64_t n, b;
	unsigned i;

	r->n = r->bytes = 0;
	for (i = 0; i < HS_HISTO_HEAPS; i++) {
		io_histo_heap(h, m, r, i, &n, &b);
		r->n += n;
		r->bytes += b;
	}
}

/* ---- names ------------------------------------------------------------- */

/* An ART name's element (before its "[]"s) as a descriptor: a primitive
 * type's letter, else L...; (n bytes of it at s) into out. */
static size_t art_element(const char *s, size_t n, char *out)
{
	static const char *const prim[] = {
		"boolean", "char", "float", "double", "byte", "short", "int",
		"long"
	};
	size_t i;

	for (i = 0; i < 8; i++)
		if (strlen(prim[i]) == n && !memcmp(s, prim[i], n)) {
			out[0] = prim_letter[i + 4];
			return 1;
		}
	out[0] = 'L';
	memcpy(out + 1, s, n);
	out[n + 1] = ';';
	return n + 2;
}

/* A dump's class name (n bytes at s) in jmap's form into out: '/' as
 * '.', a hidden class's "+0x" as "/0x"; ART's "foo.Bar[][]" as
 * "[[Lfoo.Bar;". */
static size_t jmap_form(const char *s, size_t n, char *out)
{
	size_t dims = 0, i, k = 0;

	while (n >= 2 && s[n - 2] == '[' && s[n - 1] == ']') {
		n -= 2;
		dims++;
	}
	for (i = 0; i < dims; i++)
		out[k++] = '[';
	if (dims)
		return k + art_element(s, n, out + k);
	for (i = 0; i < n; i++) {
		char c = s[i];
		if (c == '+' && i + 2 < n && s[i + 1] == '0' && s[i + 2] == 'x')
			c = '/';
		else if (c == '/')
			c = '.';
		out[k++] = c;
	}
	return k;
}

size_t io_histo_name(const struct hs_histo *h, const struct io_histo_row *r,
                     char *buf)
{
	const struct hs_histo_class *c;
	const unsigned char *t;
	size_t n = 0, k;
	int cut = 0;

	if (r->what == IO_HISTO_OTHER)
		return (size_t)snprintf(buf, IO_HISTO_NAME_BUF, "<other classes>");
	if (r->what & IO_HISTO_PRIM) {
		buf[0] = '[';
		buf[1] = prim_letter[r->what & 15];
		buf[2] = 0;
		return 2;
	}
	c = &h->classes[r->what];
	t = c->name ? hs_histo_name(h, c->name, &n, &cut) : NULL;
	if (!t)
		return (size_t)snprintf(buf, IO_HISTO_NAME_BUF,
		                        "<class 0x%" PRIx64 ">", c->id);
	k = jmap_form((const char *)t, n, buf);
	if (cut) {
		memcpy(buf + k, "...", 3);
		k += 3;
	}
	buf[k] = 0;
	return k;
}

/* ---- the order --------------------------------------------------------- */

/* jmap's order: bytes down, array classes first, names, then class ids
 * (or types) for classes of one name. */
static int before(const struct hs_histo *h, const struct io_histo_row *a,
                  const struct io_histo_row *b)
{
	char na[IO_HISTO_NAME_BUF], nb[IO_HISTO_NAME_BUF];
	int d;

	if (a->bytes != b->bytes)
		return a->bytes > b->bytes;
	io_histo_name(h, a, na);
	io_histo_name(h, b, nb);
	if ((na[0] == '[') != (nb[0] == '['))
		return na[0] == '[';
	d = strcmp(na, nb);
	if (d)
		return d < 0;
	if (!(a->what & IO_HISTO_PRIM) && !(b->what & IO_HISTO_PRIM))
		return h->classes[a->what].id < h->classes[b->what].id;
	return a->what < b->what;
}

static void sift(const struct hs_histo *h, struct io_histo_row *r,
                 size_t i, size_t n)
{
	struct io_histo_row t;
	size_t c;

	while ((c = 2 * i + 1) < n) {
		if (c + 1 < n && before(h, &r[c], &r[c + 1]))
			c++;
		if (!before(h, &r[i], &r[c]))
			return;
		t = r[i];
		r[i] = r[c];
		r[c] = t;
		i = c;
	}
}

/* rows sorted so that each comes before the next, in place */
static void sort_rows(const struct hs_histo *h, struct io_histo_row *r,
                      size_t n)
{
	struct io_histo_row t;
	size_t i;

	for (i = n / 2; i-- > 0;)
		sift(h, r, i, n);
	while (n > 1) {
		t = r[0];
		r[0] = r[--n];
		r[n] = t;
		sift(h, r, 0, n);
	}
}

size_t io_histo_rows(const struct hs_histo *h, const struct io_histo_meta *m,
                     struct io_histo_row *rows)
{
	size_t n = 0, i;
	unsigned t;

	for (i = 0; i < h->class_count; i++) {
		rows[n].what = IO_HISTO_CLASS + (uint32_t)i;
		row_sum(h, m, &rows[n]);
		n += rows[n].n != 0;
	}
	for (t = 4; t < 12; t++) {
		rows[n].what = IO_HISTO_PRIM + t;
		row_sum(h, m, &rows[n]);
		n += rows[n].n != 0;
	}
	rows[n].what = IO_HISTO_OTHER;
	row_sum(h, m, &rows[n]);
	n += rows[n].n != 0;
	sort_rows(h, rows, n);
	return n;
}

/* ---- the text ---------------------------------------------------------- */

/* The heaps with objects, as a mask of HS_HEAP_* bits; Android dumps
 * only (HotSpot's have the default heap alone, no column). */
static unsigned heaps_shown(const struct hs_histo *h,
                            const struct io_histo_meta *m,
                            const struct io_histo_row *rows, size_t count)
{
	unsigned mask = 0, i;
	uint64_t n, b;
	size_t r;

	if (m->version != '3')
		return 0;
	for (r = 0; r < count; r++)
		for (i = 0; i < HS_HISTO_HEAPS; i++) {
			io_histo_heap(h, m, &rows[r], i, &n, &b);
			if (n)
				mask |= 1u << i;
		}
	return mask;
}

static void notes(struct io_line *l, const struct hs_histo *h,
                  const struct io_histo_meta *m)
{
	if (m->cut)
		io_put(l, "# cut: the dump could not be read past byte %" PRIu64
		    ": these are the objects before it\n", m->cut_at);
	if (m->dumps > 1)
		io_put(l, "# %" PRIu64 " heap dumps in one file: the counts are "
		    "their sum\n", m->dumps);
	if (h->classes_past)
		io_put(l, "# <other classes>: %" PRIu64 " class ids past the table "
		    "of %u classes: their objects are counted together\n",
		    h->classes_past, h->class_max);
	if (h->names_past)
		io_put(l, "# %" PRIu64 " texts past the names table: a class "
		    "without its name is shown by its id\n", h->names_past);
	/* (last: the line a .histo's dump is found by) */
	if (m->dump) {
		time_t t = (time_t)(m->stamp / 1000);
		struct tm tm;
		char when[32] = "?";

		if (gmtime_r(&t, &tm))
			strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%S", &tm);
		io_put(l, IO_HISTO_STAMP_NOTE "%s, stamped %" PRIu64
		       " (%s.%03uZ)\n", m->dump, m->stamp, when,
		       (unsigned)(m->stamp % 1000));
	}
}

static void text(struct io_line *l, const struct hs_histo *h,
                 const struct io_histo_meta *m,
                 const struct io_histo_row *rows, size_t count)
{
	unsigned shown = heaps_shown(h, m, rows, count), i;
	uint64_t tn = 0, tb = 0, hn[HS_HISTO_HEAPS] = {0}, hb[HS_HISTO_HEAPS] = {0};
	uint64_t n, b;
	char name[IO_HISTO_NAME_BUF];
	size_t r;

	io_put(l, " num     #instances         #bytes");
	for (i = 0; i < HS_HISTO_HEAPS; i++)
		if (shown >> i & 1)
			io_put(l, "  %13s", heap_name[i]);
	io_put(l, "  class name\n");
	io_rule(l);
	for (r = 0; r < count && !l->err; r++) {
		io_put(l, "%4zu: %13" PRIu64 "  %13" PRIu64, r + 1, rows[r].n,
		    rows[r].bytes);
		tn += rows[r].n;
		tb += rows[r].bytes;
		for (i = 0; i < HS_HISTO_HEAPS; i++) {
			io_histo_heap(h, m, &rows[r], i, &n, &b);
			hn[i] += n;
			hb[i] += b;
			if (shown >> i & 1)
				io_put(l, "  %13" PRIu64, b);
		}
		io_histo_name(h, &rows[r], name);
		io_put(l, "  %s\n", name);
		io_flush(l);
	}
	io_put(l, "Total %13" PRIu64 "  %13" PRIu64, tn, tb);
	for (i = 0; i < HS_HISTO_HEAPS; i++)
		if (shown >> i & 1)
			io_put(l, "  %13" PRIu64, hb[i]);
	io_put(l, "\n");
	notes(l, h, m);
	io_flush(l);
}

/* ---- JSON -------------------------------------------------------------- */

static void json(struct io_line *l, const struct hs_histo *h,
                 const struct io_histo_meta *m,
                 const struct io_histo_row *rows, size_t count)
{
	unsigned shown = heaps_shown(h, m, rows, count), i;
	uint64_t tn = 0, tb = 0, n, b;
	char name[IO_HISTO_NAME_BUF];
	const char *sep = "";
	size_t r;

	io_put(l, "{\"histogram\": \"hprofstrip\", \"version\": \"1.0.%c\", "
	    "\"id_size\": %u, \"cut\": %s", m->version ? m->version : '0',
	    m->idsize, m->cut ? "true" : "false");
	if (m->cut)
		io_put(l, ", \"cut_at\": %" PRIu64, m->cut_at);
	if (m->dumps > 1)
		io_put(l, ", \"dumps\": %" PRIu64, m->dumps);
	io_put(l, ", \"heaps\": [");
	for (i = 0; i < HS_HISTO_HEAPS; i++)
		if (shown >> i & 1) {
			io_put(l, "%s\"%s\"", sep, heap_name[i]);
			sep = ", ";
		}
	io_put(l, "],\n \"classes\": [");
	io_flush(l);
	for (r = 0; r < count && !l->err; r++) {
		io_histo_name(h, &rows[r], name);
		io_put(l, "%s\n  {\"rank\": %zu, \"name\": ", r ? "," : "", r + 1);
		io_json_string(l, name);
		io_put(l, ", \"instances\": %" PRIu64 ", \"bytes\": %" PRIu64,
		    rows[r].n, rows[r].bytes);
		tn += rows[r].n;
		tb += rows[r].bytes;
		if (shown) {
			io_put(l, ", \"heaps\": {");
			sep = "";
			for (i = 0; i < HS_HISTO_HEAPS; i++)
				if (shown >> i & 1) {
					io_histo_heap(h, m, &rows[r], i, &n, &b);
					io_put(l, "%s\"%s\": {\"instances\": %" PRIu64
					    ", \"bytes\": %" PRIu64 "}", sep,
					    heap_name[i], n, b);
					sep = ", ";
				}
			io_put(l, "}");
		}
		io_put(l, "}");
		io_flush(l);
	}
	io_put(l, "\n ],\n \"total\": {\"instances\": %" PRIu64
	    ", \"bytes\": %" PRIu64 "}, \"classes_past\": %" PRIu64
	    ", \"names_past\": %" PRIu64 "}\n", tn, tb, h->classes_past,
	    h->names_past);
	io_flush(l);
}

int io_histo_write(const struct hs_histo *h, const struct io_histo_meta *m,
                   const struct io_histo_row *rows, size_t count, int as_json,
                   int (*out)(void *user, const void *buf, size_t len),
                   void *user)
{
	struct io_line l;  /* 5 KiB of stack */

	l.len = 0;
	l.err = 0;
	l.out = out;
	l.user = user;
	if (as_json)
		json(&l, h, m, rows, count);
	else
		text(&l, h, m, rows, count);
	return l.err;
}

int io_histo_stamp_of(const char *text, size_t len, char *name, size_t size,
                      uint64_t *stamp)
{
	static const char note[] = IO_HISTO_STAMP_NOTE, at[] = ", stamped ";
	const char *p = text, *end = text + len, *e, *c;
	size_t n = sizeof note - 1;

	for (; p < end; p = e + 1) {
		if (!(e = memchr(p, '\n', (size_t)(end - p))))
			e = end;
		if ((size_t)(e - p) <= n || memcmp(p, note, n))
			continue;
		/* the last ", stamped " of the line: a name may hold one */
		for (c = e - (sizeof at - 1); c > p + n; c--)
			if (!memcmp(c, at, sizeof at - 1))
				break;
		if (c <= p + n || (size_t)(c - p - n) >= size)
			return 0;
		memcpy(name, p + n, (size_t)(c - p - n));
		name[c - p - n] = 0;
		for (c += sizeof at - 1, *stamp = 0; c < e && *c >= '0' &&
		     *c <= '9'; c++)
			*stamp = *stamp * 10 + (uint64_t)(*c - '0');
		return 1;
	}
	return 0;
}

/* An application's class: an instance class named, not the runtime's
 * (hs_framework_name) nor an array. */
static int app_class(const char *name)
{
	return name[0] && name[0] != '[' && name[0] != '<' &&
	       !strchr(name, ' ') && !hs_framework_name(name, strlen(name));
}

/* n bytes for people: "812 B", "3.3 KB", "3.3 MB", "3.3 GB" */
static void human(uint64_t n, char *buf, size_t size)
{
	if (n < 1000)
		snprintf(buf, size, "%" PRIu64 " B", n);
	else if (n < 1000000)
		snprintf(buf, size, "%.1f KB", (double)n / 1e3);
	else if (n < 1000000000)
		snprintf(buf, size, "%.1f MB", (double)n / 1e6);
	else
		snprintf(buf, size, "%.1f GB", (double)n / 1e9);
}

size_t io_histo_top(const struct hs_histo *h, const struct io_histo_row *rows,
                    size_t count, unsigned k, char *buf, size_t size)
{
	char name[IO_HISTO_NAME_BUF], hb[32];
	uint64_t total = 0;
	size_t r, len = 0;
	int w, app = 0;

	if (!size)
		return 0;
	buf[0] = 0;
	for (r = 0; r < count; r++)
		total += rows[r].bytes;
	for (r = 0; r < count && r < k && total; r++) {
		io_histo_name(h, &rows[r], name);
		app |= app_class(name);
		w = snprintf(buf + len, size - len, "%s%s %.1f%%", r ? ", " : "",
		             name, (double)rows[r].bytes * 100 / (double)total);
		if (w < 0 || (size_t)w >= size - len) {
			buf[len] = 0;
			return len;
		}
		len += (size_t)w;
	}
	/* the largest of the application's own, when none is above */
	for (; !app && r < count && total; r++) {
		io_histo_name(h, &rows[r], name);
		if (!app_class(name))
			continue;
		human(rows[r].bytes, hb, sizeof hb);
		w = snprintf(buf + len, size - len, "; top application class: "
		             "%s %s (%.1f%%)", name, hb,
		             (double)rows[r].bytes * 100 / (double)total);
		if (w > 0 && (size_t)w < size - len)
			len += (size_t)w;
		else
			buf[len] = 0;
		break;
	}
	return len;
}
