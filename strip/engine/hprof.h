/*
 * hprofstrip engine: an incremental HPROF stream transformer.
 *
 * The engine does no I/O and never allocates. The caller owns the state,
 * feeds it bytes in chunks cut anywhere (hs_feed), and ends the stream with
 * hs_finish. Output goes to a caller-supplied sink as a sequence of writes
 * that point either into the caller's input buffer (bytes passed through)
 * or into the engine's state (a few rewritten header bytes, zeros).
 *
 * Modes:
 *   strip    (default)  PRIMITIVE_ARRAY_DUMP 0x23 -> PRIMITIVE_ARRAY_NODATA
 *                       0xC3 (same header, no elements)
 *   restore  HS_RESTORE 0xC3 -> 0x23 followed by zero elements
 *   jvm      HS_JVM     with HS_RESTORE: also convert Android 1.0.3 to a
 *                       plain 1.0.2 dump (strip/cli/README.md)
 *   app-only HS_APP_ONLY with HS_JVM, or stripping: drop the instance,
 *                       object-array and primitive-array dumps of the
 *                       zygote and image heaps of an Android 1.0.3 dump
 *                       (class dumps and roots stay), and heap records
 *                       left empty; stripping, the dump stays 1.0.3
 *
 * Heap record lengths are exact in the output. The engine writes each heap
 * record header with the input's length and, when the record ends and its
 * length changed, asks the sink to patch the 4 length bytes in place.
 */
#ifndef HPROFSTRIP_HPROF_H
#define HPROFSTRIP_HPROF_H

#include <stddef.h>
#include <stdint.h>

#define HS_VERSION "0.1.0"

#include "format.h"
#include "histo.h"

/* Errors: one list makes the enum and the messages. */
#define HS_ERRORS(X)                                                        \
	X(OK, "no error")                                                   \
	X(EMPTY, "empty input: not an HPROF file")                          \
	X(SHORT, "stream ended inside the file header")                     \
	X(NORECORDS, "no records after the file header")                    \
	X(GZIP, "gzip-compressed input: decompress it first (gunzip)")      \
	X(MAGIC, "not an HPROF file: no \"" HS_MAGIC "\" header")            \
	X(HEADER, "malformed file header")                                  \
	X(IDSIZE, "unsupported identifier size (HPROF uses 4 or 8)")        \
	X(SUBTAG, "unknown heap sub-record tag")                            \
	X(TYPE, "invalid basic type")                                       \
	X(OVERRUN, "sub-record runs past the end of its heap record")       \
	X(TRUNCATED, "stream ended inside a record")                        \
	X(TOOBIG, "restored heap record would exceed 4 GiB")                \
	X(EMIT, "writing the output failed")                                \
	X(PATCH, "length patch does not match the open heap record")         \
	X(REWRITE, "a rewrite of bytes already stripped cannot be applied")  \
	X(SALVAGE_OUT, "--salvage: the cut sub-record went out already, "     \
	  "in a segment of its own; write to a file instead")                 \
	X(NOHEAP, "--salvage: the dump was cut before its first object; "     \
	  "nothing for a viewer to open")

#define HS_ENUM_(name, msg) HS_E_##name,
enum hs_err { HS_ERRORS(HS_ENUM_) HS_E_COUNT_ };
#undef HS_ENUM_

