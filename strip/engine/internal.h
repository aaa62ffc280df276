/*
 * The engine's insides, shared by its files and nothing else (the API is
 * hprof.h). Its files, top to bottom, each calling only those below it
 * (tests/circles.sh finds no circle):
 *
 *   rewrite.c  hs_rewrite: patches of output that went out unchanged,
 *              and JDK 8's placeholder lengths (HS_OPEN_LEN)
 *   engine.c   the core: the phase machine, one function per phase;
 *              hs_init, hs_feed, hs_finish; resolve_mode, which lists the
 *              layers on; strip's and restore's own acts
 *   android.c  layer: HS_JVM, HS_APP_ONLY on 1.0.3: what becomes of the
 *              Android roots, the HEAP_DUMP_INFOs and the zygote and image
 *              heaps' objects; heap record headers written late
 *   keep.c     layer: HS_KEEP_STRINGS, HS_KEEP_BITMAPS: the names and
 *              class layouts read on the way (PH_STR, PH_IF), the values
 *              read (PH_PEEK, PH_LOOK), which arrays keep their elements
 *   bitmap.c   keep's second source, HS_KEEP_BITMAPS: Bitmap's and
 *              DumpData's names and layouts, a buffers array's ids
 *              (PH_ELEMS), an image's signature (PH_SIG)
 *   claims.c   keep's: the ids that claim an array, reported or pending
 *   histo.c    layer: HS_HISTO: the class histogram counted on the way
 *              (names from STRING and LOAD_CLASS, sizes from class dumps,
 *              every object), for the shim's .histo and --histo
 *   names.c    layer: HS_REDACT_NAMES, HS_UNREDACT: STRING texts
 *              tokenized or given back (PH_NAME, PH_NAME_TEXT)
 *   redact.c   layer: HS_REDACT: the class layouts recorded (PH_IF),
 *              class dump values zeroed, instance fields walked
 *              (PH_FIELDS), the fast path's instances zeroed in bulk
 *   exempt.c   redact's: what it lets through (the runtime's own classes'
 *              statics, the listed sizes)
 *   salvage.c  layer: HS_SALVAGE: the primitive array classes noted on
 *              the way; at the end the cut taken back and their missing
 *              class dumps completed
 *   record.c   a record's header and end, a unit's body, a parse error
 *              (the fallback)
 *   hold.c     keep's, streaming: an array held back until a String
 *              claims it, and the look past its record's end (PH_XLOOK)
 *   sweep.c    the fast path: at PH_SUB, the whole sub-records of a feed
 *              that need no decision, in one loop (st->mode.sweep)
 *   segment.c  layer: HS_STREAM: where segments begin and end, room
 *              reserved for a sub-record, the streamed fallback
 *   emit.c     the output (to the sink, or into the segment) and the
 *              input's cursor
 *   format.c   the format, named: messages, tag names, type sizes
 *
 * The mode is resolved once (st->mode: at hs_init, and when the file
 * header shows the version), and with it the layers on: resolve_mode
 * lists them in st->mode.layer, and is the one place where a rule between
 * two modes lives. The phases do not ask which mode they are in, nor read
 * a layer's state: at fixed points they call the hooks of the layers
 * listed (struct hs_layer below, as http-parser's parser calls its
 * settings' callbacks), and a layer that is off is not listed. The core's
 * own options are restore (choose_act, the fast path's arrays), the
 * census, the fallback, JDK 8's placeholder lengths and the header-less
 * feed; tests/engine-modes.py holds each core function to one mode. The
 * core knows a layer by name in five places: resolve_mode lists them (in
 * the order histo, android, salvage, keep, stream, redact, names) and
 * names the fast path's three (unit: keep or redact; room: stream; seen:
 * histo); hs_init lists every layer, to call its init hook, which takes
 * and checks the layer's own configuration; eng_emit writes into the
 * stream layer's segment while one gathers (every output byte goes through it); and the look past a
 * heap record's end (PH_XLOOK, eng_resolve) is keep's (hold.c), as it
 * feeds the input again.
 *
 * The hooks at each fixed point, and the layers that have them: the
 * table in strip/README.md ("the layers' points"), kept beside struct
 * hs_layer's list below.
 *
 * choose_act decides what becomes of each sub-record (a layer's act, or
 * the core's), and the sub-record header carries it out. All output goes
 * through eng_emit: to the sink, or into the segment while one gathers.
 */
