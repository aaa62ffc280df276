/*
 * androidize.c - test helper: turn a standard HPROF dump (1.0.1/1.0.2, id
 * size 4 or 8, e.g. written by a JDK) into an Android-style 1.0.3 dump, so
 * that hprofrestore --jvm can be tested on inputs that no Android runtime
 * writes (8-byte ids).
 *
 *   androidize [-z] [-i] [-c COUNTS] IN OUT
 *
 * What changes:
 *   - the header says "JAVA PROFILE 1.0.3";
 *   - before the first heap record: one HEAP_DUMP_SEGMENT of length 0 (ART
 *     writes those) and one holding only a HEAP_DUMP_INFO (0xFE), which the
 *     conversion leaves empty;
 *   - every heap record starts with HEAP_DUMP_INFO heap 'A' (app), and
 *     every 64th sub-record is preceded by another one;
 *   - ROOT_STICKY_CLASS roots (0x05) take, in turn, the types 0x05, 0x89,
 *     0x8A, 0x8B, 0x8C, 0x8D, 0x8E (with its u4 thread serial and u4 frame
 *     number) and 0x90, for the same class id;
 *   - with -z, every PRIMITIVE_ARRAY_DUMP (0x23) is put in the zygote heap
 *     (HEAP_DUMP_INFO 'Z' before it, 'A' again after it);
 *   - with -i, every 3rd INSTANCE_DUMP (0x21) is put in the image heap
 *     ('I') and every 5th OBJECT_ARRAY_DUMP (0x22) in the zygote heap
 *     ('Z'), the same way: what hprofrestore --app-only and hprof-conv -z
 *     must drop;
 *   - with -c COUNTS, the file COUNTS gets what was moved, one
 *     "NAME COUNT" a line: instances, object-arrays, primitive-arrays (all
 *     of them), then image-instances, zygote-object-arrays and
 *     zygote-primitive-arrays (the ones put in heaps I and Z).
 * Everything else is copied unchanged. Heap record lengths are recomputed.
 *
 * Any malformed input: one line on stderr naming the offset, exit 1.
 * C11, libc only.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *in_name;

static void die(const char *msg, unsigned long long off)
{
	fprintf(stderr, "androidize: %s: offset %llu: %s\n", in_name, off, msg);
	exit(1);
}

static void die_sys(const char *what)
{
	perror(what);
	exit(1);
}

/* ---- growable output buffer ------------------------------------------- */

struct buf {
	unsigned char *p;
	size_t len, cap;
};

static void put(struct buf *b, const void *src, size_t n)
{
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		while (cap < b->len + n)
			cap *= 2;
		b->p = realloc(b->p, cap);
		if (!b->p)
			die_sys("realloc");
		b->cap = cap;
	}
	memcpy(b->p + b->len, src, n);
	b->len += n;
}

static void put1(struct buf *b, unsigned v)
{
	unsigned char c = (unsigned char)v;
	put(b, &c, 1);
}

static void put4(struct buf *b, uint32_t v)
{
	unsigned char c[4] = { (unsigned char)(v >> 24), (unsigned char)(v >> 16),
	                       (unsigned char)(v >> 8), (unsigned char)v };
	put(b, c, 4);
}

static void put_zero(struct buf *b, unsigned n)
{
	static const unsigned char z[8];
	put(b, z, n);
}

/* ---- input ------------------------------------------------------------ */

static unsigned char *in;
static size_t in_len;
static unsigned idsize;

static uint32_t be32(size_t off)
{
	return (uint32_t)in[off] << 24 | (uint32_t)in[off + 1] << 16 |
	       (uint32_t)in[off + 2] << 8 | in[off + 3];
}

static unsigned be16(size_t off)
{
	return (unsigned)in[off] << 8 | in[off + 1];
}

static void need(size_t pos, size_t n, size_t end, const char *what)
{
	if (pos > end || n > end - pos)
		die(what, pos);
}

static unsigned type_size(unsigned t)
{
	switch (t) {
	case 2: return idsize;
	case 4: case 8: return 1;
	case 5: case 9: return 2;
	case 6: case 10: return 4;
	case 7: case 11: return 8;
	default: return 0;
	}
}

