/*
 * The engine's insides, shared by its files and nothing else (the API is
 * hprof.h). Its files, top to bottom, each calling only those below it
 * (tests/circles.sh finds no circle):
 *
 *   rewrite.c  hs_rewrite: patches of output that went out unchanged,
 *              and JDK 8's placeholder lengths (HS_OPEN_LEN)
 *   engine.c   the core: the phase machine, one function per phase;
 *              hs_init, hs_feed, hs_finish; strip, restore, --jvm and
 *              --app-only
 *   keep.c     HS_KEEP_STRINGS: the names and class layouts read on the
 *              way (PH_STR, PH_IF), the values read (PH_PEEK, PH_LOOK),
 *              the pending ids, which arrays keep their elements
 *   names.c    HS_REDACT_NAMES, HS_UNREDACT: STRING texts tokenized or
 *              given back (PH_NAME, PH_NAME_TEXT)
 *   redact.c   HS_REDACT: the class layouts recorded (PH_IF), class
 *              dump values zeroed, instance fields walked (PH_FIELDS)
 *   salvage.c  HS_SALVAGE: the primitive array classes noted on the way;
 *              at the end the cut taken back and their missing class
 *              dumps completed
 *   record.c   a record's header and end, a unit's body, a parse error
 *              (the fallback)
 *   hold.c     HS_KEEP_STRINGS, streaming: an array held back until a
 *              String claims it, and the look past its record's end
 *              (PH_XLOOK)
 *   sweep.c    the fast path: at PH_SUB, the whole sub-records of a feed
 *              that need no decision, in one loop (st->mode.sweep)
 *   segment.c  HS_STREAM: where segments begin and end, room reserved
 *              for a sub-record, the streamed fallback
 *   emit.c     the output (to the sink, or into the segment) and the
 *              input's cursor
 *   format.c   the format, named: messages, tag names, type sizes
 *
 * The mode is resolved once (st->mode: at hs_init, and when the file
 * header shows the version). The phases do not ask which mode they are
 * in: the core calls the layers at fixed points, and a layer whose mode
 * is off (or that holds nothing) does nothing there. Who acts where:
 *
 *   (redact: class dump values, fields, instance bodies: zeros)
 *
 *   fixed point (core)         keep, hold         segment        salvage
 *   file header                -                  1.0.1 -> 1.0.2  -
 *   record read whole (PH_STR) names              -              names
 *   heap record header due     -                  gather instead  -
 *   sub-record start           a held array:      boundary,       -
 *    (sub_start)                released or       sizing
 *                               looked behind
 *   sub-record header          instances, arrays, sized: room     classes,
 *    (sub_header_done)          class fields                      arrays
 *   heap record end            an array held:     segment out,    -
 *    (record_end_reached,       look ahead;       HEAP_DUMP_END
 *     eng_end_record)           released
 *   fallback (eng_fail)        released           rest segment    -
 *   finish (hs_finish)         look ahead ended;  -               the cut
 *                               partial units
 *   rewrite (hs_rewrite)       look ahead ended   -               -
 *
 * Restore, --jvm and --app-only are the core's own: choose_act decides
 * what becomes of each sub-record, and the sub-record header carries it
 * out. All output goes through eng_emit: to the sink, or into the segment
 * while one gathers.
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

/* Sets the sticky error. */
static inline void eng_error(struct hs_state *st, enum hs_err err,
                             uint64_t off)
{
	st->err = err;
	st->err_off = off;
}

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

/* The next n bytes of the unit being read, taken as st->act says; NULL
 * until they are all in. */
static inline const unsigned char *eng_unit(struct hs_state *st,
                                            struct cur *c, unsigned n)
{
	return c->p == c->end ? NULL : eng_take(st, c, n, st->act);
}

/* ---- segment.c ---------------------------------------------------------- */

int seg_reserve(struct hs_state *st, uint64_t len);
void seg_header(struct hs_state *st, unsigned char *version);
int seg_record_start(struct hs_state *st);
void seg_sub_boundary(struct hs_state *st, struct cur *c);
void seg_sub_start(struct hs_state *st, unsigned tag);
void seg_room(struct hs_state *st, struct cur *c, const unsigned char *p,
              uint64_t out);
void seg_emit_sized(struct hs_state *st, const unsigned char *h, unsigned n,
                    uint64_t len);
void seg_sized(struct hs_state *st, const unsigned char *h, unsigned n,
               uint64_t len);
int seg_record_end(struct hs_state *st);
void seg_dump_end(struct hs_state *st);
void seg_fallback(struct hs_state *st, size_t nheld);
uint64_t seg_drop_partial(struct hs_state *st);

/* ---- hold.c ------------------------------------------------------------- */

void hold_release(struct hs_state *st, int keep);
int hold_array(struct hs_state *st, const unsigned char *h, uint64_t bytes);
void hold_stash(struct hs_state *st, const unsigned char *p, size_t k);
int hold_look(struct hs_state *st, const unsigned char *h, uint64_t len,
              int32_t ref);
int hold_record_end(struct hs_state *st, struct cur *c);
int hold_look_ahead(struct hs_state *st, struct cur *c);
int hold_resolve(struct hs_state *st, int keep, struct cur *x);
void hold_resolved(struct hs_state *st);
int hold_looked_at(const struct hs_state *st, uint64_t in_off, size_t len);
void hold_finish(struct hs_state *st, int partial);
void hold_drop_partial(struct hs_state *st);

