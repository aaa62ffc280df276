/*
 * libFuzzer target: the strip engine.
 *
 * Input: flags, 3 seed bytes for the piece sizes (see common.h), the dump.
 * For every input:
 *   - strip, one piece and cut: same errors, counters and output;
 *     the output is never larger than the input
 *   - the oracle (tests/oracle.c, whole-buffer walker) accepts what the
 *     engine strips and strips it to the same bytes, and the engine
 *     strips what the oracle accepts, but for known, deliberate
 *     differences (see lenient() and stricter())
 *   - HS_FALLBACK: cut-invariant; on a dump that strips, the normal
 *     output; else the same first error, the rest verbatim, and exact
 *     top-level framing when the input had it
 * and on every input that strips:
 *   - restore(strip(x)) == oracle zero(x), byte for byte (when x has no
 *     0xC3 of its own), and restore is cut-invariant
 *   - strip(strip(x)) == strip(x)
 *   - HS_NO_HEADER over the records gives the output's records
 *   - HS_OPEN_LEN: every heap record length zeroed and rewritten with
 *     hs_rewrite (whole, in pieces, in either order) at its end, or
 *     earlier (flag 2), the last one possibly never (flag 4): same output
 * Flag 8 adds a run in 1-byte pieces.
 * Keeping strings (HS_KEEP_STRINGS), streamed with tiny tables (so that
 * evictions happen, and arrays of more than 64 bytes are not held back)
 * and exact (pass 1 collects, pass 2 asks):
 *   - the same error as strip, cut-invariant (also with HS_FALLBACK);
 *   - strip(keep(x)) == strip(x): only whole arrays are kept, nothing
 *     else changes, and every array is either kept or stripped.
 * Streamed (HS_STREAM): never a patch, the same error as strip,
 * cut-invariant, and the same counters; with HS_FALLBACK too, never a
 * patch and cut-invariant.
 * Stripping --app-only (HS_APP_ONLY), on 1.0.3 input: cut-invariant, the
 * same error as strip, never larger than it, idempotent, and restore
 * --jvm of it equals restore --app-only of the plain strip, byte for
 * byte; streamed, with HS_FALLBACK and keeping strings, cut-invariant (the
 * last: strip of it is the app-only strip). On other input: the strip.
 * Redacting (HS_REDACT), with roomy tables and tiny ones (16 classes, 8
 * field types: layouts lost; a gather buffer of 64 bytes): cut-invariant, the same error as strip, and
 * every output byte is the strip's or zero, at the same offset; streamed
 * and with HS_FALLBACK, cut-invariant. With names (HS_REDACT_NAMES):
 * cut-invariant, the originals given too; the values level's length and
 * error; and, restored with the originals given back (HS_UNREDACT), the
 * values level restored, byte for byte.
 */
#include "common.h"
#include "oracle.h"

#include <stdlib.h>
#include <string.h>

#define RESTORE_SLACK (16u << 20)

static struct cr_run A, B, R, F1, F2, K1, K2, S1, S2, P1, P2, J1, J2, D1, D2;

/* The oracle rejects, the engine accepts on purpose: a header string
 * other than "JAVA PROFILE 1.0.[123]" (the engine takes any it can
 * frame), and instance field types (the engine skips the field table
 * without reading it). */
static int lenient(const struct oracle_result *o)
{
	return o->err_off == 0 ||
	       !strcmp(o->err, "bad basic type in CLASS_DUMP instance field");
}

/* The engine rejects, the oracle accepts on purpose: a header with no
 * record after it, an invalid element type in a 0xC3. */
static int stricter(const struct cr_run *a, const struct oracle_result *o)
{
	return a->err == HS_E_NORECORDS || (a->err == HS_E_TYPE && o->nc3);
}