/* Length of the sub-record at p (tag included), checked against end. */
static size_t sub_len(size_t p, size_t end)
{
	unsigned id = idsize, tag = in[p], sz, i, n;
	size_t q;

	switch (tag) {
	case 0xFF: case 0x05: case 0x07:
		q = p + 1 + id;
		break;
	case 0x01:
		q = p + 1 + 2 * id;
		break;
	case 0x02: case 0x03: case 0x08:
		q = p + 1 + id + 8;
		break;
	case 0x04: case 0x06:
		q = p + 1 + id + 4;
		break;
	case 0x20:
		q = p + 1 + 7 * id + 8;
		need(q, 2, end, "class dump runs past its record");
		n = be16(q);
		q += 2;
		for (i = 0; i < n; i++) {
			need(q, 3, end, "class dump runs past its record");
			sz = type_size(in[q + 2]);
			if (!sz)
				die("invalid basic type", q + 2);
			q += 3 + sz;
		}
		need(q, 2, end, "class dump runs past its record");
		n = be16(q);
		q += 2;
		for (i = 0; i < n; i++) {
			need(q, id + 1, end, "class dump runs past its record");
			sz = type_size(in[q + id]);
			if (!sz)
				die("invalid basic type", q + id);
			q += id + 1 + sz;
		}
		need(q, 2, end, "class dump runs past its record");
		n = be16(q);
		q += 2 + (size_t)n * (id + 1);
		break;
	case 0x21:
		need(p, 1 + 2 * id + 8, end, "instance dump runs past its record");
		q = p + 1 + 2 * id + 8 + be32(p + 1 + 2 * id + 4);
		break;
	case 0x22:
		need(p, 1 + 2 * id + 8, end, "array dump runs past its record");
		q = p + 1 + 2 * id + 8 + (size_t)be32(p + 1 + id + 4) * id;
		break;
	case 0x23:
		need(p, 1 + id + 9, end, "array dump runs past its record");
		sz = type_size(in[p + id + 9]);
		if (!sz || in[p + id + 9] == 2)
			die("invalid array element type", p + id + 9);
		q = p + 1 + id + 9 + (size_t)be32(p + 1 + id + 4) * sz;
		break;
	default:
		die("not a 1.0.1/1.0.2 heap sub-record tag", p);
		return 0;
	}
	need(p, q - p, end, "sub-record runs past its record");
	return q - p;
}

static void heap_info(struct buf *b, unsigned heap)
{
	put1(b, 0xFE);
	put4(b, heap);
	put_zero(b, idsize); /* heap name string id: none */
}

static void heap_record_header(FILE *out, unsigned tag, const unsigned char *ts,
                               size_t len)
{
	unsigned char h[9];

	if (len > UINT32_MAX)
		die("heap record too long", 0);
	h[0] = (unsigned char)tag;
	memcpy(h + 1, ts, 4);
	h[5] = (unsigned char)(len >> 24);
	h[6] = (unsigned char)(len >> 16);
	h[7] = (unsigned char)(len >> 8);
	h[8] = (unsigned char)len;
	if (fwrite(h, 1, 9, out) != 9)
		die_sys("write");
}

