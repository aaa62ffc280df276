/*
 * walk.c - the test side's one HPROF walker: see walk.h.
 *
 * C11, libc only; nothing from strip/.
 */
#include "walk.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAGIC "JAVA PROFILE 1.0."
#define MAGIC_LEN 17

static int fail(struct walk *w, enum walk_err e, uint64_t at, uint64_t n,
                uint64_t sub)
{
	w->err = e;
	w->err_at = at;
	w->err_n = n;
	w->err_sub = sub;
	return -1;
}

/* Do n bytes at pos end by end? */
static int fits(uint64_t pos, uint64_t n, uint64_t end)
{
	return pos <= end && n <= end - pos;
}

/* In a sub-record that begins at sub: fail with e unless n bytes at pos
 * end by end. */
#define NEED(pos, n, e)                                      \
	do {                                                 \
		if (!fits((pos), (n), end))                  \
			return fail(w, (e), (pos), (n), sub); \
	} while (0)

uint64_t walk_u(const struct walk *w, uint64_t off, unsigned n)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < n; i++)
		v = v << 8 | w->b[off + i];
	return v;
}

uint64_t walk_id(const struct walk *w, uint64_t off)
{
	return walk_u(w, off, w->idsize);
}

unsigned walk_type_size(const struct walk *w, unsigned t)
{
	switch (t) {
	case 2: return w->idsize;   /* object */
	case 4: case 8: return 1;   /* boolean, byte */
	case 5: case 9: return 2;   /* char, short */
	case 6: case 10: return 4;  /* float, int */
	case 7: case 11: return 8;  /* double, long */
	default: return 0;
	}
}

int walk_heap_tag(unsigned tag)
{
	return tag == 0x0C || tag == 0x1C;
}

/* ------------------------------------------------------------------ */
/* header and records                                                 */

int walk_header(struct walk *w, const void *b, uint64_t size, unsigned flags)
{
	const unsigned char *nul;
	uint64_t p;

	memset(w, 0, sizeof *w);
	w->b = b;
	w->size = size;
	w->flags = flags;
	/* NUL-terminated version string, u4 id size, u8 time stamp */
	nul = !size ? NULL
	    : memchr(w->b, 0, (flags & WALK_ANY_HEADER) && size > 64
	                      ? 64 : (size_t)size);
	if (flags & WALK_ANY_HEADER) {
		if (!nul || size < MAGIC_LEN + 2 ||
		    memcmp(w->b, MAGIC, MAGIC_LEN) != 0)
			return fail(w, WALK_E_MAGIC, 0, 0, 0);
	} else {
		if (!nul)
			return fail(w, WALK_E_NONUL, 0, 0, 0);
		if (nul - w->b != MAGIC_LEN + 1 ||
		    memcmp(w->b, MAGIC, MAGIC_LEN) != 0 ||
		    w->b[MAGIC_LEN] < '1' || w->b[MAGIC_LEN] > '3')
			return fail(w, WALK_E_MAGIC, 0, 0, 0);
	}
	w->version = w->b[MAGIC_LEN];
	p = (uint64_t)(nul - w->b) + 1;
	if (!fits(p, 4 + 8, size))
		return fail(w, WALK_E_HEADER, p, 4 + 8, 0);
	w->idsize = (unsigned)walk_u(w, p, 4);
	if (w->idsize != 4 && w->idsize != 8) {
		w->idsize = 0;
		return fail(w, WALK_E_IDSIZE, p, 4, 0);
	}
	w->first = p + 4 + 8;
	return 0;
}

int walk_record(struct walk *w, uint64_t pos, struct walk_rec *r)
{
	if (pos >= w->size)
		return 0;
	if (!fits(pos, 9, w->size))
		return fail(w, WALK_E_REC_HEADER, pos, 9, pos);
	r->off = pos;
	r->tag = w->b[pos];
	r->len = walk_u(w, pos + 5, 4);
	r->body = pos + 9;
	if (!fits(r->body, r->len, w->size))
		return fail(w, WALK_E_REC_BODY, r->body, r->len, pos);
	r->end = r->body + r->len;
	return 1;
}