static void check_oracle(const unsigned char *x, size_t n)
{
	struct oracle_result o;

	oracle_walk(ORACLE_STRIP, x, n, &o);
	if (!A.err && !o.ok && !lenient(&o))
		fz_fail("the engine strips what the oracle rejects at %llu: %s",
		        (unsigned long long)o.err_off, o.err);
	if (A.err && o.ok && !stricter(&A, &o))
		fz_fail("the engine rejects (%s at %llu) what the oracle accepts",
		        hs_strerror(A.err), (unsigned long long)A.err_off);
	if (A.err || !o.ok)
		return;
	fz_same_bytes(A.out.b, A.out.len, o.out, o.out_len,
	              "strip vs oracle strip");
	if (A.arrays != o.n23 || A.elem_bytes != o.elems)
		fz_fail("engine stripped %llu arrays, %llu bytes; oracle %llu, %llu",
		        (unsigned long long)A.arrays,
		        (unsigned long long)A.elem_bytes,
		        (unsigned long long)o.n23, (unsigned long long)o.elems);
}

/* Top-level framing: where the records after the header say the file
 * ends, minus where it ends (negative: a cut record header). */
static int64_t framing(const unsigned char *b, size_t len)
{
	size_t off = fz_header_len(b, len);

	while (off <= len && len - off >= 9)
		off += 9 + (size_t)hs_be32(b + off + 5);
	return (int64_t)off - (int64_t)len;
}

static int finish_error(enum hs_err e)
{
	return e == HS_E_TRUNCATED || e == HS_E_SHORT || e == HS_E_EMPTY ||
	       e == HS_E_NORECORDS;
}

/* Pass 1 of the exact mode collects here; a set too big is not checked. */
static uint64_t ids[4096];
static size_t nids;
static int ids_over;

static void found(void *user, uint64_t id)
{
	(void)user;
	if (nids < sizeof ids / sizeof *ids)
		ids[nids++] = id;
	else
		ids_over = 1;
}

static int has(void *user, uint64_t id)
{
	size_t i;

	(void)user;
	for (i = 0; i < nids; i++)
		if (ids[i] == id)
			return 1;
	return 0;
}

/* r stopped where the plain strip (A) did, with its error (what: the
 * mode, in the message). */
static void same_error(const struct cr_run *r, const char *what)
{
	if (r->err != A.err || r->err_off != A.err_off)
		fz_fail("%s: %s at %llu, strip: %s at %llu", what,
		        hs_strerror(r->err), (unsigned long long)r->err_off,
		        hs_strerror(A.err), (unsigned long long)A.err_off);
}

/* The engine in flags over x with room bytes of output: whole into *w,
 * then cut at points seeded by seed (*c: their stream, for more runs)
 * into *k; the two the same (what). */
static void whole_cut(const unsigned char *x, size_t n, unsigned flags,
                      size_t room, uint32_t seed, struct fz_cuts *c,
                      struct cr_run *w, struct cr_run *k, const char *what)
{
	fz_engine(x, n, flags, 0, NULL, room, NULL, w);
	fz_cuts_init(c, seed);
	fz_engine(x, n, flags, 0, c, room, NULL, k);
	fz_same(w, k, what);
}

/* K1 kept what it says and stripped the rest as A did. */
static void same_as_strip(const struct cr_run *k, const char *what)
{
	same_error(k, what);
	if (A.err)
		return;
	if (k->out.over)
		fz_fail("%s: output larger than the input", what);
	if (k->arrays + k->kept != A.arrays ||
	    k->elem_bytes + k->kept_bytes != A.elem_bytes ||
	    k->out.len != A.out.len + k->kept_bytes)
		fz_fail("%s: %llu arrays stripped + %llu kept, strip: %llu", what,
		        (unsigned long long)k->arrays,
		        (unsigned long long)k->kept,
		        (unsigned long long)A.arrays);
	fz_engine(k->out.b, k->out.len, 0, 0, NULL, k->out.len, NULL, &B);
	if (B.err)
		fz_fail("%s: strip of it: %s", what, hs_strerror(B.err));
	fz_same_bytes(B.out.b, B.out.len, A.out.b, A.out.len, what);
}