#ifndef HPROFSTRIP_INTERNAL_H
#define HPROFSTRIP_INTERNAL_H

#include "hprof.h"

#include <string.h>

enum phase {
	PH_HDR,     /* header string, byte by byte up to its NUL */
	PH_HDR_TAIL,/* u4 id size, u8 timestamp */
	PH_REC,     /* 9-byte record header */
	PH_REC_BODY,/* non-heap record body, passed */
	PH_SUB,     /* heap sub-record tag, or the end of the heap record */
	PH_SUBHDR,  /* fixed part of a sub-record */
	PH_BODY,    /* st->left bytes passed or dropped, then st->next */
	PH_CP,      /* class dump: constant pool entry */
	PH_ST_COUNT,/* class dump: static field count */
	PH_ST,      /* class dump: static field */
	PH_IF_COUNT,/* class dump: instance field count */
	PH_SUB_END, /* sub-record complete */
	PH_STR,     /* a STRING or LOAD_CLASS body, read whole for the layers'
	               names, and passed */
	PH_IF,      /* keep: class dump: instance field, read */
	PH_PEEK,    /* keep: an instance's String.value or Thread.name */
	PH_LOOK,    /* keep: an instance gathered behind a held array */
	PH_XLOOK,   /* keep: the next record's start, behind a held array
	               that ended a heap record */
	PH_ELEMS,   /* keep, bitmaps: a claimed object array's ids */
	PH_SIG,     /* keep, bitmaps, streaming: a byte[]'s first elements,
	               for an image's signature */
	PH_FIELDS,  /* redact: an instance's next run of references or values */
	PH_NAME,    /* names: a STRING record's id and the start of its text */
	PH_NAME_TEXT, /* names: the rest of a text tokenized or given back */
	PH_RAW_REC, /* fallback: rest of the heap record, verbatim */
	PH_RAW      /* fallback: everything, verbatim */
};

/* What becomes of the unit being read: passed (its bytes stay in the
 * caller's buffer and go out as they are), taken (out of the pending run:
 * the engine writes what it makes of it), dropped, stashed (keep: an
 * array's elements into the caller's keep.hold), or zeroed (redact: as
 * many zeros go out). */
enum act { ACT_PASS, ACT_TAKE, ACT_DROP, ACT_STASH, ACT_ZERO };

#define OPEN_END UINT64_MAX

/* The input of one feed: [run, p) is the pending run of passed bytes. */
struct cur {
	const unsigned char *p, *end, *run;
};

static inline void consume(struct hs_state *st, struct cur *c, size_t n)
{
	c->p += n;
	st->in_off += n;
}

static inline uint64_t rec_left(const struct hs_state *st)
{
	return st->rec_end - st->in_off;
}

static inline uint64_t rd_id(const struct hs_state *st, const unsigned char *p)
{
	return st->idsize == 4 ? hs_be32(p)
	                       : (uint64_t)hs_be32(p) << 32 | hs_be32(p + 4);
}

static inline int is_heap_tag(unsigned tag)
{
	return tag == HS_REC_HEAP_DUMP || tag == HS_REC_HEAP_DUMP_SEGMENT;
}

/* An object's sub-record (what --app-only drops in the zygote and image
 * heaps, and st->objects counts) */
static inline int is_instance_dump(unsigned tag)
{
	return tag == HS_SUB_INSTANCE_DUMP || tag == HS_SUB_OBJECT_ARRAY_DUMP ||
	       tag == HS_SUB_PRIMITIVE_ARRAY_DUMP ||
	       tag == HS_SUB_PRIMITIVE_ARRAY_NODATA;
}

/* Length of a heap sub-record's fixed part, tag included; 0 if unknown. */
static inline unsigned sub_fixed_len(unsigned tag, unsigned id)
{
	switch (tag) {
#define HS_LEN_(tag, name, ids, bytes) \
	case tag: return 1 + (ids) * id + (bytes);
	HS_SUBRECORDS(HS_LEN_)
#undef HS_LEN_
	default: return 0;
	}
}

/* A slot for id in a table of slots (a power of 2): ids are addresses,
 * so multiply and keep the high bits. */
static inline unsigned id_slot(uint64_t id, unsigned slots)
{
	return (unsigned)((id * 0x9E3779B97F4A7C15u) >> 32) & (slots - 1);
}

