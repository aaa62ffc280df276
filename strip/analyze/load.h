/*
 * Between the two halves of the dump's one read: load.c reads the bytes
 * (the records, the sub-records, each class dump's field list), and
 * objects.c keeps what they say (the class and string tables, each
 * object and its references, an instance read through its class chain,
 * the second read's steps). Not for the rest of the analysis: heap.h is.
 */
#ifndef HPROFSTRIP_ANALYZE_LOAD_H
#define HPROFSTRIP_ANALYZE_LOAD_H

#include "heap.h"

#include <stdio.h>
#include <string.h>

/* ENOMEM (or the pool's error) in h->err, the first one kept: -1 */
int heap_nomem(struct heap *h);
/* The class of id, made if new: its index, HEAP_NONE (no memory). */
uint32_t heap_class_get(struct heap *h, uint64_t id);
/* a STRING record's text: a later one of the same id wins */
int heap_text_keep(struct heap *h, uint64_t id, const unsigned char *t,
                   uint32_t n);
/* A new object, its references to follow: its index, or HEAP_NONE. */
uint32_t heap_obj_add(struct heap *h, uint64_t id, uint64_t size,
                      unsigned kind, uint32_t cls);
/* the second read's first step from id, or NULL */
struct step *heap_probe_find(const struct heap *h, uint64_t id);
/* An instance: now when its class chain is known, else deferred to the
 * end of the dump (heap_undefer). */
int heap_instance(struct heap *h, uint64_t id, uint64_t cid,
                  const unsigned char *v, uint32_t len);
int heap_undefer(struct heap *h);

static inline uint32_t be32(const unsigned char *p)
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

/* a reference of the object last added, to id to (0: none) */
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
		return heap_nomem(h);
	h->nedge++;
	return 0;
}

#endif
