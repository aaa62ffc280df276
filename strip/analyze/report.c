/*
 * The report of hprofstrip --suspects (suspects.h), text or JSON, and
 * the dominator tree's lines. What it lists:
 *   - the biggest objects: the objects only the virtual root dominates
 *     (Eclipse MAT's dominator tree, its first level; every other
 *     object's retained bytes are inside one of theirs), by retained
 *     bytes, a suspect when it holds 10% of the heap or more (MAT's leak
 *     suspects threshold);
 *   - for each, its accumulation point, as MAT finds it: down the
 *     dominator tree through the biggest dominated object while that one
 *     keeps 70% of its parent's retained bytes; and what the point's
 *     retained set fans out into, its dominated objects by class;
 *   - the shortest path from a GC root to that point (a breadth-first
 *     search over the same references), with each step's field, static,
 *     array index or MAT's <class>, <super>, <classloader>, <Java local>;
 *   - the retained bytes by class, each object counted once: under the
 *     nearest dominator of its own class (VisualVM's getRetainedSizeByClass);
 *   - on Android, the Activity instances whose mDestroyed is true and the
 *     Fragments whose mFragmentManager is null, reachable, each with its
 *     path (what KOOM reports; not known when the values were redacted).
 */
#include "report.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- text --------------------------------------------------------------- */

/* an object as the report names it: "class com.acme.Main" for a class,
 * else "com.acme.Cache" */
static const char *obj_name(const struct heap *h, uint32_t o, char *buf,
                            size_t cap)
{
	if ((H_KIND(h)[o] & 3) == OBJ_CLASS) {
		char c[1024];
		snprintf(buf, cap, "class %s",
		         heap_class_name(h, H_OCLS(h)[o], c, sizeof c));
		return buf;
	}
	return heap_obj_class_name(h, o, buf, cap);
}

/* a step's label: ".field", "[12]", "<class>"... into buf */
static const char *step_text(const struct rep *r, uint32_t from, uint32_t to,
                             char *buf, size_t cap)
{
	const struct step *s = rep_step_of(r, from, to);
	uint32_t n;
	const char *t;

	if (rep_is_local(r->h, from, to))
		snprintf(buf, cap, "<Java local>");
	else if (!s || s->kind == STEP_UNKNOWN)
		snprintf(buf, cap, r->labelled ? "?" : "(field not known: "
		         "the input was read once)");
	else if (s->kind == STEP_INDEX)
		snprintf(buf, cap, "[%llu]", (unsigned long long)s->val);
	else if (s->kind == STEP_CLASS)
		snprintf(buf, cap, "<class>");
	else if (s->kind == STEP_SUPER)
		snprintf(buf, cap, "<super>");
	else if (s->kind == STEP_LOADER)
		snprintf(buf, cap, "<classloader>");
	else if ((t = heap_text(r->h, s->val, &n)) != NULL)
		snprintf(buf, cap, "%s%.*s", s->kind == STEP_STATIC ? "static "
		         : ".", (int)(n > 512 ? 512 : n), t);
	else
		snprintf(buf, cap, "<field 0x%llx>", (unsigned long long)s->val);
	return buf;
}

static double share(const struct rep *r, uint64_t b)
{
	return r->d->reach_bytes ? (double)b / (double)r->d->reach_bytes : 0;
}

/* the path to number o, as lines (text) or a JSON array */
static void put_path(struct rep *r, uint32_t o, const char *indent)
{
	uint32_t p[2 * PATH_ENDS];
	size_t len = rep_path_of(r, o, p, 2 * PATH_ENDS), m, j;
	char name[1024], lab[1024];
	const struct heap *h = r->h;

	m = len < 2 * PATH_ENDS ? len : 2 * PATH_ENDS;
	if (r->o->json)
		io_put(&r->l, "[");
	for (j = 0; j < m; j++) {
		uint32_t t = p[j], v = D_VERT(r->d)[t];
		int elided = len > 2 * PATH_ENDS && j == PATH_ENDS;
		obj_name(h, v, name, sizeof name);
		if (j == 0)
			snprintf(lab, sizeof lab, "%s", rep_root_kind_of(h, v));
		else if (elided)
			snprintf(lab, sizeof lab, "...");
		else
			step_text(r, D_VERT(r->d)[p[j - 1]], v, lab, sizeof lab);
		if (r->o->json) {
			io_put(&r->l, "%s{\"%s\":", j ? "," : "",
			       j == 0 ? "root" : "via");
			io_json_string(&r->l, lab);
			if (elided)
				io_put(&r->l, ",\"elided\":%llu",
				       (unsigned long long)(len - m));
			io_put(&r->l, ",\"id\":\"0x%llx\",\"class\":",
			       (unsigned long long)H_ID(h)[v]);
			io_json_string(&r->l, name);
			io_put(&r->l, ",\"retained\":%llu}",
			       (unsigned long long)D_RET(r->d)[t]);
			io_flush(&r->l);
			continue;
		}
		if (elided)
			io_put(&r->l, "%s  ... %llu more steps ...\n", indent,
			       (unsigned long long)(len - m));
		io_put(&r->l, "%s%-22s %s @ 0x%llx\n", indent, lab, name,
		       (unsigned long long)H_ID(h)[v]);
		io_flush(&r->l);
	}
	if (r->o->json)
		io_put(&r->l, "]");
}

