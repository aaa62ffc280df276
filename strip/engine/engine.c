/*
 * The hprofstrip engine's core, the phase machine: see hprof.h for the
 * contract, internal.h for the files below it and where the layers act.
 *
 * Every input byte is either passed through, dropped, or held in the state
 * and re-emitted (possibly rewritten). Bytes passed through are never copied:
 * the cursor keeps a pending run [run, p) of the caller's buffer and flushes
 * it to the sink when something else must be emitted, or at the end of a
 * feed. Fixed-size headers are parsed in place when they are whole in the
 * input, and gathered into st->scratch when a feed cut them.
 *
 * The phases, one function each, and their order (eng_step dispatches):
 *
 *   PH_HDR -> PH_HDR_TAIL -> PH_REC <-----------------------------------+
 *                              |  outside the heap: PH_STR (a layer      |
 *                              |  reads its names) or PH_REC_BODY -------+
 *                              v  a heap record                          |
 *                            PH_SUB --- its end (keep: PH_XLOOK) --------+
 *                              |  ^
 *                              v  +--- PH_SUB_END <-------------+
 *                           PH_SUBHDR --- its body: PH_BODY ----+
 *                              |              ^ keep: PH_PEEK, PH_LOOK
 *                              v  a class dump|
 *                     PH_CP, PH_ST_COUNT, PH_ST, PH_IF_COUNT (keep: PH_IF)
 *
 *   a parse error with HS_FALLBACK: PH_RAW_REC (the rest of the heap
 *   record) -> PH_RAW (the rest of the stream), verbatim.
 *
 * The layers act at fixed points through their hooks (internal.h); the
 * phases never ask which are on. choose_act decides what becomes of each
 * sub-record (a layer's act, or strip's and restore's own), and the
 * sub-record header carries it out.
 */
#include "points.h"

/* take() gathers a cut sub-record header in scratch */
_Static_assert(sizeof ((struct hs_state *)0)->scratch >= 1 + 7 * 8 + 4 + 4 + 2,
               "scratch holds a class dump's fixed part with 8-byte ids");

static unsigned heap_index(uint32_t type)
{
	switch (type) {
	case 0: return HS_HEAP_DEFAULT;
	case 'A': return HS_HEAP_APP;
	case 'Z': return HS_HEAP_ZYGOTE;
	case 'I': return HS_HEAP_IMAGE;
	case 'J': return HS_HEAP_JIT;
	default: return HS_HEAP_OTHER;
	}
}

/* ---- the mode ---------------------------------------------------------- */

/* The layers on, in the order their hooks are called (internal.h), and
 * the fast path's. The rules between layers live here: keep and redact
 * are never both on (hs_init drops keep for redact), so one layer at most
 * reads a class's fields one by one (the field hook), and one judges the
 * fast path's units; names comes with redact or restore, never with keep
 * (which is strip's). */
static void list_layers(struct hs_mode *m)
{
	unsigned n = 0;

	if (m->histo)  /* reads only: first, so no layer's take hides a unit */
		m->layer[n++] = &histo_layer;
	if (m->late_header)  /* convert, app_only */
		m->layer[n++] = &android_layer;
	if (m->salvage)
		m->layer[n++] = &salvage_layer;
	if (m->keep)
		m->layer[n++] = &keep_layer;
	if (m->stream)
		m->layer[n++] = &stream_layer;
	if (m->redact)
		m->layer[n++] = &redact_layer;
	if (m->names)
		m->layer[n++] = &names_layer;
	m->layer[n] = NULL;
	m->unit = m->keep ? &keep_layer : m->redact ? &redact_layer : NULL;
	m->room = m->stream ? &stream_layer : NULL;
	m->seen = m->histo ? &histo_layer : NULL;
}

/* The mode in effect, from the flags and the dump's version: at hs_init,
 * and again once the file header is read. Past hs_init, nothing else
 * reads the flags. */
