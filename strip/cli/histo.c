/*
 * hprofstrip --histo (histo.h): the engine's tables for one dump, its
 * rows, the histogram by class name, and --baseline's change per class
 * between two of them, as text or JSON.
 */
#include "histo.h"
#include "../io/escape.h"
#include "../io/lineout.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- one dump's histogram ------------------------------------------------ */

int histo_alloc(struct histo *t)
{
	struct hs_histo *h = &t->h;

	memset(t, 0, sizeof *t);
	h->slots = calloc(HS_HISTO_SLOTS, sizeof *h->slots);
	h->classes = calloc(HS_HISTO_CLASSES, sizeof *h->classes);
	h->name_slots = calloc(HS_HISTO_NAME_SLOTS, sizeof *h->name_slots);
	h->names = calloc(HS_HISTO_NAMES, 1);
	if (!h->slots || !h->classes || !h->name_slots || !h->names) {
		histo_free(t);
		errno = ENOMEM;
		return -1;
	}
	h->slot_count = HS_HISTO_SLOTS;
	h->class_max = HS_HISTO_CLASSES;
	h->name_slot_count = HS_HISTO_NAME_SLOTS;
	h->names_size = HS_HISTO_NAMES;
	return 0;
}

int histo_rows(struct histo *t, const struct hs_state *st, int cut)
{
	t->m.idsize = st->idsize;
	t->m.version = st->version;
	t->m.cut = cut;
	t->m.cut_at = cut ? st->in_off : 0;
	t->rows = malloc(io_histo_room(&t->h) * sizeof *t->rows);
	if (!t->rows)
		return errno = ENOMEM, -1;
	t->count = io_histo_rows(&t->h, &t->m, t->rows);
	return 0;
}

void histo_free(struct histo *t)
{
	free(t->h.slots);
	free(t->h.classes);
	free(t->h.name_slots);
	free(t->h.names);
	free(t->rows);
	memset(t, 0, sizeof *t);
}

/* ---- by class name ------------------------------------------------------- */

int histo_list_add(struct histo_list *l, const char *name, size_t len,
                   uint64_t n, uint64_t bytes)
{
	if (l->count == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 1024;
		void *c = realloc(l->c, cap * sizeof *l->c);
		if (!c)
			return errno = ENOMEM, -1;
		l->c = c;
		l->cap = cap;
	}
	while (l->size - l->used < len + 1) {
		size_t size = l->size ? 2 * l->size : 64 * 1024;
		char *p = realloc(l->pool, size);
		if (!p)
			return errno = ENOMEM, -1;
		l->pool = p;
		l->size = size;
	}
	memcpy(l->pool + l->used, name, len);
	l->pool[l->used + len] = 0;
	l->c[l->count].name = l->used;
	l->c[l->count].n = n;
	l->c[l->count].bytes = bytes;
	l->count++;
	l->used += len + 1;
	return 0;
}

/* qsort's pool while histo_list_end sorts (the tools are one thread) */
static const char *sort_pool;

static int by_name(const void *a, const void *b)
{
	const struct histo_class *x = a, *y = b;

	return strcmp(sort_pool + x->name, sort_pool + y->name);
}

void histo_list_end(struct histo_list *l)
{
	size_t i, k = 0;

	if (!l->count)
		return;
	sort_pool = l->pool;
	qsort(l->c, l->count, sizeof *l->c, by_name);
	sort_pool = NULL;
	for (i = 1; i < l->count; i++) {
		if (!strcmp(l->pool + l->c[k].name, l->pool + l->c[i].name)) {
			l->c[k].n += l->c[i].n;
			l->c[k].bytes += l->c[i].bytes;
		} else {
			l->c[++k] = l->c[i];
		}
	}
	l->count = k + 1;
}

int histo_list_of(struct histo_list *l, const struct histo *t)
{
	char name[IO_HISTO_NAME_BUF];
	size_t r, len;

	memset(l, 0, sizeof *l);
	l->cut = t->m.cut;
	l->cut_at = t->m.cut_at;
	for (r = 0; r < t->count; r++) {
		len = io_histo_name(&t->h, &t->rows[r], name);
		if (histo_list_add(l, name, len, t->rows[r].n, t->rows[r].bytes))
			return -1;
	}
	histo_list_end(l);
	return 0;
}