/* ---- the report --------------------------------------------------------- */

static void put_fanout(struct rep *r, uint32_t acc)
{
	struct grp g[FANOUT_ROWS];
	uint64_t rn, rb;
	size_t n = rep_fanout(r, acc, g, FANOUT_ROWS, &rn, &rb), i;
	char name[1024];

	if (r->o->json)
		io_put(&r->l, "[");
	for (i = 0; i < n && i < FANOUT_ROWS; i++) {
		rep_group_name(r->h, g[i].g, name, sizeof name);
		if (r->o->json) {
			io_put(&r->l, "%s{\"class\":", i ? "," : "");
			io_json_string(&r->l, name);
			io_put(&r->l, ",\"objects\":%llu,\"retained\":%llu}",
			       (unsigned long long)g[i].n,
			       (unsigned long long)g[i].bytes);
		} else {
			io_put(&r->l, "      %12llu bytes in %llu %s\n",
			       (unsigned long long)g[i].bytes,
			       (unsigned long long)g[i].n, name);
			io_flush(&r->l);
		}
	}
	if (r->o->json) {
		io_put(&r->l, "]");
		if (rn)
			io_put(&r->l, ",\"fanout_rest\":{\"objects\":%llu,"
			       "\"retained\":%llu}", (unsigned long long)rn,
			       (unsigned long long)rb);
	} else if (rn) {
		io_put(&r->l, "      %12llu bytes in %llu objects of %zu other "
		       "classes\n", (unsigned long long)rb,
		       (unsigned long long)rn, n - FANOUT_ROWS);
		io_flush(&r->l);
	}
}

static void put_object(struct rep *r, uint32_t t, const char *key)
{
	const struct heap *h = r->h;
	uint32_t o = D_VERT(r->d)[t];
	char name[1024];

	obj_name(h, o, name, sizeof name);
	if (r->o->json) {
		io_put(&r->l, "\"%s\":{\"id\":\"0x%llx\",\"class\":", key,
		       (unsigned long long)H_ID(h)[o]);
		io_json_string(&r->l, name);
		io_put(&r->l, ",\"shallow\":%llu,\"retained\":%llu,"
		       "\"retained_objects\":%llu,\"share\":%.4f}",
		       (unsigned long long)heap_size_of(h, o),
		       (unsigned long long)D_RET(r->d)[t],
		       (unsigned long long)D_CNT(r->d)[t],
		       share(r, D_RET(r->d)[t]));
	}
}

