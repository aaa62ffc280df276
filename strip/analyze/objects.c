/*
 * What the dump's read (load.c) keeps, in the arrays of heap.h: the
 * class table and the STRING texts (hashed by id, linear probing), each
 * object with its size and kind, the references an instance has read
 * through its class chain's flattened field layout (an instance whose
 * chain is not complete yet waits to the end of the dump), and, on the
 * second read that names a path's steps, the field each step is.
 */
#include "load.h"

#include <errno.h>
#include <stdlib.h>

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

int heap_nomem(struct heap *h)
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
		return heap_nomem(h);
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
uint32_t heap_class_get(struct heap *h, uint64_t id)
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
		heap_nomem(h);
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
		return heap_nomem(h);
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
int heap_text_keep(struct heap *h, uint64_t id, const unsigned char *t,
                   uint32_t n)
{
	uint64_t s, o, got, at = h->text.len + 1;
	uint32_t z = 0;

	if ((h->nstr + 1) * 2 > h->str_slots && str_rehash(h))
		return -1;
	if (big_put(&h->text, &id, 8) || big_put(&h->text, &n, 4) ||
	    big_put(&h->text, t, n) || big_put(&h->text, &z, 1))
		return heap_nomem(h);
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
uint32_t heap_obj_add(struct heap *h, uint64_t id, uint64_t size,
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
		heap_nomem(h);
		return HEAP_NONE;
	}
	if (size > UINT32_MAX) {
		uint64_t pair[2] = { h->n, size };
		if (big_put(&h->hugesz, pair, 16)) {
			heap_nomem(h);
			return HEAP_NONE;
		}
		h->huge++;
	}
	h->shallow_total += size;
	return h->n++;
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
					return heap_nomem(h);
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
				return heap_nomem(h);
			h->nwatched++;
		}
	}
	return 0;
}

/* ---- the second read: what each step of a path is ----------------------- */

/* the first step from id, or NULL */
struct step *heap_probe_find(const struct heap *h, uint64_t id)
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
	struct step *s = heap_probe_find(h, id), *e = h->probe + h->nprobe;
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
int heap_instance(struct heap *h, uint64_t id, uint64_t cid,
                  const unsigned char *v, uint32_t len)
{
	uint32_t c, obj;
	int rc;

	if (h->probe) {
		probe_instance(h, id, cid, v, len);
		return 0;
	}
	c = heap_class_get(h, cid);
	if (c == HEAP_NONE)
		return -1;
	rc = flatten(h, c);
	if (rc < 0)
		return -1;
	if (rc == 1) {
		uint64_t pair[2] = { id, cid };
		if (big_put(&h->defer, &len, 4) ||
		    big_put(&h->defer, pair, 16) || big_put(&h->defer, v, len))
			return heap_nomem(h);
		h->deferred++;
		return 0;
	}
	obj = heap_obj_add(h, id, inst_size(h, c, len), OBJ_INSTANCE, c);
	if (obj == HEAP_NONE || edge_add(h, h->strong ? 0 : cid))
		return -1;
	return instance_edges(h, obj, c, v, len);
}

/* The instances deferred: their chains complete now, or never. */
int heap_undefer(struct heap *h)
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
		obj = heap_obj_add(h, pair[0], inst_size(h, c, len),
		                   OBJ_INSTANCE, heap_class_get(h, pair[1]));
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
