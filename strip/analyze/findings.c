/*
 * What hprofstrip --suspects' report says, found (report.h): the
 * dominator tree's children, the shortest paths from the GC roots (a
 * breadth-first search over the references the dominators were computed
 * on) and each step's name from a second read, each biggest object's
 * accumulation point (Eclipse MAT's rule) and what it fans out into, the
 * retained bytes by class (each object under its nearest dominator of
 * its own class: VisualVM's getRetainedSizeByClass), and the watched
 * Android objects' numbers.
 */
#include "report.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int rep_pool_fail(struct rep *r)
{
	errno = r->h->pool->err ? r->h->pool->err : ENOMEM;
	return -1;
}

/* ---- the dominator tree's children -------------------------------------- */

int rep_children(struct rep *r)
{
	struct dom *d = r->d;
	const uint32_t *idom = D_IDOM(d);
	uint32_t *co, *c, t, k = d->k;

	if (big_reserve(&r->choff, ((size_t)k + 2) * 4) ||
	    big_reserve(&r->ch, (size_t)k * 4 + 4))
		return rep_pool_fail(r);
	co = r->choff.p;
	c = r->ch.p;
	memset(co, 0, ((size_t)k + 2) * 4);
	for (t = 1; t <= k; t++)
		co[idom[t] + 1]++;
	for (t = 0; t <= k; t++)
		co[t + 1] += co[t];
	for (t = 1; t <= k; t++)
		c[co[idom[t]]++] = t;
	for (t = k + 1; t > 0; t--)
		co[t] = co[t - 1];
	co[0] = 0;
	return 0;
}

/* ---- paths -------------------------------------------------------------- */

int rep_bfs(struct rep *r)
{
	const struct heap *h = r->h;
	const struct dom *d = r->d;
	const uint32_t *fo = D_FOFF(d), *fw = D_FWD(d);
	struct big q;
	uint32_t *par, *qu, t, k = d->k;
	size_t head = 0, tail = 0;

	big_init(&q, h->pool);
	if (big_reserve(&r->bfs, ((size_t)k + 1) * 4) ||
	    big_reserve(&q, ((size_t)k + 1) * 4)) {
		big_free(&q);
		return rep_pool_fail(r);
	}
	par = r->bfs.p;
	qu = q.p;
	memset(par, 0xFF, ((size_t)k + 1) * 4);
	/* the roots, in the order of the dump's root list (the order they
	   were numbered in: nothing but the virtual root leads to a root) */
	for (t = 1; t <= k; t++)
		if (H_KIND(h)[D_VERT(d)[t]] & KIND_ROOT) {
			par[t] = t;
			qu[tail++] = t;
		}
	while (head < tail) {
		uint32_t v = qu[head++], j;
		for (j = fo[v]; j < fo[v + 1]; j++)
			if (par[fw[j]] == HEAP_NONE) {
				par[fw[j]] = v;
				qu[tail++] = fw[j];
			}
	}
	big_free(&q);
	/* the references are not needed again */
	big_free(&r->d->foff);
	big_free(&r->d->fwd);
	return 0;
}

/* the objects (their numbers) of the path from a root to number o, root
 * first, into p (cap): how many there are (more than cap: the first and
 * last cap/2 kept) */
size_t rep_path_of(const struct rep *r, uint32_t o, uint32_t *p,
                   size_t cap)
{
	const uint32_t *par = r->bfs.p;
	size_t n = 0, i;
	uint32_t v;

	for (v = o; ; v = par[v]) {
		n++;
		if (par[v] == v || par[v] == HEAP_NONE)
			break;
	}
	/* the last cap/2 (the target's end), then the first cap/2 */
	i = 0;
	for (v = o; i < n; v = par[v], i++) {
		size_t at = n - 1 - i;   /* its place from the root */
		if (n <= cap)
			p[at] = v;
		else if (at >= n - cap / 2)
			p[cap - (n - at)] = v;
		else if (at < cap / 2)
			p[at] = v;
	}
	return n;
}

static int by_from(const void *a, const void *b)
{
	const struct step *x = a, *y = b;
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	return x->to < y->to ? -1 : x->to > y->to;
}

static int step_add(struct rep *r, uint32_t from, uint32_t to)
{
	struct step *s = realloc(r->steps, (r->nsteps + 1) * sizeof *s);

	if (!s)
		return -1;
	r->steps = s;
	memset(&s[r->nsteps], 0, sizeof *s);
	s[r->nsteps].from = H_ID(r->h)[from];
	s[r->nsteps].to = H_ID(r->h)[to];
	r->nsteps++;
	return 0;
}

/* every step of the paths to these objects, labelled by a second read
 * when the input can be read again */