static void put_header(struct rep *r)
{
	const struct heap *h = r->h;
	const struct dom *d = r->d;
	uint64_t un = h->n - h->duplicates - d->k;

	if (r->o->json) {
		io_put(&r->l, "{\"hprofstrip_suspects\":1,\"file\":");
		io_json_string(&r->l, r->o->name);
		io_put(&r->l, ",\"format\":\"JAVA PROFILE 1.0.%c\",\"id_size\":%u,"
		       "\"semantics\":\"%s\",\"objects\":%u,\"reachable\":"
		       "{\"objects\":%u,\"bytes\":%llu},\"unreachable\":"
		       "{\"objects\":%llu,\"bytes\":%llu},\"roots\":%llu,"
		       "\"references\":%llu,\"dangling_references\":%llu,"
		       "\"duplicate_ids\":%llu,\"unresolved_instances\":%llu,"
		       "\"cut\":%s,\"field_names\":%s,",
		       h->version, h->idsize, h->strong ? "strong" : "mat",
		       h->n, d->k, (unsigned long long)d->reach_bytes,
		       (unsigned long long)un,
		       (unsigned long long)(h->shallow_total - d->reach_bytes),
		       (unsigned long long)h->nroots,
		       (unsigned long long)h->nedge,
		       (unsigned long long)h->dangling,
		       (unsigned long long)(h->duplicates + h->dup_classes),
		       (unsigned long long)h->unresolved,
		       h->cut ? "true" : "false",
		       r->labelled || !r->nsteps ? "true" : "false");
		io_flush(&r->l);
		return;
	}
	io_put(&r->l, "%s: %s (JAVA PROFILE 1.0.%c, %u-byte ids), %s\n",
	       r->o->prog, r->o->name, h->version, h->idsize,
	       h->strong ? "strong references only (--strong: ahat's)"
	                 : "Eclipse MAT's references");
	io_put(&r->l, "reachable: %u objects, %llu bytes; unreachable, left "
	       "out: %llu objects, %llu bytes\n", d->k,
	       (unsigned long long)d->reach_bytes, (unsigned long long)un,
	       (unsigned long long)(h->shallow_total - d->reach_bytes));
	io_put(&r->l, "GC roots: %llu; references: %llu", (unsigned long long)
	       h->nroots, (unsigned long long)h->nedge);
	if (h->dangling)
		io_put(&r->l, "; %llu to ids not in the dump (dropped)",
		       (unsigned long long)h->dangling);
	if (h->duplicates || h->dup_classes)
		io_put(&r->l, "; %llu objects of an id seen before (left out)",
		       (unsigned long long)(h->duplicates + h->dup_classes));
	if (h->later_dumps)
		io_put(&r->l, "; the file's first heap dump of %llu",
		       (unsigned long long)h->later_dumps + 1);
	if (h->unresolved)
		io_put(&r->l, "; %llu instances of classes with no class dump "
		       "(their fields unread)", (unsigned long long)h->unresolved);
	io_put(&r->l, "\n");
	if (h->cut)
		io_put(&r->l, "the dump was cut at offset %llu: this is what "
		       "came before it\n", (unsigned long long)h->cut_off);
	io_flush(&r->l);
}

static void put_top(struct rep *r, const struct top *tp, size_t n)
{
	const struct heap *h = r->h;
	size_t i;
	char name[1024];

	if (r->o->json)
		io_put(&r->l, "\"top\":[");
	else
		io_put(&r->l, "\nThe biggest objects (each retains what only it "
		       "holds; MAT's dominator tree, first level):\n");
	io_flush(&r->l);
	for (i = 0; i < n; i++) {
		uint32_t t = tp[i].t, o = D_VERT(r->d)[t], a = tp[i].acc;
		uint64_t ret = D_RET(r->d)[t];
		int sus = share(r, ret) >= SUSPECT_SHARE;
		if (r->o->json) {
			io_put(&r->l, "%s{\"rank\":%zu,\"suspect\":%s,", i ? "," : "",
			       i + 1, sus ? "true" : "false");
			put_object(r, t, "object");
			io_put(&r->l, ",");
			put_object(r, a, "accumulation");
			io_put(&r->l, ",\"path\":");
			put_path(r, a, "");
			io_put(&r->l, ",\"fanout\":");
			put_fanout(r, a);
			io_put(&r->l, "}");
			io_flush(&r->l);
			continue;
		}
		obj_name(h, o, name, sizeof name);
		io_put(&r->l, "\n%2zu. %s @ 0x%llx%s\n", i + 1, name,
		       (unsigned long long)H_ID(h)[o],
		       sus ? "   <- suspect (10% or more of the heap)" : "");
		io_put(&r->l, "    retains %llu bytes (%.1f%%) in %llu objects; "
		       "shallow %llu bytes\n", (unsigned long long)ret,
		       100 * share(r, ret),
		       (unsigned long long)D_CNT(r->d)[t],
		       (unsigned long long)heap_size_of(h, o));
		if (a != t) {
			uint32_t ao = D_VERT(r->d)[a];
			obj_name(h, ao, name, sizeof name);
			io_put(&r->l, "    accumulated in %s @ 0x%llx: %llu bytes "
			       "(%.1f%%) in %llu objects\n", name,
			       (unsigned long long)H_ID(h)[ao],
			       (unsigned long long)D_RET(r->d)[a],
			       100 * share(r, D_RET(r->d)[a]),
			       (unsigned long long)D_CNT(r->d)[a]);
		}
		io_put(&r->l, "    the shortest path from a GC root:\n");
		io_flush(&r->l);
		put_path(r, a, "      ");
		if (CH_OFF(r)[a + 1] > CH_OFF(r)[a]) {
			io_put(&r->l, "    what %s holds, by class:\n",
			       a != t ? "it" : "the object");
			io_flush(&r->l);
			put_fanout(r, a);
		}
	}
	if (r->o->json)
		io_put(&r->l, "],");
	io_flush(&r->l);
}

