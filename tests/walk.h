/*
 * walk.h - the test side's one HPROF walker (tests/walk.c), grown out of
 * the oracle: a dump held whole in memory, walked with bounds checks.
 *
 * The header, the top-level records and the sub-records of the heap
 * records (HEAP_DUMP 0x0C, HEAP_DUMP_SEGMENT 0x1C): the sizes of the basic
 * types, the lengths of the fixed sub-records and the parsing of class,
 * instance and array dumps are here once. The oracle, strcheck, replay,
 * androidize and the fuzz seed cutter (tests/fuzz/mkseeds.c) walk with it.
 *
 * Independent of the product on purpose: nothing from strip/, so that the
 * tests judge the engine with code of their own. (tests/heap-census, in
 * Perl, and tests/hprof-walk, in Python, are judges in other languages,
 * also on purpose, and do not use it.)
 *
 * A walk is pulled, one record or sub-record a call:
 *
 *	struct walk w;
 *	struct walk_rec r;
 *	struct walk_sub s;
 *	if (walk_header(&w, buf, size, 0)) ... w.err
 *	for (uint64_t p = w.first; (rc = walk_record(&w, p, &r)) > 0; p = r.end)
 *		if (walk_heap_tag(r.tag))
 *			for (uint64_t q = r.body;
 *			     (rc = walk_sub(&w, q, r.end, &s)) > 0; q = s.end)
 *				...
 *
 * A call that finds a problem returns -1 and says in w which check failed
 * (err), where the read that did not fit begins or the byte that is wrong
 * (err_at), how many bytes that read wanted (err_n) and where the record
 * or sub-record begins (err_sub): each program words it its own way (the
 * oracle's words are walk_strerror's). The checks run in the oracle's
 * order, each part of a sub-record before the next.
 *
 * No global state: any number of walks at once. C11, libc only.
 */
#ifndef HPROFSTRIP_TESTS_WALK_H
#define HPROFSTRIP_TESTS_WALK_H

#include <stddef.h>
#include <stdint.h>

enum walk_err {
	WALK_OK,
	/* the header (err_at: 0, or the id size's offset) */
	WALK_E_NONUL,        /* no NUL ends the header string */
	WALK_E_MAGIC,        /* not "JAVA PROFILE 1.0.1", "1.0.2", "1.0.3" */
	WALK_E_HEADER,       /* the file ends inside id size and time stamp */
	WALK_E_IDSIZE,       /* the identifier size is not 4 or 8 */
	/* top-level records (err_sub: the record's tag byte) */
	WALK_E_REC_HEADER,   /* the file ends inside a record header */
	WALK_E_REC_BODY,     /* a body runs past the end of the file */
	/* heap sub-records (err_sub: the sub-record's tag byte) */
	WALK_E_TAG,          /* an unknown tag */
	WALK_E_FIXED,        /* a fixed-length sub-record cut short */
	WALK_E_CLASS_HEADER, /* CLASS_DUMP: ids, serial and size cut short */
	/* a class dump's three tables, in this order, four apart: constant
	   pool (u2 index, u1 type, value), static fields (id name, u1 type,
	   value), instance fields (id name, u1 type) */
	WALK_E_CP_COUNT, WALK_E_CP_ENTRY, WALK_E_CP_TYPE, WALK_E_CP_VALUE,
	WALK_E_STATIC_COUNT, WALK_E_STATIC, WALK_E_STATIC_TYPE,
	WALK_E_STATIC_VALUE,
	WALK_E_FIELD_COUNT, WALK_E_FIELD, WALK_E_FIELD_TYPE,
	WALK_E_INSTANCE_HEADER, WALK_E_INSTANCE_DATA,
	WALK_E_OBJ_ARRAY_HEADER, WALK_E_OBJ_ARRAY_DATA,
	WALK_E_PRIM_HEADER, WALK_E_PRIM_TYPE, WALK_E_PRIM_DATA
};

/* walk_header flags */
#define WALK_SKIP_FIELDS 1u /* a class dump's instance field table is
                               skipped as a whole, its types unread (as
                               the engine does; walk_fields reads them) */
#define WALK_ANY_HEADER 2u  /* any header string "JAVA PROFILE 1.0." ...
                               whose NUL is in the first 64 bytes: what a
                               write driver frames */

struct walk {
	const unsigned char *b;  /* the whole dump */
	uint64_t size;
	unsigned flags;
	unsigned idsize;         /* 4 or 8; 0 until the header is read */
	int version;             /* the header's last digit: '1', '2', '3' */
	uint64_t first;          /* the first record: the header's length */
	enum walk_err err;       /* the first problem, and where */
	uint64_t err_at, err_n, err_sub;
};

/* A top-level record: u1 tag, u4 time, u4 length, body. */
struct walk_rec {
	uint64_t off;            /* its tag byte */
	unsigned tag;
	uint64_t body, len, end; /* end = body + len */
};

/* A heap sub-record [off, end), its tag byte included. */
struct walk_sub {
	uint64_t off, end;
	unsigned tag;
	uint64_t id;       /* the id after the tag: the object, class or
	                      root's; 0 for HEAP_DUMP_INFO (0xFE) */
	uint64_t cls;      /* 0x21: its class; 0x22: the array's class;
	                      0x20: the superclass */
	uint32_t count;    /* 0x21: bytes of field values; 0x22, 0x23,
	                      0xC3: elements; 0x20: instance fields */
	unsigned type;     /* 0x23, 0xC3: the element type */
	unsigned esize;    /* 0x22: the id size; 0x23, 0xC3: the element
	                      type's size (0xC3: 0 when that is not a
	                      primitive type); 0x21: 1 */
	uint64_t data;     /* 0x21: field values; 0x22, 0x23: elements;
	                      0x20: the instance field table (its u2 count);
	                      others: end */
};