/* Sets the sticky error. */
static inline void eng_error(struct hs_state *st, enum hs_err err,
                             uint64_t off)
{
	st->err = err;
	st->err_off = off;
}

/* One sub-record at the cursor, as far as the fast path (sweep.c) needs it. */
struct unit {
	unsigned n;          /* its fixed part, tag included */
	uint64_t len;        /* the bytes after it */
	uint64_t out;        /* the output a streamed one is sized at (0: not
	                        sized, or stripped) */
	unsigned type;       /* a primitive array's element type, else 0 */
	uint64_t bytes;      /* ... and its elements' bytes */
	int strip;           /* a primitive array that goes out as a 0xC3 */
	const struct hs_flat *flat; /* redact: an instance's value spans */
};

/* ---- the layers' hooks ---------------------------------------------------
 *
 * A layer is a mode with its own file and state: a table of hooks, each
 * called at one of the core's fixed points (NULL: the layer does nothing
 * there). resolve_mode (engine.c) lists the layers on in st->mode.layer,
 * NULL-ended, in this order: histo, android, salvage, keep, stream,
 * redact, names; at a fixed point the core calls each listed layer's hook in that order,
 * and where a hook returns 1 ("taken") the ones after it are not called.
 * A layer that is off is not listed, and costs nothing. The fast path's
 * hooks (sweep.c) are resolved once into st->mode.unit and
 * st->mode.room. The calls and how their answers combine: points.h. */