int main(int argc, char **argv)
{
	static const unsigned char root_types[8] = {
		0x05, 0x89, 0x8A, 0x8B, 0x8C, 0x8D, 0x8E, 0x90
	};
	static const char magic[] = "JAVA PROFILE 1.0.";
	int zygote_arrays = 0, image = 0, argi = 1, first_heap = 1;
	unsigned long long sticky = 0, subs = 0;
	/* all and moved instance dumps, object arrays, primitive arrays */
	unsigned long long n21 = 0, n22 = 0, n23 = 0, m21 = 0, m22 = 0, m23 = 0;
	const char *counts = NULL;
	struct buf body = { 0, 0, 0 };
	size_t p, cap = 0;
	FILE *f, *out;

	for (; argi < argc && argv[argi][0] == '-'; argi++) {
		if (!strcmp(argv[argi], "-z"))
			zygote_arrays = 1;
		else if (!strcmp(argv[argi], "-i"))
			image = 1;
		else if (!strcmp(argv[argi], "-c") && argi + 1 < argc)
			counts = argv[++argi];
		else
			break;
	}
	if (argc - argi != 2) {
		fprintf(stderr, "usage: androidize [-z] [-i] [-c COUNTS] IN OUT\n");
		return 2;
	}
	in_name = argv[argi];
	f = fopen(in_name, "rb");
	if (!f)
		die_sys(in_name);
	for (;;) {
		size_t got;
		if (in_len == cap) {
			cap = cap ? cap * 2 : 1u << 20;
			in = realloc(in, cap);
			if (!in)
				die_sys("realloc");
		}
		got = fread(in + in_len, 1, cap - in_len, f);
		in_len += got;
		if (got == 0)
			break;
	}
	if (ferror(f))
		die_sys(in_name);
	fclose(f);

	/* header */
	p = 0;
	while (p < in_len && in[p])
		p++;
	if (p >= in_len || p != sizeof magic || memcmp(in, magic, sizeof magic - 1) ||
	    (in[p - 1] != '1' && in[p - 1] != '2'))
		die("not a JAVA PROFILE 1.0.1 or 1.0.2 header", 0);
	p++;
	need(p, 12, in_len, "stream ended inside the file header");
	idsize = be32(p);
	if (idsize != 4 && idsize != 8)
		die("unsupported identifier size", p);
	out = fopen(argv[argi + 1], "wb");
	if (!out)
		die_sys(argv[argi + 1]);
	fputs("JAVA PROFILE 1.0.3", out);
	fputc(0, out);
	fwrite(in + p, 1, 12, out);
	p += 12;

	while (p < in_len) {
		unsigned tag;
		size_t len, end, q;

		need(p, 9, in_len, "stream ended inside a record header");
		tag = in[p];
		len = be32(p + 5);
		need(p + 9, len, in_len, "stream ended inside a record");
		end = p + 9 + len;
		if (tag != 0x0C && tag != 0x1C) {
			if (fwrite(in + p, 1, 9 + len, out) != 9 + len)
				die_sys("write");
			p = end;
			continue;
		}
		if (first_heap) {
			/* an empty segment, then one the conversion leaves empty */
			heap_record_header(out, 0x1C, in + p + 1, 0);
			body.len = 0;
			heap_info(&body, 'A');
			heap_record_header(out, 0x1C, in + p + 1, body.len);
			fwrite(body.p, 1, body.len, out);
			first_heap = 0;
		}
		body.len = 0;
		heap_info(&body, 'A');
		for (q = p + 9; q < end;) {
			size_t n = sub_len(q, end);
			unsigned t = in[q];

			if (++subs % 64 == 0)
				heap_info(&body, 'A');
			if (t == 0x05) {
				unsigned rt = root_types[sticky++ % 8];
				put1(&body, rt);
				put(&body, in + q + 1, idsize);
				if (rt == 0x8E) {
					put4(&body, 1);           /* thread serial */
					put4(&body, 0xFFFFFFFFu); /* frame: none */
				}
			} else if ((t == 0x23 && zygote_arrays) ||
			           (t == 0x21 && image && n21 % 3 == 2) ||
			           (t == 0x22 && image && n22 % 5 == 4)) {
				/* in another heap, then back to the app heap */
				heap_info(&body, t == 0x21 ? 'I' : 'Z');
				put(&body, in + q, n);
				heap_info(&body, 'A');
				m21 += t == 0x21;
				m22 += t == 0x22;
				m23 += t == 0x23;
			} else {
				put(&body, in + q, n);
			}
			n21 += t == 0x21;
			n22 += t == 0x22;
			n23 += t == 0x23;
			q += n;
		}
		heap_record_header(out, tag, in + p + 1, body.len);
		if (body.len && fwrite(body.p, 1, body.len, out) != body.len)
			die_sys("write");
		p = end;
	}
	if (fclose(out))
		die_sys(argv[argi + 1]);
	if (counts) {
		FILE *c = fopen(counts, "w");
		if (!c || fprintf(c, "instances %llu\nobject-arrays %llu\n"
		                  "primitive-arrays %llu\nimage-instances %llu\n"
		                  "zygote-object-arrays %llu\n"
		                  "zygote-primitive-arrays %llu\n",
		                  n21, n22, n23, m21, m22, m23) < 0 || fclose(c))
			die_sys(counts);
	}
	free(in);
	free(body.p);
	return 0;
}
