/*
 * The object graph of one heap dump, for the leak analysis (hprofstrip
 * --suspects): every object with its id, shallow size and outbound
 * references, the GC roots, the classes' names and field lists. Built by
 * one pass over the dump's bytes (load.c, keeping what it reads in
 * objects.c), from a file or a pipe, in arrays whose size is known per
 * object and per reference (big.h); then resolved (ids to indices),
 * and handed to the dominator computation (dom.c) and the report
 * (report.c). Independent of the stripping engine:
 * the analysis reads what any tool of this project writes and what the
 * runtimes write, whole, stripped, restored, redacted or cut.
 *
 * Memory, per object: id 8, size 4, edge offset 4, class 4, kind 1;
 * per reference: 8 while the dump is read (its target's id), 4 after.
 */
#ifndef HPROFSTRIP_ANALYZE_HEAP_H
#define HPROFSTRIP_ANALYZE_HEAP_H

#include "big.h"

#include <stdint.h>

#define HEAP_NONE UINT32_MAX   /* no object, no class */

/* an object's kind (the low 2 bits of heap.kind) */
enum { OBJ_INSTANCE, OBJ_ARRAY, OBJ_PRIM, OBJ_CLASS };
/* HPROF's basic types */
enum { T_OBJECT = 2, T_BOOLEAN = 4, T_CHAR, T_FLOAT, T_DOUBLE, T_BYTE,
       T_SHORT, T_INT, T_LONG };

/* heap.kind's high bits */
#define KIND_XEDGES 0x40       /* a thread with references from its frames
                                  (heap.xedge) */
#define KIND_ROOT 0x80         /* a GC root */
#define KIND_TYPE(k) (((k) >> 2) & 15)

/* GC root kinds, as the dump's root sub-record tags name them */
enum root_kind {
	ROOT_UNKNOWN, ROOT_JNI_GLOBAL, ROOT_JNI_LOCAL, ROOT_JAVA_FRAME,
	ROOT_NATIVE_STACK, ROOT_STICKY_CLASS, ROOT_THREAD_BLOCK,
	ROOT_MONITOR_USED, ROOT_THREAD_OBJECT, ROOT_INTERNED_STRING,
	ROOT_FINALIZING, ROOT_DEBUGGER, ROOT_REFERENCE_CLEANUP,
	ROOT_VM_INTERNAL, ROOT_JNI_MONITOR, ROOT_UNREACHABLE,
	ROOT_SYSTEM_CLASS, ROOT_KINDS
};
extern const char *const root_kind_name[ROOT_KINDS];

struct root {
	uint64_t id;           /* the object; after heap_resolve, its index */
	uint32_t kind;         /* enum root_kind */
	uint32_t thread;       /* its thread's serial, 0: none */
};

/* a class: from its LOAD_CLASS record, its CLASS_DUMP, or both */
struct hclass {
	uint64_t id, super, loader;
	uint64_t name;         /* its name's STRING id, 0: none */
	uint32_t obj;          /* its object, HEAP_NONE: not dumped */
	uint32_t fields;       /* its own instance fields: heap.fields[] */
	uint32_t nfields;
	uint32_t flat;         /* the reference offsets of an instance, the
	                          class's and its supers' (heap.flat[]),
	                          HEAP_NONE: not known yet */
	uint32_t nflat;
	uint32_t bytes;        /* an instance's field bytes, supers' too */
	uint32_t isize;        /* CLASS_DUMP's instance size */
	uint32_t watch_off;    /* Android: mDestroyed's (an Activity) or
	                          mFragmentManager's (a Fragment) offset */
	uint8_t watch;         /* WATCH_* */
	uint8_t ref_kind;      /* java.lang.ref: REF_* of the class */
	uint8_t state;         /* 1: flattened, 2: its chain is incomplete */
};

enum { WATCH_NONE, WATCH_ACTIVITY, WATCH_FRAGMENT };
/* the reference classes whose referent --strong does not follow */
enum { REF_NONE, REF_SOFT, REF_WEAK, REF_PHANTOM, REF_FINAL, REF_OTHER };

struct hfield {
	uint64_t name;         /* STRING id */
	uint32_t type;         /* T_* */
};

/* an Android finding at read time: the object and what was read */
struct watched {
	uint32_t obj;
	uint8_t watch;
};