/* Flags for hs_init. */
enum {
	HS_RESTORE = 1u << 0,  /* 0xC3 -> 0x23 + zeros, instead of stripping */
	HS_JVM = 1u << 1,      /* with HS_RESTORE: Android 1.0.3 -> 1.0.2 */
	HS_APP_ONLY = 1u << 2, /* with HS_JVM, or stripping: drop zygote and
	                          image heap objects (1.0.3 only); stripping,
	                          a HEAP_DUMP_INFO waits until a sub-record
	                          it governs is kept */
	HS_OPEN_LEN = 1u << 3, /* a heap record of length 0 followed by a
	                          sub-record is a placeholder, closed when
	                          hs_rewrite brings its length (JDK 8 seeks
	                          back and patches); followed by a record, it
	                          is empty */
	HS_FALLBACK = 1u << 4, /* on a parse error, copy the rest verbatim,
	                          keep record lengths exact; hs_feed returns OK
	                          and st->fallback holds the error */
	HS_NO_HEADER = 1u << 5,/* stream starts at a record (JDK 22 .pN file)
	                          whose ids are hs_config.idsize bytes */
	HS_KEEP_STRINGS = 1u << 6,/* strip: keep the elements of the arrays
	                          String values point at (and JDK <= 8's char[]
	                          Thread names); needs hs_config.keep */
	HS_STREAM = 1u << 7,   /* segmented output for a stream: see below */
	HS_SALVAGE = 1u << 8,  /* a stream that ends inside a record keeps
	                          what came whole before the cut: see below */
	HS_REDACT = 1u << 9,   /* strip: every primitive value becomes zero,
	                          references stay; needs hs_config.redact
	                          for instances: see below */
	HS_REDACT_NAMES = 1u << 10, /* with HS_REDACT: names become tokens
	                          (hs_config.names: see below) */
	HS_UNREDACT = 1u << 11,/* restore: the STRING texts hs_config.names
	                          has come back */
	HS_HISTO = 1u << 12,   /* the class histogram, counted in
	                          hs_config.histo (histo.h); the output does
	                          not change */
	HS_KEEP_BITMAPS = 1u << 13 /* strip: keep the elements of Android
	                          bitmaps' byte arrays (Bitmap.mBuffer,
	                          Bitmap$DumpData.buffers); needs
	                          hs_config.keep: see below */
};

/* HS_STREAM: output that is never patched, for a pipe. Heap records go
 * out as HEAP_DUMP_SEGMENTs (0x1C) cut at sub-record boundaries, each
 * written whole once its length is known: sub-records gather in
 * hs_config.seg_buf (HS_STREAM_BUF bytes, the caller's) and a segment is
 * closed when they pass HS_SEGMENT_SOFT bytes, at a sub-record boundary,
 * and at the end of every input heap record. A sub-record whose output
 * length is known from its fixed part and does not fit gets a segment of
 * its own, written straight through. A 1.0.1 dump becomes 1.0.2, and
 * the segments of each HEAP_DUMP (0x0C) record are followed at once by a
 * HEAP_DUMP_END: a file of two such dumps (the hprof agent's) stays two
 * dumps. The sink's patch is never called; rewrites
 * of bytes already out (hs_rewrite) are refused, except JDK 8's length
 * patches (HS_OPEN_LEN), which only close records. With HS_FALLBACK, a
 * parse error inside a heap record closes the segment gathered so far and
 * sends the rest of the input record verbatim as a segment of its known
 * length (a JDK 8 placeholder record, whose length is not known yet, gets
 * a header promising 4 GiB instead: readers see a cut dump); a stream cut
 * inside a sub-record ends after the last whole one.
 * The largest sub-record of unknown length is a class dump, at most about
 * 2.4 MiB, so it always fits after HS_SEGMENT_SOFT bytes. */
#define HS_STREAM_BUF (4u << 20)
#define HS_SEGMENT_SOFT (1u << 20)

/* HS_SALVAGE: a dump cut short (a killed runtime, a full disk) is read up
 * to its cut. At hs_finish, if the stream ends inside a record, the output
 * keeps everything up to the last whole sub-record (or record, outside the
 * heap): the open heap record is closed with its exact length, a
 * HEAP_DUMP_END follows when the dump has segments, and st->salvaged says
 * what was dropped. Output already written past that point is cut back
 * with the sink's truncate(). The class dumps of primitive array classes
 * that the cut left out are completed (salvage.c: complete_classes). A cut
 * inside the file header, or before the first whole instance or array
 * dump, is still an error. A heap record of length 0 followed by a
 * sub-record is read as a JDK 8 placeholder (as with HS_OPEN_LEN) that was
 * never patched. */

/* HS_KEEP_STRINGS, HS_KEEP_BITMAPS: which arrays keep their elements
 * (bitmap.c, keep.c; the whole contract: strip/engine/keeping.md, "The
 * engine's fields"). The engine learns the String, Thread, Bitmap and
 * Bitmap$DumpData classes from the names and the class dumps, and reads
 * their value, name, mBuffer and buffers fields from each instance. Three
 * ways to use what it reads, by which fields of hs_keep are set:
 *   exact, pass 1   found: each kept array's id is reported;
 *   exact, pass 2   has: an array keeps its elements iff has(id);
 *   streaming       neither: ids wait in the pending table until their
 *                   array comes, and one char[]/byte[] of at most
 *                   hold_size element bytes is held back (in hold) until
 *                   the next sub-record shows whether a String points at
 *                   it; output lags input by at most hold_size + 91 bytes.
 * Instances before their class dumps are counted in st->late (exact:
 * one more pass, layout_known). The memory is the caller's, fixed. */