/* Reads the header of the dump b[0, size). 0, or -1 (w->err). */
int walk_header(struct walk *w, const void *b, uint64_t size,
                unsigned flags);

/* The record at pos (w->first for the first): 1, 0 at the end of the
 * file, -1 (w->err) when it does not fit. */
int walk_record(struct walk *w, uint64_t pos, struct walk_rec *r);

/* The heap sub-record at pos, which must end by end (its heap record's
 * end): 1, 0 when pos is end, -1 (w->err). */
int walk_sub(struct walk *w, uint64_t pos, uint64_t end, struct walk_sub *s);

/* With WALK_SKIP_FIELDS: the types of class dump s's instance fields.
 * 0, or -1 (w->err WALK_E_FIELD_TYPE). */
int walk_fields(struct walk *w, const struct walk_sub *s);

/* 1 for HEAP_DUMP (0x0C) and HEAP_DUMP_SEGMENT (0x1C). */
int walk_heap_tag(unsigned tag);

/* Big-endian unsigned of n bytes at off (the caller checked the bounds),
 * and an id. */
uint64_t walk_u(const struct walk *w, uint64_t off, unsigned n);
uint64_t walk_id(const struct walk *w, uint64_t off);

/* Size of a value of basic type t (2, an object: the id size), 0 if t is
 * not a basic type. */
unsigned walk_type_size(const struct walk *w, unsigned t);

/* The oracle's words for e. */
const char *walk_strerror(enum walk_err e);
/* The problem a walk found, in the judges' words (strcheck, redactcheck),
 * and where: at the byte when a type or the header is wrong, else at the
 * record or sub-record it is in (*at). */
const char *walk_problem(const struct walk *w, uint64_t *at);

/* ---- a dump's bytes, and bytes written ---------------------------------- */

struct walk_file {
	const unsigned char *b;
	uint64_t size;
	int mapped;
};

/* The file at path, whole: mapped when it is a regular file, else read (a
 * pipe). 0, or -1 (open failed) or -2 (reading failed; out of memory:
 * ENOMEM), errno set. */
int walk_load(struct walk_file *f, const char *path);
void walk_unload(struct walk_file *f);

/* ---- a judge's input (strcheck, redactcheck) -------------------------- */

/* A dump a judge reads whole, its walk, and how a problem in it is said:
 * "PROG: NAME: offset N: ..." on stderr, exit status. */
struct walk_dump {
	const char *prog;       /* the judge's name, first on its lines */
	const char *name;
	int status;             /* exit status when it does not parse */
	struct walk_file f;     /* the whole file */
	struct walk w;          /* its walk: w.b, w.idsize ... */
};

/* "PROG: NAME: strerror(errno)", exit 2. */
_Noreturn void walk_die_sys(const char *prog, const char *name);
/* "PROG: out of memory", exit 2. */
_Noreturn void walk_oom(const char *prog);
/* The file at name, whole, into d (walk_load): one that cannot be read is
 * walk_die_sys's, out of memory walk_oom's. */
void walk_dump_load(struct walk_dump *d, const char *prog, const char *name,
                    int status);
/* Something wrong at offset off of d: one line, exit d's status. */
_Noreturn void walk_dump_bad(const struct walk_dump *d, uint64_t off,
                             const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The problem d's walk found (walk_problem), walk_dump_bad at its offset. */
_Noreturn void walk_dump_problem(const struct walk_dump *d);
/* A judge's two operands, ORIGINAL and the file judged: a, an argument
 * that is not an option the judge knows, becomes files[*n]: 1; 0 (a usage
 * error) when it looks like an option ('-' and more) or is a third. */
int walk_operand(const char *files[2], int *n, const char *a);
/* d's header read with the walk's flags (walk_header); an empty file or
 * a header that does not parse is walk_dump_bad's. */
void walk_dump_header(struct walk_dump *d, unsigned flags);

/* A growable byte buffer, allocated by the first put; oom is called, and
 * must not return, when it cannot grow. */
struct walk_out {
	unsigned char *b;
	size_t len, cap;
	void (*oom)(void);
};

void walk_put(struct walk_out *o, const void *p, size_t n);
/* v as n big-endian bytes */
void walk_put_be(struct walk_out *o, uint64_t v, unsigned n);

/* ---- tables: growable arrays, sorted once filled, searched by key ------ */

/* Elements start with their key, a uint64_t, and may go on with an offset
 * in the file, a uint64_t too (the tie-break: file order). */
struct walk_vec {
	void *p;
	size_t n, cap, size;
};
#define WALK_VEC(type) { NULL, 0, 0, sizeof(type) }

/* Room for one more element, at the end; NULL when memory runs out. */
void *walk_vec_push(struct walk_vec *v);
/* qsort orders: by key; by key, then offset */
int walk_by_key(const void *a, const void *b);
int walk_by_key_off(const void *a, const void *b);
void walk_vec_sort(struct walk_vec *v, int (*cmp)(const void *, const void *));
/* The first element with this key (sorted), or NULL. */
void *walk_vec_find(const struct walk_vec *v, uint64_t key);

#endif
