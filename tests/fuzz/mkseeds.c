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
 */
#include "oracle.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NSLICE 6

static const size_t slice_size[NSLICE] = { 3000, 8000, 20000, 48000, 12000,
                                           30000 };

static unsigned char *buf;
static size_t size;
static unsigned id;

static uint32_t be32(size_t off)
{
	const unsigned char *p = buf + off;
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static unsigned tsize(unsigned t)
{
	switch (t) {
	case 2: return id;
	case 4: case 8: return 1;
	case 5: case 9: return 2;
	case 6: case 10: return 4;
	case 7: case 11: return 8;
	default: return 0;
	}
}

/* Length of the sub-record at p (tag included), 0 if it does not fit. */
static size_t sublen(size_t p, size_t end)
{
	size_t q = p + 1, n, i;
	unsigned t;

	switch (buf[p]) {
	case 0xFF: case 0x05: case 0x07: case 0x89: case 0x8A: case 0x8B:
	case 0x8C: case 0x8D: case 0x90:
		q += id; break;
	case 0x01: q += 2 * id; break;
	case 0x02: case 0x03: case 0x08: case 0x8E: q += id + 8; break;
	case 0x04: case 0x06: q += id + 4; break;
	case 0xFE: q += 4 + id; break;
	case 0xC3: q += id + 9; break;
	case 0x21:
		if (q + 2 * id + 8 > end)
			return 0;
		q += 2 * id + 8 + be32(q + 2 * id + 4);
		break;
	case 0x22:
		if (q + 2 * id + 8 > end)
			return 0;
		q += 2 * id + 8 + (size_t)be32(q + id + 4) * id;
		break;
	case 0x23:
		if (q + id + 9 > end)
			return 0;
		q += id + 9 + (size_t)be32(q + id + 4) * tsize(buf[q + id + 8]);
		break;
	case 0x20:
		q += 7 * id + 8;
		if (q + 2 > end)
			return 0;
		n = (size_t)buf[q] << 8 | buf[q + 1];
		q += 2;
		for (i = 0; i < n && q + 3 <= end; i++) {
			t = buf[q + 2];
			q += 3 + tsize(t);
		}
		if (q + 2 > end)
			return 0;
		n = (size_t)buf[q] << 8 | buf[q + 1];
		q += 2;
		for (i = 0; i < n && q + id + 1 <= end; i++) {
			t = buf[q + id];
			q += id + 1 + tsize(t);
		}
		if (q + 2 > end)
			return 0;
		n = (size_t)buf[q] << 8 | buf[q + 1];
		q += 2 + n * (id + 1);
		break;
	default:
		return 0;
	}
	return q <= end ? q - p : 0;
}

struct out {
	unsigned char *b;
	size_t len, cap;
};

static void put(struct out *o, const void *p, size_t n)
{
	if (o->len + n > o->cap) {
		o->cap = (o->len + n) * 2;
		o->b = realloc(o->b, o->cap);
		if (!o->b) {
			perror("mkseeds");
			exit(2);
		}
	}
	memcpy(o->b + o->len, p, n);
	o->len += n;
}

static void put_be32(struct out *o, uint32_t v)
{
	unsigned char b[4] = { (unsigned char)(v >> 24), (unsigned char)(v >> 16),
	                       (unsigned char)(v >> 8), (unsigned char)v };
	put(o, b, 4);
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

static void load(const char *path)
{
	FILE *f = fopen(path, "rb");
	size_t cap = 1 << 22;

	size = 0;
	buf = realloc(buf, cap);
	if (!f || !buf) {
		perror(path);
		exit(2);
	}
	for (;;) {
		size_t k;
		if (size == cap)
			buf = realloc(buf, cap *= 2);
		if (!buf) {
			perror(path);
			exit(2);
		}
		k = fread(buf + size, 1, cap - size, f);
		if (!k)
			break;
		size += k;
	}
	fclose(f);
}

struct rec {
	size_t off;
	uint32_t len;
	unsigned tag;
};

static void seeds_of(const char *dir, const char *path)
{
	static struct rec *recs;
	static size_t rcap;
	struct out pre = { 0 }, o = { 0 }, stripped = { 0 };
	struct oracle_result r;
	size_t hdr, off, nrec = 0, nheap = 0, i, *heap = NULL;
	char name[256];
	const char *base = strrchr(path, '/');
	unsigned seen[256] = { 0 }, version;
	int s, end_rec = 0;

	base = base ? base + 1 : path;
	snprintf(name, sizeof name, "%.*s", (int)strcspn(base, "."), base);
	load(path);
	off = strnlen((char *)buf, size < 64 ? size : 64) + 1;
	if (off + 12 > size) {
		fprintf(stderr, "mkseeds: %s: no header\n", path);
		return;
	}
	id = be32(off);
	version = buf[17];
	hdr = off + 12;
	for (off = hdr; off + 9 <= size; off += 9 + (size_t)be32(off + 5)) {
		if (nrec == rcap) {
			rcap = rcap ? 2 * rcap : 1024;
			recs = realloc(recs, rcap * sizeof *recs);
		}
		recs[nrec].off = off;
		recs[nrec].len = be32(off + 5);
		recs[nrec].tag = buf[off];
		if (off + 9 + (size_t)recs[nrec].len > size)
			break;
		if ((recs[nrec].tag == 0x0C || recs[nrec].tag == 0x1C) &&
		    recs[nrec].len) {
			heap = realloc(heap, (nheap + 1) * sizeof *heap);
			heap[nheap++] = nrec;
		}
		if (recs[nrec].tag == 0x2C)
			end_rec = 1;
		nrec++;
	}
	/* the first records, and the first of each other non-heap tag */
	put(&pre, buf, hdr);
	for (i = 0; i < nrec; i++) {
		struct rec *c = &recs[i];
		if (c->tag == 0x0C || c->tag == 0x1C || c->tag == 0x2C ||
		    c->len > 4096)
			continue;
		if (pre.len < 1500 || !seen[c->tag]++)
			put(&pre, buf + c->off, 9 + (size_t)c->len);
		seen[c->tag] = 1;
	}
	for (s = 0; s < NSLICE && nheap; s++) {
		struct rec *h = &recs[heap[(size_t)s * nheap / NSLICE]];
		size_t body = h->off + 9, end = body + h->len, p = body;
		size_t from = body + h->len / 3 * (size_t)(s % 3), fe = 0, start;
		size_t k;

		/* whole sub-records from the first one at or after `from` */
		while (p < from && (k = sublen(p, end))) {
			if (buf[p] == 0xFE)
				fe = p;
			p += k;
		}
		start = p;
		while (p < end && p - start < slice_size[s] && (k = sublen(p, end)))
			p += k;
		if (p == start)
			continue;
		o.len = 0;
		put(&o, pre.b, pre.len);
		if (s == 1) { /* an empty segment, as ART writes them */
			put(&o, "\x1C\0\0\0\0\0\0\0\0", 9);
		}
		put(&o, buf + h->off, 5);
		put_be32(&o, (uint32_t)(p - start + (fe ? 5 + id : 0)));
		if (fe)
			put(&o, buf + fe, 5 + id);
		put(&o, buf + start, p - start);
		if (end_rec)
			put(&o, "\x2C\0\0\0\0\0\0\0\0", 9);
		if (oracle_walk(ORACLE_STRIP, o.b, o.len, &r)) {
			fprintf(stderr, "mkseeds: %s slice %d: %s at %llu\n", name, s,
			        r.err, (unsigned long long)r.err_off);
			continue;
		}
		stripped.len = 0;
		put(&stripped, r.out, r.out_len);
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
	free(pre.b);
	free(o.b);
	free(stripped.b);
	free(heap);
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
