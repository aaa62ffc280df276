/* The dominator tree and retained sizes: see dom.h. */
#include "dom.h"

#include <stdlib.h>
#include <string.h>

uint64_t heap_size_of(const struct heap *h, uint32_t i)
{
	uint32_t s = H_SIZE(h)[i];
	const uint64_t *p = h->hugesz.p;
	uint64_t j;

	if (s != UINT32_MAX)
		return s;
	for (j = 0; j < h->hugesz.len / 16; j++)
		if (p[2 * j] == i)
			return p[2 * j + 1];
	return s;
}

static int zeroed(struct big *b, size_t bytes)
{
	if (big_reserve(b, bytes ? bytes : 1))
		return -1;
	memset(b->p, 0, bytes);
	b->len = bytes;
	return 0;
}

/* object v's successor number j of *deg (its references, then a
 * thread's frames'): the object, or HEAP_NONE past the end */
static uint32_t succ_at(const struct heap *h, uint32_t v, uint32_t j,
                        uint64_t xa, uint64_t xb)
{
	uint32_t a = H_OFF(h)[v], b = H_OFF(h)[v + 1];

	if (j < b - a)
		return H_EDGE(h)[a + j];
	j -= b - a;
	if (xa + j < xb)
		return ((const uint32_t *)h->xedge.p)[2 * (xa + j) + 1];
	return HEAP_NONE;
}

/* The depth-first preorder from the roots: pre, vert and the tree's
 * parents (par). */
static int dfs(struct dom *d, const struct heap *h, struct big *par)
{
	struct big cur, stack;
	const struct root *r = H_ROOTS(h);
	uint32_t *pre, num = 0, t, v, w;
	uint64_t i, xa = 0, xb = 0;
	const uint8_t *kind = H_KIND(h);
	int rc = -1;

	big_init(&cur, h->pool);
	big_init(&stack, h->pool);
	if (zeroed(&d->pre, (size_t)h->n * 4))
		return -1;
	pre = D_PRE(d);
	/* number 0: the virtual root */
	w = HEAP_NONE;
	if (big_put(&d->vert, &w, 4) || big_put(par, &num, 4) ||
	    big_put(&cur, &num, 4))
		goto out;
	for (i = 0; i < h->nroots; i++) {
		uint32_t o = (uint32_t)r[i].id, zero = 0;
		if (pre[o])
			continue;
		pre[o] = ++num;
		if (big_put(&d->vert, &o, 4) || big_put(par, &zero, 4) ||
		    big_put(&cur, &zero, 4) || big_put(&stack, &num, 4))
			goto out;
		while (stack.len) {
			t = ((uint32_t *)stack.p)[stack.len / 4 - 1];
			v = D_VERT(d)[t];
			if (kind[v] & KIND_XEDGES)
				heap_xedges(h, v, &xa, &xb);
			else
				xa = xb = 0;
			for (;;) {
				w = succ_at(h, v, ((uint32_t *)cur.p)[t]++, xa, xb);
				if (w == HEAP_NONE || (!pre[w] &&
				    !(kind[w] & KIND_ROOT)))
					break;
			}
			if (w == HEAP_NONE) {
				stack.len -= 4;
				continue;
			}
			pre[w] = ++num;
			if (big_put(&d->vert, &w, 4) || big_put(par, &t, 4) ||
			    big_put(&cur, &zero, 4) || big_put(&stack, &num, 4))
				goto out;
		}
	}
	d->k = num;
	rc = 0;
out:
	big_free(&cur);
	big_free(&stack);
	return rc;
}

/* Each number's predecessors, by number: pred[poff[t], poff[t + 1]). */
static int preds(const struct dom *d, const struct heap *h, struct big *poff,
                 struct big *pred)
{
	const uint32_t *pre = D_PRE(d), *vert = D_VERT(d);
	uint32_t *po, *pr, t, k = d->k;
	uint64_t sum = 0;