/* ------------------------------------------------------------------ */
/* heap sub-records                                                   */

/* Length after the tag of a sub-record with a fixed layout, 0 if the tag
 * has a variable layout or is unknown. */
static uint64_t fixed_len(unsigned tag, uint64_t id)
{
	switch (tag) {
	case 0xFF: return id;             /* ROOT_UNKNOWN */
	case 0x01: return id + id;        /* ROOT_JNI_GLOBAL */
	case 0x02: return id + 4 + 4;     /* ROOT_JNI_LOCAL */
	case 0x03: return id + 4 + 4;     /* ROOT_JAVA_FRAME */
	case 0x04: return id + 4;         /* ROOT_NATIVE_STACK */
	case 0x05: return id;             /* ROOT_STICKY_CLASS */
	case 0x06: return id + 4;         /* ROOT_THREAD_BLOCK */
	case 0x07: return id;             /* ROOT_MONITOR_USED */
	case 0x08: return id + 4 + 4;     /* ROOT_THREAD_OBJECT */
	case 0x89: return id;             /* ROOT_INTERNED_STRING */
	case 0x8A: return id;             /* ROOT_FINALIZING */
	case 0x8B: return id;             /* ROOT_DEBUGGER */
	case 0x8C: return id;             /* ROOT_REFERENCE_CLEANUP */
	case 0x8D: return id;             /* ROOT_VM_INTERNAL */
	case 0x8E: return id + 4 + 4;     /* ROOT_JNI_MONITOR */
	case 0x90: return id;             /* UNREACHABLE */
	case 0xFE: return 4 + id;         /* HEAP_DUMP_INFO */
	case 0xC3: return id + 4 + 4 + 1; /* PRIMITIVE_ARRAY_NODATA */
	default: return 0;
	}
}

/*
 * CLASS_DUMP: class, stack serial, superclass, loader, signers, protection
 * domain, 2 reserved, instance size; then three tables, each a u2 count
 * and its entries: the constant pool (u2 index, u1 type, value), the
 * static fields (id name, u1 type, value), the instance fields (id name,
 * u1 type).
 */
static int class_dump(struct walk *w, struct walk_sub *s, uint64_t end)
{
	uint64_t id = w->idsize, sub = s->off, p = sub + 1, n;

	NEED(p, 7 * id + 4 + 4, WALK_E_CLASS_HEADER);
	s->id = walk_id(w, p);
	s->cls = walk_id(w, p + id + 4);
	p += 7 * id + 4 + 4;
	for (unsigned k = 0; k < 3; k++) {
		/* this table's errors: count, entry, type, value */
		enum walk_err e = (enum walk_err)(WALK_E_CP_COUNT + 4 * k);
		uint64_t key = k ? id : 2; /* what comes before the type */

		NEED(p, 2, e);
		n = walk_u(w, p, 2);
		if (k == 2) {
			s->data = p;
			s->count = (uint32_t)n;
		}
		p += 2;
		if (k == 2 && (w->flags & WALK_SKIP_FIELDS)) {
			NEED(p, n * (key + 1), e + 1);
			p += n * (key + 1);
			break;
		}
		for (uint64_t i = 0; i < n; i++) {
			NEED(p, key + 1, e + 1);
			unsigned sz = walk_type_size(w, w->b[p + key]);
			if (!sz)
				return fail(w, e + 2, p + key, 1, sub);
			p += key + 1;
			if (k < 2) {
				NEED(p, sz, e + 3);
				p += sz;
			}
		}
	}
	s->end = p;
	return 1;
}

