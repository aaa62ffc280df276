/*
 * mkseeds: small fuzz seeds cut from real dumps.
 *
 *   mkseeds OUTDIR FILE...
 *
 * From each dump: the header, its first few non-heap records (each tag
 * at least once), then a slice of a heap record (whole sub-records, the
 * last HEAP_DUMP_INFO before it so the heap is right) in a heap record
 * whose length fits, and HEAP_DUMP_END. Six slices per dump, from
 * different heap records and depths, 3 to 48 KB. Each seed must walk
 * cleanly by the oracle; it is written, with the 4-byte prefix the
 * targets read (flags, piece seed), as:
 *   OUTDIR/engine/NAME-S.{plain,cut}   the slice; cut: every check on
 *   OUTDIR/restore/NAME-S.{strip,jvm,app,raw}   stripped (by the oracle);
 *                                      --jvm and --app-only for 1.0.3
 *   OUTDIR/info/NAME-S.{text,json}     the slice; stripped, --json
 * and, for the differential target (fuzz_diff.c), whose redaction needs
 * layouts, one heap record per dump made of its first class dumps (up to
 * 64 KB) and the instances of those classes (up to 32 KB):
 *   OUTDIR/diff/NAME-0.{layouts,layouts-cut}
 * The dumps are walked with the test side's walker (tests/walk.h).
 */
#include "oracle.h"
#include "../walk.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NSLICE 6

static const size_t slice_size[NSLICE] = { 3000, 8000, 20000, 48000, 12000,
                                           30000 };

static void oom(void)
{
	errno = ENOMEM;
	perror("mkseeds");
	exit(2);
}

static int nwritten;

static void write_seed(const char *dir, const char *target, const char *name,
                       int s, const char *variant, unsigned flags,
                       unsigned seed, const unsigned char *p, size_t n)
{
	char path[4096];
	unsigned char pre[4] = { (unsigned char)flags, (unsigned char)seed,
	                         (unsigned char)(seed >> 8),
	                         (unsigned char)(seed >> 16) };
	FILE *f;

	snprintf(path, sizeof path, "%s/%s/%s-%d.%s", dir, target, name, s,
	         variant);
	f = fopen(path, "wb");
	if (!f || fwrite(pre, 1, 4, f) != 4 || fwrite(p, 1, n, f) != n ||
	    fclose(f)) {
		perror(path);
		exit(2);
	}
	nwritten++;
}

/* Length of the sub-record at p, which must end by end; 0 if it does not
 * walk. */
static size_t sublen(struct walk *w, uint64_t p, uint64_t end)
{
	struct walk_sub sub;

	return walk_sub(w, p, end, &sub) > 0 ? (size_t)(sub.end - p) : 0;
}

#define LAYOUT_CLASSES 65536u
#define LAYOUT_INSTANCES 32768u

static int has_class(const uint64_t *cls, size_t n, uint64_t id)
{
	while (n--)
		if (cls[n] == id)
			return 1;
	return 0;
}

/* The sub-records of tag `tag` (0x21: of a class in cls[0,*ncls)) of the
 * heap records, up to `room` bytes, into o; a class dump's id into cls. */
static void gather_subs(struct walk *w, const struct walk_rec *recs,
                        const size_t *heap, size_t nheap, unsigned tag,
                        size_t room, struct walk_out *o, uint64_t *cls,
                        size_t *ncls)
{
	size_t i, start = o->len;
	struct walk_sub sub;
	uint64_t p;

	for (i = 0; i < nheap; i++) {
		const struct walk_rec *h = &recs[heap[i]];
		for (p = h->body; p < h->end &&
		     walk_sub(w, p, h->end, &sub) > 0; p = sub.end) {
			if (sub.tag != tag || (tag == 0x21 &&
			    !has_class(cls, *ncls, sub.cls)))
				continue;
			if (o->len - start + (sub.end - p) > room)
				return;
			if (tag == 0x20 && *ncls < 4096)
				cls[(*ncls)++] = sub.id;
			walk_put(o, w->b + p, (size_t)(sub.end - p));
		}
	}
}

/* The layouts seed (see the top) after pre (the first records). */
static void layouts_seed(const char *dir, const char *name, struct walk *w,
                         const struct walk_rec *recs, const size_t *heap,
                         size_t nheap, const struct walk_out *pre, int end_rec)
{
	static uint64_t cls[4096];
	struct walk_out body = { .oom = oom }, o = { .oom = oom };
	struct oracle_result r;
	size_t ncls = 0;

	gather_subs(w, recs, heap, nheap, 0x20, LAYOUT_CLASSES, &body, cls,
	            &ncls);
	gather_subs(w, recs, heap, nheap, 0x21, LAYOUT_INSTANCES, &body, cls,
	            &ncls);
	if (body.len) {
		walk_put(&o, pre->b, pre->len);
		walk_put(&o, w->b + recs[heap[0]].off, 5);
		walk_put_be(&o, body.len, 4);
		walk_put(&o, body.b, body.len);
		if (end_rec)
			walk_put(&o, "\x2C\0\0\0\0\0\0\0\0", 9);
		if (oracle_walk(ORACLE_STRIP, o.b, o.len, &r))
			fprintf(stderr, "mkseeds: %s layouts: %s at %llu\n", name,
			        r.err, (unsigned long long)r.err_off);
		else {
			write_seed(dir, "diff", name, 0, "layouts", 0, 0, o.b, o.len);
			write_seed(dir, "diff", name, 0, "layouts-cut", 0, 0x10203u, o.b,
			           o.len);
		}
	}
	free(body.b);
	free(o.b);
}

