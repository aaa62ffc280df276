/*
 * The dominator tree of a resolved heap (heap.h), and every reachable
 * object's retained bytes and objects (dom.c). Objects are numbered in a
 * depth-first preorder from a virtual root (0) whose children are the GC
 * roots; every GC root's immediate dominator is the virtual root, as in
 * Eclipse MAT (an edge into a root changes no other object's dominator).
 * The computation is Semi-NCA (semidominators by Lengauer and Tarjan's
 * evaluation with path compression, then each immediate dominator as the
 * nearest common ancestor), iterative throughout: a chain of millions of
 * objects needs no deep recursion.
 *
 * Memory, per reachable object: 4 its object, 4 its dominator, 12 its
 * retained bytes and count, 4 its references' offset and 4 a reference.
 * While computing: the tree parent, semidominator and label (4 each) and
 * the predecessor lists (4 an object and 4 a reference), once the heap's
 * references and the numbers are given back (their peak: while the lists
 * are built, both).
 */
#ifndef HPROFSTRIP_ANALYZE_DOM_H
#define HPROFSTRIP_ANALYZE_DOM_H

#include "heap.h"

struct dom {
	uint32_t k;            /* reachable objects, numbered 1..k */
	struct big pre;        /* uint32_t[n]: object -> number, 0: not
	                          reachable; given back once the
	                          predecessor lists are built */
	struct big vert;       /* uint32_t[k + 1]: number -> object */
	struct big idom;       /* uint32_t[k + 1]: number -> its immediate
	                          dominator's number, 0: the virtual root */
	struct big ret;        /* uint64_t[k + 1]: retained bytes */
	struct big cnt;        /* uint32_t[k + 1]: retained objects */
	struct big foff, fwd;  /* the references between reachable objects,
	                          by number: t's are fwd[foff[t], foff[t + 1])
	                          (none into a root) */
	uint64_t reach_bytes;  /* the reachable objects' shallow bytes */
};

#define D_PRE(d) ((uint32_t *)(d)->pre.p)
#define D_VERT(d) ((uint32_t *)(d)->vert.p)
#define D_IDOM(d) ((uint32_t *)(d)->idom.p)
#define D_RET(d) ((uint64_t *)(d)->ret.p)
#define D_CNT(d) ((uint32_t *)(d)->cnt.p)
#define D_FOFF(d) ((uint32_t *)(d)->foff.p)
#define D_FWD(d) ((uint32_t *)(d)->fwd.p)

/* 0, or -1: no memory (h->pool->err). The heap's references (h->edge,
 * h->off) are given back on the way: afterwards they are d's, by number
 * (foff, fwd). */
int dom_compute(struct dom *d, struct heap *h);
void dom_free(struct dom *d);
/* the numbers 1..k in the order of their objects' ids, into order
 * (uint32_t[k]): 0 or -1 */
int dom_by_id(const struct dom *d, const struct heap *h, struct big *order);
/* object i's shallow bytes */
uint64_t heap_size_of(const struct heap *h, uint32_t i);

/* For each successor w of object v in the graph the dominators are
 * computed on (heap's references, a thread's frames', none into a GC
 * root): the body, with w set. */
#define FOR_SUCC(h, v, w, body)                                          \
	do {                                                             \
		const uint32_t *e_ = H_EDGE(h);                          \
		const uint8_t *k_ = H_KIND(h);                           \
		uint64_t a_ = H_OFF(h)[v], b_ = H_OFF(h)[(v) + 1];       \
		for (int pass_ = 0; pass_ < 2; pass_++) {                \
			if (pass_) {                                     \
				if (!(k_[v] & KIND_XEDGES))              \
					break;                           \
				heap_xedges(h, v, &a_, &b_);             \
			}                                                \
			for (uint64_t j_ = a_; j_ < b_; j_++) {          \
				uint32_t w = pass_ ? ((const uint32_t *) \
				     (h)->xedge.p)[2 * j_ + 1] : e_[j_]; \
				if (k_[w] & KIND_ROOT)                   \
					continue;                        \
				body                                     \
			}                                                \
		}                                                        \
	} while (0)

#endif