struct hs_class {              /* a class dump, for instance layouts */
	uint64_t id, super;
	uint32_t bytes;            /* its own instance fields' bytes */
	int32_t ref;               /* offset of Thread.name in an instance:
	                              -2 not known yet, -1 not a Thread */
};
struct hs_keep {
	uint64_t *pending;         /* pending_slots ids, zeroed (0: empty) */
	unsigned pending_slots;    /* a power of 2 of at least
	                              HS_KEEP_MIN_SLOTS; other sizes
	                              are taken as 0 */
	struct hs_class *classes;  /* class_slots entries, zeroed */
	unsigned class_slots;      /* the same, or 0 (no Thread names) */
	void (*found)(void *user, uint64_t id);
	int (*has)(void *user, uint64_t id);
	void *user;
	/* exact, pass 1 again: what an earlier pass learnt (its st->string_ref
	 * and st->thread_ref, and its classes table, kept), for dumps whose
	 * class dumps come after instances (st->late) */
	int layout_known;
	int32_t string_ref, thread_ref;
	int32_t mbuffer_ref, buffers_ref; /* HS_KEEP_BITMAPS */
	/* streaming: the elements of the array held back, hold_size bytes
	 * (need not be zeroed; at most HS_HOLD_LIMIT are used); 0: nothing
	 * is held back */
	unsigned char *hold;
	size_t hold_size;
};
/* Sizes that keep a median 100% of String values while streaming (see
 * strip/engine/keeping.md): 32768 pending ids, 16384 classes, and a hold-back of 256 KiB:
 * a String written right after its value is kept when it has up to
 * 262,144 Latin-1 or 131,072 UTF-16 chars (JDK 9+; 131,072 chars in JDK 8
 * and earlier, whose values are char[]s). */
/* The smallest table: 1/8 of it always stays empty, so a lookup ends. */
#define HS_KEEP_MIN_SLOTS 8u
#define HS_KEEP_PENDING 32768u
#define HS_KEEP_CLASSES 16384u
#define HS_KEEP_HOLD (256u << 10)
/* A held array and the String behind it fit in a stream's segment buffer
 * after HS_SEGMENT_SOFT bytes. */
#define HS_HOLD_LIMIT (1u << 20)

/* HS_REDACT: values go, references stay. Stripping, every primitive value
 * in the dump goes out as zeros of its size: each instance's primitive
 * fields, each class dump's primitive static fields and constant pool
 * values (primitive arrays lose their elements as always; HS_KEEP_STRINGS
 * is dropped). Ids, references, lengths, types, record framing and the
 * object graph are the plain strip's, byte for byte, so histograms,
 * retained sizes and paths to GC roots do not change.
 *
 * The static and constant pool values of the runtime's own classes stay:
 * they are the JDK's and Android's constants (viewers read some, such as
 * Unsafe field offsets, to size objects), not the application's. A class
 * is the runtime's when its LOAD_CLASS name starts with java, javax, jdk,
 * sun, com.sun, android, com.android, dalvik, libcore, org.apache.harmony,
 * org.w3c or org.xml and a separator (hs_framework_name); its instances'
 * fields are zeroed all the same. Without fw tables, or past them, every
 * class's are zeroed.
 *
 * But for a short list of the runtime's instance fields that are sizes or
 * counts viewers compute with (redact.c's sizes[]: a class's whole name
 * and a primitive field it declares, such as
 * libcore.util.NativeAllocationRegistry's size and java.nio.Buffer's
 * capacity; redaction.md: "What the values level keeps"), which pass as they
 * came, in instances of the class and of its subclasses. They are matched
 * by the texts of the STRING records the LOAD_CLASS and the field list
 * name; without fw tables (the names are not read), past sized_slots ids, or
 * in an instance whose layout is not known, they are zeroed.
 *
 * An instance's field bytes are split into references and values with
 * its class's instance field list and its superclasses' (HPROF puts the
 * class's own fields first). The engine records each class dump's list in
 * the caller's tables as it comes. An instance whose layout is not known
 * when it comes (its class dump comes later, as in ART's dumps; a table is
 * full; the lists do not add up to its length) goes out with every field
 * byte zero, references included: st->withheld counts them. A second pass
 * over the same dump with the tables the first pass filled (types_used and
 * class_count from hs_redact_filled) knows every layout.
 *
 * Nothing unredacted goes out on a parse error either: with HS_FALLBACK
 * the rest of the heap record is written as zeros instead of verbatim (its
 * length stays exact), and the records after it are read and redacted as
 * usual; a bad file header makes all of it zeros. hs_rewrite of bytes
 * zeroed so is refused. */