static void put_classes(struct rep *r)
{
	size_t rows = 0, i, n;
	struct grp *g = rep_by_class(r, &rows);
	char name[1024];

	n = rows < r->o->top ? rows : r->o->top;
	if (r->o->json)
		io_put(&r->l, "\"by_class\":[");
	else
		io_put(&r->l, "\nRetained by class (each object once, under "
		       "its nearest dominator of the same class):\n"
		       "%14s %7s %12s %14s  %s\n", "retained", "share",
		       "objects", "shallow", "class");
	io_flush(&r->l);
	for (i = 0; g && i < n; i++) {
		rep_group_name(r->h, g[i].g, name, sizeof name);
		if (r->o->json) {
			io_put(&r->l, "%s{\"class\":", i ? "," : "");
			io_json_string(&r->l, name);
			io_put(&r->l, ",\"objects\":%llu,\"shallow\":%llu,"
			       "\"retained\":%llu,\"share\":%.4f}",
			       (unsigned long long)g[i].n,
			       (unsigned long long)g[i].shallow,
			       (unsigned long long)g[i].bytes,
			       share(r, g[i].bytes));
		} else {
			io_put(&r->l, "%14llu %6.1f%% %12llu %14llu  %s\n",
			       (unsigned long long)g[i].bytes,
			       100 * share(r, g[i].bytes),
			       (unsigned long long)g[i].n,
			       (unsigned long long)g[i].shallow, name);
		}
		io_flush(&r->l);
	}
	if (r->o->json)
		io_put(&r->l, "],");
	io_flush(&r->l);
	free(g);
}

static void put_android(struct rep *r)
{
	const struct heap *h = r->h;
	const struct watched *w = h->watched.p;
	uint64_t i;
	int kind, first;
	char name[1024];

	if (h->version != '3' && !h->nwatched)
		return;
	for (kind = WATCH_ACTIVITY; kind <= WATCH_FRAGMENT; kind++) {
		const char *what = kind == WATCH_ACTIVITY
		        ? "destroyed_activities" : "detached_fragments";
		if (r->o->json && kind == WATCH_ACTIVITY)
			io_put(&r->l, "\"android\":{\"known\":%s,",
			       r->o->redacted ? "false" : "true");
		if (r->o->json)
			io_put(&r->l, "\"%s\":[", what);
		else
			io_put(&r->l, "\n%s:\n", kind == WATCH_ACTIVITY
			       ? "Activities destroyed and still reachable "
			         "(mDestroyed true)"
			       : "Fragments detached and still reachable "
			         "(mFragmentManager null)");
		first = 1;
		for (i = 0; i < h->nwatched; i++) {
			uint32_t o = w[i].obj, t = r->wt[i];
			if (w[i].watch != kind || !t)
				continue;
			obj_name(h, o, name, sizeof name);
			if (r->o->json) {
				io_put(&r->l, "%s{\"id\":\"0x%llx\",\"class\":",
				       first ? "" : ",",
				       (unsigned long long)H_ID(h)[o]);
				io_json_string(&r->l, name);
				io_put(&r->l, ",\"retained\":%llu,\"path\":",
				       (unsigned long long)D_RET(r->d)[t]);
				put_path(r, t, "");
				io_put(&r->l, "}");
			} else {
				io_put(&r->l, "  %s @ 0x%llx retains %llu bytes\n",
				       name, (unsigned long long)H_ID(h)[o],
				       (unsigned long long)D_RET(r->d)[t]);
				io_flush(&r->l);
				put_path(r, t, "      ");
			}
			first = 0;
			io_flush(&r->l);
		}
		if (r->o->json)
			io_put(&r->l, "]%s", kind == WATCH_ACTIVITY ? "," : "},");
		else if (first)
			io_put(&r->l, "  %s\n", r->o->redacted
			       ? "not known: the dump's values were redacted"
			       : "none");
		io_flush(&r->l);
	}
}

/* ---- the dominator tree's lines ----------------------------------------- */