int walk_sub(struct walk *w, uint64_t pos, uint64_t end, struct walk_sub *s)
{
	uint64_t id = w->idsize, sub = pos, q = pos + 1, n;

	if (pos >= end)
		return 0;
	memset(s, 0, sizeof *s);
	s->off = pos;
	s->tag = w->b[pos];
	switch (s->tag) {
	case 0x20:
		return class_dump(w, s, end);
	case 0x21: /* INSTANCE_DUMP: id, u4 serial, id class, u4 n, n bytes */
		NEED(q, id + 4 + id + 4, WALK_E_INSTANCE_HEADER);
		s->cls = walk_id(w, q + id + 4);
		s->count = (uint32_t)walk_u(w, q + id + 4 + id, 4);
		s->esize = 1;
		s->data = q + id + 4 + id + 4;
		NEED(s->data, s->count, WALK_E_INSTANCE_DATA);
		break;
	case 0x22: /* OBJ_ARRAY_DUMP: id, u4 serial, u4 n, id class, n ids */
		NEED(q, id + 4 + 4 + id, WALK_E_OBJ_ARRAY_HEADER);
		s->count = (uint32_t)walk_u(w, q + id + 4, 4);
		s->cls = walk_id(w, q + id + 4 + 4);
		s->esize = (unsigned)id;
		s->data = q + id + 4 + 4 + id;
		NEED(s->data, s->count * id, WALK_E_OBJ_ARRAY_DATA);
		break;
	case 0x23: /* PRIMITIVE_ARRAY_DUMP: id, u4 serial, u4 n, u1 type,
	              elements */
		NEED(q, id + 4 + 4 + 1, WALK_E_PRIM_HEADER);
		s->count = (uint32_t)walk_u(w, q + id + 4, 4);
		s->type = w->b[q + id + 4 + 4];
		s->esize = s->type == 2 ? 0 : walk_type_size(w, s->type);
		if (!s->esize)
			return fail(w, WALK_E_PRIM_TYPE, q + id + 4 + 4, 1, sub);
		s->data = q + id + 4 + 4 + 1;
		NEED(s->data, (uint64_t)s->count * s->esize, WALK_E_PRIM_DATA);
		break;
	default:
		n = fixed_len(s->tag, id);
		if (!n)
			return fail(w, WALK_E_TAG, pos, 1, sub);
		NEED(q, n, WALK_E_FIXED);
		s->data = q + n;
		if (s->tag == 0xC3) { /* as 0x23, without the elements */
			s->count = (uint32_t)walk_u(w, q + id + 4, 4);
			s->type = w->b[q + id + 4 + 4];
			s->esize = s->type == 2 ? 0
			                        : walk_type_size(w, s->type);
		}
		if (s->tag != 0xFE)
			s->id = walk_id(w, q);
		s->end = q + n;
		return 1;
	}
	s->id = walk_id(w, q);
	s->end = s->data + (uint64_t)s->count * s->esize;
	return 1;
}

int walk_fields(struct walk *w, const struct walk_sub *s)
{
	uint64_t id = w->idsize, p = s->data + 2;

	for (uint64_t i = 0; i < s->count; i++, p += id + 1)
		if (!walk_type_size(w, w->b[p + id]))
			return fail(w, WALK_E_FIELD_TYPE, p + id, 1, s->off);
	return 0;
}