struct hs_layer {
	/* hs_init: the layer's configuration from cfg (its share of
	 * hs_config), checked; it clears its flags in st->flags when it
	 * cannot run with what it was given (every layer is asked, on or
	 * off) */
	void (*init)(struct hs_state *st, const struct hs_config *cfg);
	/* the file header's version byte, which it may rewrite */
	void (*header)(struct hs_state *st, unsigned char *version);
	/* a record outside the heap: 1 if the layer takes its body (its own
	 * phases); else how many bytes of it it reads (PH_STR) */
	int (*takes_record)(const struct hs_state *st, unsigned tag,
	                    uint32_t len);
	uint32_t (*reads_record)(const struct hs_state *st, unsigned tag,
	                         uint32_t len);
	/* ... those bytes (n of them at h), or a name's start (PH_NAME) */
	void (*record)(struct hs_state *st, const unsigned char *h, unsigned n);
	/* a heap record starts: 1 if its header waits for output; its header
	 * is due: 1 if the layer writes it */
	int (*heap_start)(struct hs_state *st);
	int (*heap_header)(struct hs_state *st);
	/* a sub-record of this tag starts: its act (-1: the core's); a
	 * HEAP_DUMP_INFO h, n bytes */
	int (*act)(const struct hs_state *st, unsigned tag);
	void (*heap_info)(struct hs_state *st, const unsigned char *h,
	                  unsigned n);
	/* a sub-record starts, its act chosen: before its record's header
	 * goes out; after it; and once the core has its start */
	void (*sub_start)(struct hs_state *st, unsigned tag);
	void (*sub_boundary)(struct hs_state *st, struct cur *c);
	/* ... one that goes out (or the fallback's copy in a heap record):
	 * what waits for output goes first */
	void (*goes_out)(struct hs_state *st, struct cur *c);
	void (*sub_begun)(struct hs_state *st, unsigned tag);
	/* an instance's header h, len bytes of fields: 1 if taken */
	int (*instance)(struct hs_state *st, struct cur *c,
	                const unsigned char *h, uint64_t len);
	/* an object array's header h, len bytes of ids: 1 if taken */
	int (*objarray)(struct hs_state *st, struct cur *c,
	                const unsigned char *h, uint64_t len);
	/* a sub-record header h (n bytes) whose output is len bytes long */
	void (*sized)(struct hs_state *st, const unsigned char *h, unsigned n,
	              uint64_t len);
	/* room for len bytes of output: 1 if they go into segments */
	int (*reserve)(struct hs_state *st, uint64_t len);
	/* an array whose elements stripping drops: 1 if taken */
	int (*array)(struct hs_state *st, struct cur *c, const unsigned char *h,
	             uint64_t bytes);
	/* a primitive array of element type type goes out */
	void (*array_out)(struct hs_state *st, unsigned type);
	/* a class dump's fixed part h; its constant or static value of basic
	 * type type (the act for it); its instance fields next (1 if the
	 * layer reads them one by one, PH_IF); one field h; the last read */
	void (*class_start)(struct hs_state *st, const unsigned char *h);
	/* an object's sub-record header h, whole (an instance, an object or
	 * primitive array, 0x23 or 0xC3), as it came */
	void (*object)(struct hs_state *st, const unsigned char *h);
	unsigned (*value)(struct hs_state *st, unsigned type);
	int (*fields)(const struct hs_state *st);
	void (*field)(struct hs_state *st, const unsigned char *h);
	void (*class_end)(struct hs_state *st);
	/* k body bytes at p under an act of the layer's (ACT_STASH,
	 * ACT_ZERO) */
	void (*body)(struct hs_state *st, const unsigned char *p, size_t k);
	/* a phase of the layer's: its step (-1: not the layer's phase) */
	int (*step)(struct hs_state *st, struct cur *c);
	/* the heap record's length is all read: 1 if its end waits */
	int (*record_end)(struct hs_state *st, struct cur *c);
	/* what the layer holds back goes out (a record's end, a fallback) */
	void (*release)(struct hs_state *st);
	/* the heap record ends: 1 if the layer closes it (no length to
	 * patch); and after it closed */
	int (*record_close)(struct hs_state *st);
	void (*record_closed)(struct hs_state *st);
	/* a parse error starts the fallback's copy, nheld bytes held */
	void (*fail)(struct hs_state *st, size_t nheld);
	/* the fallback's bytes go out as zeros: held ones; the copy's */
	int (*zeros_held)(const struct hs_state *st);
	int (*zeros_copy)(const struct hs_state *st);
	/* the input ended: keep whole units only (1), or cut partial ones;
	 * what the layer holds goes; the end's last word (returns st->err) */
	int (*whole_units)(const struct hs_state *st);
	/* HS_SALVAGE: the layer holds output not written yet (1); the
	 * unfinished sub-record is taken back, *from the output offset it is
	 * cut from (UINT64_MAX: none) */
	int (*holds)(const struct hs_state *st);
	void (*take_back)(struct hs_state *st, uint64_t *from);
	/* hs_rewrite: the writer rewrote input bytes [in_off, in_off + len):
	 * 1 if a look ahead read them, which ends (the array held goes out
	 * stripped: eng_resolve) */
	int (*rewrite)(const struct hs_state *st, uint64_t in_off, size_t len);
	void (*finishing)(struct hs_state *st, int partial);
	int (*finish)(struct hs_state *st, struct cur *c);
	/* sweep.c, the unit layer (st->mode.unit): 0 if the phases must take
	 * the sub-record u at p; it goes out; the run goes out up to p (its
	 * patches applied); n sub-records went by */
	int (*sweep_unit)(struct hs_state *st, const unsigned char *p,
	                  struct unit *u);
	void (*sweep_out)(struct hs_state *st, struct cur *c,
	                  const unsigned char *p, const struct unit *u);
	void (*sweep_flush)(struct hs_state *st, struct cur *c,
	                    const unsigned char *p);
	void (*swept)(struct hs_state *st, uint64_t n);
	/* ... the room layer (st->mode.room): does the sub-record u at p
	 * start a segment (1), or need one of its own (-1: the phases take
	 * it)? Its room then. */
	int (*sweep_due)(const struct hs_state *st, const struct cur *c,
	                 const unsigned char *p, const struct unit *u);
	void (*sweep_room)(struct hs_state *st, struct cur *c,
	                   const unsigned char *p, uint64_t out);
	/* ... the seen layer (st->mode.seen, histo): the sub-record u at p
	 * goes by */
	void (*sweep_seen)(struct hs_state *st, const unsigned char *p,
	                   const struct unit *u);
};

extern const struct hs_layer android_layer, keep_layer, stream_layer,
                             salvage_layer, redact_layer, names_layer,
                             histo_layer;
/* A table for open addressing: HS_KEEP_MIN_SLOTS or more, a power of 2 (a
 * smaller or other table would fill up, and a lookup would never end). */
static inline int table_ok(unsigned slots)
{
	return slots >= HS_KEEP_MIN_SLOTS && !(slots & (slots - 1));
}
/* names.c, for histo.c: the start of a STRING text as it goes out */
void names_view(const struct hs_state *st, const unsigned char *p, size_t n,
                int whole, unsigned char *out);
