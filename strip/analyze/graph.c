/*
 * The graph made whole (heap.h): ids to indices, the GC roots, and the
 * class names. Eclipse MAT's rules for roots (--strong: ahat's, which
 * keeps every root as it is):
 *   - a Java frame, JNI local, native stack or thread block root whose
 *     thread is known (its THREAD_OBJECT root's serial) is a reference
 *     from that thread's object, not a root;
 *   - a dump without a sticky class root makes every class of the
 *     bootstrap loader (loader id 0) a root, arrays' classes aside.
 * A reference to an id that no object of the dump has is dropped, as MAT
 * drops it; of two objects of one id the first is the object.
 */
#include "heap.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void heap_init(struct heap *h, struct big_pool *pool)
{
	unsigned t;

	memset(h, 0, sizeof *h);
	h->pool = pool;
	big_init(&h->id, pool);
	big_init(&h->size, pool);
	big_init(&h->kind, pool);
	big_init(&h->ocls, pool);
	big_init(&h->off, pool);
	big_init(&h->edge, pool);
	big_init(&h->xedge, pool);
	big_init(&h->roots, pool);
	big_init(&h->cls, pool);
	big_init(&h->fields, pool);
	big_init(&h->flat, pool);
	big_init(&h->text, pool);
	big_init(&h->defer, pool);
	big_init(&h->watched, pool);
	big_init(&h->hugesz, pool);
	big_init(&h->oslot, pool);
	for (t = 0; t < 12; t++)
		h->prim_class[t] = HEAP_NONE;
	h->class_class = HEAP_NONE;
}

void heap_free(struct heap *h)
{
	big_free(&h->id);
	big_free(&h->size);
	big_free(&h->kind);
	big_free(&h->ocls);
	big_free(&h->off);
	big_free(&h->edge);
	big_free(&h->xedge);
	big_free(&h->roots);
	big_free(&h->cls);
	big_free(&h->fields);
	big_free(&h->flat);
	big_free(&h->text);
	big_free(&h->defer);
	big_free(&h->watched);
	big_free(&h->hugesz);
	free(h->cls_slot);
	free(h->str_slot);
	big_free(&h->oslot);
	h->cls_slot = NULL;
	h->str_slot = NULL;
	h->obj_slot = NULL;
}

static inline uint32_t hash_id(uint64_t id)
{
	return (uint32_t)((id * 0x9E3779B97F4A7C15u) >> 32);
}

/* ---- ids to objects ----------------------------------------------------- */

static inline uint64_t slot_of(uint64_t id, uint64_t m)
{
	return (hash_id(id) | (uint64_t)hash_id(id ^ (id >> 29)) << 32) & m;
}

/* the object of id, HEAP_NONE if none (h->obj_slot built) */
uint32_t heap_obj(const struct heap *h, uint64_t id)
{
	const uint64_t *ids = H_ID(h);
	uint64_t m = h->obj_slots - 1, s;
	uint32_t i;

	if (!h->obj_slots)
		return HEAP_NONE;
	for (s = slot_of(id, m);
	     (i = h->obj_slot[s]) != 0; s = (s + 1) & m)
		if (ids[i - 1] == id)
			return i - 1;
	return HEAP_NONE;
}

static int obj_index(struct heap *h)
{
	const uint64_t *ids = H_ID(h);
	uint64_t n = 1024, m, s;
	uint32_t i, j;

	while (n < (uint64_t)h->n + h->n / 3 + 1)
		n *= 2;
	if (big_reserve(&h->oslot, n * sizeof *h->obj_slot))
		return -1;
	h->obj_slot = h->oslot.p;
	memset(h->obj_slot, 0, n * sizeof *h->obj_slot);
	h->obj_slots = n;
	m = n - 1;
	for (i = 0; i < h->n; i++) {
		uint64_t id = ids[i];
		for (s = (hash_id(id) | (uint64_t)hash_id(id ^ (id >> 29)) << 32) & m;
		     (j = h->obj_slot[s]) != 0; s = (s + 1) & m)
			if (ids[j - 1] == id)
				break;
		if (j) {
			h->duplicates++;
			continue;
		}
		h->obj_slot[s] = i + 1;
	}
	return 0;
}