/* The fast path's caches and the listed sizes' ids (redact.c), the
 * caller's memory like the tables: an instance layout as the fast path
 * uses it, the byte ranges of its values, whatever class they are
 * declared in */
#define HS_FLAT_SPANS 6
struct hs_flat {
	uint64_t cls;              /* 0: empty */
	uint32_t len;              /* the instance's field bytes */
	uint16_t n;                /* value spans; HS_FLAT_NONE: the phases
	                              take such instances (too many spans,
	                              past 64 KiB, layout not known) */
	uint16_t span[HS_FLAT_SPANS][2]; /* offset, length */
};
#define HS_FLAT_NONE 0xFFFFu
/* the fast path's value spans waiting in the run, by offset in it */
struct hs_patch {
	uint32_t off;
	uint32_t len;
};
/* the ids that name the listed sizes, which stay (redaction.md: "What the
 * values level keeps"): STRING ids of a listed class name or field name,
 * class ids of a listed class */
struct hs_sized {
	uint64_t id;
	unsigned char kind;        /* 1: a class's name, 2: a field's name,
	                              3: a class */
	unsigned char pair;        /* the first pair of the list naming it */
};
struct hs_layout {             /* a class's own instance fields */
	uint64_t id, super;        /* id 0: a free slot */
	uint32_t first;            /* their types: types[first..first+count) */
	uint32_t count;
	uint32_t bytes;            /* their bytes in an instance */
};
struct hs_redact {
	struct hs_layout *classes; /* class_slots entries, zeroed; NULL: no
	                              layouts, every instance withheld */
	unsigned class_slots;      /* a power of 2 of at least
	                              HS_KEEP_MIN_SLOTS */
	unsigned char *types;      /* types_size bytes: field types */
	uint32_t types_size;
	uint32_t types_used;       /* a second pass: the first's (from */
	uint32_t class_count;      /* ... hs_redact_filled) */
	/* the fast path's output: instances whose values go out as zeros
	 * gather here, with what passes between them, and go out in writes
	 * of up to gather_size bytes (HS_REDACT_GATHER: the shim's and the
	 * tools' buffers take writes that large straight to the file);
	 * NULL: the phases redact every instance, slower */
	unsigned char *gather;
	uint32_t gather_size;
	/* the runtime's own classes: the STRING ids of their names, then
	 * their class ids; fw_slots each, zeroed, a power of 2 of at least
	 * HS_KEEP_MIN_SLOTS (NULL: none, every static zeroed) */
	uint64_t *fw_names, *fw_classes;
	unsigned fw_slots;
	unsigned fw_names_used, fw_classes_used; /* a second pass: the
	                              first's, as types_used */
	/* the fast path's layouts by class id, direct mapped: flat_slots,
	 * a power of 2 (hs_init clears them); without (NULL, another size,
	 * misaligned) one slot in the state serves, slower */
	struct hs_flat *flat;
	unsigned flat_slots;
	/* the fast path's patches of a run: patch_slots, at least
	 * HS_FLAT_SPANS; without, the fast path writes no instance with
	 * values (as without gather) */
	struct hs_patch *patch;
	unsigned patch_slots;
	/* the ids of the listed sizes: past sized_slots (or without), no
	 * more are noted, and the sizes they name are zeroed */
	struct hs_sized *sized;
	unsigned sized_slots;
};
/* Sizes for up to 114,688 classes (7/8 of the slots) and 2 Mi instance
 * fields: the largest real dumps have tens of thousands of classes and
 * under two fields each (strip/engine/redaction.md). 4 MiB + 2 MiB. */