/* Keeping strings, streamed with tiny tables: evictions happen, and
 * arrays of more than 64 bytes are not held back. */
static struct hs_class classes[16];

static void tiny_keep(void)
{
	static uint64_t pending[64];
	static unsigned char hold[64];

	memset(&fz_keep, 0, sizeof fz_keep);
	fz_keep.pending = pending;
	fz_keep.pending_slots = 64;
	fz_keep.classes = classes;
	fz_keep.class_slots = 16;
	fz_keep.hold = hold;
	fz_keep.hold_size = sizeof hold;
}

static void check_keep(const unsigned char *x, size_t n, uint32_t seed)
{
	struct fz_cuts c;

	tiny_keep();
	whole_cut(x, n, HS_KEEP_STRINGS, n, seed ^ 0x3535, &c, &K1, &K2,
	          "keep, cut");
	same_as_strip(&K1, "keep streamed");
	whole_cut(x, n, HS_KEEP_STRINGS | HS_FALLBACK, n, seed ^ 0x5353, &c, &K1,
	          &K2, "keep with fallback, cut");

	/* exact: pass 1, then pass 2 in pieces */
	memset(&fz_keep, 0, sizeof fz_keep);
	fz_keep.classes = classes;
	fz_keep.class_slots = 16;
	fz_keep.found = found;
	nids = 0;
	ids_over = 0;
	fz_engine(x, n, HS_KEEP_STRINGS, 0, NULL, n, NULL, &K1);
	if (!ids_over) {
		memset(&fz_keep, 0, sizeof fz_keep);
		fz_keep.has = has;
		fz_engine(x, n, HS_KEEP_STRINGS, 0, &c, n, NULL, &K2);
		same_as_strip(&K2, "keep exact");
	}
	memset(&fz_keep, 0, sizeof fz_keep);
}

static void check_fallback(const unsigned char *x, size_t n, uint32_t seed)
{
	struct fz_cuts c;

	fz_engine(x, n, HS_FALLBACK, 0, NULL, n, NULL, &F1);
	if (F1.out.over)
		fz_fail("fallback: output larger than the input");
	if (F1.err)
		fz_fail("fallback: error %s at %llu", hs_strerror(F1.err),
		        (unsigned long long)F1.err_off);
	fz_cuts_init(&c, seed ^ 0xA5A5A5);
	fz_engine(x, n, HS_FALLBACK, 0, &c, n, NULL, &F2);
	fz_same(&F1, &F2, "fallback, cut");
	if (!A.err) {
		if (F1.fallback)
			fz_fail("fallback: %s at %llu on a dump that strips",
			        hs_strerror(F1.fallback),
			        (unsigned long long)F1.fallback_off);
		fz_same_bytes(F1.out.b, F1.out.len, A.out.b, A.out.len,
		              "fallback vs strip");
		return;
	}
	if (F1.fallback != A.err || F1.fallback_off != A.err_off)
		fz_fail("fallback: %s at %llu, strip failed with %s at %llu",
		        hs_strerror(F1.fallback),
		        (unsigned long long)F1.fallback_off, hs_strerror(A.err),
		        (unsigned long long)A.err_off);
	if (!finish_error(F1.fallback)) {
		if (F1.fb_in > n || F1.fb_out > F1.out.len)
			fz_fail("fallback: copy starts past the end");
		fz_same_bytes(F1.out.b + F1.fb_out, F1.out.len - F1.fb_out,
		              x + F1.fb_in, n - F1.fb_in, "fallback tail");
	}
	/* exact framing, or the same bytes missing at the end */
	if (fz_header_len(x, n) &&
	    framing(x, n) != framing(F1.out.b, F1.out.len))
		fz_fail("fallback: framing %lld, the input's %lld",
		        (long long)framing(F1.out.b, F1.out.len),
		        (long long)framing(x, n));
}