const char *walk_strerror(enum walk_err e)
{
	static const char *const words[] = {
		[WALK_OK] = "no error",
		[WALK_E_NONUL] = "header string not NUL-terminated",
		[WALK_E_MAGIC] = "unrecognised header string",
		[WALK_E_HEADER] = "truncated header",
		[WALK_E_IDSIZE] = "identifier size is not 4 or 8",
		[WALK_E_REC_HEADER] = "truncated record header",
		[WALK_E_REC_BODY] = "record body extends past end of file",
		[WALK_E_TAG] = "unknown heap dump sub-record tag",
		[WALK_E_FIXED] = "truncated heap dump sub-record",
		[WALK_E_CLASS_HEADER] = "truncated CLASS_DUMP header",
		[WALK_E_CP_COUNT] = "truncated CLASS_DUMP constant pool count",
		[WALK_E_CP_ENTRY] = "truncated CLASS_DUMP constant pool entry",
		[WALK_E_CP_TYPE] = "bad basic type in CLASS_DUMP constant pool",
		[WALK_E_CP_VALUE] = "truncated CLASS_DUMP constant pool value",
		[WALK_E_STATIC_COUNT] = "truncated CLASS_DUMP static field count",
		[WALK_E_STATIC] = "truncated CLASS_DUMP static field",
		[WALK_E_STATIC_TYPE] = "bad basic type in CLASS_DUMP static field",
		[WALK_E_STATIC_VALUE] = "truncated CLASS_DUMP static field value",
		[WALK_E_FIELD_COUNT] =
			"truncated CLASS_DUMP instance field count",
		[WALK_E_FIELD] = "truncated CLASS_DUMP instance field",
		[WALK_E_FIELD_TYPE] =
			"bad basic type in CLASS_DUMP instance field",
		[WALK_E_INSTANCE_HEADER] = "truncated INSTANCE_DUMP header",
		[WALK_E_INSTANCE_DATA] = "truncated INSTANCE_DUMP data",
		[WALK_E_OBJ_ARRAY_HEADER] = "truncated OBJ_ARRAY_DUMP header",
		[WALK_E_OBJ_ARRAY_DATA] = "truncated OBJ_ARRAY_DUMP data",
		[WALK_E_PRIM_HEADER] = "truncated PRIMITIVE_ARRAY_DUMP header",
		[WALK_E_PRIM_TYPE] = "bad element type in PRIMITIVE_ARRAY_DUMP",
		[WALK_E_PRIM_DATA] = "truncated PRIMITIVE_ARRAY_DUMP data",
	};
	return (unsigned)e < sizeof words / sizeof *words && words[e]
	       ? words[e] : "unknown error";
}

/* ------------------------------------------------------------------ */
/* files and buffers                                                  */

int walk_load(struct walk_file *f, const char *path)
{
	struct stat st;
	unsigned char *buf = NULL, *nb;
	size_t len = 0, cap = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC), e;

	memset(f, 0, sizeof *f);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
		void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE,
		               fd, 0);
		if (p != MAP_FAILED) {
			close(fd);
			f->b = p;
			f->size = (uint64_t)st.st_size;
			f->mapped = 1;
			return 0;
		}
	}
	for (;;) {
		if (len == cap) {
			cap = cap ? 2 * cap : 1 << 20;
			if (!(nb = realloc(buf, cap))) {
				errno = ENOMEM;
				goto fail;
			}
			buf = nb;
		}
		ssize_t n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			goto fail;
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	f->b = buf;
	f->size = len;
	return 0;
fail:
	e = errno;
	free(buf);
	close(fd);
	errno = e;
	return -2;
}

void walk_unload(struct walk_file *f)
{
	if (f->mapped)
		munmap((void *)(uintptr_t)f->b, (size_t)f->size);
	else
		free((void *)(uintptr_t)f->b);
	memset(f, 0, sizeof *f);
}

_Noreturn void walk_die_sys(const char *prog, const char *name)
{
	fprintf(stderr, "%s: %s: %s\n", prog, name, strerror(errno));
	exit(2);
}

_Noreturn void walk_oom(const char *prog)
{
	fprintf(stderr, "%s: out of memory\n", prog);
	exit(2);
}

void walk_dump_load(struct walk_dump *d, const char *prog, const char *name,
                    int status)
{
	d->prog = prog;
	d->name = name;
	d->status = status;
	if (walk_load(&d->f, name) == 0)
		return;
	if (errno == ENOMEM)
		walk_oom(prog);
	walk_die_sys(prog, name);
}

_Noreturn void walk_dump_bad(const struct walk_dump *d, uint64_t off,
                             const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: %s: offset %llu: ", d->prog, d->name,
	        (unsigned long long)off);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(d->status);
}

_Noreturn void walk_dump_problem(const struct walk_dump *d)
{
	uint64_t at;
	const char *what = walk_problem(&d->w, &at);

	walk_dump_bad(d, at, "%s", what);
}

