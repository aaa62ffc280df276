/*
 * HS_HISTO: the class histogram, counted while the engine reads a dump
 * (histo.c, a layer that only reads: the output does not change). Part
 * of the API (hprof.h includes it).
 *
 * What is counted, at each object's sub-record header (a cut dump counts
 * what came; --app-only's dropped objects are not counted):
 *   an INSTANCE_DUMP      by its class id: one object, its field bytes
 *   an OBJECT_ARRAY_DUMP  by its array class id: one object, length x id
 *                         size bytes of elements
 *   a PRIMITIVE_ARRAY     (0x23, or 0xC3 stripped) by its element type:
 *                         one object, length x element size bytes
 * each in the column of the heap it is in (the last HEAP_DUMP_INFO:
 * Android's app, zygote, image heaps; HotSpot's dumps have one, the
 * default). A class's name is its LOAD_CLASS's STRING text, as the dump
 * has it (HS_REDACT_NAMES: the token that went out); its instance size
 * is its CLASS_DUMP's. The front end turns the counts into bytes
 * (strip/io/histo.h) and names into jmap's form.
 *
 * Memory is the caller's, fixed in advance: a table of classes and one of
 * the STRING texts that may name a class (the texts the dumpers write for
 * classes: no space, no parenthesis...; histo.c: name_like), which come
 * before the LOAD_CLASS records that use them. Past the class table the
 * objects of classes not in it are counted together (other); past the
 * names table a class has no name (hs_histo_name gives NULL). The tables
 * must come zeroed, and are the engine's until the dump ends; without
 * them (a NULL, a slot count that is not a power of 2), hs_init drops
 * HS_HISTO.
 */
#ifndef HPROFSTRIP_HISTO_H
#define HPROFSTRIP_HISTO_H

#include <stddef.h>
#include <stdint.h>

/* the tools' and the shim's sizes: 2^17 class slots, 7/8 of them used:
 * 114,688 classes (a JDK 17 that loaded every class it has holds
 * 24,438); 2^20 name slots (917,504 texts) and 16 MiB of names, of which
 * bare identifiers may fill 3/4 (that JDK 17 dump: 552,891 STRINGs, of
 * which 28,000 shaped as class names, 1.4 MiB, and 246,220 bare
 * identifiers, 7.8 MiB with their ids and lengths) */
#define HS_HISTO_SLOTS (1u << 17)
#define HS_HISTO_CLASSES (HS_HISTO_SLOTS / 8 * 7)
#define HS_HISTO_NAME_SLOTS (1u << 20)
#define HS_HISTO_NAMES (16u << 20)
/* a name's bytes kept: a longer one keeps its first 256 (hs_histo_name
 * says it was cut) */
#define HS_HISTO_NAME_MAX 256u

/* objects, and their bytes after the header: an instance's field bytes,
 * an array's elements */
struct hs_histo_count {
	uint64_t n, bytes;
};

/* the heaps: HS_HEAP_DEFAULT ... (hprof.h's census enum) */
#define HS_HISTO_HEAPS 6

#define HS_HISTO_SIZED 1u
#define HS_HISTO_ARRAY 2u

struct hs_histo_class {
	uint64_t id;               /* the class object's id */
	uint64_t name;             /* its LOAD_CLASS's STRING id; 0: none */
	uint32_t size;             /* its CLASS_DUMP's instance size */
	uint32_t flags;            /* HS_HISTO_SIZED: a class dump came;
	                              HS_HISTO_ARRAY: object arrays counted
	                              by it */
	struct hs_histo_count heap[HS_HISTO_HEAPS];
};

struct hs_histo {
	/* the caller's memory, zeroed: class ids to classes (index + 1),
	 * slots of them, a power of 2 of at least 8; the classes, 7/8 of
	 * slots (class_max: fewer are used) */
	uint32_t *slots;
	unsigned slot_count;
	struct hs_histo_class *classes;
	unsigned class_max;
	/* STRING ids to names (offset + 1 in names), name_slot_count of
	 * them, a power of 2 of at least 8 (7/8 used); the names, each
	 * its STRING id (8 bytes), its length (2 bytes, the top bit: cut)
	 * and its text */
	uint32_t *name_slots;
	unsigned name_slot_count;
	unsigned char *names;
	uint32_t names_size;

	/* results, the engine's */
	unsigned class_count;      /* classes[0, class_count) used */
	uint32_t names_used;       /* bytes of names used */
	unsigned name_count;       /* texts kept */
	struct hs_histo_count prim[12][HS_HISTO_HEAPS]; /* by element type */
	struct hs_histo_count other[HS_HISTO_HEAPS];    /* instances and
	                              object arrays of classes past the
	                              table */
	uint64_t classes_past;     /* class ids not placed: the table was
	                              full */
	uint64_t names_past;       /* texts not kept: the names were full */
	uint64_t class_dumps;      /* CLASS_DUMP records */
	/* the fast path's last class: its id and index + 1 */
	uint64_t last_id;
	uint32_t last;
};

/* The text of STRING id, *n bytes of it (*cut: 1 if the text was longer,
 * and only its first HS_HISTO_NAME_MAX bytes are here); NULL if it was
 * not kept. */
const unsigned char *hs_histo_name(const struct hs_histo *h, uint64_t id,
                                   size_t *n, int *cut);

#endif