/* The names map of a run, held: its records' texts by id (the last one's
 * if an id repeats), for the run that gives them back. */
static unsigned char map_text[1u << 20];
static struct { uint64_t id; uint32_t off, len; } map_ent[4096];
static size_t map_n, map_used;
static uint64_t map_hash;
static int map_over;

static void map_original(void *user, unsigned idsize, uint64_t id,
                         uint32_t len, uint32_t at, const unsigned char *text,
                         size_t n)
{
	size_t i;

	(void)user, (void)idsize;
	if (at == 0) {
		map_hash = (map_hash ^ id) * 0x100000001B3u;
		if (map_n == sizeof map_ent / sizeof map_ent[0] ||
		    len > sizeof map_text - map_used) {
			map_over = 1;
			return;
		}
		map_ent[map_n].id = id;
		map_ent[map_n].off = (uint32_t)map_used;
		map_ent[map_n].len = len;
		map_n++;
	}
	for (i = 0; i < n; i++)
		map_hash = (map_hash ^ text[i]) * 0x100000001B3u;
	if (!map_over && map_n) {
		memcpy(map_text + map_ent[map_n - 1].off + at, text, n);
		if (at + n == len)
			map_used += len;
	}
}

/* as hprofrestore's: the next record in turn (an id named twice gets
 * each text back), else the last of that id */
static size_t map_next;

static const unsigned char *map_rename(void *user, uint64_t id, uint32_t len)
{
	size_t i = map_n;

	(void)user;
	if (map_next < map_n && map_ent[map_next].id == id &&
	    map_ent[map_next].len == len)
		return map_text + map_ent[map_next++].off;
	while (i--)
		if (map_ent[i].id == id)
			return map_ent[i].len == len ? map_text + map_ent[i].off
			                             : NULL;
	return NULL;
}

static void map_reset(void)
{
	map_n = map_used = map_next = 0;
	map_over = 0;
	map_hash = 0xCBF29CE484222325u;
}

/* Redacting names too (see the top), D1 holding the values level's
 * output. */
static void check_names(const unsigned char *x, size_t n, uint32_t seed)
{
	static struct cr_run V, N1, N2, U1, U2;
	struct fz_cuts c;
	uint64_t h1;

	fz_engine(x, n, HS_REDACT, 0, NULL, n, NULL, &V);
	memset(&fz_names, 0, sizeof fz_names);
	fz_names.key[0] = seed | (uint64_t)seed << 32;
	fz_names.key[1] = ~fz_names.key[0];
	fz_names.original = map_original;
	map_reset();
	fz_engine(x, n, HS_REDACT | HS_REDACT_NAMES, 0, NULL, n, NULL, &N1);
	h1 = map_hash;
	map_reset();
	fz_cuts_init(&c, seed ^ 0x4E4E4E);
	fz_engine(x, n, HS_REDACT | HS_REDACT_NAMES, 0, &c, n, NULL, &N2);
	fz_same(&N1, &N2, "redact names, cut");
	if (map_hash != h1)
		fz_fail("redact names, cut: other originals given");
	if (N1.err != V.err || N1.err_off != V.err_off ||
	    (!V.err && N1.out.len != V.out.len))
		fz_fail("redact names: %s at %llu, %zu bytes; values: %s at "
		        "%llu, %zu bytes", hs_strerror(N1.err),
		        (unsigned long long)N1.err_off, N1.out.len,
		        hs_strerror(V.err), (unsigned long long)V.err_off,
		        V.out.len);
	if (V.err || map_over)
		goto out;
	/* the names given back: the values level, both restored */
	fz_names.original = NULL;
	fz_names.rename = map_rename;
	fz_engine(V.out.b, V.out.len, HS_RESTORE, 0, NULL, n + RESTORE_SLACK,
	          NULL, &U1);
	fz_engine(N1.out.b, N1.out.len, HS_RESTORE | HS_UNREDACT, 0, NULL,
	          n + RESTORE_SLACK, NULL, &U2);
	if (U1.err != U2.err)
		fz_fail("unredact: %s, values restored: %s", hs_strerror(U2.err),
		        hs_strerror(U1.err));
	if (!U1.err)
		fz_same_bytes(U2.out.b, U2.out.len, U1.out.b, U1.out.len,
		              "unredact(names) vs restore(values)");
out:
	memset(&fz_names, 0, sizeof fz_names);
}

