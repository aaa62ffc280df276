/*
 * One pass over a dump's bytes into the graph (heap.h): top-level
 * records, the heap records' sub-records, the class dumps' field lists,
 * each instance's references read through its class chain, each object
 * array's elements. Pulled from a file descriptor through a buffer, so a
 * pipe is read as a file is, once.
 *
 * The references an object has are Eclipse MAT's: an instance's class
 * first, then its non-null reference fields, its class's before its
 * superclasses' (the dump's order); an object array's class, then its
 * non-null elements; a primitive array's class (the dump's class of that
 * name: "[B", or ART's "byte[]"), when there is one; a class's super,
 * java.lang.Class first, then its super, loader and non-null static
 * reference values. With --strong (h->strong), ahat's: fields, elements
 * and static values only, and no referent of a weak, phantom or
 * finalizer reference.
 */
#include "heap.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RBUF (1u << 20)

const char *const root_kind_name[ROOT_KINDS] = {
	"unknown", "JNI global", "JNI local", "Java frame", "native stack",
	"sticky class", "thread block", "monitor used", "thread object",
	"interned string", "finalizing", "debugger", "reference cleanup",
	"VM internal", "JNI monitor", "unreachable", "system class"
};

struct rd {
	struct heap *h;
	const struct heap_src *src;
	size_t head_at;
	unsigned char *buf;
	size_t pos, len;
	uint64_t base;         /* the input offset of buf[0] */
	int eof;
};

/* ---- the byte source ---------------------------------------------------- */

/* At least n (<= RBUF) bytes from the current position in buf: a pointer
 * to them, or NULL at the end of the input (or a read error: h->err). */
static const unsigned char *need(struct rd *r, size_t n)
{
	ssize_t got;

	while (r->len - r->pos < n) {
		if (r->eof || r->h->err)
			return NULL;
		if (r->pos) {
			memmove(r->buf, r->buf + r->pos, r->len - r->pos);
			r->len -= r->pos;
			r->base += r->pos;
			r->pos = 0;
		}
		if (r->head_at < r->src->head_len) {
			size_t k = r->src->head_len - r->head_at;
			memcpy(r->buf + r->len, r->src->head + r->head_at, k);
			r->head_at += k;
			r->len += k;
			continue;
		}
		got = read(r->src->fd, r->buf + r->len, RBUF - r->len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			r->h->err = errno;
			return NULL;
		}
		if (got == 0)
			r->eof = 1;
		r->len += (size_t)got;
	}
	return r->buf + r->pos;
}

static uint64_t at(const struct rd *r)
{
	return r->base + r->pos;
}

