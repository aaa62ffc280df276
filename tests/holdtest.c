/*
 * holdtest: the engine's hold-back is at most HS_HOLD_LIMIT bytes
 * whatever buffer the caller gives (hprof.h: struct hs_keep), seen
 * through the public API alone. Keeping Strings, streamed (no found, no
 * has), with a hold buffer of 8 MiB, a dump of one String whose byte[]
 * value comes right before it:
 *   - a value of HS_HOLD_LIMIT bytes is held back and kept;
 *   - one of HS_HOLD_LIMIT + 1 bytes is stripped, as any array larger
 *     than the hold-back;
 *   - with HS_STREAM too, one of 3 MiB is stripped and the dump ends
 *     without an error (a held array must fit a segment);
 *   - JDK 8's length patches (HS_OPEN_LEN), each segment's length
 *     written after its sub-records, one of them while a look past a
 *     held array has gathered the next segment's header (an empty last
 *     segment, patched to 0): the same output, byte for byte, as the
 *     dump with every length known, streamed or not, and the same
 *     String kept.
 * (The clamp once applied only when redaction's tables of runtime
 * names were valid, never while keeping Strings.) Prints one line per
 * failed check and 'hold: N passed, N failed'.
 */
#include "../strip/engine/hprof.h"
#include "check.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- a dump, built in memory (ids of 4 bytes) ---------------------------- */

#include "dumpbuf.h"

/* a top-level record's header, its body len bytes */
static void rec(struct buf *b, unsigned tag, uint32_t len)
{
	u1(b, tag);
	u4(b, 0);
	u4(b, len);
}

static void string(struct buf *b, uint32_t id, const char *s)
{
	rec(b, 0x01, 4 + (uint32_t)strlen(s));
	u4(b, id);
	put(b, s, strlen(s));
}

enum { NAME_STRING = 1, NAME_VALUE, CLASS_STRING = 100, OBJECT = 101,
       ARRAY = 200, INSTANCE = 300 };

/* java/lang/String (one field, value), a byte[] of n bytes, then the
 * String that points at it, in one heap record */
static void dump(struct buf *b, uint32_t n)
{
	uint32_t cls = 1 + 4 + 4 + 6 * 4 + 4 + 2 + 2 + 2 + 4 + 1;
	uint32_t arr = 1 + 4 + 4 + 4 + 1 + n, inst = 1 + 4 + 4 + 4 + 4 + 4;
	uint32_t i;

	b->len = 0;
	put(b, "JAVA PROFILE 1.0.2", 19);
	u4(b, 4);
	u4(b, 0);
	u4(b, 0);
	string(b, NAME_STRING, "java/lang/String");
	string(b, NAME_VALUE, "value");
	rec(b, 0x02, 16);  /* LOAD_CLASS */
	u4(b, 1);
	u4(b, CLASS_STRING);
	u4(b, 0);
	u4(b, NAME_STRING);
	rec(b, 0x0C, cls + arr + inst);
	u1(b, 0x20);  /* CLASS_DUMP */
	u4(b, CLASS_STRING);
	u4(b, 0);
	u4(b, OBJECT);  /* super */
	for (i = 0; i < 5; i++)
		u4(b, 0);
	u4(b, 4);  /* instance size */
	u2(b, 0);  /* constant pool */
	u2(b, 0);  /* statics */
	u2(b, 1);  /* instance fields: value, an object */
	u4(b, NAME_VALUE);
	u1(b, 2);
	u1(b, 0x23);  /* PRIMITIVE_ARRAY_DUMP: byte[n] */
	u4(b, ARRAY);
	u4(b, 0);
	u4(b, n);
	u1(b, 8);
	for (i = 0; i < n; i++)
		u1(b, 'a' + i % 26);
	u1(b, 0x21);  /* INSTANCE_DUMP: the String */
	u4(b, INSTANCE);
	u4(b, 0);
	u4(b, CLASS_STRING);
	u4(b, 4);
	u4(b, ARRAY);
	rec(b, 0x2C, 0);  /* HEAP_DUMP_END */
}

/* JDK 8's way, ids of 4 bytes: HEAP_DUMP_SEGMENTs whose lengths are
 * placeholders (0) when open is set, or their lengths when not:
 *   1: java/lang/String's class dump, then byte[n] A (held: a String
 *      may claim it from the next segment);
 *   2: the String that points at A, then byte[n] B (held, never
 *      claimed);
 *   3: empty, its placeholder patched at once (while B is held, the
 *      look past it has gathered this header);
 * then HEAP_DUMP_END. at[k]: the offset of segment k's length. */