int rep_label(struct rep *r, const uint32_t *targets, size_t n)
{
	uint32_t p[2 * PATH_ENDS];
	size_t i, j, len, m;
	struct heap_src src;

	for (i = 0; i < n; i++) {
		len = rep_path_of(r, targets[i], p, 2 * PATH_ENDS);
		m = len < 2 * PATH_ENDS ? len : 2 * PATH_ENDS;
		for (j = 0; j + 1 < m; j++)
			if ((len <= 2 * PATH_ENDS || j + 1 != PATH_ENDS) &&
			    step_add(r, D_VERT(r->d)[p[j]], D_VERT(r->d)[p[j + 1]]))
				return -1;
	}
	if (!r->nsteps)
		return 0;
	qsort(r->steps, r->nsteps, sizeof *r->steps, by_from);
	if (!r->io->again || r->io->again(r->io->again_user, &src))
		return 0;
	if (heap_probe(r->h, &src, r->steps, r->nsteps))
		return -1;
	r->labelled = 1;
	return 0;
}

const struct step *rep_step_of(const struct rep *r, uint32_t from,
                               uint32_t to)
{
	struct step key = { .from = H_ID(r->h)[from], .to = H_ID(r->h)[to] };

	return bsearch(&key, r->steps, r->nsteps, sizeof key, by_from);
}

/* is to one of thread from's frames' references? */
int rep_is_local(const struct heap *h, uint32_t from, uint32_t to)
{
	uint64_t a, b;

	if (!(H_KIND(h)[from] & KIND_XEDGES))
		return 0;
	heap_xedges(h, from, &a, &b);
	for (; a < b; a++)
		if (((const uint32_t *)h->xedge.p)[2 * a + 1] == to)
			return 1;
	return 0;
}

const char *rep_root_kind_of(const struct heap *h, uint32_t o)
{
	uint64_t i;

	for (i = 0; i < h->nroots; i++)
		if (H_ROOTS(h)[i].id == o)
			return root_kind_name[H_ROOTS(h)[i].kind];
	return "root";
}

/* ---- the accumulation point and its fan-out ----------------------------- */

static uint32_t biggest_child(const struct rep *r, uint32_t t)
{
	const uint32_t *co = CH_OFF(r), *c = CH(r);
	const uint64_t *ret = D_RET(r->d);
	uint32_t best = 0, i;

	for (i = co[t]; i < co[t + 1]; i++)
		if (!best || ret[c[i]] > ret[best])
			best = c[i];
	return best;
}

uint32_t rep_accumulation(const struct rep *r, uint32_t t)
{
	const uint64_t *ret = D_RET(r->d);
	uint32_t c;
	int depth;

	for (depth = 0; depth < 1000; depth++) {
		c = biggest_child(r, t);
		if (!c || (double)ret[c] < ACC_RATIO * (double)ret[t])
			break;
		t = c;
	}
	return t;
}

/* a class group: an object's class, java.lang.Class for class objects,
 * a primitive array's element type when its class is not in the dump */
static uint32_t group_of(const struct heap *h, uint32_t o)
{
	uint8_t k = H_KIND(h)[o];

	if ((k & 3) == OBJ_CLASS)
		return h->class_class != HEAP_NONE ? h->class_class : h->ncls;
	if (H_OCLS(h)[o] == HEAP_NONE)
		return h->ncls + 1 + ((k & 3) == OBJ_PRIM ? KIND_TYPE(k) : 0);
	return H_OCLS(h)[o];
}

const char *rep_group_name(const struct heap *h, uint32_t g, char *buf,
                           size_t cap)
{
	static const char *const prim[12] = { "<no class>", 0, 0, 0,
		"boolean[]", "char[]", "float[]", "double[]", "byte[]",
		"short[]", "int[]", "long[]" };

	if (g == h->ncls)
		snprintf(buf, cap, "java.lang.Class");
	else if (g > h->ncls)
		snprintf(buf, cap, "%s", prim[(g - h->ncls - 1) % 12]
		                         ? prim[(g - h->ncls - 1) % 12] : "?");
	else
		heap_class_name(h, g, buf, cap);
	return buf;
}

static int grp_by_bytes(const void *a, const void *b)
{
	const struct grp *x = a, *y = b;
	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	return x->g < y->g ? -1 : x->g > y->g;
}

/* t's dominated objects by class: the biggest rows into g (cap), how
 * many rows in all */