static int put_tree(struct rep *r)
{
	struct big order;
	struct io_line *l;
	const struct heap *h = r->h;
	const uint32_t *ord, *vert = D_VERT(r->d), *idom = D_IDOM(r->d);
	uint32_t i;

	big_init(&order, h->pool);
	if (dom_by_id(r->d, h, &order))
		return rep_pool_fail(r);
	l = malloc(sizeof *l);
	if (!l) {
		big_free(&order);
		return -1;
	}
	memset(l, 0, sizeof *l);
	l->out = r->io->tree_out;
	l->user = r->io->tree_user;
	ord = order.p;
	for (i = 0; i < r->d->k; i++) {
		uint32_t t = ord[i];
		io_put(l, "0x%llx 0x%llx %u %llu\n",
		       (unsigned long long)H_ID(h)[vert[t]],
		       idom[t] ? (unsigned long long)H_ID(h)[vert[idom[t]]] : 0ULL,
		       D_CNT(r->d)[t], (unsigned long long)D_RET(r->d)[t]);
		if (l->len > sizeof l->buf - 128)
			io_flush(l);
	}
	io_flush(l);
	i = l->err != 0;
	free(l);
	big_free(&order);
	return i ? -1 : 0;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void result(struct suspects_result *res, const struct heap *h,
                   const struct big_pool *pool)
{
	res->objects = h->n;
	res->references = h->nedge;
	res->peak = pool->peak;
	res->file_peak = pool->file_peak;
	res->cut = h->cut;
	res->cut_off = h->cut_off;
	res->bad = h->bad;
	res->err = h->err ? h->err : pool->err;
	res->err_off = h->err_off;
	snprintf(res->msg, sizeof res->msg, "%s", h->msg);
}

int suspects_run(const struct suspects_opt *o, const struct heap_src *src,
                 const struct suspects_io *io, struct suspects_result *res)
{
	struct big_pool pool;
	struct heap h;
	struct dom d;
	struct rep r;
	struct top *tp = NULL;
	uint32_t *targets = NULL;
	size_t n = 0, nt = 0, i;
	int rc = -1;

	memset(res, 0, sizeof *res);
	memset(&pool, 0, sizeof pool);
	memset(&d, 0, sizeof d);
	memset(&r, 0, sizeof r);
	pool.cap = o->max_memory;
	pool.dir = o->tmp_dir;
	heap_init(&h, &pool);
	h.strong = o->strong;
	big_init(&r.choff, &pool);
	big_init(&r.ch, &pool);
	big_init(&r.bfs, &pool);
	r.o = o;
	r.io = io;
	r.h = &h;
	r.d = &d;
	r.l.out = io->out;
	r.l.user = io->user;
	double t = now(), t1;
	if (heap_load(&h, src, o->salvage))
		goto out;
	t1 = now();
	res->t_read = t1 - t;
	if (heap_resolve(&h)) {
		if (!h.err)
			h.err = pool.err ? pool.err : ENOMEM;
		goto out;
	}
	t = now();
	res->t_resolve = t - t1;
	if (dom_compute(&d, &h)) {
		if (!h.err)
			h.err = pool.err ? pool.err : ENOMEM;
		goto out;
	}
	t1 = now();
	res->t_dom = t1 - t;
	res->reachable = d.k;
	if (o->tree && put_tree(&r)) {
		h.err = errno ? errno : EIO;
		goto out;
	}
	/* the paths first: the references are given back after them */
	if (rep_bfs(&r) || rep_children(&r))
		goto nomem;
	tp = calloc(o->top ? o->top : 1, sizeof *tp);
	targets = calloc(2 * (size_t)(o->top ? o->top : 1) + h.nwatched + 1,
	                 sizeof *targets);
	if (!tp || !targets)
		goto nomem;
	n = rep_biggest(&r, tp, o->top);
	for (i = 0; i < n; i++) {
		tp[i].acc = rep_accumulation(&r, tp[i].t);
		targets[nt++] = tp[i].acc;
	}
	if (rep_watched_numbers(&r))
		goto nomem;
	for (i = 0; i < h.nwatched; i++)
		if (r.wt[i])
			targets[nt++] = r.wt[i];
	if (rep_label(&r, targets, nt))
		goto nomem;
	put_header(&r);
	put_top(&r, tp, n);
	put_classes(&r);
	put_android(&r);
	if (o->json) {
		io_put(&r.l, "\"memory\":{\"peak\":%llu,\"in_files\":%llu}}\n",
		       (unsigned long long)pool.peak,
		       (unsigned long long)pool.file_peak);
		io_flush(&r.l);
	}
	if (r.l.err) {
		h.err = errno ? errno : EIO;
		goto out;
	}
	res->t_report = now() - t1;
	rc = 0;
	goto out;
nomem:
	if (!h.err && !h.bad)
		h.err = pool.err ? pool.err : ENOMEM;
out:
	result(res, &h, &pool);
	free(tp);
	free(targets);
	free(r.steps);
	free(r.wt);
	big_free(&r.choff);
	big_free(&r.ch);
	big_free(&r.bfs);
	dom_free(&d);
	heap_free(&h);
	big_pool_end(&pool);
	return rc;
}