static void resolve_mode(struct hs_state *st)
{
	unsigned f = st->flags;
	struct hs_mode *m = &st->mode;

	m->restore = (f & HS_RESTORE) != 0;
	/* HS_JVM converts 1.0.3 only: 1.0.1 and 1.0.2 get a plain restore */
	m->convert = (f & HS_JVM) && st->version == '3';
	/* HS_APP_ONLY, with HS_JVM or while stripping, on 1.0.3 only: the
	 * zygote and image heaps' objects are dropped, and heap records left
	 * empty */
	m->app_only = (f & HS_APP_ONLY) && st->version == '3' &&
	              (!(f & HS_RESTORE) || (f & HS_JVM));
	/* ... while stripping: the dump stays 1.0.3 and keeps its
	 * HEAP_DUMP_INFOs, but each waits (st->info) until a sub-record it
	 * governs is kept: one that governs nothing left (a zygote heap's
	 * objects) goes, so no heap record is left with nothing else */
	m->app_strip = m->app_only && !(f & HS_RESTORE);
	/* jvm and app-only modes write a heap record's header only once it
	 * holds output, so records left empty disappear */
	m->late_header = m->convert || m->app_only;
	/* strip mode keeping strings; reading fields (not pass 2 of the exact
	 * mode, which asks); streaming: the pending table and the hold-back */
	m->keep_strings = (f & HS_KEEP_STRINGS) && !(f & HS_RESTORE);
	m->keep_bitmaps = (f & HS_KEEP_BITMAPS) && !(f & HS_RESTORE);
	m->keep = m->keep_strings || m->keep_bitmaps;
	/* (exact pass 1 of bitmaps sets has too: the buffers known) */
	m->keep_reads = m->keep && (!st->ks.cfg.has || st->ks.cfg.found);
	m->keep_streams = m->keep_reads && !st->ks.cfg.found;
	/* redact: every value zero, while stripping */
	m->redact = (f & HS_REDACT) && !(f & HS_RESTORE);
	/* names: tokens while redacting, originals back while restoring */
	m->names = m->redact && (f & HS_REDACT_NAMES) ? 1
	           : (f & HS_UNREDACT) && (f & HS_RESTORE) && st->nm.cfg.rename
	           ? 2 : 0;
	m->stream = st->sg.buf != NULL;
	m->salvage = (f & HS_SALVAGE) != 0;
	m->fallback = (f & HS_FALLBACK) != 0;
	m->open_len = (f & HS_OPEN_LEN) != 0;
	m->no_header = (f & HS_NO_HEADER) != 0;
	m->histo = (f & HS_HISTO) && st->hg;
	m->sweep = !m->late_header && !m->salvage;
	list_layers(m);
}

/* ---- the census -------------------------------------------------------- */

static void census_record(struct hs_state *st, uint32_t len)
{
	if (!st->census)
		return;
	st->census->rec_count[st->rec_tag]++;
	st->census->rec_bytes[st->rec_tag] += 9 + (uint64_t)len;
}

static void census_array(struct hs_state *st, unsigned type, uint64_t bytes)
{
	if (!st->census)
		return;
	if (st->sub_tag == HS_SUB_PRIMITIVE_ARRAY_DUMP) {
		st->census->prim_count[type]++;
		st->census->prim_bytes[type] += bytes;
	} else {
		st->census->nodata_count[type]++;
		st->census->nodata_bytes[type] += bytes;
	}
}

static void census_sub(struct hs_state *st)
{
	uint64_t b = st->in_off - st->sub_in;

	if (!st->census)
		return;
	st->census->sub_count[st->sub_tag]++;
	st->census->sub_bytes[st->sub_tag] += b;
	st->census->heap_bytes[st->heap] += b;
}

/* ---- records ----------------------------------------------------------- */

/* A heap record starts: in the default heap (the writers reset it, and
 * hprof-conv reads it so), its header written now unless a layer has it
 * wait for output. */
static void heap_record_start(struct hs_state *st, struct cur *c,
                              uint32_t len)
{
	/* a placeholder or an empty record: the next byte tells (step_sub) */
	st->maybe_open = len == 0 && st->mode.open_len;
	st->heap = HS_HEAP_DEFAULT;
	if (!lay_heap_start(st))
		eng_rec_header(st, c);
}

/* ---- the phases -------------------------------------------------------- */

/* A gzip stream's first two bytes (RFC 1952): a -gz dump */
#define GZIP_ID1 0x1F
#define GZIP_ID2 0x8B