#define HS_REDACT_CLASSES (1u << 17)
#define HS_REDACT_TYPES (2u << 20)
#define HS_REDACT_GATHER (1u << 20)
/* 114,688 names and classes of the runtime's: a JDK 17 that loaded every
 * class it has (24,144) lists 29,544 STRINGs with the runtime's prefixes
 * (redaction.md: "Where the layouts come from"); 1 MiB each */
#define HS_REDACT_FW (1u << 17)
/* The caches' sizes the tools and the shim give: 256 layouts (10 KiB),
 * 1024 patches (8 KiB: a run goes out when they are used up) and 64 ids
 * of listed sizes (1 KiB) */
#define HS_REDACT_FLAT 256u
#define HS_REDACT_PATCHES 1024u
#define HS_REDACT_SIZED 64u

/* Is a class name (n bytes at s, HotSpot's java/lang/String or Android's
 * java.lang.String) one of the runtime's own (the prefixes above)? */
int hs_framework_name(const char *s, size_t n);

/* HS_REDACT_NAMES: names go too. The text of every STRING record (the
 * names of classes, packages, fields, methods, source files and threads,
 * and in HotSpot dumps the string literals of loaded classes) goes out as
 * a token of the same length, unless hs_name_kept says the whole text
 * is the runtime's: a runtime class's name (identifiers joined by '/' or
 * by '.', its package one of the prefixes of the rule above; HotSpot's
 * hidden classes' +0x... and ART's -IA after it), a field or method
 * descriptor whose every class is a runtime class ([B, [[I,
 * Ljava/lang/String;, (Ljava/lang/String;I)V), ART's primitive and
 * array class names (int, byte[], java.lang.String[]), or one of a list
 * in names.c (the member and heap names the viewers read: value, count,
 * table, next...; the names the dumpers make: <init>, <clinit>,
 * <resolved_references>, shadow$_klass_...). A text of more than 256
 * bytes is not decided on: it becomes a token. A token keeps the
 * shape of a name: separators and punctuation stay, each letter or digit
 * becomes one of its kind from a keyed hash of its word up to it, so a
 * word has the same token wherever it appears in the dump (packages group
 * as before) and another key gives other tokens. Record lengths never
 * change. The original of each tokenized text goes to names.original, in
 * pieces as it comes (at: the offset in the text of len bytes), for the
 * caller's map; it never goes into the dump.
 *
 * HS_UNREDACT (with HS_RESTORE): each STRING record for which
 * names.rename(user, id, len) gives a text (len bytes, the length of the
 * record's) goes out with that text. */
struct hs_names {
	uint64_t key[2];           /* HS_REDACT_NAMES: the tokens' key */
	void (*original)(void *user, unsigned idsize, uint64_t id,
	                 uint32_t len, uint32_t at, const unsigned char *text,
	                 size_t n);
	const unsigned char *(*rename)(void *user, uint64_t id, uint32_t len);
	void *user;
};

/* Does the text (n bytes at s) name what HS_REDACT_NAMES keeps? Only a
 * whole text can: 0 unless whole (n is the start of a longer text). */
int hs_name_kept(const char *s, size_t n, int whole);

/* Where output goes; every output byte leaves through it. write()
 * appends; patch() overwrites len bytes already written, at output offset
 * off (a record's length, a writer's rewrite). A non-zero return stops the
 * engine with HS_E_EMIT. */
struct hs_sink {
	int (*write)(void *user, const void *buf, size_t len);
	int (*patch)(void *user, uint64_t off, const void *buf, size_t len);
	void *user;
	/* HS_SALVAGE: drop the output from off on (NULL: nothing to drop, as
	 * for a census) */
	int (*truncate)(void *user, uint64_t off);
};

/* Optional census, filled while feeding when st->census is set. */
enum { HS_HEAP_DEFAULT, HS_HEAP_APP, HS_HEAP_ZYGOTE, HS_HEAP_IMAGE,
       HS_HEAP_JIT, HS_HEAP_OTHER, HS_HEAP_COUNT_ };