int walk_operand(const char *files[2], int *n, const char *a)
{
	if ((a[0] == '-' && a[1]) || *n >= 2)
		return 0;
	files[(*n)++] = a;
	return 1;
}

void walk_dump_header(struct walk_dump *d, unsigned flags)
{
	if (d->f.size == 0)
		walk_dump_bad(d, 0, "empty file: not an HPROF dump");
	if (walk_header(&d->w, d->f.b, d->f.size, flags))
		walk_dump_problem(d);
}

void walk_put(struct walk_out *o, const void *p, size_t n)
{
	if (!o->b || n > o->cap - o->len) {
		size_t cap = o->cap ? o->cap : 4096;
		while (cap - o->len < n)
			cap *= 2;
		unsigned char *nb = realloc(o->b, cap);
		if (!nb)
			o->oom();
		o->b = nb;
		o->cap = cap;
	}
	if (n)
		memcpy(o->b + o->len, p, n);
	o->len += n;
}

void walk_put_be(struct walk_out *o, uint64_t v, unsigned n)
{
	unsigned char b[8];

	for (unsigned i = 0; i < n; i++)
		b[i] = (unsigned char)(v >> (8 * (n - 1 - i)));
	walk_put(o, b, n);
}

const char *walk_problem(const struct walk *w, uint64_t *at)
{
	enum walk_err e = w->err;

	*at = w->err_at;
	switch (e) {
	case WALK_E_NONUL:
	case WALK_E_MAGIC:
		*at = 0;
		return "no \"JAVA PROFILE 1.0.1\", \"1.0.2\" or \"1.0.3\" header";
	case WALK_E_HEADER:
		return "file ends inside the header";
	case WALK_E_IDSIZE:
		return "identifier size is not 4 or 8";
	case WALK_E_CP_TYPE:
	case WALK_E_STATIC_TYPE:
	case WALK_E_FIELD_TYPE:
		return "invalid basic type in a class dump";
	case WALK_E_PRIM_TYPE:
		return "invalid element type";
	default:
		break;
	}
	*at = w->err_sub;
	return e == WALK_E_REC_HEADER ? "file ends inside a record header"
	       : e == WALK_E_REC_BODY ? "record runs past the end of the file"
	       : e == WALK_E_TAG ? "unknown heap sub-record tag"
	       : "sub-record runs past the end of its heap record";
}

/* ---- tables ------------------------------------------------------------- */

void *walk_vec_push(struct walk_vec *v)
{
	if (v->n == v->cap) {
		size_t cap = v->cap ? 2 * v->cap : 1024;
		void *p = realloc(v->p, cap * v->size);
		if (!p)
			return NULL;
		v->p = p;
		v->cap = cap;
	}
	return (char *)v->p + v->n++ * v->size;
}

int walk_by_key(const void *a, const void *b)
{
	uint64_t x, y;

	memcpy(&x, a, sizeof x);
	memcpy(&y, b, sizeof y);
	return x < y ? -1 : x > y;
}

int walk_by_key_off(const void *a, const void *b)
{
	uint64_t x[2], y[2];

	memcpy(x, a, sizeof x);
	memcpy(y, b, sizeof y);
	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	return x[1] < y[1] ? -1 : x[1] > y[1];
}

void walk_vec_sort(struct walk_vec *v, int (*cmp)(const void *, const void *))
{
	if (v->n > 1)
		qsort(v->p, v->n, v->size, cmp);
}

void *walk_vec_find(const struct walk_vec *v, uint64_t key)
{
	char *p = v->p;
	size_t lo = 0, hi = v->n;
	uint64_t k;

	/* every element starts with its key (memcpy: no alignment cast) */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		memcpy(&k, p + mid * v->size, sizeof k);
		if (k < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < v->n) {
		memcpy(&k, p + lo * v->size, sizeof k);
		if (k == key)
			return p + lo * v->size;
	}
	return NULL;
}