static int step_header(struct hs_state *st, struct cur *c)
{
	if (c->p == c->end)
		return 0;
	while (c->p < c->end) {
		unsigned char b = *c->p;
		unsigned i = st->have;
		if (i == 1 && st->scratch[0] == GZIP_ID1) {  /* byte 0 was */
			eng_fail(st, c, b == GZIP_ID2 ? HS_E_GZIP : HS_E_MAGIC, 0,
			         st->scratch, i);
			return 1;
		}
		if (i < HS_MAGIC_LEN && b != (unsigned char)HS_MAGIC[i] &&
		    !(i == 0 && b == GZIP_ID1)) {
			eng_fail(st, c, HS_E_MAGIC, i, st->scratch, i);
			return 1;
		}
		if (i == 0 && b == GZIP_ID1 && c->p + 1 < c->end &&
		    c->p[1] != GZIP_ID2) {
			eng_fail(st, c, HS_E_MAGIC, 0, st->scratch, 0);
			return 1;
		}
		if (i >= sizeof st->header - 1 && b != 0) {
			eng_fail(st, c, HS_E_HEADER, i, st->scratch, i);
			return 1;
		}
		st->scratch[st->have++] = b;
		consume(st, c, 1);
		c->run = c->p;
		if (b == 0) {
			memcpy(st->header, st->scratch, st->have);
			st->version = st->have > HS_MAGIC_LEN + 1 ? st->header[HS_MAGIC_LEN] : 0;
			st->need = st->have; /* header string length, NUL included */
			st->phase = PH_HDR_TAIL;
			return 1;
		}
	}
	return 0;
}

static int step_header_tail(struct hs_state *st, struct cur *c)
{
	unsigned n = st->need;
	const unsigned char *h;

	if (c->p == c->end)
		return 0;
	/* scratch already holds the string: gather the 12 bytes after it */
	{
		size_t k = n + 12 - st->have, avail = (size_t)(c->end - c->p);
		if (k > avail)
			k = avail;
		memcpy(st->scratch + st->have, c->p, k);
		st->have += (unsigned)k;
		consume(st, c, k);
		c->run = c->p;
		if (st->have < n + 12)
			return 0;
	}
	h = st->scratch + n;
	st->idsize = hs_be32(h);
	st->timestamp = (uint64_t)hs_be32(h + 4) << 32 | hs_be32(h + 8);
	if (st->idsize != 4 && st->idsize != 8) {
		st->have = 0;
		eng_fail(st, c, HS_E_IDSIZE, n, st->scratch, n + 12);
		return 1;
	}
	resolve_mode(st);  /* the version is known */
	L_CALL(st, header, st, &st->scratch[HS_MAGIC_LEN]);
	eng_emit(st, st->scratch, n + 12);
	st->have = 0;
	st->phase = PH_REC;
	return 1;
}

/* A record outside the heap, its header out: the phase its body is read
 * in. A layer takes it (its own phase), or layers read the start of it,
 * as much as the one that reads most (st->need; PH_STR), or it passes. */
static unsigned record_body_phase(struct hs_state *st, unsigned tag,
                                  uint32_t len)
{
	if (lay_takes_record(st, tag, len))
		return PH_NAME;
	st->need = lay_reads_record(st, tag, len);
	return st->need ? PH_STR : PH_REC_BODY;
}

static int step_record(struct hs_state *st, struct cur *c)
{
	const unsigned char *h;
	uint32_t len;

	if (c->p == c->end)
		return 0;
	h = eng_take(st, c, 9, ACT_TAKE);
	if (!h)
		return 0;
	memcpy(st->rec_hdr, h, 9);
	st->records++;
	st->rec_tag = h[0];
	if (is_heap_tag(st->rec_tag) && st->same_until > st->in_off - 9)
		st->same_until = st->in_off - 9;
	len = hs_be32(h + 5);
	st->rec_len = len;
	st->rec_body_in = st->in_off;
	st->rec_end = st->in_off + len;
	st->rec_hdr_out = 0;
	census_record(st, len);
	if (st->rec_tag == HS_REC_HEAP_DUMP_SEGMENT)
		st->had_segments = st->in_segments = 1;
	if (st->rec_tag == HS_REC_HEAP_DUMP)
		st->heap_dumps++;
	if (!is_heap_tag(st->rec_tag)) {
		if (st->rec_tag == HS_REC_HEAP_DUMP_END) {
			st->heap_dumps += st->had_segments;
			st->need_end = st->had_segments = st->in_segments = 0;
		}
		eng_rec_header(st, c);
		st->left = len;
		st->phase = record_body_phase(st, st->rec_tag, len);
		return 1;
	}
	heap_record_start(st, c, len);
	st->phase = PH_SUB;
	return 1;
}

static int step_rec_body(struct hs_state *st, struct cur *c)
{
	size_t avail = (size_t)(c->end - c->p);
	size_t k;

	if (st->left == 0) {
		st->phase = PH_REC;
		st->rec_tag = 0;
		st->rec_end = 0;
		return 1;
	}
	if (!avail)
		return 0;
	k = st->left < avail ? (size_t)st->left : avail;
	consume(st, c, k);
	st->left -= k;
	return 1;
}