/* Redacting (see the top): with tables of slots classes and types field
 * types. */
static void check_redact(const unsigned char *x, size_t n, uint32_t seed,
                         unsigned slots, uint32_t types)
{
	static struct hs_layout classes[1024];
	static unsigned char type_pool[4096], gather[4096];
	static uint64_t fw_names[1024], fw_classes[1024];
	static struct hs_flat flat[64];
	static struct hs_patch patch[HS_REDACT_PATCHES];
	static struct hs_sized sized[HS_REDACT_SIZED];
	struct fz_cuts c;
	size_t i;

	fz_redact.classes = classes;
	fz_redact.class_slots = slots;
	fz_redact.types = type_pool;
	fz_redact.types_size = types;
	/* the fast path's buffer: tiny with tiny tables, so that it fills */
	fz_redact.gather = gather;
	fz_redact.gather_size = types < 64 ? 64 : sizeof gather;
	fz_redact.fw_names = fw_names;
	fz_redact.fw_classes = fw_classes;
	fz_redact.fw_slots = slots;
	/* the fast path's caches: at their least with tiny tables too */
	fz_redact.flat = flat;
	fz_redact.flat_slots = types < 64 ? 1 : 64;
	fz_redact.patch = patch;
	fz_redact.patch_slots = types < 64 ? HS_FLAT_SPANS : HS_REDACT_PATCHES;
	fz_redact.sized = sized;
	fz_redact.sized_slots = HS_REDACT_SIZED;
	whole_cut(x, n, HS_REDACT, n, seed ^ 0x2D2D2D, &c, &D1, &D2,
	          "redact, cut");
	same_error(&D1, "redact");
	/* only zeros where the strip has other bytes */
	if (!A.err && D1.out.len != A.out.len)
		fz_fail("redact: %zu bytes, strip: %zu", D1.out.len, A.out.len);
	for (i = 0; !A.err && i < D1.out.len; i++)
		if (D1.out.b[i] && D1.out.b[i] != A.out.b[i])
			fz_fail("redact: byte %zu is 0x%02x, strip's 0x%02x", i,
			        D1.out.b[i], A.out.b[i]);
	fz_engine(x, n, HS_REDACT | HS_STREAM, 0, NULL, 2 * n + 64, NULL, &D1);
	fz_engine(x, n, HS_REDACT | HS_STREAM, 0, &c, 2 * n + 64, NULL, &D2);
	fz_same(&D1, &D2, "redact stream, cut");
	whole_cut(x, n, HS_REDACT | HS_FALLBACK, n, seed ^ 0xD2D2D2, &c, &D1,
	          &D2, "redact with fallback, cut");
	check_names(x, n, seed);
	memset(&fz_redact, 0, sizeof fz_redact);
}