void heap_index_free(struct heap *h)
{
	big_free(&h->oslot);
	h->obj_slot = NULL;
	h->obj_slots = 0;
}

/* ---- roots -------------------------------------------------------------- */

struct serial {
	uint32_t serial, obj;
};

static int by_serial(const void *a, const void *b)
{
	const struct serial *x = a, *y = b;
	return x->serial < y->serial ? -1 : x->serial > y->serial;
}

static int by_pair(const void *a, const void *b)
{
	const uint32_t *x = a, *y = b;
	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	return x[1] < y[1] ? -1 : x[1] > y[1];
}

static int class_is_array(const struct heap *h, uint32_t c)
{
	uint32_t n;
	const char *t = heap_text(h, H_CLS(h)[c].name, &n);

	return t && n && (t[0] == '[' || (n > 2 && t[n - 1] == ']'));
}

static int roots_resolve(struct heap *h)
{
	struct root *r = H_ROOTS(h);
	struct serial *th = NULL, *hit;
	uint64_t i, nth = 0, kept = 0, sticky = 0;
	uint32_t o, pair[2];
	uint8_t *kind = H_KIND(h);

	for (i = 0; i < h->nroots; i++)
		if (r[i].kind == ROOT_THREAD_OBJECT)
			nth++;
		else if (r[i].kind == ROOT_STICKY_CLASS)
			sticky++;
	if (nth && !h->strong) {
		th = malloc(nth * sizeof *th);
		if (!th)
			return -1;
		nth = 0;
		for (i = 0; i < h->nroots; i++)
			if (r[i].kind == ROOT_THREAD_OBJECT && r[i].thread &&
			    (o = heap_obj(h, r[i].id)) != HEAP_NONE) {
				th[nth].serial = r[i].thread;
				th[nth++].obj = o;
			}
		qsort(th, nth, sizeof *th, by_serial);
	}
	for (i = 0; i < h->nroots; i++) {
		struct root rt = r[i];
		o = heap_obj(h, rt.id);
		if (o == HEAP_NONE) {
			h->dangling_roots++;
			continue;
		}
		if (th && rt.thread && (rt.kind == ROOT_JAVA_FRAME ||
		    rt.kind == ROOT_JNI_LOCAL || rt.kind == ROOT_NATIVE_STACK ||
		    rt.kind == ROOT_THREAD_BLOCK)) {
			struct serial key = { .serial = rt.thread };
			hit = bsearch(&key, th, nth, sizeof *th, by_serial);
			if (hit) {
				/* a reference from its thread */
				pair[0] = hit->obj;
				pair[1] = o;
				if (big_put(&h->xedge, pair, 8)) {
					free(th);
					return -1;
				}
				kind[hit->obj] |= KIND_XEDGES;
				continue;
			}
		}
		rt.id = o;
		r[kept++] = rt;
		kind[o] |= KIND_ROOT;
	}
	free(th);
	/* MAT: no sticky class root, every bootstrap class is a root */
	if (!sticky && !h->strong)
		for (uint32_t c = 0; c < h->ncls; c++) {
			const struct hclass *k = &H_CLS(h)[c];
			struct root rt;
			if (k->obj == HEAP_NONE || k->loader ||
			    class_is_array(h, c))
				continue;
			rt.id = k->obj;
			rt.kind = ROOT_SYSTEM_CLASS;
			rt.thread = 0;
			if (kept < h->nroots) {
				r[kept++] = rt;
			} else {
				h->roots.len = kept * sizeof rt;
				if (big_put(&h->roots, &rt, sizeof rt))
					return -1;
				r = H_ROOTS(h);
				kept++;
			}
			H_KIND(h)[k->obj] |= KIND_ROOT;
		}
	h->nroots = kept;
	h->roots.len = kept * sizeof *r;
	h->nxedge = h->xedge.len / 8;
	if (h->nxedge)
		qsort(h->xedge.p, h->nxedge, 8, by_pair);
	return 0;
}

/* thread i's references from its stack frames: [*a, *b) in xedge pairs */
void heap_xedges(const struct heap *h, uint32_t i, uint64_t *a, uint64_t *b)
{
	const uint32_t *x = h->xedge.p;
	uint64_t lo = 0, hi = h->nxedge, mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (x[2 * mid] < i)
			lo = mid + 1;
		else
			hi = mid;
	}
	*a = lo;
	while (lo < h->nxedge && x[2 * lo] == i)
		lo++;
	*b = lo;
}