/* PH_STR: a STRING or LOAD_CLASS body, passed, its first st->need bytes
 * read on the way (each layer reads only the records it wants). */
static int step_str(struct hs_state *st, struct cur *c)
{
	const unsigned char *h;

	if (c->p == c->end && st->need)
		return 0;
	h = eng_take(st, c, st->need, ACT_PASS);
	if (!h)
		return 0;
	L_CALL(st, record, st, h, st->need);
	st->left = st->rec_len - st->need;
	st->phase = PH_REC_BODY;
	return 1;
}

/* After a heap record header of length 0 (HS_OPEN_LEN): does the next
 * byte start a sub-record (the length is a placeholder: JDK 8 patches it
 * later) or the next record (the record is empty, as ART writes some)?
 * Writers put heap records last, before HEAP_DUMP_END: ART writes its
 * strings, classes and traces first, so its empty segments are followed
 * by 0x1C or 0x2C, never by a sub-record tag. Tags 0x01-0x08, which both
 * can be, are sub-records here. */
static int opens_record(const struct hs_state *st, unsigned tag)
{
	return sub_fixed_len(tag, st->idsize) != 0;
}

/* What becomes of a sub-record of this tag: a layer's act, or the
 * core's (restore: a 0xC3 taken; strip: a 0x23 taken). */
static unsigned choose_act(const struct hs_state *st, unsigned tag)
{
	int a = lay_act(st, tag);

	if (a >= 0)
		return (unsigned)a;
	if (st->mode.restore)
		return tag == HS_SUB_PRIMITIVE_ARRAY_NODATA ? ACT_TAKE : ACT_PASS;
	return tag == HS_SUB_PRIMITIVE_ARRAY_DUMP ? ACT_TAKE : ACT_PASS;
}

/* The heap record's length is all read: it ends, or (HS_OPEN_LEN) the
 * next byte shows that a placeholder opens it. -1: a sub-record follows;
 * else the step's result. */
static int record_end_reached(struct hs_state *st, struct cur *c)
{
	if (!st->maybe_open) {
		if (!lay_record_end(st, c))  /* keep: an array held */
			eng_end_record(st, c);
		return 1;
	}
	if (c->p == c->end)
		return 0;
	st->maybe_open = 0;
	if (!opens_record(st, *c->p)) {
		eng_end_record(st, c);
		return 1;
	}
	st->open = 1;
	st->rec_end = OPEN_END;
	return -1;
}

/* A sub-record starts, its act chosen: the layers' turn (keep: a held
 * array; segment: a boundary, sizing), and what must go out before it
 * does (its record's header, a waiting HEAP_DUMP_INFO). */
static void sub_start(struct hs_state *st, struct cur *c, unsigned tag)
{
	L_CALL(st, sub_start, st, tag);
	if (st->act != ACT_DROP)
		eng_rec_header(st, c);
	L_CALL(st, sub_boundary, st, c);
	if (st->act != ACT_DROP)
		L_CALL(st, goes_out, st, c);
	/* where it starts, should --salvage have to take it back */
	st->sub_out = st->out_off + (uint64_t)(c->p - c->run);
	L_CALL(st, sub_begun, st, tag);
}

static int step_sub(struct hs_state *st, struct cur *c)
{
	unsigned tag, n;
	int r;

	if (st->in_off == st->rec_end && (r = record_end_reached(st, c)) >= 0)
		return r;
	if (st->mode.sweep && sweep(st, c))
		return 1;
	if (c->p == c->end)
		return 0;
	tag = *c->p;
	n = sub_fixed_len(tag, st->idsize);
	if (!n) {
		eng_fail(st, c, HS_E_SUBTAG, st->in_off, NULL, 0);
		return 1;
	}
	if (n > rec_left(st)) {
		eng_fail(st, c, HS_E_OVERRUN, st->in_off, NULL, 0);
		return 1;
	}
	st->sub_tag = (unsigned char)tag;
	st->sub_in = st->in_off;
	st->act = choose_act(st, tag);
	st->sub_drop = st->act == ACT_DROP;
	sub_start(st, c, tag);
	st->need = n;
	st->phase = PH_SUBHDR;
	return 1;
}

/* restore: a 0xC3 whose header h was taken goes out as a 0x23 with its
 * elements (bytes) zero. */