struct hs_census {
	uint64_t rec_count[256], rec_bytes[256]; /* top-level, incl. header */
	uint64_t sub_count[256], sub_bytes[256]; /* heap sub-records */
	uint64_t prim_count[12], prim_bytes[12]; /* 0x23 element bytes by type */
	uint64_t nodata_count[12], nodata_bytes[12]; /* 0xC3: bytes they stand for */
	uint64_t heap_bytes[HS_HEAP_COUNT_];     /* sub-record bytes per heap */
	uint64_t empty_heap_recs;                /* heap records of length 0 */
};

/* What hs_init needs to know. */
struct hs_config {
	unsigned flags;            /* HS_* */
	unsigned idsize;           /* HS_NO_HEADER: 4 or 8 (0: 8) */
	struct hs_census *census;  /* filled while feeding; NULL: none */
	const struct hs_keep *keep;/* HS_KEEP_STRINGS: required */
	unsigned char *seg_buf;    /* HS_STREAM: HS_STREAM_BUF bytes */
	const struct hs_redact *redact; /* HS_REDACT: the layout tables */
	const struct hs_names *names;   /* HS_REDACT_NAMES, HS_UNREDACT */
	struct hs_histo *histo;    /* HS_HISTO: the tables, and the counts */
};

/* The state: the configuration and the results are readable; the rest
 * is the engine's (strip/engine/internal.h has the map of who owns what),
 * the mode and the phase machine here, each layer's own struct in
 * layers.h. A front end reads no layer's struct: what it needs is a
 * result or a function below (hs_redact_filled, hs_fallback_zeros).
 *
 * Memory. The caller gives the state room (at most HS_STATE_MAX bytes:
 * engine.c asserts it) and each layer it turns on its tables, buffers
 * and caches, sized by the caller through hs_config (struct hs_keep,
 * hs_config.seg_buf, struct hs_redact; the HS_KEEP_*, HS_STREAM_BUF and
 * HS_REDACT_* sizes are the tools' and the shim's); a layer that is off
 * needs none. hs_init has each layer check its own against the
 * engine's limits (its init hook: a table or cache size, a power of 2,
 * alignment) and never fails: what it
 * cannot use is done without, as each field says (a keep table taken as
 * none, HS_KEEP_STRINGS or HS_STREAM dropped without theirs; redaction
 * does with less, withholding or zeroing more, and never drops). */
#define HS_STATE_MAX 2304u

/* The effective mode, resolved once from the flags and the dump's version
 * (hs_init, then again when the file header is read). */
struct hs_layer;           /* a layer's hooks (internal.h) */
#define HS_LAYERS 7
struct hs_mode {
	unsigned char restore;     /* HS_RESTORE: 0xC3 -> 0x23 + zeros */
	unsigned char convert;     /* HS_JVM on a 1.0.3 dump: to 1.0.2 */
	unsigned char app_only;    /* HS_APP_ONLY in effect (1.0.3 only) */
	unsigned char app_strip;   /* ... stripping: HEAP_DUMP_INFOs wait */
	unsigned char late_header; /* heap record headers wait for output */
	unsigned char keep;        /* HS_KEEP_STRINGS or HS_KEEP_BITMAPS
	                              while stripping */
	unsigned char keep_strings;/* ... of which strings */
	unsigned char keep_bitmaps;/* ... and bitmaps */
	unsigned char keep_reads;  /* ... reading fields (not exact pass 2) */
	unsigned char keep_streams;/* ... streaming: pending ids, hold-back */
	unsigned char stream;      /* HS_STREAM: segments */
	unsigned char salvage;     /* HS_SALVAGE */
	unsigned char fallback;    /* HS_FALLBACK */
	unsigned char open_len;    /* HS_OPEN_LEN (HS_SALVAGE brings it) */
	unsigned char no_header;   /* HS_NO_HEADER */
	unsigned char redact;      /* HS_REDACT while stripping */
	unsigned char names;       /* 1: HS_REDACT_NAMES while redacting,
	                              2: HS_UNREDACT while restoring */
	unsigned char histo;       /* HS_HISTO */
	unsigned char sweep;       /* no layer acts at a plain sub-record:
	                              the fast path (sweep.c) reads them */
	/* the layers on, in call order, NULL-ended; the fast path's unit
	 * and room layers (internal.h) */
	const struct hs_layer *layer[HS_LAYERS + 1];
	const struct hs_layer *unit, *room, *seen;
};