/* n bytes passed over: 0, or -1 at the end of the input */
static int skip(struct rd *r, uint64_t n)
{
	while (n) {
		size_t k = r->len - r->pos;
		if (!k) {
			if (!need(r, 1))
				return -1;
			continue;
		}
		if (k > n)
			k = (size_t)n;
		r->pos += k;
		n -= k;
	}
	return 0;
}

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static inline uint64_t rid(const struct heap *h, const unsigned char *p)
{
	uint64_t v;
	uint32_t w;

	if (h->idsize == 8) {
		memcpy(&v, p, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
		return v;
#else
		return __builtin_bswap64(v);
#endif
	}
	memcpy(&w, p, 4);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	return w;
#else
	return __builtin_bswap32(w);
#endif
}

unsigned heap_type_size(const struct heap *h, unsigned t)
{
	static const unsigned char sz[12] = { 0, 0, 0, 0, 1, 2, 4, 8, 1, 2, 4, 8 };

	if (t == T_OBJECT)
		return h->idsize;
	return t < 12 ? sz[t] : 0;
}

/* ---- tables ------------------------------------------------------------- */

static inline uint32_t hash_id(uint64_t id)
{
	return (uint32_t)((id * 0x9E3779B97F4A7C15u) >> 32);
}

static int nomem(struct heap *h)
{
	if (!h->err)
		h->err = h->pool->err ? h->pool->err : ENOMEM;
	return -1;
}

uint32_t heap_class(const struct heap *h, uint64_t id)
{
	uint32_t s, i;

	if (!h->cls_slots)
		return HEAP_NONE;
	for (s = hash_id(id) & (h->cls_slots - 1); (i = h->cls_slot[s]) != 0;
	     s = (s + 1) & (h->cls_slots - 1))
		if (H_CLS(h)[i - 1].id == id)
			return i - 1;
	return HEAP_NONE;
}

static int cls_rehash(struct heap *h)
{
	uint32_t n = h->cls_slots ? h->cls_slots * 2 : 1024, i, s;
	uint32_t *t = calloc(n, sizeof *t);

	if (!t)
		return nomem(h);
	for (i = 0; i < h->ncls; i++) {
		for (s = hash_id(H_CLS(h)[i].id) & (n - 1); t[s];
		     s = (s + 1) & (n - 1))
			;
		t[s] = i + 1;
	}
	free(h->cls_slot);
	h->cls_slot = t;
	h->cls_slots = n;
	return 0;
}

/* The class of id, made if new: its index, HEAP_NONE (no memory). */
static uint32_t class_get(struct heap *h, uint64_t id)
{
	uint32_t c = heap_class(h, id), s;
	struct hclass k;

	if (c != HEAP_NONE)
		return c;
	if ((uint64_t)(h->ncls + 1) * 2 > h->cls_slots && cls_rehash(h))
		return HEAP_NONE;
	memset(&k, 0, sizeof k);
	k.id = id;
	k.obj = HEAP_NONE;
	k.flat = HEAP_NONE;
	if (big_put(&h->cls, &k, sizeof k)) {
		nomem(h);
		return HEAP_NONE;
	}
	for (s = hash_id(id) & (h->cls_slots - 1); h->cls_slot[s];
	     s = (s + 1) & (h->cls_slots - 1))
		;
	h->cls_slot[s] = ++h->ncls;
	return h->ncls - 1;
}

static int str_rehash(struct heap *h)
{
	uint64_t n = h->str_slots ? h->str_slots * 2 : 4096, i, s, o;
	uint64_t *t = calloc(n, sizeof *t), id;

	if (!t)
		return nomem(h);
	for (i = 0; i < h->str_slots; i++) {
		if (!(o = h->str_slot[i]))
			continue;
		memcpy(&id, (char *)h->text.p + o - 1, 8);
		for (s = hash_id(id) & (n - 1); t[s]; s = (s + 1) & (n - 1))
			;
		t[s] = o;
	}
	free(h->str_slot);
	h->str_slot = t;
	h->str_slots = n;
	return 0;
}

const char *heap_text(const struct heap *h, uint64_t id, uint32_t *len)
{
	uint64_t s, o, got;
	const char *e;

	if (!h->str_slots)
		return NULL;
	for (s = hash_id(id) & (h->str_slots - 1); (o = h->str_slot[s]) != 0;
	     s = (s + 1) & (h->str_slots - 1)) {
		e = (const char *)h->text.p + o - 1;
		memcpy(&got, e, 8);
		if (got == id) {
			memcpy(len, e + 8, 4);
			return e + 12;
		}
	}
	return NULL;
}

/* a STRING record's text: a later one of the same id wins */
static int text_keep(struct heap *h, uint64_t id, const unsigned char *t,
                     uint32_t n)
{
	uint64_t s, o, got, at = h->text.len + 1;
	uint32_t z = 0;

	if ((h->nstr + 1) * 2 > h->str_slots && str_rehash(h))
		return -1;
	if (big_put(&h->text, &id, 8) || big_put(&h->text, &n, 4) ||
	    big_put(&h->text, t, n) || big_put(&h->text, &z, 1))
		return nomem(h);
	for (s = hash_id(id) & (h->str_slots - 1); (o = h->str_slot[s]) != 0;
	     s = (s + 1) & (h->str_slots - 1)) {
		memcpy(&got, (char *)h->text.p + o - 1, 8);
		if (got == id)
			break;
	}
	if (!o)
		h->nstr++;
	h->str_slot[s] = at;
	return 0;
}

static int text_is(const struct heap *h, uint64_t id, const char *want)
{
	uint32_t n;
	const char *t = heap_text(h, id, &n);

	return t && n == strlen(want) && !memcmp(t, want, n);
}

/* ---- objects ------------------------------------------------------------ */

/* A new object, its references to follow: its index, or HEAP_NONE. */
static uint32_t obj_add(struct heap *h, uint64_t id, uint64_t size,
                        unsigned kind, uint32_t cls)
{
	uint32_t s = size > UINT32_MAX ? UINT32_MAX : (uint32_t)size;
	uint32_t off = (uint32_t)h->nedge;
	uint8_t k = (uint8_t)kind;

	if (h->n >= 0x7FFFFFFFu || h->nedge > UINT32_MAX - (1u << 24)) {
		snprintf(h->msg, sizeof h->msg, "more than 2^31 objects or 4 "
		         "billion references: past what --suspects holds");
		h->bad = 1;
		return HEAP_NONE;
	}
	if (big_put_fast(&h->id, &id, 8) || big_put_fast(&h->size, &s, 4) ||
	    big_put_fast(&h->kind, &k, 1) || big_put_fast(&h->off, &off, 4) ||
	    big_put_fast(&h->ocls, &cls, 4)) {
		nomem(h);
		return HEAP_NONE;
	}
	if (size > UINT32_MAX) {
		uint64_t pair[2] = { h->n, size };
		if (big_put(&h->hugesz, pair, 16)) {
			nomem(h);
			return HEAP_NONE;
		}
		h->huge++;
	}
	h->shallow_total += size;
	return h->n++;
}

static inline int edge_add(struct heap *h, uint64_t to)
{
	if (!to)
		return 0;
	if (h->nedge >= UINT32_MAX - 1) {
		snprintf(h->msg, sizeof h->msg, "more than 4 billion "
		         "references: past what --suspects holds");
		h->bad = 1;
		return -1;
	}
	if (big_put_fast(&h->edge, &to, 8))
		return nomem(h);
	h->nedge++;
	return 0;
}

/* The classes the analysis knows by name (HotSpot's '/' or ART's '.'):
 * java.lang.ref's, whose referent --strong does not follow, and
 * Android's Activity and Fragments, whose state the report reads. *ref
 * and *watch: REF_NONE and WATCH_NONE for any other. */
static void class_named(const char *t, uint32_t n, uint8_t *ref,
                        uint8_t *watch)
{
	static const struct { const char *name; uint8_t ref, watch; } k[] = {
		{ "java.lang.ref.SoftReference", REF_SOFT, WATCH_NONE },
		{ "java.lang.ref.WeakReference", REF_WEAK, WATCH_NONE },
		{ "java.lang.ref.PhantomReference", REF_PHANTOM, WATCH_NONE },
		{ "java.lang.ref.FinalReference", REF_FINAL, WATCH_NONE },
		{ "java.lang.ref.FinalizerReference", REF_FINAL, WATCH_NONE },
		{ "java.lang.ref.Reference", REF_OTHER, WATCH_NONE },
		{ "android.app.Activity", REF_NONE, WATCH_ACTIVITY },
		{ "android.app.Fragment", REF_NONE, WATCH_FRAGMENT },
		{ "androidx.fragment.app.Fragment", REF_NONE, WATCH_FRAGMENT },
		{ "android.support.v4.app.Fragment", REF_NONE, WATCH_FRAGMENT },
	};
	char b[64];
	uint32_t i;

	*ref = REF_NONE;
	*watch = WATCH_NONE;
	if (n >= sizeof b)
		return;
	for (i = 0; i < n; i++)
		b[i] = t[i] == '/' ? '.' : t[i];
	b[n] = 0;
	for (i = 0; i < sizeof k / sizeof *k; i++)
		if (!strcmp(b, k[i].name)) {
			*ref = k[i].ref;
			*watch = k[i].watch;
			return;
		}
}

/* Class c's instance layout, its supers' included: the reference offsets
 * (flat), the bytes, what --strong leaves out and Android's watch. 0;
 * 1: a class of its chain has no class dump yet; -1 no memory. */
static int flatten(struct heap *h, uint32_t c)
{
	struct hclass *k = &H_CLS(h)[c], *q;
	uint32_t first = (uint32_t)(h->flat.len / 4), n = 0, bytes = 0;
	uint32_t i, d, depth = 0, watch_off = 0, o;
	uint8_t watch = WATCH_NONE, ref = REF_NONE;
	uint32_t tlen;
	const char *t;
	int w;

	if (k->state == 1)
		return 0;
	for (d = c; d != HEAP_NONE; d = q->super ? heap_class(h, q->super)
	                                         : HEAP_NONE) {
		q = &H_CLS(h)[d];
		if (q->obj == HEAP_NONE || ++depth > 1000)
			return 1;
		if (!q->super)
			break;
		if (heap_class(h, q->super) == HEAP_NONE)
			return 1;
	}
	for (d = c; d != HEAP_NONE; d = q->super ? heap_class(h, q->super)
	                                         : HEAP_NONE) {
		q = &H_CLS(h)[d];
		uint8_t qref = REF_NONE, qwatch = WATCH_NONE;
		t = heap_text(h, q->name, &tlen);
		if (t)
			class_named(t, tlen, &qref, &qwatch);
		if (ref == REF_NONE)
			ref = qref;
		w = qwatch;
		for (i = 0; i < q->nfields; i++) {
			const struct hfield *f = &H_FIELDS(h)[q->fields + i];
			unsigned sz = heap_type_size(h, f->type);
			if (w && watch == WATCH_NONE &&
			    ((w == WATCH_ACTIVITY && f->type == T_BOOLEAN &&
			      text_is(h, f->name, "mDestroyed")) ||
			     (w == WATCH_FRAGMENT && f->type == T_OBJECT &&
			      text_is(h, f->name, "mFragmentManager")))) {
				watch = (uint8_t)w;
				watch_off = bytes;
			}
			/* --strong: a weak, phantom or finalizer
			   referent is no reference (ahat's) */
			if (f->type == T_OBJECT && !(h->strong &&
			    (ref == REF_WEAK || ref == REF_PHANTOM ||
			     ref == REF_FINAL) &&
			    text_is(h, f->name, "referent"))) {
				o = bytes;
				if (big_put(&h->flat, &o, 4))
					return nomem(h);
				n++;
			}
			if (bytes > UINT32_MAX - 8)
				return 1;
			bytes += sz;
		}
	}
	k = &H_CLS(h)[c];
	k->flat = first;
	k->nflat = n;
	k->bytes = bytes;
	k->watch = watch;
	k->watch_off = watch_off;
	k->ref_kind = ref;
	k->state = 1;
	return 0;
}

/* An instance's shallow bytes as .histo counts them: its class dump's
 * instance size, or without one its field bytes, and an id for its
 * header. */
static uint64_t inst_size(const struct heap *h, uint32_t c, uint32_t len)
{
	const struct hclass *k = c == HEAP_NONE ? NULL : &H_CLS(h)[c];

	return (k && k->obj != HEAP_NONE && k->isize ? k->isize : len) +
	       (uint64_t)h->idsize;
}

/* an instance's references from its field bytes, its class c flattened */
static int instance_edges(struct heap *h, uint32_t obj, uint32_t c,
                          const unsigned char *v, uint32_t len)
{
	const struct hclass *k = &H_CLS(h)[c];
	uint32_t i, o;
	uint64_t to;
	struct watched w;

	for (i = 0; i < k->nflat; i++) {
		o = H_FLAT(h)[k->flat + i];
		if (o + h->idsize > len)
			break;
		to = rid(h, v + o);
		if (edge_add(h, to))
			return -1;
	}
	if (k->watch && k->watch_off + (k->watch == WATCH_FRAGMENT
	                                ? h->idsize : 1) <= len) {
		int hit = k->watch == WATCH_ACTIVITY
		          ? v[k->watch_off] != 0
		          : rid(h, v + k->watch_off) == 0;
		if (hit) {
			w.obj = obj;
			w.watch = k->watch;
			if (big_put(&h->watched, &w, sizeof w))
				return nomem(h);
			h->nwatched++;
		}
	}
	return 0;
}

/* ---- the second read: what each step of a path is ------------------------ */

/* the first step from id, or NULL */
static struct step *probe_find(const struct heap *h, uint64_t id)
{
	size_t lo = 0, hi = h->nprobe, mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (h->probe[mid].from < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < h->nprobe && h->probe[lo].from == id ? &h->probe[lo] : NULL;
}

/* an instance's steps: the field whose value is the step's target */
static void probe_instance(struct heap *h, uint64_t id, uint64_t cid,
                           const unsigned char *v, uint32_t len)
{
	struct step *s = probe_find(h, id), *e = h->probe + h->nprobe;
	uint32_t c, i, off, depth;
	const struct hclass *q;

	for (; s && s < e && s->from == id; s++) {
		off = 0;
		depth = 0;
		for (c = heap_class(h, cid); c != HEAP_NONE && depth++ < 1000;
		     c = q->super ? heap_class(h, q->super) : HEAP_NONE) {
			q = &H_CLS(h)[c];
			for (i = 0; i < q->nfields && s->kind == STEP_UNKNOWN; i++) {
				const struct hfield *f = &H_FIELDS(h)[q->fields + i];
				unsigned sz = heap_type_size(h, f->type);
				if (f->type == T_OBJECT && off + sz <= len &&
				    rid(h, v + off) == s->to) {
					s->kind = STEP_FIELD;
					s->val = f->name;
				}
				off += sz;
			}
		}
		if (s->kind == STEP_UNKNOWN && s->to == cid)
			s->kind = STEP_CLASS;
	}
}

/* An instance: now when its class chain is known, else deferred to the
 * end of the dump. */
static int instance(struct heap *h, uint64_t id, uint64_t cid,
                    const unsigned char *v, uint32_t len)
{
	uint32_t c, obj;
	int rc;

	if (h->probe) {
		probe_instance(h, id, cid, v, len);
		return 0;
	}
	c = class_get(h, cid);
	if (c == HEAP_NONE)
		return -1;
	rc = flatten(h, c);
	if (rc < 0)
		return -1;
	if (rc == 1) {
		uint64_t pair[2] = { id, cid };
		if (big_put(&h->defer, &len, 4) ||
		    big_put(&h->defer, pair, 16) || big_put(&h->defer, v, len))
			return nomem(h);
		h->deferred++;
		return 0;
	}
	obj = obj_add(h, id, inst_size(h, c, len), OBJ_INSTANCE, c);
	if (obj == HEAP_NONE || edge_add(h, h->strong ? 0 : cid))
		return -1;
	return instance_edges(h, obj, c, v, len);
}

/* The instances deferred: their chains complete now, or never. */
static int undefer(struct heap *h)
{
	size_t p = 0;
	uint32_t len, c, obj;
	uint64_t pair[2];
	const unsigned char *b = h->defer.p;

	while (p < h->defer.len) {
		memcpy(&len, b + p, 4);
		memcpy(pair, b + p + 4, 16);
		p += 20;
		c = heap_class(h, pair[1]);
		obj = obj_add(h, pair[0], inst_size(h, c, len), OBJ_INSTANCE,
		              class_get(h, pair[1]));
		if (obj == HEAP_NONE || edge_add(h, h->strong ? 0 : pair[1]))
			return -1;
		if (c != HEAP_NONE && flatten(h, c) == 0) {
			if (instance_edges(h, obj, c, b + p, len))
				return -1;
		} else if (h->err || h->bad) {
			return -1;
		} else {
			h->unresolved++;
		}
		p += len;
	}
	big_free(&h->defer);
	return 0;
}

/* ---- sub-records -------------------------------------------------------- */

static int bad(struct heap *h, uint64_t off, const char *what)
{
	if (!h->bad) {
		h->bad = 1;
		h->err_off = off;
		snprintf(h->msg, sizeof h->msg, "%s", what);
	}
	return -1;
}

/* read n bytes in the sub-record at sub, or the dump was cut there */
#define NEED(p, r, n, sub)                                              \
	do {                                                            \
		if (!((p) = need((r), (n))))                            \
			return cut_at((r), (sub));                      \
	} while (0)

static int cut_at(struct rd *r, uint64_t sub)
{
	struct heap *h = r->h;

	if (h->err)
		return -1;
	h->cut = 1;
	h->cut_off = sub;
	return -2;
}

static int root(struct heap *h, const unsigned char *p, unsigned kind,
                unsigned thread_at)
{
	struct root rt;

	if (h->probe)
		return 0;
	rt.id = rid(h, p);
	rt.kind = kind;
	rt.thread = thread_at ? be32(p + thread_at) : 0;
	if (big_put(&h->roots, &rt, sizeof rt))
		return nomem(h);
	h->nroots++;
	return 0;
}

/* a class dump, its tag read */
static int class_dump(struct rd *r, uint64_t sub)
{
	struct heap *h = r->h;
	unsigned id = h->idsize, t, sz;
	const unsigned char *p;
	uint64_t cid, super, loader, statics = 0, sname;
	uint32_t isize;
	uint32_t c, obj, n, i, first;
	struct hfield f;

	NEED(p, r, 7 * id + 8, sub);
	cid = rid(h, p);
	super = rid(h, p + id + 4);
	loader = rid(h, p + 2 * id + 4);
	isize = be32(p + 7 * id + 4);
	r->pos += 7 * id + 8;
	/* the constant pool: u2 count, (u2 index, u1 type, value) */
	NEED(p, r, 2, sub);
	n = (uint32_t)p[0] << 8 | p[1];
	r->pos += 2;
	for (i = 0; i < n; i++) {
		NEED(p, r, 3, sub);
		sz = heap_type_size(h, p[2]);
		if (!sz)
			return bad(h, at(r) + 2, "a constant of no basic type");
		r->pos += 3;
		if (skip(r, sz))
			return cut_at(r, sub);
	}
	struct step *ps = h->probe ? probe_find(h, cid) : NULL, *pe;
	pe = h->probe ? h->probe + h->nprobe : NULL;
	for (struct step *q = ps; q && q < pe && q->from == cid; q++)
		if (q->to == super)
			q->kind = STEP_SUPER;
		else if (q->to == loader)
			q->kind = STEP_LOADER;
		else if (h->class_class != HEAP_NONE &&
		         q->to == H_CLS(h)[h->class_class].id)
			q->kind = STEP_CLASS;
	c = h->probe ? HEAP_NONE : class_get(h, cid);
	if (c == HEAP_NONE && !h->probe)
		return -1;
	if (c != HEAP_NONE && H_CLS(h)[c].obj != HEAP_NONE) {
		h->dup_classes++;
		c = HEAP_NONE;   /* read, not kept */
	}
	obj = HEAP_NONE;
	if (c != HEAP_NONE) {
		uint32_t cc = h->class_class;
		obj = obj_add(h, cid, 0, OBJ_CLASS, c);
		if (obj == HEAP_NONE || edge_add(h, h->strong ||
		    cc == HEAP_NONE ? 0 : H_CLS(h)[cc].id) ||
		    edge_add(h, h->strong ? 0 : super) ||
		    edge_add(h, h->strong ? 0 : loader))
			return -1;
	}
	/* statics: u2 count, (id name, u1 type, value) */
	NEED(p, r, 2, sub);
	n = (uint32_t)p[0] << 8 | p[1];
	r->pos += 2;
	for (i = 0; i < n; i++) {
		NEED(p, r, id + 1, sub);
		t = p[id];
		sname = rid(h, p);
		sz = heap_type_size(h, t);
		if (!sz)
			return bad(h, at(r) + id, "a static field of no basic type");
		r->pos += id + 1;
		NEED(p, r, sz, sub);
		if (t == T_OBJECT && c != HEAP_NONE && edge_add(h, rid(h, p)))
			return -1;
		for (struct step *q = ps; t == T_OBJECT && q && q < pe &&
		     q->from == cid; q++)
			if (q->kind == STEP_UNKNOWN && q->to == rid(h, p)) {
				q->kind = STEP_STATIC;
				q->val = sname;
			}
		statics += sz;
		r->pos += sz;
	}
	/* instance fields: u2 count, (id name, u1 type) */
	NEED(p, r, 2, sub);
	n = (uint32_t)p[0] << 8 | p[1];
	r->pos += 2;
	first = (uint32_t)(h->fields.len / sizeof f);
	for (i = 0; i < n; i++) {
		NEED(p, r, id + 1, sub);
		f.name = rid(h, p);
		f.type = p[id];
		if (!heap_type_size(h, f.type))
			return bad(h, at(r) + id, "an instance field of no basic type");
		r->pos += id + 1;
		if (c != HEAP_NONE && !h->probe &&
		    big_put(&h->fields, &f, sizeof f))
			return nomem(h);
	}
	if (c != HEAP_NONE) {
		struct hclass *k = &H_CLS(h)[c];
		k->super = super;
		k->loader = loader;
		k->obj = obj;
		k->fields = first;
		k->nfields = n;
		k->isize = isize;
		H_SIZE(h)[obj] = statics > UINT32_MAX ? UINT32_MAX
		                                      : (uint32_t)statics;
		h->shallow_total += statics;
	}
	return 0;
}

/* an object array, its tag read: its class, then its elements */
static int obj_array(struct rd *r, uint64_t sub)
{
	struct heap *h = r->h;
	unsigned id = h->idsize;
	const unsigned char *p;
	uint64_t aid, cid, mark = h->nedge, elem;
	uint32_t count, i, k, obj = HEAP_NONE, n0 = h->n;
	size_t elen = h->edge.len;
	struct step *ps = NULL, *pe = NULL, *q;

	NEED(p, r, 2 * id + 8, sub);
	aid = rid(h, p);
	count = be32(p + id + 4);
	cid = rid(h, p + id + 8);
	r->pos += 2 * id + 8;
	if (h->probe) {
		ps = probe_find(h, aid);
		pe = h->probe + h->nprobe;
		for (q = ps; q && q < pe && q->from == aid; q++)
			if (q->to == cid)
				q->kind = STEP_CLASS;
		if (!ps)
			return skip(r, (uint64_t)count * id) ? cut_at(r, sub) : 0;
	} else {
		obj = class_get(h, cid);
		if (obj != HEAP_NONE)
			obj = obj_add(h, aid, (uint64_t)count * id + id, OBJ_ARRAY,
			              obj);
		if (obj == HEAP_NONE || edge_add(h, h->strong ? 0 : cid))
			return -1;
	}
	for (i = 0; i < count; i += k) {
		k = count - i < 4096 ? count - i : 4096;
		if (!(p = need(r, (size_t)k * id))) {
			if (h->probe)
				return cut_at(r, sub);
			/* cut: the array is not kept */
			h->nedge = mark;
			h->edge.len = elen;
			h->n = n0;
			h->id.len -= 8, h->size.len -= 4, h->kind.len -= 1,
			h->off.len -= 4, h->ocls.len -= 4;
			h->shallow_total -= (uint64_t)count * id + id;
			return cut_at(r, sub);
		}
		for (uint32_t j = 0; j < k; j++) {
			elem = rid(h, p + (size_t)j * id);
			if (ps) {
				for (q = ps; q < pe && q->from == aid; q++)
					if (q->kind == STEP_UNKNOWN &&
					    q->to == elem) {
						q->kind = STEP_INDEX;
						q->val = i + j;
					}
			} else if (edge_add(h, elem)) {
				return -1;
			}
		}
		r->pos += (size_t)k * id;
	}
	return 0;
}

/* a primitive array (0x23, or 0xC3 without its elements) */
static int prim_array(struct rd *r, uint64_t sub, int nodata)
{
	struct heap *h = r->h;
	unsigned id = h->idsize, t, sz;
	const unsigned char *p;
	uint64_t aid;
	uint32_t count, obj;

	NEED(p, r, id + 9, sub);
	aid = rid(h, p);
	count = be32(p + id + 4);
	t = p[id + 8];
	sz = heap_type_size(h, t);
	if (!sz || t == T_OBJECT)
		return bad(h, at(r) + id + 8, "an array of no primitive type");
	r->pos += id + 9;
	if (!nodata && skip(r, (uint64_t)count * sz))
		return cut_at(r, sub);
	if (h->probe)
		return 0;
	obj = obj_add(h, aid, (uint64_t)count * sz + id, OBJ_PRIM | t << 2,
	              h->prim_class[t]);
	if (obj == HEAP_NONE)
		return -1;
	/* its class: the dump's class of that name, when there is one */
	if (h->strong || h->prim_class[t] == HEAP_NONE)
		return 0;
	return edge_add(h, H_CLS(h)[h->prim_class[t]].id);
}

/* an instance, its tag read */
static int inst(struct rd *r, uint64_t sub)
{
	struct heap *h = r->h;
	unsigned id = h->idsize;
	const unsigned char *p;
	uint64_t oid, cid;
	uint32_t len;
	static unsigned char *big_fields;
	static size_t big_cap;

	NEED(p, r, 2 * id + 8, sub);
	oid = rid(h, p);
	cid = rid(h, p + id + 4);
	len = be32(p + 2 * id + 4);
	r->pos += 2 * id + 8;
	if (len <= RBUF / 2) {
		NEED(p, r, len, sub);
		r->pos += len;
		return instance(h, oid, cid, p, len);
	}
	/* a huge instance: gathered, its buffer grown as its bytes come
	   (a length past the input's end costs what came, no more) */
	for (uint32_t got = 0; got < len;) {
		uint32_t k = len - got < RBUF / 2 ? len - got : RBUF / 2;
		NEED(p, r, k, sub);
		if (big_cap < (size_t)got + k) {
			size_t cap = ((size_t)got + k) * 2;
			unsigned char *b = realloc(big_fields, cap < len ? cap : len);
			if (!b)
				return nomem(h);
			big_fields = b;
			big_cap = cap < len ? cap : len;
		}
		memcpy(big_fields + got, p, k);
		r->pos += k;
		got += k;
	}
	return instance(h, oid, cid, big_fields, len);
}

/* the sub-records of a heap record of len bytes, its header read */
static int heap_record(struct rd *r, uint64_t len)
{
	struct heap *h = r->h;
	unsigned id = h->idsize;
	uint64_t end = at(r) + len, sub;
	const unsigned char *p;
	int rc;

	while ((sub = at(r)) < end) {
		if (!(p = need(r, 1)))
			return cut_at(r, sub);
		unsigned tag = *p;
		r->pos++;
		rc = 0;
		switch (tag) {
		case 0xFF: case 0x05: case 0x07: case 0x89: case 0x8A:
		case 0x8B: case 0x8C: case 0x8D: case 0x90:
			NEED(p, r, id, sub);
			rc = root(h, p, tag == 0xFF ? ROOT_UNKNOWN
			              : tag == 0x05 ? ROOT_STICKY_CLASS
			              : tag == 0x07 ? ROOT_MONITOR_USED
			              : tag == 0x89 ? ROOT_INTERNED_STRING
			              : tag == 0x8A ? ROOT_FINALIZING
			              : tag == 0x8B ? ROOT_DEBUGGER
			              : tag == 0x8C ? ROOT_REFERENCE_CLEANUP
			              : tag == 0x8D ? ROOT_VM_INTERNAL
			              : ROOT_UNREACHABLE, 0);
			r->pos += id;
			break;
		case 0x01:   /* JNI global: id, id of the global ref */
			NEED(p, r, 2 * id, sub);
			rc = root(h, p, ROOT_JNI_GLOBAL, 0);
			r->pos += 2 * id;
			break;
		case 0x02: case 0x03: case 0x8E: /* id, u4 thread, u4 frame */
			NEED(p, r, id + 8, sub);
			rc = root(h, p, tag == 0x02 ? ROOT_JNI_LOCAL
			              : tag == 0x03 ? ROOT_JAVA_FRAME
			              : ROOT_JNI_MONITOR, id);
			r->pos += id + 8;
			break;
		case 0x04: case 0x06:    /* id, u4 thread */
			NEED(p, r, id + 4, sub);
			rc = root(h, p, tag == 0x04 ? ROOT_NATIVE_STACK
			                            : ROOT_THREAD_BLOCK, id);
			r->pos += id + 4;
			break;
		case 0x08:   /* thread object: id, u4 serial, u4 trace */
			NEED(p, r, id + 8, sub);
			rc = root(h, p, ROOT_THREAD_OBJECT, id);
			r->pos += id + 8;
			break;
		case 0xFE:   /* Android heap info: u4 heap, id name */
			NEED(p, r, 4 + id, sub);
			r->pos += 4 + id;
			break;
		case 0x20:
			rc = class_dump(r, sub);
			break;
		case 0x21:
			rc = inst(r, sub);
			break;
		case 0x22:
			rc = obj_array(r, sub);
			break;
		case 0x23: case 0xC3:
			rc = prim_array(r, sub, tag == 0xC3);
			break;
		default:
			return bad(h, sub, "an unknown heap sub-record tag");
		}
		if (rc)
			return rc;
		if (at(r) > end)
			return bad(h, sub, "a sub-record runs past its heap "
			           "record");
	}
	return 0;
}

/* ---- records ------------------------------------------------------------ */

static int load_class(struct heap *h, const unsigned char *p)
{
	unsigned id = h->idsize;
	uint64_t cid = rid(h, p + 4), name = rid(h, p + 8 + id);
	uint32_t c = class_get(h, cid), tlen, t;
	const char *s;

	if (c == HEAP_NONE)
		return -1;
	H_CLS(h)[c].name = name;
	s = heap_text(h, name, &tlen);
	if (!s)
		return 0;
	/* the primitive array classes ("[B" or ART's "byte[]") and Class */
	static const char *const jvm[12] = { 0, 0, 0, 0, "[Z", "[C", "[F",
		"[D", "[B", "[S", "[I", "[J" };
	static const char *const art[12] = { 0, 0, 0, 0, "boolean[]",
		"char[]", "float[]", "double[]", "byte[]", "short[]", "int[]",
		"long[]" };
	for (t = 4; t < 12; t++)
		if ((tlen == strlen(jvm[t]) && !memcmp(s, jvm[t], tlen)) ||
		    (tlen == strlen(art[t]) && !memcmp(s, art[t], tlen)))
			h->prim_class[t] = c;
	if ((tlen == 15 && !memcmp(s, "java/lang/Class", 15)) ||
	    (tlen == 15 && !memcmp(s, "java.lang.Class", 15)))
		h->class_class = c;
	return 0;
}

int heap_load(struct heap *h, const struct heap_src *src, int salvage)
{
	struct rd r;
	const unsigned char *p;
	uint64_t rec, len;
	unsigned tag;
	int rc = 0;
	size_t i;

	memset(&r, 0, sizeof r);
	r.h = h;
	r.src = src;
	h->ended = h->in_later = 0;
	if (!(r.buf = malloc(RBUF)))
		return nomem(h);
	/* the header: "JAVA PROFILE 1.0.x\0", u4 id size, u8 time */
	p = need(&r, 1);
	for (i = 0; p; i++) {
		if (!(p = need(&r, i + 1)) || i > 64)
			break;
		if (!p[i])
			break;
	}
	if (!p || i > 64 || i < 18 || memcmp(p, "JAVA PROFILE 1.0.", 17)) {
		rc = h->err ? -1 : bad(h, 0, "not an HPROF heap dump");
		goto out;
	}
	h->version = p[17];
	if (!(p = need(&r, i + 13))) {
		rc = h->err ? -1 : bad(h, i + 1, "the header is cut short");
		goto out;
	}
	h->idsize = be32(p + i + 1);
	if (h->idsize != 4 && h->idsize != 8) {
		rc = bad(h, i + 1, "an identifier size that is not 4 or 8");
		goto out;
	}
	r.pos = i + 13;
	for (;;) {
		rec = at(&r);
		if (!need(&r, 1))
			break;
		if (!(p = need(&r, 9))) {
			rc = cut_at(&r, rec);
			break;
		}
		tag = p[0];
		len = be32(p + 5);
		r.pos += 9;
		if ((tag == 0x0C || tag == 0x1C) && h->ended) {
			/* a second heap dump in the file: not read */
			if (skip(&r, len))
				rc = cut_at(&r, rec);
			h->later_dumps += !h->in_later && !h->probe;
			h->in_later = 1;
		} else if (tag == 0x0C || tag == 0x1C) {
			rc = heap_record(&r, len);
		} else if (tag == 0x2C) {
			h->ended = 1;
			h->in_later = 0;
			if (skip(&r, len))
				rc = cut_at(&r, rec);
		} else if (h->probe && tag != 0x0C && tag != 0x1C) {
			if (skip(&r, len))
				rc = cut_at(&r, rec);
		} else if (tag == 0x01 && len >= h->idsize) {
			if (len > RBUF) {
				/* a text longer than the buffer: its head */
				if (!(p = need(&r, RBUF / 2))) {
					rc = cut_at(&r, rec);
					break;
				}
				rc = text_keep(h, rid(h, p), p + h->idsize,
				               RBUF / 2 - h->idsize);
				if (!rc && skip(&r, len))
					rc = cut_at(&r, rec);
			} else if (!(p = need(&r, (size_t)len))) {
				rc = cut_at(&r, rec);
			} else {
				rc = text_keep(h, rid(h, p), p + h->idsize,
				               (uint32_t)(len - h->idsize));
				r.pos += (size_t)len;
			}
		} else if (tag == 0x02 && len >= 8 + 2 * h->idsize) {
			if (!(p = need(&r, (size_t)(8 + 2 * h->idsize))))
				rc = cut_at(&r, rec);
			else
				rc = load_class(h, p);
			if (!rc && skip(&r, len))
				rc = cut_at(&r, rec);
		} else if (skip(&r, len)) {
			rc = cut_at(&r, rec);
		}
		if (rc)
			break;
	}
	h->in_off = at(&r);
	if (rc == -2) {
		if (!salvage) {
			h->err_off = h->cut_off;
			rc = bad(h, h->cut_off, "the dump ends inside a record "
			         "(--salvage reads what came before it)");
			goto out;
		}
		rc = 0;
	}
	if (!rc && !h->err && !h->probe)
		rc = undefer(h);
	else if (h->err)
		rc = -1;
out:
	free(r.buf);
	if (!rc && !h->probe) {
		uint32_t off = (uint32_t)h->nedge;
		if (big_put(&h->off, &off, 4))
			rc = nomem(h);
	}
	return rc;
}

int heap_probe(struct heap *h, const struct heap_src *src, struct step *s,
               size_t n)
{
	int rc;

	h->probe = s;
	h->nprobe = n;
	rc = heap_load(h, src, 1);
	h->probe = NULL;
	h->nprobe = 0;
	return rc;
}