static void restore_array(struct hs_state *st, const unsigned char *h,
                          uint64_t bytes)
{
	unsigned n = st->need;
	uint64_t body = st->out_off - st->rec_body_out;
	unsigned char t = HS_SUB_PRIMITIVE_ARRAY_DUMP;

	/* a heap record written whole keeps under 4 GiB; segments need not */
	if (!lay_reserve(st, n + bytes) && body + n + bytes > UINT32_MAX) {
		eng_error(st, HS_E_TOOBIG, st->sub_in);
		return;
	}
	eng_emit(st, &t, 1);
	eng_emit(st, h + 1, n - 1);
	eng_zeros(st, bytes);
	st->arrays++;
	st->elem_bytes += bytes;
}

/* strip: an array (header h, taken; bytes of elements) goes out as a
 * 0xC3, its elements dropped, unless keep decides its fate. */
static int strip_array(struct hs_state *st, struct cur *c,
                       const unsigned char *h, uint64_t bytes)
{
	unsigned n = st->need;
	unsigned char t = HS_SUB_PRIMITIVE_ARRAY_NODATA;

	if (bytes > rec_left(st)) {
		eng_fail(st, c, HS_E_OVERRUN, st->sub_in, h, n);
		return 1;
	}
	if (lay_array(st, c, h, bytes))
		return 1;
	eng_emit(st, &t, 1);
	eng_emit(st, h + 1, n - 1);
	st->arrays++;
	st->elem_bytes += bytes;
	st->act = ACT_DROP;
	return eng_set_body(st, c, bytes, PH_SUB_END, h, n);
}

/* A primitive array of element type type, bytes long: counted, and its
 * type noted if it goes out (salvage). */
static void array_seen(struct hs_state *st, unsigned type, uint64_t bytes)
{
	if (st->act != ACT_DROP)
		L_CALL(st, array_out, st, type);
	census_array(st, type, bytes);
}

/* A primitive array's header h: a 0x23 or 0xC3 that the mode rewrites
 * (restore: 0x23 and zeros, strip: 0xC3; both taken), or passes whole
 * (sized, when streamed), or drops (app-only). */
static int prim_array(struct hs_state *st, struct cur *c,
                      const unsigned char *h)
{
	unsigned id = st->idsize, n = st->need, ti = h[n - 1];
	unsigned sz = hs_type_size(ti, id);
	uint64_t bytes = (uint64_t)hs_be32(h + 1 + id + 4) * sz;

	if (!sz || ti == 2) {
		eng_fail(st, c, HS_E_TYPE, st->sub_in + n - 1, h,
		         st->act == ACT_PASS ? 0 : n);
		return 1;
	}
	L_CALL(st, object, st, h);
	L_CALL(st, sized, st, h, n, n + bytes);  /* a 0x23 passed whole */
	array_seen(st, ti, bytes);
	if (st->sub_tag == HS_SUB_PRIMITIVE_ARRAY_NODATA) {
		if (st->act == ACT_TAKE)  /* restore */
			restore_array(st, h, bytes);
		st->phase = PH_SUB_END;
		return 1;
	}
	if (st->act == ACT_TAKE)  /* strip */
		return strip_array(st, c, h, bytes);
	return eng_set_body(st, c, bytes, PH_SUB_END, h,
	                    st->act == ACT_PASS ? 0 : n);
}

/* A class dump's fixed part h: its constant pool count is last. */
static int class_start(struct hs_state *st, const unsigned char *h)
{
	unsigned n = st->need;

	L_CALL(st, class_start, st, h);
	st->count = (unsigned)h[n - 2] << 8 | h[n - 1];
	st->phase = st->count ? PH_CP : PH_ST_COUNT;
	return 1;
}

/* A HEAP_DUMP_INFO h: the heap the next sub-records are in. */
static int heap_info(struct hs_state *st, const unsigned char *h)
{
	unsigned n = st->need;

	st->heap = (unsigned char)heap_index(hs_be32(h + 1));
	L_CALL(st, heap_info, st, h, n);
	st->phase = PH_SUB_END;
	return 1;
}