#include "layers.h"

struct hs_state {
	/* configuration (set by hs_init, readable): the flags in effect
	 * (hs_init drops HS_KEEP_STRINGS without hs_config.keep and
	 * HS_STREAM without hs_config.seg_buf; HS_SALVAGE brings
	 * HS_OPEN_LEN) */
	unsigned flags;
	struct hs_sink sink;
	struct hs_census *census; /* NULL: no census */
	struct hs_histo *hg;      /* HS_HISTO: the caller's tables and the
	                             counts (histo.c) */

	/* results, readable at any time */
	struct {
		uint64_t in_off;        /* input bytes consumed */
		uint64_t out_off;       /* output bytes emitted */
		uint64_t arrays;        /* arrays stripped or restored */
		uint64_t elem_bytes;    /* element bytes removed or added */
		uint64_t records;       /* top-level records seen */
		uint64_t heap_dumps;    /* heap dumps read: a HEAP_DUMP
		                           record (1.0.1), or segments closed by
		                           a HEAP_DUMP_END (the hprof agent's
		                           file holds two) */
		uint64_t kept;          /* HS_KEEP_STRINGS: arrays kept whole */
		uint64_t kept_bytes;    /* their element bytes */
		uint64_t strings;       /* String instances read */
		uint64_t evicted;       /* pending ids dropped: the table was
		                           full */
		uint64_t class_full;    /* class dumps not recorded: table
		                           full */
		uint64_t late;          /* instances read before their layout
		                           was known (not ART's Strings) */
		int32_t string_ref;     /* offset of String.value in an
		                           instance, -1: not known */
		int32_t thread_ref;     /* offset of Thread.name, -1: not
		                           known */
		uint64_t bitmaps;       /* HS_KEEP_BITMAPS: Bitmap and DumpData
		                           instances read */
		uint64_t bitmap_refs;   /* ... array ids they gave (mBuffer,
		                           buffers' elements) */
		uint64_t bitmap_lists;  /* ... DumpData.buffers ids read */
		uint64_t bitmap_lists_read; /* ... and such arrays read */
		uint64_t images;        /* ... byte[]s kept streaming by their
		                           image signature alone */
		int32_t mbuffer_ref;    /* offset of Bitmap.mBuffer in an
		                           instance, -1: not known */
		int32_t buffers_ref;    /* ... of DumpData.buffers */
		uint64_t objects;       /* instance and array dumps written
		                           whole */
		uint64_t redacted;      /* HS_REDACT: instances whose primitive
		                           fields went out as zeros */
		uint64_t withheld;      /* ... instances whose layout was not
		                           known: every field byte zero */
		uint64_t zeroed;        /* ... static and constant pool values
		                           zeroed */
		uint64_t layouts_lost;  /* ... class dumps whose field list
		                           did not fit in the tables */
		uint64_t names_tokenized; /* HS_REDACT_NAMES: STRING texts
		                           tokenized; HS_UNREDACT: given
		                           back */
		int salvaged;           /* HS_SALVAGE: the stream was cut inside
		                           a record, and ends at the last whole
		                           unit */
		uint64_t salvage_from;  /* ... the input dropped from here on */
		uint64_t salvage_subs;  /* ... of which partial sub-records
		                           (0, 1) */
		uint64_t salvage_recs;  /* ... and partial records (0, 1) */
		uint64_t salvage_classes; /* ... primitive array classes whose
		                           class dump the cut left out,
		                           completed */
		enum hs_err err;        /* sticky; HS_E_OK while healthy */
		uint64_t err_off;       /* input offset of the error */
		enum hs_err fallback;   /* HS_FALLBACK: the error that started
		                           it */
		uint64_t fallback_off;
		uint64_t fb_in, fb_out; /* where the verbatim copy began, in and
		                           out */
		uint64_t same_until;    /* input bytes before this offset that
		                           were emitted (out_off) went out
		                           unchanged at the same offset:
		                           everything before the first heap
		                           record (UINT64_MAX until one
		                           starts) */
		unsigned idsize;        /* 4 or 8 once the header is read */
		char version;           /* '1', '2', '3' (0 before the
		                           header) */
		char header[32];        /* the header string, NUL-terminated */
		uint64_t timestamp;
	};