static void dump8(struct buf *b, uint32_t n, int open, uint64_t at[3])
{
	uint32_t cls = 1 + 4 + 4 + 6 * 4 + 4 + 2 + 2 + 2 + 4 + 1;
	uint32_t arr = 1 + 4 + 4 + 4 + 1 + n, inst = 1 + 4 + 4 + 4 + 4 + 4;
	uint32_t i, k;

	b->len = 0;
	put(b, "JAVA PROFILE 1.0.2", 19);
	u4(b, 4);
	u4(b, 0);
	u4(b, 0);
	string(b, NAME_STRING, "java/lang/String");
	string(b, NAME_VALUE, "value");
	rec(b, 0x02, 16);
	u4(b, 1);
	u4(b, CLASS_STRING);
	u4(b, 0);
	u4(b, NAME_STRING);
	for (k = 0; k < 3; k++) {
		at[k] = b->len + 5;
		rec(b, 0x1C, open ? 0 : k == 0 ? cls + arr :
		                        k == 1 ? inst + arr : 0);
		if (k == 0) {
			u1(b, 0x20);
			u4(b, CLASS_STRING);
			u4(b, 0);
			u4(b, OBJECT);
			for (i = 0; i < 5; i++)
				u4(b, 0);
			u4(b, 4);
			u2(b, 0);
			u2(b, 0);
			u2(b, 1);
			u4(b, NAME_VALUE);
			u1(b, 2);
		}
		if (k == 1) {
			u1(b, 0x21);
			u4(b, INSTANCE);
			u4(b, 0);
			u4(b, CLASS_STRING);
			u4(b, 4);
			u4(b, ARRAY);
		}
		if (k < 2) {
			u1(b, 0x23);
			u4(b, ARRAY + k);
			u4(b, 0);
			u4(b, n);
			u1(b, 8);
			for (i = 0; i < n; i++)
				u1(b, 'a' + (i + k) % 26);
		}
	}
	rec(b, 0x2C, 0);
}

/* ---- the engine over it --------------------------------------------------- */

static int sink_write(void *user, const void *p, size_t n)
{
	*(uint64_t *)user += n;
	(void)p;
	return 0;
}

static int sink_patch(void *user, uint64_t off, const void *p, size_t n)
{
	(void)user;
	(void)off;
	(void)p;
	(void)n;
	return 0;
}

struct result {
	enum hs_err err;
	uint64_t kept, kept_bytes, arrays, out;
};

/* a sink that keeps what it is given, patches applied */
static int keep_write(void *user, const void *p, size_t n)
{
	put(user, p, n);
	return 0;
}

static int keep_patch(void *user, uint64_t off, const void *p, size_t n)
{
	struct buf *b = user;

	if (off > b->len || n > b->len - off)
		return -1;
	memcpy(b->p + off, p, n);
	return 0;
}

/* dump8's dump, keeping Strings with flags added, into out: with its
 * lengths known, fed in one piece (at NULL); or with placeholders, each
 * segment fed as JDK 8 writes it and its length patched after it
 * (hs_rewrite), the last at once. */
static struct result run8(const struct buf *b, const uint64_t *at,
                          uint32_t len1, uint32_t len2, unsigned flags,
                          struct buf *out)
{
	static uint64_t pending[1024];
	static unsigned char seg[HS_STREAM_BUF];
	static unsigned char hold[1u << 16];
	static struct hs_state st;
	struct hs_keep keep = { .pending = pending, .pending_slots = 1024,
	                        .hold = hold, .hold_size = sizeof hold };
	struct hs_config cfg = { .flags = HS_KEEP_STRINGS | HS_OPEN_LEN |
	                                  flags,
	                         .keep = &keep, .seg_buf = seg };
	struct hs_sink sink = { keep_write, keep_patch, out, NULL };
	struct result r = { 0 };
	uint32_t lens[3] = { len1, len2, 0 };
	uint64_t fed = 0;
	unsigned char l[4];
	int k;

	memset(pending, 0, sizeof pending);
	out->len = 0;
	hs_init(&st, &cfg, &sink);
	for (k = 0; at && k < 3 && !r.err; k++) {
		/* up to the next segment's header (the last: the end record) */
		uint64_t to = k < 2 ? at[k + 1] - 5 : b->len - 9;
		if (!(r.err = hs_feed(&st, b->p + fed, to - fed)))
			r.err = hs_rewrite(&st, at[k], (hs_put_be32(l, lens[k]), l),
			                   4);
		fed = to;
	}
	if (!r.err)
		r.err = hs_feed(&st, b->p + fed, b->len - fed);
	if (!r.err)
		r.err = hs_finish(&st);
	r.kept = st.kept;
	r.kept_bytes = st.kept_bytes;
	r.arrays = st.arrays;
	return r;
}

/* the dump in b, fed in one piece: keeping Strings, streamed, with a
 * hold buffer of hold_size bytes; flags added */