static int sub_header_done(struct hs_state *st, struct cur *c,
                           const unsigned char *h)
{
	unsigned id = st->idsize, n = st->need;
	uint64_t len;
	unsigned char t;

	switch (st->sub_tag) {
	case HS_SUB_INSTANCE_DUMP:
		L_CALL(st, object, st, h);
		len = hs_be32(h + 1 + 2 * id + 4);
		if (lay_instance(st, c, h, len))
			return 1;
		return eng_set_body(st, c, len, PH_SUB_END, h,
		                    st->act == ACT_PASS ? 0 : n);
	case HS_SUB_OBJECT_ARRAY_DUMP:
		L_CALL(st, object, st, h);
		len = (uint64_t)hs_be32(h + 1 + id + 4) * id;
		L_CALL(st, sized, st, h, n, n + len);
		if (lay_objarray(st, c, h, len))
			return 1;
		return eng_set_body(st, c, len, PH_SUB_END, h,
		                    st->act == ACT_PASS ? 0 : n);
	case HS_SUB_CLASS_DUMP:
		return class_start(st, h);
	case HS_SUB_HEAP_DUMP_INFO:
		return heap_info(st, h);
	case HS_SUB_PRIMITIVE_ARRAY_DUMP:
	case HS_SUB_PRIMITIVE_ARRAY_NODATA:
		return prim_array(st, c, h);
	default:
		if (st->act == ACT_TAKE) {  /* Android root -> ROOT_UNKNOWN */
			t = HS_SUB_ROOT_UNKNOWN;
			eng_emit(st, &t, 1);
			eng_emit(st, h + 1, id);
		}
		st->phase = PH_SUB_END;
		return 1;
	}
}

static int step_subhdr(struct hs_state *st, struct cur *c)
{
	const unsigned char *h = eng_unit(st, c, st->need);

	return h ? sub_header_done(st, c, h) : 0;
}

static int step_body(struct hs_state *st, struct cur *c)
{
	size_t avail, k;

	if (st->left == 0) {
		st->phase = st->next;
		return 1;
	}
	avail = (size_t)(c->end - c->p);
	if (!avail)
		return 0;
	k = st->left < avail ? (size_t)st->left : avail;
	if (st->act != ACT_PASS)
		eng_flush(st, c);
	if (st->act > ACT_DROP)  /* a layer's act */
		L_CALL(st, body, st, c->p, k);
	consume(st, c, k);
	if (st->act != ACT_PASS)
		c->run = c->p;
	st->left -= k;
	return 1;
}

/* A class dump's instance fields (st->count) are next, {id name, u1
 * type} each: read one by one (PH_IF) when a layer reads them, else
 * passed. They must fit in the record either way. */
static int fields_end(struct hs_state *st)
{
	L_CALL(st, class_end, st);
	st->phase = PH_SUB_END;
	return 1;
}

static int fields_start(struct hs_state *st, struct cur *c)
{
	uint64_t len = (uint64_t)st->count * (st->idsize + 1);

	if (len > rec_left(st)) {
		eng_fail(st, c, HS_E_OVERRUN, st->sub_in, NULL, 0);
		return 1;
	}
	if (!lay_fields(st))
		return eng_set_body(st, c, len, PH_SUB_END, NULL, 0);
	st->phase = PH_IF;
	return st->count ? 1 : fields_end(st);
}

/* Class dump: constant pool entries {u2 index, u1 type, value}, statics
 * {id name, u1 type, value}, instance fields {id name, u1 type}. */
static int step_class(struct hs_state *st, struct cur *c)
{
	unsigned id = st->idsize, n, sz;
	const unsigned char *h;

	switch (st->phase) {
	case PH_CP: n = 3; break;
	case PH_ST: case PH_IF: n = id + 1; break;
	default: n = 2; break;
	}
	/* a class dump is passed (a layer's act for the last value, as
	 * lay_value chose, was for that value only) */
	st->act = ACT_PASS;
	/* before waiting for input: the record's end may be here already */
	if (st->have == 0 && n > rec_left(st)) {
		eng_fail(st, c, HS_E_OVERRUN, st->sub_in, NULL, 0);
		return 1;
	}
	h = eng_unit(st, c, n);
	if (!h)
		return 0;
	switch (st->phase) {
	case PH_CP:
	case PH_ST:
		sz = hs_type_size(h[n - 1], id);
		if (!sz) {
			eng_fail(st, c, HS_E_TYPE, st->in_off - 1, NULL, 0);
			return 1;
		}
		st->count--;
		st->act = lay_value(st, h[n - 1]);
		return eng_set_body(st, c, sz,
		                    st->count ? st->phase : st->phase + 1, NULL, 0);
	case PH_ST_COUNT:
	case PH_IF_COUNT:
		st->count = (unsigned)h[0] << 8 | h[1];
		if (st->phase == PH_ST_COUNT) {
			st->phase = st->count ? PH_ST : PH_IF_COUNT;
			return 1;
		}
		return fields_start(st, c);
	default:  /* PH_IF */
		lay_field(st, h);
		return --st->count ? 1 : fields_end(st);
	}
}

static int step_sub_end(struct hs_state *st)
{
	if (!st->sub_drop && is_instance_dump(st->sub_tag))
		st->objects++;
	census_sub(st);
	st->phase = PH_SUB;
	return 1;
}