	/* private: the phase machine (engine.c) */
	struct {
		unsigned phase, next, act, have, need, count;
		unsigned char rec_tag, sub_tag, heap, rec_hdr_out;
		unsigned char open;       /* HS_OPEN_LEN: the record's length is
		                             a placeholder still */
		unsigned char maybe_open; /* ... or it may be: the next byte
		                             tells */
		unsigned char sub_drop;   /* the whole sub-record is dropped */
		unsigned char had_segments; /* a 0x1C record was read or
		                             written */
		unsigned char in_segments;/* the input's segments lack their
		                             END */
		unsigned char need_end;   /* segments went out: an END is due */
		unsigned char scratch[264];/* the longest unit gathered: a
		                             STRING record's id and the head
		                             of its text the names rule
		                             decides on, 8 + 256 bytes
		                             (names.c); a class dump's fixed
		                             part is 67 bytes with 8-byte ids */
		unsigned char rec_hdr[9];
		unsigned char info[16];   /* HS_APP_ONLY strip: the
		                             HEAP_DUMP_INFO waiting (1 + id +
		                             4 bytes), info_len of them; 0:
		                             none */
		unsigned char info_len;
		uint64_t rec_end;       /* input offset where the record ends */
		uint64_t rec_len;       /* the record's input length */
		uint64_t rec_body_in;   /* input offset of the record body */
		uint64_t rec_body_out;  /* output offset of the record body */
		uint64_t sub_in;        /* input offset of the current
		                           sub-record */
		uint64_t sub_out;       /* ... and its output offset */
		uint64_t heap_written;  /* heap records (segments) written */
		uint64_t left;          /* bytes left in the current body */
		uint64_t patch_off;     /* the length field being rewritten */
		unsigned char patch[4];
		unsigned patch_mask;    /* which of its bytes arrived */
	};
	struct hs_mode mode;
	struct hs_keeping ks;     /* keep.c */
	struct hs_bitmaps bm;     /* bitmap.c */
	struct hs_segments sg;    /* segment.c */
	struct hs_salvaging sv;   /* salvage.c */
	struct hs_redacting rd;   /* redact.c */
	struct hs_naming nm;      /* names.c */
};

void hs_init(struct hs_state *st, const struct hs_config *cfg,
             const struct hs_sink *sink);
enum hs_err hs_feed(struct hs_state *st, const void *in, size_t len);
enum hs_err hs_finish(struct hs_state *st);

/* The writer rewrote input bytes [in_off, in_off + len), all fed already.
 * Applied, through the sink's patch, when they are (pieces of) the length
 * of an open placeholder record (HS_OPEN_LEN: JDK 8; the record closes
 * once all 4 bytes are in), bytes before the first heap record, or bytes
 * copied verbatim after a fallback. Returns HS_E_OK; HS_E_REWRITE when the
 * bytes went out changed or not at all (stripped arrays, record headers),
 * HS_E_PATCH when a length does not fit its record (neither is sticky);
 * or the sticky error. */
enum hs_err hs_rewrite(struct hs_state *st, uint64_t in_off, const void *buf,
                       size_t len);

const char *hs_strerror(enum hs_err err);

/* HS_REDACT: how much of the caller's tables a pass filled. Sets *r's
 * types_used, class_count, fw_names_used and fw_classes_used (the rest of
 * *r stays): given to hs_init with the same tables, a second pass over the
 * same dump knows every layout the first learnt. */
void hs_redact_filled(const struct hs_state *st, struct hs_redact *r);

/* Could the input fed so far be a whole dump: it ends between records,
 * after the file header, with no error and no segments missing their
 * HEAP_DUMP_END? (The shim, at a process's exit with a dump open: is the
 * histogram of a whole dump, or of a cut one?) */
int hs_at_end(const struct hs_state *st);

/* HS_FALLBACK: 1 if the rest of the fallback's record (or stream) goes
 * out as zeros, not verbatim (HS_REDACT: nothing goes out unredacted). */
int hs_fallback_zeros(const struct hs_state *st);

#endif