static void seeds_of(const char *dir, const char *path)
{
	static struct walk_rec *recs;
	static size_t rcap;
	struct walk_out pre = { .oom = oom }, o = { .oom = oom },
	                stripped = { .oom = oom };
	struct walk_file f;
	struct walk w;
	struct oracle_result r;
	size_t hdr, off, nrec = 0, nheap = 0, i, *heap = NULL;
	const unsigned char *buf;
	char name[256];
	const char *base = strrchr(path, '/');
	unsigned seen[256] = { 0 }, version, id;
	int s, end_rec = 0;

	base = base ? base + 1 : path;
	snprintf(name, sizeof name, "%.*s", (int)strcspn(base, "."), base);
	if (walk_load(&f, path)) {
		perror(path);
		exit(2);
	}
	if (walk_header(&w, f.b, f.size, WALK_ANY_HEADER | WALK_SKIP_FIELDS)) {
		fprintf(stderr, "mkseeds: %s: no header\n", path);
		walk_unload(&f);
		return;
	}
	buf = w.b;
	id = w.idsize;
	version = (unsigned)w.version;
	hdr = (size_t)w.first;
	for (off = hdr; ; nrec++) {
		if (nrec == rcap) {
			rcap = rcap ? 2 * rcap : 1024;
			recs = realloc(recs, rcap * sizeof *recs);
			if (!recs)
				oom();
		}
		if (walk_record(&w, off, &recs[nrec]) <= 0)
			break;
		if (walk_heap_tag(recs[nrec].tag) && recs[nrec].len) {
			heap = realloc(heap, (nheap + 1) * sizeof *heap);
			if (!heap)
				oom();
			heap[nheap++] = nrec;
		}
		if (recs[nrec].tag == 0x2C)
			end_rec = 1;
		off = (size_t)recs[nrec].end;
	}
	/* the first records, and the first of each other non-heap tag */
	walk_put(&pre, buf, hdr);
	for (i = 0; i < nrec; i++) {
		struct walk_rec *c = &recs[i];
		if (walk_heap_tag(c->tag) || c->tag == 0x2C || c->len > 4096)
			continue;
		if (pre.len < 1500 || !seen[c->tag]++)
			walk_put(&pre, buf + c->off, 9 + (size_t)c->len);
		seen[c->tag] = 1;
	}
	for (s = 0; s < NSLICE && nheap; s++) {
		struct walk_rec *h = &recs[heap[(size_t)s * nheap / NSLICE]];
		size_t body = h->off + 9, end = body + h->len, p = body;
		size_t from = body + h->len / 3 * (size_t)(s % 3), fe = 0, start;
		size_t k;

		/* whole sub-records from the first one at or after `from` */
		while (p < from && (k = sublen(&w, p, end))) {
			if (buf[p] == 0xFE)
				fe = p;
			p += k;
		}
		start = p;
		while (p < end && p - start < slice_size[s] &&
		       (k = sublen(&w, p, end)))
			p += k;
		if (p == start)
			continue;
		o.len = 0;
		walk_put(&o, pre.b, pre.len);
		if (s == 1) { /* an empty segment, as ART writes them */
			walk_put(&o, "\x1C\0\0\0\0\0\0\0\0", 9);
		}
		walk_put(&o, buf + h->off, 5);
		walk_put_be(&o, (uint32_t)(p - start + (fe ? 5 + id : 0)), 4);
		if (fe)
			walk_put(&o, buf + fe, 5 + id);
		walk_put(&o, buf + start, p - start);
		if (end_rec)
			walk_put(&o, "\x2C\0\0\0\0\0\0\0\0", 9);
		if (oracle_walk(ORACLE_STRIP, o.b, o.len, &r)) {
			fprintf(stderr, "mkseeds: %s slice %d: %s at %llu\n", name, s,
			        r.err, (unsigned long long)r.err_off);
			continue;
		}
		stripped.len = 0;
		walk_put(&stripped, r.out, r.out_len);
		write_seed(dir, "engine", name, s, "plain", 0, 0, o.b, o.len);
		write_seed(dir, "engine", name, s, "cut", 0x0F, 0x10203u * (s + 1),
		           o.b, o.len);
		write_seed(dir, "restore", name, s, "strip", 0, 0, stripped.b,
		           stripped.len);
		write_seed(dir, "restore", name, s, "raw", 4, 0x30201u * (s + 1),
		           o.b, o.len);
		if (version == '3') {
			write_seed(dir, "restore", name, s, "jvm", 1, 0, stripped.b,
			           stripped.len);
			write_seed(dir, "restore", name, s, "app", 2, 0x777 * (s + 1),
			           stripped.b, stripped.len);
		}
		write_seed(dir, "info", name, s, "text", 0, 0x55 * (s + 1), o.b,
		           o.len);
		write_seed(dir, "info", name, s, "json", 1, 0x99 * (s + 1),
		           stripped.b, stripped.len);
	}
	if (nheap)
		layouts_seed(dir, name, &w, recs, heap, nheap, &pre, end_rec);
	free(pre.b);
	free(o.b);
	free(stripped.b);
	free(heap);
	walk_unload(&f);
}

int main(int argc, char **argv)
{
	int i;

	if (argc < 3) {
		fprintf(stderr, "usage: mkseeds OUTDIR FILE...\n");
		return 2;
	}
	for (i = 2; i < argc; i++)
		seeds_of(argv[1], argv[i]);
	printf("mkseeds: %d seeds from %d dumps in %s\n", nwritten, argc - 2,
	       argv[1]);
	return nwritten ? 0 : 1;
}