static struct result run(const struct buf *b, size_t hold_size,
                         unsigned flags)
{
	static uint64_t pending[1024];
	static unsigned char seg[HS_STREAM_BUF];
	static struct hs_state st;
	unsigned char *hold = malloc(hold_size);
	struct hs_keep keep = { .pending = pending, .pending_slots = 1024,
	                        .hold = hold, .hold_size = hold_size };
	struct hs_config cfg = { .flags = HS_KEEP_STRINGS | flags,
	                         .keep = &keep, .seg_buf = seg };
	struct result r = { 0 };
	struct hs_sink sink = { sink_write, sink_patch, &r.out, NULL };

	if (!hold) {
		perror("holdtest");
		exit(2);
	}
	memset(pending, 0, sizeof pending);
	hs_init(&st, &cfg, &sink);
	r.err = hs_feed(&st, b->p, b->len);
	if (!r.err)
		r.err = hs_finish(&st);
	r.kept = st.kept;
	r.kept_bytes = st.kept_bytes;
	r.arrays = st.arrays;
	free(hold);
	return r;
}

int main(void)
{
	const size_t big = 8u << 20;
	struct buf b = { 0 };
	struct result r;

	/* a hold buffer of the limit's size keeps the limit's array */
	dump(&b, HS_HOLD_LIMIT);
	r = run(&b, HS_HOLD_LIMIT, 0);
	CHECK(!r.err && r.kept == 1 && r.kept_bytes == HS_HOLD_LIMIT,
	      "hold %u, array %u: %s, kept %llu (%llu bytes)", HS_HOLD_LIMIT,
	      HS_HOLD_LIMIT, hs_strerror(r.err), (unsigned long long)r.kept,
	      (unsigned long long)r.kept_bytes);
	/* 8 MiB of hold buffer: still the limit's array kept */
	r = run(&b, big, 0);
	CHECK(!r.err && r.kept == 1 && r.kept_bytes == HS_HOLD_LIMIT,
	      "hold 8 MiB, array %u: %s, kept %llu", HS_HOLD_LIMIT,
	      hs_strerror(r.err), (unsigned long long)r.kept);
	/* ... and one byte more is stripped: the hold is clamped */
	dump(&b, HS_HOLD_LIMIT + 1);
	r = run(&b, big, 0);
	CHECK(!r.err && r.kept == 0 && r.arrays == 1,
	      "hold 8 MiB, array %u: %s, kept %llu, stripped %llu (the "
	      "hold-back is not clamped to %u)", HS_HOLD_LIMIT + 1,
	      hs_strerror(r.err), (unsigned long long)r.kept,
	      (unsigned long long)r.arrays, HS_HOLD_LIMIT);
	/* streamed into segments: a held array must fit one */
	dump(&b, 3u << 20);
	r = run(&b, big, HS_STREAM);
	CHECK(!r.err && r.kept == 0 && r.arrays == 1 && r.out < (1u << 20),
	      "HS_STREAM, hold 8 MiB, array of 3 MiB: %s, kept %llu, "
	      "stripped %llu, %llu bytes out", hs_strerror(r.err),
	      (unsigned long long)r.kept, (unsigned long long)r.arrays,
	      (unsigned long long)r.out);
	/* JDK 8's length patches, one while a look past B is open */
	{
		const uint32_t n = 100;
		const unsigned modes[2] = { 0, HS_STREAM };
		uint32_t cls = 1 + 4 + 4 + 6 * 4 + 4 + 2 + 2 + 2 + 4 + 1;
		uint32_t arr = 1 + 4 + 4 + 4 + 1 + n, inst = 1 + 5 * 4;
		struct buf known = { 0 }, patched = { 0 };
		struct result rk, rp;
		uint64_t at[3];
		int m;

		for (m = 0; m < 2; m++) {
			dump8(&b, n, 0, at);
			rk = run8(&b, NULL, 0, 0, modes[m], &known);
			dump8(&b, n, 1, at);
			rp = run8(&b, at, cls + arr, inst + arr, modes[m],
			          &patched);
			CHECK(!rk.err && rk.kept == 1 && rk.kept_bytes == n &&
			      rk.arrays == 1,
			      "%s, lengths known: %s, kept %llu, stripped %llu",
			      m ? "HS_STREAM" : "a file", hs_strerror(rk.err),
			      (unsigned long long)rk.kept,
			      (unsigned long long)rk.arrays);
			CHECK(!rp.err && rp.kept == rk.kept &&
			      rp.arrays == rk.arrays &&
			      patched.len == known.len &&
			      !memcmp(patched.p, known.p, known.len),
			      "%s, JDK 8's length patches: %s, kept %llu, "
			      "stripped %llu, %zu bytes out (%zu with the "
			      "lengths known)%s", m ? "HS_STREAM" : "a file",
			      hs_strerror(rp.err),
			      (unsigned long long)rp.kept,
			      (unsigned long long)rp.arrays, patched.len,
			      known.len,
			      patched.len == known.len ? ", bytes differ" : "");
		}
		free(known.p);
		free(patched.p);
	}
	free(b.p);
	return check_done("hold");
}