/* --app-only while stripping (see the top). */
static void check_app_only(const unsigned char *x, size_t n, uint32_t seed)
{
	struct fz_cuts c;

	fz_engine(x, n, HS_APP_ONLY, 0, NULL, n, NULL, &P1);
	if (n < 18 || memcmp(x, HS_MAGIC "3", HS_MAGIC_LEN + 1)) {
		/* not 1.0.3: the plain strip */
		fz_same(&P1, &A, "app-only on a dump that is not 1.0.3");
		return;
	}
	fz_cuts_init(&c, seed ^ 0x7A7A7A);
	fz_engine(x, n, HS_APP_ONLY, 0, &c, n, NULL, &P2);
	fz_same(&P1, &P2, "app-only, cut");
	same_error(&P1, "app-only");
	if (!A.err) {
		if (P1.out.len > A.out.len)
			fz_fail("app-only: %zu bytes, strip %zu", P1.out.len,
			        A.out.len);
		fz_engine(P1.out.b, P1.out.len, HS_APP_ONLY, 0, NULL, n, NULL,
		          &P2);
		if (P2.err)
			fz_fail("app-only twice: %s", hs_strerror(P2.err));
		fz_same_bytes(P2.out.b, P2.out.len, P1.out.b, P1.out.len,
		              "app-only twice");
		fz_engine(P1.out.b, P1.out.len, HS_RESTORE | HS_JVM, 0, NULL,
		          n + RESTORE_SLACK, NULL, &J1);
		fz_engine(A.out.b, A.out.len, HS_RESTORE | HS_JVM | HS_APP_ONLY,
		          0, NULL, n + RESTORE_SLACK, NULL, &J2);
		if (J1.err != J2.err)
			fz_fail("restore --jvm of app-only: %s, restore --app-only "
			        "of strip: %s", hs_strerror(J1.err),
			        hs_strerror(J2.err));
		if (!J1.err)
			fz_same_bytes(J1.out.b, J1.out.len, J2.out.b, J2.out.len,
			              "restore --jvm of app-only vs restore "
			              "--app-only of strip");
	}
	/* streamed, with fallback, both: cut-invariant */
	whole_cut(x, n, HS_APP_ONLY | HS_STREAM, 2 * n + 64, seed ^ 0x7B7B7B, &c,
	          &S1, &S2, "app-only stream, cut");
	if (S1.err != A.err || S1.arrays != P1.arrays)
		fz_fail("app-only stream: %s, %llu arrays; app-only: %s, %llu",
		        hs_strerror(S1.err), (unsigned long long)S1.arrays,
		        hs_strerror(P1.err), (unsigned long long)P1.arrays);
	fz_engine(x, n, HS_APP_ONLY | HS_FALLBACK, 0, NULL, 2 * n + 64, NULL,
	          &F1);
	fz_engine(x, n, HS_APP_ONLY | HS_FALLBACK, 0, &c, 2 * n + 64, NULL,
	          &F2);
	fz_same(&F1, &F2, "app-only fallback, cut");
	if (!A.err)
		fz_same_bytes(F1.out.b, F1.out.len, P1.out.b, P1.out.len,
		              "app-only fallback vs app-only");
	fz_engine(x, n, HS_APP_ONLY | HS_STREAM | HS_FALLBACK, 0, NULL,
	          2 * n + 64, NULL, &S1);
	fz_engine(x, n, HS_APP_ONLY | HS_STREAM | HS_FALLBACK, 0, &c,
	          2 * n + 64, NULL, &S2);
	fz_same(&S1, &S2, "app-only stream + fallback, cut");
	/* keeping strings, streamed with tiny tables */
	tiny_keep();
	whole_cut(x, n, HS_APP_ONLY | HS_KEEP_STRINGS, n, seed ^ 0x7C7C7C, &c,
	          &K1, &K2, "app-only keep, cut");
	memset(&fz_keep, 0, sizeof fz_keep);
	if (K1.err != A.err)
		fz_fail("app-only keep: %s, strip: %s", hs_strerror(K1.err),
		        hs_strerror(A.err));
	if (!A.err) {
		fz_engine(K1.out.b, K1.out.len, 0, 0, NULL, n, NULL, &K2);
		fz_same_bytes(K2.out.b, K2.out.len, P1.out.b, P1.out.len,
		              "strip of app-only keep vs app-only");
	}
}

/* HS_OPEN_LEN: heap record lengths zeroed, patched with hs_rewrite, each
 * cut as the seed and its index say. */
static uint64_t seek_back_rand(void *user, size_t i)
{
	return *(uint32_t *)user ^ (uint32_t)i;
}