/* exempt.c, for redact.c: what redaction lets through (the runtime's own
 * classes, the listed sizes), read from the STRING and LOAD_CLASS records
 * (the redact layer's reads_record and record hooks) */
int redact_wants_record(const struct hs_state *st, unsigned tag,
                        uint32_t len);
void redact_names(struct hs_state *st, const unsigned char *h, unsigned n);
/* is id in an insert-only set of ids (the caller's fw_names, fw_classes)? */
int rd_set_has(const uint64_t *t, unsigned slots, uint64_t id);
/* the listed size pair of a STRING (kind 1), field name (2) or class (3)
 * id; 0: none */
unsigned rd_sized_of(const struct hs_state *st, unsigned kind, uint64_t id);
/* does the field named name of a listed class (pair cls) pass? */
int rd_size_kept(const struct hs_state *st, unsigned cls, uint64_t name);

/* ---- emit.c: the output; the cursor, inline ------------------------------ */

/* Straight to the sink, counting counted bytes of output. */
void eng_sink_write(struct hs_state *st, const void *buf, size_t len,
                    uint64_t counted);
/* Output: to the sink, or into the segment gathering. */
void eng_emit(struct hs_state *st, const void *buf, size_t len);
/* A HEAP_DUMP_END after segments; none is due then (st->need_end). */
void eng_dump_end(struct hs_state *st);
/* n zeros of output (restored elements, redacted values). */
void eng_zeros(struct hs_state *st, uint64_t n);

/* The pending run goes out. (This and the next two are inline: the
 * phases call them for every unit, and every feed ends with a flush.) */
static inline void eng_flush(struct hs_state *st, struct cur *c)
{
	if (c->p > c->run)
		eng_emit(st, c->run, (size_t)(c->p - c->run));
	c->run = c->p;
}

/* Make the next n bytes available contiguously. Passed bytes stay in the
 * pending run; taken or dropped ones leave it. NULL: input ran out first,
 * the part seen so far is kept in scratch. */
static inline const unsigned char *eng_take(struct hs_state *st,
                                            struct cur *c, unsigned n,
                                            unsigned act)
{
	size_t avail = (size_t)(c->end - c->p);
	const unsigned char *h;

	if (act != ACT_PASS)
		eng_flush(st, c);
	if (st->have == 0 && avail >= n) {
		h = c->p;
		consume(st, c, n);
	} else {
		size_t k = n - st->have;
		if (k > avail)
			k = avail;
		/* (k is 0 at hs_finish, whose empty cursor's c->p is NULL,
		 * which memcpy does not take even for 0 bytes) */
		if (k)
			memcpy(st->scratch + st->have, c->p, k);
		st->have += (unsigned)k;
		consume(st, c, k);
		h = st->have == n ? st->scratch : NULL;
		if (h)
			st->have = 0;
	}
	if (act != ACT_PASS)
		c->run = c->p;
	return h;
}

/* A layer's phase gathers the unit's next bytes into its own buffer: up
 * to need - *len of them into buf + *len, taken out of the input (not
 * passed) and out of st->left. 0 if the feed has none. */
static inline int eng_gather(struct hs_state *st, struct cur *c,
                             unsigned char *buf, unsigned *len, unsigned need)
{
	size_t avail = (size_t)(c->end - c->p), k = need - *len;

	if (!avail)
		return 0;
	if (k > avail)
		k = avail;
	memcpy(buf + *len, c->p, k);
	consume(st, c, k);
	c->run = c->p;
	*len += (unsigned)k;
	st->left -= k;
	return 1;
}

/* The next n bytes of the unit being read, taken as st->act says; NULL
 * until they are all in. */
static inline const unsigned char *eng_unit(struct hs_state *st,
                                            struct cur *c, unsigned n)
{
	return c->p == c->end ? NULL : eng_take(st, c, n, st->act);
}

/* ---- segment.c ---------------------------------------------------------- */

/* (keep.c: the room for a sub-record it writes, and its header going out
 * once sized: the hooks' reserve and sized, called where keep takes the
 * unit) */
int seg_reserve(struct hs_state *st, uint64_t len);
void seg_emit_sized(struct hs_state *st, const unsigned char *h, unsigned n,
                    uint64_t len);
void seg_sized(struct hs_state *st, const unsigned char *h, unsigned n,
               uint64_t len);

/* ---- bitmap.c: keep's second source (HS_KEEP_BITMAPS) ------------------ */