	if (zeroed(poff, ((size_t)k + 2) * 4))
		return -1;
	po = poff->p;
	for (t = 1; t <= k; t++) {
		uint32_t v = vert[t];
		if (H_KIND(h)[v] & KIND_ROOT)
			po[t + 1]++;   /* from the virtual root */
		FOR_SUCC(h, v, w, { po[pre[w] + 1]++; });
	}
	for (t = 0; t <= k; t++) {
		sum += po[t + 1];
		po[t + 1] = (uint32_t)sum;
	}
	if (zeroed(pred, (size_t)sum * 4 + 4))
		return -1;
	pr = pred->p;
	/* filled with po[t] as t's cursor, then put back */
	for (t = 1; t <= k; t++) {
		uint32_t v = vert[t];
		if (H_KIND(h)[v] & KIND_ROOT)
			pr[po[t]++] = 0;
		FOR_SUCC(h, v, w, { pr[po[pre[w]]++] = t; });
	}
	for (t = k + 1; t > 0; t--)
		po[t] = po[t - 1];
	po[0] = 0;
	return 0;
}

/* Lengauer and Tarjan's eval with path compression, as Semi-NCA uses
 * it: the number of least semidominator on the tree path to v among the
 * numbers linked (>= last). anc holds the tree's parents, compressed. */
static uint32_t eval(uint32_t *anc, uint32_t *label, const uint32_t *semi,
                     uint32_t v, uint32_t last, struct big *stack)
{
	uint32_t p, pl, u;

	if (anc[v] < last)
		return label[v];
	stack->len = 0;
	do {
		if (big_put(stack, &v, 4))
			return HEAP_NONE;
		v = anc[v];
	} while (anc[v] >= last);
	p = v;
	pl = label[p];
	while (stack->len) {
		stack->len -= 4;
		u = ((uint32_t *)stack->p)[stack->len / 4];
		anc[u] = anc[p];
		if (semi[pl] < semi[label[u]])
			label[u] = pl;
		else
			pl = label[u];
		p = u;
	}
	return label[p];
}

int dom_compute(struct dom *d, struct heap *h)
{
	struct big par, poff, pred, label, semi, stack;
	uint32_t *anc, *lab, *sem, *idom, *po, *pr, t, k, u;
	uint64_t j, *ret;
	uint32_t *cnt;
	int rc = -1;

	memset(d, 0, sizeof *d);
	big_init(&d->pre, h->pool);
	big_init(&d->vert, h->pool);
	big_init(&d->idom, h->pool);
	big_init(&d->ret, h->pool);
	big_init(&d->cnt, h->pool);
	big_init(&d->foff, h->pool);
	big_init(&d->fwd, h->pool);
	big_init(&par, h->pool);
	big_init(&poff, h->pool);
	big_init(&pred, h->pool);
	big_init(&label, h->pool);
	big_init(&semi, h->pool);
	big_init(&stack, h->pool);
	if (dfs(d, h, &par))
		goto out;
	big_trim(&d->vert);
	big_trim(&par);
	k = d->k;
	if (preds(d, h, &poff, &pred))
		goto out;
	/* every reference that counts is in the predecessor lists now: the
	   heap's are given back, and so are the objects' numbers (vert
	   maps numbers to objects; the report needs no way back) */
	big_free(&h->edge);
	big_free(&h->off);
	big_free(&d->pre);
	if (big_reserve(&d->idom, ((size_t)k + 1) * 4) ||
	    big_reserve(&label, ((size_t)k + 1) * 4) ||
	    big_reserve(&semi, ((size_t)k + 1) * 4))
		goto out;
	d->idom.len = label.len = semi.len = ((size_t)k + 1) * 4;
	anc = par.p;
	idom = D_IDOM(d);
	lab = label.p;
	sem = semi.p;
	po = poff.p;
	pr = pred.p;
	memcpy(idom, anc, ((size_t)k + 1) * 4);
	for (t = 0; t <= k; t++)
		lab[t] = sem[t] = t;
	/* semidominators, from the last number down */
	for (t = k; t >= 1; t--) {
		uint32_t s = anc[t];
		for (j = po[t]; j < po[t + 1]; j++) {
			u = eval(anc, lab, sem, pr[j], t + 1, &stack);
			if (u == HEAP_NONE)
				goto out;
			if (sem[u] < s)
				s = sem[u];
		}
		sem[t] = s;
	}
	big_free(&label);
	big_free(&par);
	big_free(&stack);
	/* immediate dominators: the nearest common ancestor of the tree
	   parent and the semidominator, up the dominators found so far */
	for (t = 1; t <= k; t++) {
		u = idom[t];
		while (u > sem[t])
			u = idom[u];
		idom[t] = u;
	}
	big_free(&semi);
	/* the references forward again, by number, from the predecessor
	   lists (the virtual root's aside), for the report's paths */
	if (zeroed(&d->foff, ((size_t)k + 2) * 4))
		goto out;
	{
		uint32_t *fo = d->foff.p, *fw, s;
		uint64_t sum = 0;
		for (j = 0; j < po[k + 1]; j++)
			if (pr[j])
				fo[pr[j] + 1]++;
		for (t = 0; t <= k; t++) {
			sum += fo[t + 1];
			fo[t + 1] = (uint32_t)sum;
		}
		if (big_reserve(&d->fwd, (size_t)sum * 4 + 4))
			goto out;
		d->fwd.len = (size_t)sum * 4;
		fw = d->fwd.p;
		for (t = 1; t <= k; t++)
			for (j = po[t]; j < po[t + 1]; j++)
				if ((s = pr[j]) != 0)
					fw[fo[s]++] = t;
		for (t = k + 1; t > 0; t--)
			fo[t] = fo[t - 1];
		fo[0] = 0;
	}
	big_free(&pred);
	big_free(&poff);
	/* retained: each object's own, then up to its dominator */
	if (zeroed(&d->ret, ((size_t)k + 1) * 8) ||
	    zeroed(&d->cnt, ((size_t)k + 1) * 4))
		goto out;
	ret = D_RET(d);
	cnt = D_CNT(d);
	for (t = k; t >= 1; t--) {
		uint64_t s = heap_size_of(h, D_VERT(d)[t]);
		d->reach_bytes += s;
		ret[t] += s;
		cnt[t] += 1;
		ret[idom[t]] += ret[t];
		cnt[idom[t]] += cnt[t];
	}
	rc = 0;
out:
	big_free(&par);
	big_free(&poff);
	big_free(&pred);
	big_free(&label);
	big_free(&semi);
	big_free(&stack);
	return rc;
}