static void check_open_len(unsigned fl, const unsigned char *x, size_t n,
                           uint32_t seed)
{
	static const struct hs_config open_len = { .flags = HS_OPEN_LEN };
	static unsigned char *y;
	static struct cr_rec *recs;
	static size_t ycap, rcap;
	size_t nrec = fz_header_len(x, n), i;
	struct fz_cuts c;
	struct cr_open open = { NULL, 0, 0, (size_t)-1, seek_back_rand, &seed };
	struct cr_cuts cuts = fz_pieces(&c);
	uint64_t rnd = seed * 2654435761u + 7;

	if (n > ycap) {
		y = realloc(y, n);
		ycap = n;
	}
	memcpy(y, x, n);
	nrec = cr_heap_records(x, n, nrec, &recs, &rcap);
	for (i = 0; i < nrec; i++) {
		/* flag 2: the writer patches before the body is all in */
		if (fl & 2) {
			rnd ^= rnd << 13, rnd ^= rnd >> 7, rnd ^= rnd << 17;
			recs[i].end = recs[i].body +
			              (size_t)(rnd % ((uint64_t)recs[i].len + 1));
		}
		memset(y + recs[i].len_off, 0, 4);
	}
	/* flag 4: the last record, a heap record, never patched */
	if ((fl & 4) && nrec && recs[nrec - 1].body + recs[nrec - 1].len == n)
		open.unclosed = nrec - 1;
	open.rec = recs;
	open.n = nrec;
	cuts.open = &open;
	fz_cuts_init(&c, seed ^ 0x3C3C3C);
	cr_run(y, n, &open_len, &cuts, n, &B);
	if (B.err)
		fz_fail("open-len: %s at %llu", hs_strerror(B.err),
		        (unsigned long long)B.err_off);
	fz_same_bytes(B.out.b, B.out.len, A.out.b, A.out.len,
	              "open-len vs strip");
}

/* The API used wrongly: a rewrite of random bytes at a random place and
 * time. No crash; what is applied lands on bytes already written (the
 * sink checks), and a rewrite of bytes not fed yet is refused. */
