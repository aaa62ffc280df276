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
 * C11, libc only; it walks with the test side's walker (walk.h).
 */
#include "walk.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *in_name;

static _Noreturn void die(const char *msg, unsigned long long off)
{
	fprintf(stderr, "androidize: %s: offset %llu: %s\n", in_name, off, msg);
	exit(1);
}

static _Noreturn void die_sys(const char *what)
{
	perror(what);
	exit(1);
}

static void oom(void)
{
	errno = ENOMEM;
	die_sys("realloc");
}

/* Tags that only Android writes: not in the input this takes. */
static int android_tag(unsigned t)
{
	return (t >= 0x89 && t <= 0x8E) || t == 0x90 || t == 0xFE || t == 0xC3;
}

/* The walk found a problem in the header, a record or the sub-record at
 * w->err_sub: said in androidize's words, at the offset it has always
 * named (in a class dump, where the next read finds a value cut short). */
static _Noreturn void walk_bad(const struct walk *w)
{
	enum walk_err e = w->err;
	uint64_t at = w->err_at, sub = w->err_sub;
	const char *runs = "class dump runs past its record";

	switch (e) {
	case WALK_E_NONUL:
	case WALK_E_MAGIC:
		die("not a JAVA PROFILE 1.0.1 or 1.0.2 header", 0);
	case WALK_E_HEADER:
	case WALK_E_IDSIZE:
		die(e == WALK_E_HEADER ? "stream ended inside the file header"
		    : "unsupported identifier size", at);
	case WALK_E_REC_HEADER:
	case WALK_E_REC_BODY:
		die(e == WALK_E_REC_HEADER ? "stream ended inside a record header"
		    : "stream ended inside a record", at);
	case WALK_E_TAG:
		die("not a 1.0.1/1.0.2 heap sub-record tag", sub);
	case WALK_E_CLASS_HEADER:
	case WALK_E_CP_VALUE:
	case WALK_E_STATIC_VALUE:
		die(runs, at + w->err_n);
	case WALK_E_CP_COUNT:
	case WALK_E_CP_ENTRY:
	case WALK_E_STATIC_COUNT:
	case WALK_E_STATIC:
	case WALK_E_FIELD_COUNT:
		die(runs, at);
	case WALK_E_CP_TYPE:
	case WALK_E_STATIC_TYPE:
		die("invalid basic type", at);
	case WALK_E_PRIM_TYPE:
		die("invalid array element type", at);
	case WALK_E_INSTANCE_HEADER:
		die("instance dump runs past its record", sub);
	case WALK_E_OBJ_ARRAY_HEADER:
	case WALK_E_PRIM_HEADER:
		die("array dump runs past its record", sub);
	default:
		die("sub-record runs past its record", sub);
	}
}

static unsigned idsize;
static struct walk_out body = { NULL, 0, 0, oom };

static void heap_info(struct walk_out *b, unsigned heap)
{
	walk_put_be(b, 0xFE, 1);
	walk_put_be(b, heap, 4);
	walk_put_be(b, 0, idsize); /* heap name string id: none */
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
	int zygote_arrays = 0, image = 0, argi = 1, first_heap = 1, rc;
	unsigned long long sticky = 0, subs = 0;
	/* all and moved instance dumps, object arrays, primitive arrays */
	unsigned long long n21 = 0, n22 = 0, n23 = 0, m21 = 0, m22 = 0, m23 = 0;
	const char *counts = NULL;
	struct walk_file f;
	struct walk w;
	struct walk_rec r;
	struct walk_sub s;
	const unsigned char *in;
	uint64_t p, q;
	FILE *out;

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
	if (walk_load(&f, in_name))
		die_sys(errno == ENOMEM ? "realloc" : in_name);

	/* header */
	rc = walk_header(&w, f.b, f.size, WALK_SKIP_FIELDS);
	if (w.version == '3')
		die("not a JAVA PROFILE 1.0.1 or 1.0.2 header", 0);
	if (rc)
		walk_bad(&w);
	in = w.b;
	idsize = w.idsize;
	out = fopen(argv[argi + 1], "wb");
	if (!out)
		die_sys(argv[argi + 1]);
	fputs("JAVA PROFILE 1.0.3", out);
	fputc(0, out);
	fwrite(in + w.first - 12, 1, 12, out);

	for (p = w.first; (rc = walk_record(&w, p, &r)) > 0; p = r.end) {
		if (!walk_heap_tag(r.tag)) {
			if (fwrite(in + p, 1, 9 + r.len, out) != 9 + r.len)
				die_sys("write");
			continue;
		}
		if (first_heap) {
			/* an empty segment, then one the conversion leaves empty */
			heap_record_header(out, 0x1C, in + p + 1, 0);
			body.len = 0;
			heap_info(&body, 'A');
			heap_record_header(out, 0x1C, in + p + 1, body.len);
			fwrite(body.b, 1, body.len, out);
			first_heap = 0;
		}
		body.len = 0;
		heap_info(&body, 'A');
		for (q = r.body; q < r.end; q = s.end) {
			unsigned t = in[q];

			if (android_tag(t))
				die("not a 1.0.1/1.0.2 heap sub-record tag", q);
			if (walk_sub(&w, q, r.end, &s) < 0)
				walk_bad(&w);
			if (++subs % 64 == 0)
				heap_info(&body, 'A');
			if (t == 0x05) {
				unsigned rt = root_types[sticky++ % 8];
				walk_put_be(&body, rt, 1);
				walk_put(&body, in + q + 1, idsize);
				if (rt == 0x8E) { /* thread serial, frame: none */
					walk_put_be(&body, 1, 4);
					walk_put_be(&body, 0xFFFFFFFFu, 4);
				}
			} else if ((t == 0x23 && zygote_arrays) ||
			           (t == 0x21 && image && n21 % 3 == 2) ||
			           (t == 0x22 && image && n22 % 5 == 4)) {
				/* in another heap, then back to the app heap */
				heap_info(&body, t == 0x21 ? 'I' : 'Z');
				walk_put(&body, in + q, s.end - q);
				heap_info(&body, 'A');
				m21 += t == 0x21;
				m22 += t == 0x22;
				m23 += t == 0x23;
			} else {
				walk_put(&body, in + q, s.end - q);
			}
			n21 += t == 0x21;
			n22 += t == 0x22;
			n23 += t == 0x23;
		}
		heap_record_header(out, r.tag, in + p + 1, body.len);
		if (body.len && fwrite(body.b, 1, body.len, out) != body.len)
			die_sys("write");
	}
	if (rc < 0)
		walk_bad(&w);
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
	walk_unload(&f);
	free(body.b);
	return 0;
}