int heap_resolve(struct heap *h)
{
	uint64_t *e64 = h->edge.p;
	uint32_t *e32 = h->edge.p, *off = H_OFF(h), i, to;
	uint64_t r, w = 0, end;

	if (obj_index(h) || roots_resolve(h))
		return -1;
	/* in place: the 4-byte index of each 8-byte id is written at or
	   before the id it replaces */
	/* the lookups are independent: each slot is fetched 16 references
	   ahead, and the id it names 8 ahead, so that the cache misses
	   overlap */
	uint64_t total = h->nedge, m = h->obj_slots - 1;
	const uint64_t *ids = H_ID(h);
	for (i = 0; i < h->n; i++) {
		r = off[i];
		end = off[i + 1];
		off[i] = (uint32_t)w;
		for (; r < end; r++) {
			if (r + 16 < total)
				__builtin_prefetch(&h->obj_slot[slot_of(e64[r + 16], m)]);
			if (r + 8 < total) {
				uint32_t s8 = h->obj_slot[slot_of(e64[r + 8], m)];
				if (s8)
					__builtin_prefetch(&ids[s8 - 1]);
			}
			to = heap_obj(h, e64[r]);
			if (to == HEAP_NONE)
				h->dangling++;
			else
				e32[w++] = to;
		}
	}
	off[h->n] = (uint32_t)w;
	h->nedge = w;
	h->edge.len = w * 4;
	big_trim(&h->edge);
	heap_index_free(h);
	return 0;
}

/* ---- names -------------------------------------------------------------- */

static const char *const prim_name[12] = { 0, 0, 0, 0, "boolean", "char",
	"float", "double", "byte", "short", "int", "long" };

/* A JVM descriptor's element ("Ljava/lang/String;", "I") as source. */
static size_t element(const char *t, uint32_t n, char *buf, size_t cap)
{
	size_t k = 0;
	uint32_t i;

	if (n == 1) {
		static const char codes[] = "ZCFDBSIJ";
		const char *c = memchr(codes, t[0], 8);
		if (c)
			return (size_t)snprintf(buf, cap, "%s",
			                        prim_name[4 + (c - codes)]);
	}
	if (n >= 2 && t[0] == 'L' && t[n - 1] == ';')
		t++, n -= 2;
	for (i = 0; i < n && k + 1 < cap; i++)
		buf[k++] = t[i] == '/' ? '.' : t[i];
	buf[k] = 0;
	return k;
}

const char *heap_class_name(const struct heap *h, uint32_t c, char *buf,
                            size_t cap)
{
	uint32_t n, dims = 0;
	const char *t = c == HEAP_NONE ? NULL
	                : heap_text(h, H_CLS(h)[c].name, &n);
	size_t k;

	if (!t) {
		snprintf(buf, cap, "<class 0x%llx>", c == HEAP_NONE ? 0ULL
		         : (unsigned long long)H_CLS(h)[c].id);
		return buf;
	}
	while (dims < n && t[dims] == '[')
		dims++;
	if (!dims) {
		element(t, n, buf, cap);
		return buf;
	}
	k = element(t + dims, n - dims, buf, cap);
	while (dims-- && k + 3 <= cap) {
		buf[k++] = '[';
		buf[k++] = ']';
		buf[k] = 0;
	}
	return buf;
}

const char *heap_obj_class_name(const struct heap *h, uint32_t i, char *buf,
                                size_t cap)
{
	uint8_t k = H_KIND(h)[i];

	if ((k & 3) == OBJ_PRIM && H_OCLS(h)[i] == HEAP_NONE) {
		snprintf(buf, cap, "%s[]", prim_name[(k >> 2) & 15]
		                           ? prim_name[(k >> 2) & 15] : "?");
		return buf;
	}
	if ((k & 3) == OBJ_CLASS) {
		snprintf(buf, cap, "java.lang.Class");
		return buf;
	}
	return heap_class_name(h, H_OCLS(h)[i], buf, cap);
}