static void check_misuse(const unsigned char *x, size_t n, uint32_t seed)
{
	static const struct hs_config cfg = { .flags = HS_OPEN_LEN | HS_FALLBACK };
	struct hs_sink s;
	struct hs_state st;
	size_t k = n ? seed % (n + 1) : 0;
	size_t len = seed >> 24 & 7;
	uint64_t at;
	enum hs_err e;

	cr_sink(&s, &B.out, 2 * n + 64, 0);
	hs_init(&st, &cfg, &s);
	hs_feed(&st, x, k);
	at = k ? (seed >> 8) % k : 0;
	e = hs_rewrite(&st, at, x + (n - len) / 2, len > n ? n : len);
	if (at + len > st.in_off && e != HS_E_REWRITE && !st.err)
		fz_fail("misuse: a rewrite of bytes not fed: %s", hs_strerror(e));
	e = hs_rewrite(&st, st.in_off, x, n ? 1 : 0);
	if (n && e != HS_E_REWRITE && !st.err)
		fz_fail("misuse: a rewrite at the end: %s", hs_strerror(e));
	hs_feed(&st, x + k, n - k);
	hs_finish(&st);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	const unsigned char *x;
	size_t n, h;
	unsigned fl;
	uint32_t seed;
	struct fz_cuts c;
	struct oracle_result o;

	if (!fz_input(data, size, &x, &n, &fl, &seed))
		return 0;

	/* strip: cut-invariant, never larger */
	fz_engine(x, n, 0, 0, NULL, n, NULL, &A);
	if (A.out.over)
		fz_fail("strip: output larger than the input");
	fz_cuts_init(&c, seed);
	fz_engine(x, n, 0, 0, &c, n, NULL, &B);
	fz_same(&A, &B, "strip, cut");
	if (fl & 8) {
		fz_cuts_ones(&c);
		fz_engine(x, n, 0, 0, &c, n, NULL, &B);
		fz_same(&A, &B, "strip, 1-byte pieces");
	}
	check_oracle(x, n);
	check_keep(x, n, seed);
	/* streamed: segment and END headers make it at most a little larger */
	fz_engine(x, n, HS_STREAM, 0, NULL, 2 * n + 64, NULL, &S1);
	fz_cuts_init(&c, seed ^ 0x6B6B6B);
	fz_engine(x, n, HS_STREAM, 0, &c, 2 * n + 64, NULL, &S2);
	fz_same(&S1, &S2, "stream, cut");
	if (S1.err != A.err || S1.arrays != A.arrays)
		fz_fail("stream: %s, %llu arrays; strip: %s, %llu arrays",
		        hs_strerror(S1.err), (unsigned long long)S1.arrays,
		        hs_strerror(A.err), (unsigned long long)A.arrays);
	/* streamed with fallback (the shim compressing): never a patch,
	 * cut-invariant, and the plain stream's output when nothing failed */
	fz_engine(x, n, HS_STREAM | HS_FALLBACK, 0, NULL, 2 * n + 64, NULL, &S1);
	fz_engine(x, n, HS_STREAM | HS_FALLBACK, 0, &c, 2 * n + 64, NULL, &S2);
	fz_same(&S1, &S2, "stream + fallback, cut");
	check_fallback(x, n, seed);
	check_app_only(x, n, seed);
	check_redact(x, n, seed, 1024, 4096);
	check_redact(x, n, seed, 16, 8);
	check_misuse(x, n, seed);
	if (A.err)
		return 0;

	/* strip(strip(x)) == strip(x) */
	fz_engine(A.out.b, A.out.len, 0, 0, NULL, A.out.len, NULL, &B);
	if (B.err || B.arrays)
		fz_fail("strip twice: %s, %llu arrays", hs_strerror(B.err),
		        (unsigned long long)B.arrays);
	fz_same_bytes(B.out.b, B.out.len, A.out.b, A.out.len, "strip twice");

	/* restore(strip(x)) == zero(x) */
	oracle_walk(ORACLE_ZERO, x, n, &o);
	fz_engine(A.out.b, A.out.len, HS_RESTORE, 0, NULL, n + RESTORE_SLACK,
	          NULL, &R);
	if (R.err) {
		/* only 0xC3 of x's own can make it fail (or grow past the slack) */
		if (o.ok && !o.nc3)
			fz_fail("restore(strip(x)): %s at %llu",
			        hs_strerror(R.err), (unsigned long long)R.err_off);
	} else if (o.ok && !o.nc3) {
		fz_same_bytes(R.out.b, R.out.len, o.out, o.out_len,
		              "restore(strip(x)) vs oracle zero(x)");
	} else if (o.ok && R.out.len != n + o.c3_elems) {
		fz_fail("restore(strip(x)): %zu bytes, want %llu", R.out.len,
		        (unsigned long long)(n + o.c3_elems));
	}
	fz_cuts_init(&c, seed ^ 0x5A5A5A);
	fz_engine(A.out.b, A.out.len, HS_RESTORE, 0, &c, n + RESTORE_SLACK,
	          NULL, &B);
	fz_same(&R, &B, "restore, cut");

	/* the records alone, as a JDK 22 .pN file */
	h = fz_header_len(x, n);
	fz_cuts_init(&c, seed ^ 0x0F0F0F);
	fz_engine(x + h, n - h, HS_NO_HEADER, A.idsize, &c, n, NULL, &B);
	if (B.err)
		fz_fail("no-header: %s at %llu", hs_strerror(B.err),
		        (unsigned long long)B.err_off);
	fz_same_bytes(B.out.b, B.out.len, A.out.b + h, A.out.len - h,
	              "no-header vs strip");

	check_open_len(fl, x, n, seed);
	return 0;
}