static int step_raw(struct hs_state *st, struct cur *c)
{
	size_t avail = (size_t)(c->end - c->p), k = avail;

	if (st->phase == PH_RAW_REC) {
		if (st->in_off == st->rec_end) {
			eng_end_record(st, c);
			/* a copy of zeros: the records after it are read as
			 * usual */
			if (!st->err && !lay_zeros_copy(st))
				st->phase = PH_RAW;
			return 1;
		}
		if (rec_left(st) < k)
			k = (size_t)rec_left(st);
	}
	if (!k)
		return 0;
	if (lay_zeros_copy(st)) {  /* nothing verbatim */
		eng_flush(st, c);
		eng_zeros(st, k);
		consume(st, c, k);
		c->run = c->p;
		return 1;
	}
	consume(st, c, k);
	return 1;
}

static void run(struct hs_state *st, struct cur *c);

/* An array held at a heap record's end (PH_XLOOK) goes out, kept or not,
 * and the record closes; the bytes gathered after it are fed as usual. */
void eng_resolve(struct hs_state *st, struct cur *c, int claimed)
{
	struct cur x;

	if (!hold_resolve(st, claimed, &x))
		return;
	eng_end_record(st, c);
	run(st, &x);
	if (!st->err)
		eng_flush(st, &x);
	hold_resolved(st);
}

/* PH_XLOOK: the bytes after a heap record that ended with an array held,
 * gathered until they show whether a String there claims it. */
static int step_xlook(struct hs_state *st, struct cur *c)
{
	int claimed = hold_look_ahead(st, c);

	if (claimed < 0)
		return 0;
	eng_resolve(st, c, claimed);
	return 1;
}

int eng_step(struct hs_state *st, struct cur *c)
{
	switch (st->phase) {
	case PH_HDR: return step_header(st, c);
	case PH_HDR_TAIL: return step_header_tail(st, c);
	case PH_REC: return step_record(st, c);
	case PH_REC_BODY: return step_rec_body(st, c);
	case PH_SUB: return step_sub(st, c);
	case PH_SUBHDR: return step_subhdr(st, c);
	case PH_BODY: return step_body(st, c);
	case PH_CP: case PH_ST_COUNT: case PH_ST: case PH_IF_COUNT: case PH_IF:
		return step_class(st, c);
	case PH_SUB_END: return step_sub_end(st);
	case PH_STR: return step_str(st, c);
	case PH_XLOOK: return step_xlook(st, c);
	case PH_PEEK: case PH_LOOK: case PH_ELEMS: case PH_SIG:
	case PH_FIELDS: case PH_NAME: case PH_NAME_TEXT:
		return lay_step(st, c);
	default: return step_raw(st, c);
	}
}

/* Steps until input is needed (or an error). */
static void run(struct hs_state *st, struct cur *c)
{
	while (!st->err && eng_step(st, c))
		;
}

/* ---- API --------------------------------------------------------------- */

/* The state is small: every layer's tables and caches are the caller's
 * (hprof.h: HS_STATE_MAX). */
_Static_assert(sizeof(struct hs_state) <= HS_STATE_MAX,
               "struct hs_state is larger than HS_STATE_MAX");

void hs_init(struct hs_state *st, const struct hs_config *cfg,
             const struct hs_sink *sink)
{
	static const struct hs_layer *const all_layers[] = {
		&histo_layer, &android_layer, &salvage_layer, &keep_layer,
		&stream_layer, &redact_layer, &names_layer, NULL
	};
	const struct hs_layer *const *l;
	unsigned flags = cfg->flags;

	memset(st, 0, sizeof *st);
	/* redact: the values of Strings go too */
	if (flags & HS_REDACT)
		flags &= ~(unsigned)(HS_KEEP_STRINGS | HS_KEEP_BITMAPS);
	st->flags = flags;
	st->sink = *sink;
	st->census = cfg->census;
	/* each layer takes its configuration, and drops its flags when it
	 * cannot run with it (hprof.h says what each needs) */
	for (l = all_layers; *l; l++)
		if ((*l)->init)
			(*l)->init(st, cfg);
	st->phase = (flags & HS_NO_HEADER) ? PH_REC : PH_HDR;
	st->idsize = (flags & HS_NO_HEADER) ? (cfg->idsize ? cfg->idsize : 8) : 0;
	/* the conversion rewrites the header's version byte; a stream
	 * rewrites nothing */
	st->same_until = (flags & (HS_JVM | HS_REDACT_NAMES | HS_UNREDACT)) ||
	                 st->sg.buf ? 0 : UINT64_MAX;
	resolve_mode(st);
}