size_t rep_fanout(const struct rep *r, uint32_t t, struct grp *g,
                  size_t cap, uint64_t *rest_n, uint64_t *rest_b)
{
	const uint32_t *co = CH_OFF(r), *c = CH(r);
	size_t n = 0, i, j;
	struct grp *all = NULL, *more;

	*rest_n = *rest_b = 0;
	for (i = co[t]; i < co[t + 1]; i++) {
		uint32_t o = D_VERT(r->d)[c[i]], k = group_of(r->h, o);
		for (j = 0; j < n && all[j].g != k; j++)
			;
		if (j == n && n % 64 == 0) {  /* a new row, and no room */
			more = realloc(all, (n + 64) * sizeof *all);
			if (!more)
				break;
			all = more;
		}
		if (j == n) {
			memset(&all[n], 0, sizeof *all);
			all[n++].g = k;
		}
		all[j].n++;
		all[j].bytes += D_RET(r->d)[c[i]];
	}
	if (all)
		qsort(all, n, sizeof *all, grp_by_bytes);
	for (i = 0; i < n; i++) {
		if (i < cap)
			g[i] = all[i];
		else
			*rest_n += all[i].n, *rest_b += all[i].bytes;
	}
	free(all);
	return n;
}

/* ---- retained by class -------------------------------------------------- */

/* Each group's retained bytes: the objects with no dominator of their own
 * group above them. groups: ncls + 13 rows. */
struct grp *rep_by_class(struct rep *r, size_t *rows)
{
	const struct heap *h = r->h;
	size_t ng = (size_t)h->ncls + 13, top = 0;
	struct grp *g = calloc(ng, sizeof *g);
	uint32_t *active = calloc(ng, sizeof *active), *st;
	struct big stack;
	const uint32_t *co = CH_OFF(r), *c = CH(r);
	uint32_t i;

	big_init(&stack, h->pool);
	if (!g || !active || big_reserve(&stack, ((size_t)r->d->k + 1) * 4)) {
		free(g);
		free(active);
		big_free(&stack);
		return NULL;
	}
	st = stack.p;
	for (i = 0; i < ng; i++)
		g[i].g = i;
	/* the tree from the virtual root: t entering, ~t leaving */
	for (i = co[0]; i < co[1]; i++)
		st[top++] = c[i];
	while (top) {
		uint32_t t = st[--top];
		if (t & 0x80000000u) {
			uint32_t o = D_VERT(r->d)[t & 0x7FFFFFFFu];
			active[group_of(h, o)]--;
			continue;
		}
		uint32_t o = D_VERT(r->d)[t], k = group_of(h, o);
		g[k].n++;
		g[k].shallow += heap_size_of(h, o);
		if (!active[k]++)
			g[k].bytes += D_RET(r->d)[t];
		st[top++] = t | 0x80000000u;
		for (uint32_t j = co[t]; j < co[t + 1]; j++)
			st[top++] = c[j];
	}
	free(active);
	big_free(&stack);
	qsort(g, ng, sizeof *g, grp_by_bytes);
	for (*rows = 0; *rows < ng && g[*rows].n; (*rows)++)
		;
	return g;
}

/* the watched objects' numbers (r->wt), from one pass over the numbers:
 * the objects' own numbers were given back with the dominators */
static int by_u32(const void *a, const void *b)
{
	const uint32_t *x = a, *y = b;
	return *x < *y ? -1 : *x > *y;
}

int rep_watched_numbers(struct rep *r)
{
	const struct heap *h = r->h;
	const struct watched *w = h->watched.p;
	uint32_t *objs, *hit, t;
	uint64_t i, n = h->nwatched;

	r->wt = calloc(n + 1, sizeof *r->wt);
	objs = malloc((n + 1) * 2 * sizeof *objs);
	if (!r->wt || !objs) {
		free(objs);
		return -1;
	}
	for (i = 0; i < n; i++) {
		objs[2 * i] = w[i].obj;
		objs[2 * i + 1] = 0;
	}
	qsort(objs, n, 2 * sizeof *objs, by_u32);
	for (t = 1; n && t <= r->d->k; t++) {
		hit = bsearch(&D_VERT(r->d)[t], objs, n, 2 * sizeof *objs, by_u32);
		if (hit)
			hit[1] = t;
	}
	for (i = 0; i < n; i++) {
		hit = bsearch(&w[i].obj, objs, n, 2 * sizeof *objs, by_u32);
		r->wt[i] = hit ? hit[1] : 0;
	}
	free(objs);
	return 0;
}

/* the biggest objects only the virtual root dominates, by retained
 * bytes: at most cap into tp, how many */
size_t rep_biggest(const struct rep *r, struct top *tp, size_t cap)
{
	const uint32_t *co = CH_OFF(r), *c = CH(r);
	const uint64_t *ret = D_RET(r->d);
	size_t n = 0, j;
	uint32_t i;

	for (i = co[0]; i < co[1]; i++) {
		uint32_t t = c[i];
		if (n == cap && (!cap || ret[t] <= ret[tp[n - 1].t]))
			continue;
		j = n < cap ? n++ : n - 1;
		while (j > 0 && (ret[tp[j - 1].t] < ret[t] ||
		       (ret[tp[j - 1].t] == ret[t] && tp[j - 1].t > t))) {
			tp[j] = tp[j - 1];
			j--;
		}
		tp[j].t = t;
	}
	return n;
}