/* a STRING text n bytes long it may want; a STRING or LOAD_CLASS body,
 * whole in h */
int bm_wants_text(uint32_t n);
void bm_names(struct hs_state *st, const unsigned char *h);
/* a class dump of class cls starts */
void bm_class(struct hs_state *st, uint64_t cls);
/* class cls's instance field {name, type} at offset off of its own */
void bm_field(struct hs_state *st, uint64_t cls, uint64_t name,
              unsigned type, uint32_t off);
/* the offset of the field to read in an instance of class cls: -1 if
 * none */
int32_t bm_ref_of(struct hs_state *st, uint64_t cls);
/* sweep.c: does the bitmaps source read this instance, or this object
 * array? */
int bm_looks(const struct hs_state *st, uint64_t cls);
int bm_claimed_list(struct hs_state *st, uint64_t id, int take);
/* an object array (header h, len bytes) read id by id (PH_ELEMS) */
int bm_objarray(struct hs_state *st, struct cur *c, const unsigned char *h,
                uint64_t len);
int bm_step_elems(struct hs_state *st, struct cur *c);
/* a byte[] (header h, bytes long) not claimed: its first elements read
 * for an image's signature (PH_SIG) before its fate; 1 if so */
int bm_sig_start(struct hs_state *st, const unsigned char *h, uint64_t bytes);
int bm_step_sig(struct hs_state *st, struct cur *c);

/* ---- claims.c: the ids that claim an array (keep's pending table) ------- */

/* which of n texts a STRING body h is ('/' matching '.'), or -1 */
int keep_text(const struct hs_state *st, const unsigned char *h,
              const char *const *texts, unsigned n);
/* the table: put, take out (1 if it was there), look up */
void pend_put(struct hs_state *st, uint64_t id);
int pend_take(struct hs_state *st, uint64_t id);
int pend_has(const struct hs_state *st, uint64_t id);
/* a field points at array id: reported (exact pass 1) or pending */
void keep_found(struct hs_state *st, uint64_t id);

/* ---- hold.c ------------------------------------------------------------- */

void hold_release(struct hs_state *st, int whole);
int hold_array(struct hs_state *st, const unsigned char *h, uint64_t bytes);
void hold_stash(struct hs_state *st, const unsigned char *p, size_t k);
int hold_look(struct hs_state *st, const unsigned char *h, uint64_t len,
              int32_t ref);
int hold_record_end(struct hs_state *st, struct cur *c);
int hold_look_ahead(struct hs_state *st, struct cur *c);
int hold_resolve(struct hs_state *st, int claimed, struct cur *x);
void hold_resolved(struct hs_state *st);
int hold_looked_at(const struct hs_state *st, uint64_t in_off, size_t len);
void hold_finish(struct hs_state *st, int partial);
void hold_drop_partial(struct hs_state *st);

/* ---- record.c ----------------------------------------------------------- */

void eng_rec_header(struct hs_state *st, struct cur *c);
void eng_end_record(struct hs_state *st, struct cur *c);
/* len body bytes passed or dropped (st->act), then phase next. */
int eng_set_body(struct hs_state *st, struct cur *c, uint64_t len,
                 unsigned next, const unsigned char *held, size_t nheld);
/* Bytes consumed but not yet out, after a fallback: as they came, or
 * zeros when redacting. */
void eng_emit_held(struct hs_state *st, const unsigned char *held, size_t n);
/* Where input bytes from in_off on went out as they came, in a fallback's
 * copy (at fb_out + in_off - fb_in); UINT64_MAX: they did not. */
uint64_t eng_copied(const struct hs_state *st, uint64_t in_off);
/* A parse error: sticky, or the start of the verbatim copy. */
void eng_fail(struct hs_state *st, struct cur *c, enum hs_err err,
              uint64_t off, const unsigned char *held, size_t nheld);

/* ---- sweep.c ------------------------------------------------------------ */

/* At PH_SUB, st->mode.sweep: the whole sub-records at c->p that need no
 * decision, read in one loop. 0 if it read none. */
int sweep(struct hs_state *st, struct cur *c);

/* ---- engine.c: the phases ------------------------------------------------ */

/* One step of the phase machine: 0 when it needs more input. */
int eng_step(struct hs_state *st, struct cur *c);
/* An array held at a record's end goes out, and the record closes. */
void eng_resolve(struct hs_state *st, struct cur *c, int claimed);

#endif