int hs_at_end(const struct hs_state *st)
{
	return st->phase == PH_REC && st->have == 0 && st->idsize &&
	       !st->err && !st->in_segments && !st->fallback;
}

enum hs_err hs_feed(struct hs_state *st, const void *in, size_t len)
{
	struct cur c;

	c.p = c.run = (const unsigned char *)in;
	c.end = c.p + len;
	run(st, &c);
	if (!st->err)
		eng_flush(st, &c);
	return st->err;
}

/* Inside a heap record whose end is known. */
static int in_heap_record(const struct hs_state *st)
{
	return st->rec_tag && is_heap_tag(st->rec_tag) && !st->open &&
	       st->rec_end;
}

/* Are the bytes gathered in scratch passed (in the output already)? */
static int unit_passed(const struct hs_state *st)
{
	switch (st->phase) {
	case PH_STR:
		return 1;
	case PH_SUBHDR: case PH_CP: case PH_ST_COUNT: case PH_ST:
	case PH_IF_COUNT: case PH_IF: case PH_PEEK:
		return st->act == ACT_PASS;
	default:
		return 0;
	}
}

/* The end of the input: what needs none runs (record ends, body ends),
 * and an array held at a record's end goes, with nothing to claim it. */
static void drain(struct hs_state *st, struct cur *c)
{
	st->maybe_open = 0;  /* nothing follows: that record was empty */
	run(st, c);
	eng_resolve(st, c, 0);
	run(st, c);
}

/* The stream stopped between records: HS_E_OK unless it ended inside a
 * record's header or before any record. */
static enum hs_err between_records(struct hs_state *st)
{
	if (st->have)  /* it ended inside a record header */
		return HS_E_TRUNCATED;
	if (!st->records && !st->mode.no_header)
		return HS_E_NORECORDS;
	if (st->need_end)  /* --salvage: segments cut short */
		eng_dump_end(st);
	return HS_E_OK;
}

/* ... in a heap record: a placeholder the writer never patched closes
 * here */
static enum hs_err in_heap(struct hs_state *st, struct cur *c)
{
	if (!st->open)
		return HS_E_TRUNCATED;
	st->rec_len = st->in_off - st->rec_body_in;
	st->open = 0;
	eng_end_record(st, c);
	return HS_E_OK;
}

/* Where the stream stopped: HS_E_OK when that is an end (the record
 * closed, or an END due written), else the error it is. */
static enum hs_err end_state(struct hs_state *st, struct cur *c)
{
	switch (st->phase) {
	case PH_REC:
		return between_records(st);
	case PH_RAW:
		return HS_E_OK;
	case PH_HDR:
		return st->in_off ? HS_E_SHORT : HS_E_EMPTY;
	case PH_HDR_TAIL:
		return HS_E_SHORT;
	case PH_SUB:
		return in_heap(st, c);
	default:
		return HS_E_TRUNCATED;
	}
}

/* HS_FALLBACK: a stream cut inside a unit ends as a fallback there. */
static enum hs_err fallback_finish(struct hs_state *st, struct cur *c,
                                   enum hs_err e)
{
	/* HS_STREAM: a segment holds whole sub-records only, so the
	 * unfinished one is left out and the output ends after the last
	 * whole one (the input was cut there too) */
	int partial = !lay_whole_units(st);

	if (!st->fallback) {
		st->fallback = e;
		st->fallback_off = st->in_off;
	}
	L_CALL(st, finishing, st, partial);
	/* held bytes of an unfinished unit go out verbatim, before the
	 * record's length is fixed (a passed unit's are out already) */
	if (partial && st->have && !unit_passed(st)) {
		if (in_heap_record(st))
			eng_rec_header(st, c);
		eng_emit_held(st, st->scratch, st->have);
	}
	st->have = 0;
	if (!st->err && in_heap_record(st))
		eng_end_record(st, c);
	return st->err;
}

enum hs_err hs_finish(struct hs_state *st)
{
	struct cur c = { 0, 0, 0 };
	enum hs_err e;

	if (st->err)
		return st->err;
	drain(st, &c);
	if (st->err || lay_finish(st, &c))
		return st->err;
	e = end_state(st, &c);
	if (e == HS_E_OK)
		return st->err;
	if (st->mode.fallback)
		return fallback_finish(st, &c, e);
	eng_error(st, e, st->in_off);
	return e;
}