void histo_list_free(struct histo_list *l)
{
	free(l->c);
	free(l->pool);
	memset(l, 0, sizeof *l);
}

/* ---- the change ---------------------------------------------------------- */

/* A class in either histogram: its counts in the old and in the new. */
struct change {
	const char *name;
	uint64_t on, ob, nn, nb;
};

/* now - old as a signed number (bytes and counts stay below 2^63) */
static int64_t delta(uint64_t now, uint64_t old)
{
	return (int64_t)(now - old);
}

/* Growth in bytes first, then in instances, then names. */
static int by_growth(const void *a, const void *b)
{
	const struct change *x = a, *y = b;
	int64_t dx = delta(x->nb, x->ob), dy = delta(y->nb, y->ob);

	if (dx != dy)
		return dx > dy ? -1 : 1;
	dx = delta(x->nn, x->on);
	dy = delta(y->nn, y->on);
	if (dx != dy)
		return dx > dy ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* (a jmap -histo baseline: instances first, then bytes) */
static int by_count_growth(const void *a, const void *b)
{
	const struct change *x = a, *y = b;
	int64_t dx = delta(x->nn, x->on), dy = delta(y->nn, y->on);

	if (dx != dy)
		return dx > dy ? -1 : 1;
	return by_growth(a, b);
}

/* The classes of both lists (each sorted by name), merged, sorted by
 * growth; NULL (ENOMEM) without memory. */
static struct change *changes(const struct histo_list *old,
                              const struct histo_list *now, size_t *count)
{
	struct change *c = malloc((old->count + now->count + 1) * sizeof *c);
	size_t i = 0, j = 0, k = 0;
	int d;

	if (!c)
		return errno = ENOMEM, NULL;
	while (i < old->count || j < now->count) {
		const char *a = i < old->count ? old->pool + old->c[i].name : NULL;
		const char *b = j < now->count ? now->pool + now->c[j].name : NULL;
		d = !a ? 1 : !b ? -1 : strcmp(a, b);
		memset(&c[k], 0, sizeof c[k]);
		c[k].name = d <= 0 ? a : b;
		if (d <= 0) {
			c[k].on = old->c[i].n;
			c[k].ob = old->c[i++].bytes;
		}
		if (d >= 0) {
			c[k].nn = now->c[j].n;
			c[k].nb = now->c[j++].bytes;
		}
		k++;
	}
	qsort(c, k, sizeof *c, old->jmap || now->jmap ? by_count_growth
	                                             : by_growth);
	*count = k;
	return c;
}

/* now - old, exact, signed: "+12", "-3", "0" (text) or "12", "-3", "0"
 * (JSON: plus), into buf (24 bytes) */
static const char *signed_text(char *buf, uint64_t now, uint64_t old,
                               int plus)
{
	if (now == old)
		return "0";
	snprintf(buf, 24, "%s%" PRIu64, now > old ? plus ? "+" : "" : "-",
	         now > old ? now - old : old - now);
	return buf;
}

static void text_notes(struct io_line *l, const struct histo_list *old,
                       const char *old_name, const struct histo_list *now)
{
	char name[1024];

	/* a newline in the file name must not end the note */
	io_escape(name, sizeof name, old_name, strlen(old_name));
	io_put(l, "# baseline: %s\n", name);
	if (old->jmap != now->jmap)
		io_put(l, "# %s from jmap -histo: its #bytes are the JVM's "
		    "object sizes, not a dump's, so the #bytes change mixes "
		    "two measures; compare #instances (the rows are sorted by "
		    "their change)\n", old->jmap ? "baseline" : "histogram");
	else if (old->jmap)
		io_put(l, "# both from jmap -histo (the rows are sorted by the "
		    "change in #instances)\n");
	if (old->cut)
		io_put(l, "# baseline cut: its dump could not be read past byte %"
		    PRIu64 ": its counts are of the objects before it\n",
		    old->cut_at);
	if (now->cut)
		io_put(l, "# cut: the dump could not be read past byte %" PRIu64
		    ": these are the objects before it\n", now->cut_at);
}

static void text(struct io_line *l, const struct change *c, size_t count,
                 const struct histo_list *old, const char *old_name,
                 const struct histo_list *now)
{
	uint64_t on = 0, ob = 0, nn = 0, nb = 0;
	char a[24], b[24];
	size_t r;

	io_put(l, " num  %14s  %14s  %13s  %13s  class name\n", "#instances +-",
	    "#bytes +-", "#instances", "#bytes");
	io_rule(l);
	for (r = 0; r < count && !l->err; r++) {
		io_put(l, "%4zu: %14s  %14s  %13" PRIu64 "  %13" PRIu64 "  %s\n",
		    r + 1, signed_text(a, c[r].nn, c[r].on, 1),
		    signed_text(b, c[r].nb, c[r].ob, 1), c[r].nn, c[r].nb,
		    c[r].name);
		on += c[r].on, ob += c[r].ob, nn += c[r].nn, nb += c[r].nb;
		io_flush(l);
	}
	io_put(l, "Total %14s  %14s  %13" PRIu64 "  %13" PRIu64 "\n",
	    signed_text(a, nn, on, 1), signed_text(b, nb, ob, 1), nn, nb);
	text_notes(l, old, old_name, now);
	io_flush(l);
}

static void json_cut(struct io_line *l, const char *key,
                     const struct histo_list *s)
{
	io_put(l, ", \"%s\": %s", key, s->cut ? "true" : "false");
	if (s->cut)
		io_put(l, ", \"%s_at\": %" PRIu64, key, s->cut_at);
}

/* the counts of one class or the total, "instances_change": ... */
static void json_counts(struct io_line *l, uint64_t on, uint64_t ob,
                        uint64_t nn, uint64_t nb)
{
	char a[24], b[24];

	io_put(l, "\"instances_change\": %s, \"bytes_change\": %s, "
	    "\"instances\": %" PRIu64 ", \"bytes\": %" PRIu64 ", "
	    "\"baseline_instances\": %" PRIu64 ", \"baseline_bytes\": %"
	    PRIu64, signed_text(a, nn, on, 0), signed_text(b, nb, ob, 0),
	    nn, nb, on, ob);
}

static void json(struct io_line *l, const struct change *c, size_t count,
                 const struct histo_list *old, const char *old_name,
                 const struct histo_list *now)
{
	uint64_t on = 0, ob = 0, nn = 0, nb = 0;
	size_t r;

	io_put(l, "{\"histogram_change\": \"hprofstrip\", \"baseline\": ");
	io_json_string(l, old_name);
	io_put(l, ", \"baseline_kind\": \"%s\", \"kind\": \"%s\"",
	       old->jmap ? "jmap" : "hprofstrip", now->jmap ? "jmap" : "hprofstrip");
	json_cut(l, "baseline_cut", old);
	json_cut(l, "cut", now);
	io_put(l, ",\n \"classes\": [");
	io_flush(l);
	for (r = 0; r < count && !l->err; r++) {
		io_put(l, "%s\n  {\"rank\": %zu, \"name\": ", r ? "," : "", r + 1);
		io_json_string(l, c[r].name);
		io_put(l, ", ");
		json_counts(l, c[r].on, c[r].ob, c[r].nn, c[r].nb);
		io_put(l, "}");
		on += c[r].on, ob += c[r].ob, nn += c[r].nn, nb += c[r].nb;
		io_flush(l);
	}
	io_put(l, "\n ],\n \"total\": {");
	json_counts(l, on, ob, nn, nb);
	io_put(l, "}}\n");
	io_flush(l);
}

int histo_diff_write(const struct histo_list *old, const char *old_name,
                     const struct histo_list *now, int as_json,
                     int (*out)(void *user, const void *buf, size_t len),
                     void *user)
{
	static struct io_line l;  /* 5 KiB */
	struct change *c;
	size_t count;

	c = changes(old, now, &count);
	if (!c)
		return -1;
	l.len = 0;
	l.err = 0;
	l.out = out;
	l.user = user;
	if (as_json)
		json(&l, c, count, old, old_name, now);
	else
		text(&l, c, count, old, old_name, now);
	free(c);
	return l.err;
}