void dom_free(struct dom *d)
{
	big_free(&d->foff);
	big_free(&d->fwd);
	big_free(&d->pre);
	big_free(&d->vert);
	big_free(&d->idom);
	big_free(&d->ret);
	big_free(&d->cnt);
}

/* ---- numbers by id: a natural merge sort (a heap walk's ids come in
   long ascending runs) ------------------------------------------------- */

int dom_by_id(const struct dom *d, const struct heap *h, struct big *order)
{
	struct big tmp;
	const uint64_t *id = H_ID(h);
	const uint32_t *vert = D_VERT(d);
	uint32_t *a, *b, *s, k = d->k, t;

	big_init(&tmp, h->pool);
	if (big_reserve(order, (size_t)k * 4 + 4) ||
	    big_reserve(&tmp, (size_t)k * 4 + 4)) {
		big_free(&tmp);
		return -1;
	}
	order->len = (size_t)k * 4;
	a = order->p;
	b = tmp.p;
	for (t = 0; t < k; t++)
		a[t] = t + 1;
	/* merge runs until one is left */
	for (;;) {
		size_t i = 0, o = 0, runs = 0;
		while (i < k) {
			size_t m = i + 1, e;
			while (m < k && id[vert[a[m - 1]]] <= id[vert[a[m]]])
				m++;
			e = m;
			if (m < k) {
				e = m + 1;
				while (e < k && id[vert[a[e - 1]]] <= id[vert[a[e]]])
					e++;
			}
			size_t x = i, y = m;
			while (x < m && y < e)
				b[o++] = id[vert[a[y]]] < id[vert[a[x]]] ? a[y++]
				                                         : a[x++];
			while (x < m)
				b[o++] = a[x++];
			while (y < e)
				b[o++] = a[y++];
			i = e;
			runs++;
		}
		s = a, a = b, b = s;
		if (runs <= 1)
			break;
	}
	if (a != order->p)
		memcpy(order->p, a, (size_t)k * 4);
	big_free(&tmp);
	return 0;
}