struct heap {
	struct big_pool *pool;
	unsigned idsize;
	int strong;            /* --strong: ahat's references (load.c) */
	int version;           /* the header's last digit */
	/* objects, in the order they were read */
	uint32_t n;
	struct big id;         /* uint64_t[n] */
	struct big size;       /* uint32_t[n], shallow bytes (saturated) */
	struct big kind;       /* uint8_t[n]: OBJ_* | element type << 2 */
	struct big ocls;       /* uint32_t[n]: its class, HEAP_NONE: none */
	struct big off;        /* uint32_t[n + 1]: object i's references are
	                          edge[off[i], off[i + 1]) */
	struct big edge;       /* uint64_t ids; after heap_resolve, uint32_t
	                          indices */
	uint64_t nedge;
	struct big xedge;      /* uint32_t pairs (thread, object), sorted: the
	                          roots MAT makes references of a thread */
	uint64_t nxedge;
	struct big roots;      /* struct root[nroots]; after heap_resolve,
	                          .id is the object's index */
	uint64_t nroots;
	struct big oslot;      /* heap_resolve's id index, */
	uint32_t *obj_slot;    /* ... its slots: index + 1 */
	uint64_t obj_slots;
	/* classes, hashed by id */
	struct big cls;        /* struct hclass[ncls] */
	uint32_t ncls;
	uint32_t *cls_slot;    /* index + 1, 0 empty */
	uint32_t cls_slots;    /* a power of 2 */
	struct big fields;     /* struct hfield[] */
	struct big flat;       /* uint32_t[]: reference offsets */
	/* STRING texts, hashed by id: [u64 id][u32 len][text] */
	struct big text;
	uint64_t *str_slot;    /* offset + 1 in text, 0 empty */
	uint64_t str_slots, nstr;
	/* instances read before their class chain was known:
	   [u32 obj][u32 len][u64 class][field bytes] */
	struct big defer;
	uint64_t deferred;
	struct big watched;    /* struct watched[] */
	uint64_t nwatched;
	/* the primitive array classes, by element type (HEAP_NONE: none) */
	uint32_t prim_class[12];
	uint64_t prim_name[12]; /* ... their STRING ids */
	uint32_t class_class;  /* java.lang.Class, HEAP_NONE: none */
	/* what the read met */
	uint64_t in_off;       /* bytes read */
	uint64_t shallow_total;
	uint64_t huge;         /* objects whose size saturated, */
	struct big hugesz;     /* uint64_t pairs (object, size) of them */
	uint64_t dangling;     /* references to ids not in the dump */
	uint64_t dangling_roots;
	uint64_t duplicates;   /* a second object of an id (not counted) */
	uint64_t dup_classes;  /* a second class dump of a class (not read) */
	uint64_t unresolved;   /* instances whose class chain never came */
	int ended;             /* a HEAP_DUMP_END came: the first heap dump
	                          is whole, the file's later ones are not
	                          read (-agentlib:hprof writes several) */
	int in_later;
	uint64_t later_dumps;
	int cut;               /* the dump ended inside a record (salvage) */
	uint64_t cut_off;
	int err;               /* a read error: errno */
	char msg[256];         /* a malformed dump: why, at err_off */
	uint64_t err_off;
	int bad;
	/* heap_probe's steps, sorted by from, and how many */
	struct step *probe;
	size_t nprobe;
};

/* A step of a path, from an object to one it references, and what the
 * reference is: a field (val: its name's STRING id), a static value
 * (ditto), an array index (val), the class, super or loader of MAT's, a
 * thread's frame; unknown when the dump could not be read again. */
enum { STEP_UNKNOWN, STEP_FIELD, STEP_STATIC, STEP_INDEX, STEP_CLASS,
       STEP_SUPER, STEP_LOADER, STEP_LOCAL };
struct step {
	uint64_t from, to;     /* ids */
	uint64_t val;
	uint32_t kind;
	uint32_t path;         /* the caller's */
};

/* the byte source: a file descriptor and the bytes sniffing took */
struct heap_src {
	int fd;
	const unsigned char *head;
	size_t head_len;
};

void heap_init(struct heap *h, struct big_pool *pool);
void heap_free(struct heap *h);
/* The dump from src into h. salvage: a dump cut inside a record keeps
 * the objects before the cut (h->cut). 0; -1: h->bad (h->msg at
 * h->err_off), h->err (a read error or no memory: errno). */
int heap_load(struct heap *h, const struct heap_src *src, int salvage);
/* A second read of the same dump (h loaded from it): each step's kind
 * and val, the steps sorted by from. 0 or -1 as heap_load. */
int heap_probe(struct heap *h, const struct heap_src *src, struct step *s,
               size_t n);
/* Ids to indices: edges to objects not in the dump are dropped
 * (h->dangling), roots too. 0 or -1 (no memory). */
int heap_resolve(struct heap *h);

/* during heap_resolve: the object of an id, HEAP_NONE */
uint32_t heap_obj(const struct heap *h, uint64_t id);
void heap_index_free(struct heap *h);
/* thread i's references from its frames: xedge pairs [*a, *b) */
void heap_xedges(const struct heap *h, uint32_t i, uint64_t *a, uint64_t *b);

/* a class by id: its index, HEAP_NONE if unknown */
uint32_t heap_class(const struct heap *h, uint64_t id);
/* STRING id's text, NULL if none */
const char *heap_text(const struct heap *h, uint64_t id, uint32_t *len);
/* A class's name as Java source writes it ("java.util.HashMap$Node[]",
 * "byte[]"), into buf (always ended): buf. */
const char *heap_class_name(const struct heap *h, uint32_t c, char *buf,
                            size_t n);
/* object i's class name, primitive arrays' too */
const char *heap_obj_class_name(const struct heap *h, uint32_t i, char *buf,
                                size_t n);
/* a basic type's size, 0 if t is none */
unsigned heap_type_size(const struct heap *h, unsigned t);

#define H_ID(h) ((uint64_t *)(h)->id.p)
#define H_SIZE(h) ((uint32_t *)(h)->size.p)
#define H_KIND(h) ((uint8_t *)(h)->kind.p)
#define H_OCLS(h) ((uint32_t *)(h)->ocls.p)
#define H_OFF(h) ((uint32_t *)(h)->off.p)
#define H_EDGE(h) ((uint32_t *)(h)->edge.p)
#define H_CLS(h) ((struct hclass *)(h)->cls.p)
#define H_FIELDS(h) ((struct hfield *)(h)->fields.p)
#define H_FLAT(h) ((uint32_t *)(h)->flat.p)
#define H_ROOTS(h) ((struct root *)(h)->roots.p)

#endif