/* ---- record.c ----------------------------------------------------------- */

void eng_rec_header(struct hs_state *st, struct cur *c);
void eng_emit_info(struct hs_state *st, struct cur *c);
void eng_end_record(struct hs_state *st, struct cur *c);
/* len body bytes passed or dropped (st->act), then phase next. */
int eng_set_body(struct hs_state *st, struct cur *c, uint64_t len,
                 unsigned next, const unsigned char *held, size_t nheld);
/* Bytes consumed but not yet out, after a fallback: as they came, or
 * zeros when redacting. */
void eng_emit_held(struct hs_state *st, const unsigned char *held, size_t n);
/* Did input bytes from in_off on go out as they came, in a fallback's
 * copy (at fb_out + in_off - fb_in)? */
int eng_copied(const struct hs_state *st, uint64_t in_off);
/* A parse error: sticky, or the start of the verbatim copy. */
void eng_fail(struct hs_state *st, struct cur *c, enum hs_err err,
              uint64_t off, const unsigned char *held, size_t nheld);

/* ---- keep.c ------------------------------------------------------------- */

int keep_wants_record(const struct hs_state *st, unsigned tag, uint32_t len);
void keep_names(struct hs_state *st, const unsigned char *h);
void keep_sub_start(struct hs_state *st, unsigned tag);
int keep_instance(struct hs_state *st, struct cur *c, const unsigned char *h,
                  uint64_t len);
int keep_array(struct hs_state *st, struct cur *c, const unsigned char *h,
               uint64_t bytes);
void keep_class(struct hs_state *st, const unsigned char *h);
int keep_fields(struct hs_state *st, struct cur *c);
void keep_field(struct hs_state *st, const unsigned char *h);
int keep_step_peek(struct hs_state *st, struct cur *c);
int keep_step_look(struct hs_state *st, struct cur *c);
/* sweep.c: does keep look at an instance of class cls? */
int keep_looks(const struct hs_state *st, uint64_t cls);
static inline int keep_passes(const struct hs_state *st, uint64_t cls)
{
	return !st->mode.keep_reads || !keep_looks(st, cls);
}
void keep_swept(struct hs_state *st, uint64_t n);

/* ---- names.c ------------------------------------------------------------ */

int names_wants_record(const struct hs_state *st, unsigned tag, uint32_t len);
int names_step_head(struct hs_state *st, struct cur *c);
int names_step_text(struct hs_state *st, struct cur *c);

/* ---- redact.c ----------------------------------------------------------- */

int redact_wants_record(const struct hs_state *st, unsigned tag,
                        uint32_t len);
/* The bytes of a STRING record it reads: the id and this much text (the
 * longest listed class name whole, as names.c's HEAD) */
#define REDACT_PEEK 64u
/* A field type in the layout tables with this bit: a listed size, passed
 * as it came (the type is the rest) */
#define RD_KEPT 0x80u
/* hs_init: the caller's caches (st->rd.cfg) checked, taken or done
 * without (hprof.h: struct hs_redact) */
void redact_caches(struct hs_state *st);
void redact_names(struct hs_state *st, const unsigned char *h, unsigned n);
void redact_class(struct hs_state *st, const unsigned char *h);
unsigned redact_value(struct hs_state *st, unsigned type);
int redact_fields(struct hs_state *st, struct cur *c);
void redact_field(struct hs_state *st, const unsigned char *h);
int redact_instance(struct hs_state *st, struct cur *c, const unsigned char *h,
                    uint64_t len);
int redact_step_fields(struct hs_state *st, struct cur *c);
/* sweep.c: the value spans of an instance of class cls with len bytes of
 * fields (n HS_FLAT_NONE: the phases take it) */
const struct hs_flat *redact_flat(struct hs_state *st, uint64_t cls,
                                  uint64_t len);
/* ... its slot in the cache, and a hit there, inline (once an instance) */
static inline struct hs_flat *redact_flat_slot(struct hs_state *st,
                                               uint64_t cls)
{
	return &st->rd.flat[(unsigned)((cls * 0x9E3779B97F4A7C15u) >> 32) &
	                    st->rd.flat_mask];
}
static inline const struct hs_flat *redact_flat_of(struct hs_state *st,
                                                   uint64_t cls, uint64_t len)
{
	const struct hs_flat *f = redact_flat_slot(st, cls);

	return f->cls == cls && f->len == len && cls ? f
	                                             : redact_flat(st, cls, len);
}

/* ---- salvage.c ---------------------------------------------------------- */

int salvage_wants_record(const struct hs_state *st, unsigned tag,
                         uint32_t len);
void salvage_names(struct hs_state *st, const unsigned char *h);
void salvage_class(struct hs_state *st, const unsigned char *h);
void salvage_array(struct hs_state *st, unsigned type);
int salvage_finish(struct hs_state *st, struct cur *c);

/* ---- sweep.c ------------------------------------------------------------ */

/* At PH_SUB, st->mode.sweep: the whole sub-records at c->p that need no
 * decision, read in one loop. 0 if it read none. */
int sweep(struct hs_state *st, struct cur *c);

/* ---- engine.c: the phases ------------------------------------------------ */

/* One step of the phase machine: 0 when it needs more input. */
int eng_step(struct hs_state *st, struct cur *c);
/* An array held at a record's end goes out, and the record closes. */
void eng_resolve(struct hs_state *st, struct cur *c, int keep);

#endif
