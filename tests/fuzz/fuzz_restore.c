/*
 * libFuzzer target: hprofrestore's engine mode (HS_RESTORE), with --jvm
 * (flag 1) or --app-only (flag 2) as the input's first byte says.
 *
 * Input: flags, 3 seed bytes for the piece sizes (see common.h), the dump.
 * Checks:
 *   - one piece and cut: same errors, counters and output (flag 4 adds
 *     1-byte pieces)
 *   - bounded output: never more than the input plus the element bytes
 *     its 0xC3 arrays declare, counted by the oracle (tests/oracle.c) up
 *     to where the engine stopped; output is capped at OUT_LIMIT and a
 *     run over it must be justified by those declarations
 *   - a plain restore that succeeds on a dump the oracle walks: exactly
 *     that size, walks cleanly, every 0xC3 became a 0x23 of zeros
 *     (oracle strip of the output == oracle strip of the input)
 *   - --jvm: the output walks cleanly, says 1.0.2, and has no Android
 *     sub-records left
 */
#include "common.h"
#include "oracle.h"

#include <stdlib.h>
#include <string.h>

#define OUT_LIMIT (8u << 20)

static struct cr_run A, B;
static unsigned char *saved;
static size_t saved_cap;

static int lenient(const struct oracle_result *o)
{
	return o->err_off == 0 ||
	       !strcmp(o->err, "bad basic type in CLASS_DUMP instance field");
}

static int android_sub(unsigned tag)
{
	return tag == 0xFE || (tag >= 0x89 && tag <= 0x8E) || tag == 0x90;
}

/* --jvm on a dump the oracle walks: the output walks too, says 1.0.2
 * (for a 1.0.3 input), and holds no Android sub-record. */
static void check_jvm(const unsigned char *x, const struct oracle_result *in)
{
	struct oracle_result o;
	unsigned t;

	if (oracle_walk(ORACLE_COUNT, A.out.b, A.out.len, &o))
		fz_fail("--jvm: the oracle rejects the output at %llu: %s",
		        (unsigned long long)o.err_off, o.err);
	if (x[17] == '3' && A.out.b[17] != '2')
		fz_fail("--jvm: a 1.0.3 dump did not become 1.0.2");
	if (x[17] != '3')
		return;
	for (t = 0; t < 256; t++)
		if (android_sub(t) && o.sub_count[t])
			fz_fail("--jvm: %llu sub-records 0x%02X left",
			        (unsigned long long)o.sub_count[t], t);
	if (o.sub_count[0x20] != in->sub_count[0x20])
		fz_fail("--jvm: class dumps %llu -> %llu",
		        (unsigned long long)in->sub_count[0x20],
		        (unsigned long long)o.sub_count[0x20]);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	const unsigned char *x;
	size_t n;
	unsigned fl, flags = HS_RESTORE;
	uint32_t seed;
	struct fz_cuts c;
	struct oracle_result o, w;

	if (!fz_input(data, size, &x, &n, &fl, &seed))
		return 0;
	if (fl & 1)
		flags |= HS_JVM;
	if (fl & 2)
		flags |= HS_JVM | HS_APP_ONLY;

	fz_engine(x, n, flags, 0, NULL, OUT_LIMIT, NULL, &A);
	fz_cuts_init(&c, seed);
	fz_engine(x, n, flags, 0, &c, OUT_LIMIT, NULL, &B);
	fz_same(&A, &B, "restore, cut");
	if (fl & 4) {
		fz_cuts_ones(&c);
		fz_engine(x, n, flags, 0, &c, OUT_LIMIT, NULL, &B);
		fz_same(&A, &B, "restore, 1-byte pieces");
	}

	/* bounded by the declarations the oracle counts before the engine
	 * stopped (all of them if it walks the whole dump) */
	oracle_walk(ORACLE_COUNT, x, n, &o);
	if (o.ok || (A.err && A.err_off <= o.err_off)) {
		if (A.out.len > n + o.c3_elems)
			fz_fail("restore wrote %zu bytes from %zu, 0xC3 declare %llu",
			        A.out.len, n, (unsigned long long)o.c3_elems);
		if (A.out.over && (uint64_t)n + o.c3_elems < OUT_LIMIT)
			fz_fail("restore went over %u bytes; 0xC3 declare %llu",
			        OUT_LIMIT, (unsigned long long)o.c3_elems);
	}
	if (!A.err && !o.ok && !lenient(&o))
		fz_fail("restore takes what the oracle rejects at %llu: %s",
		        (unsigned long long)o.err_off, o.err);
	if (A.err || !o.ok)
		return 0;
	if (flags & HS_JVM) {
		check_jvm(x, &o);
		return 0;
	}

	/* plain restore of a dump the oracle walks */
	if (A.out.len != n + o.c3_elems)
		fz_fail("restore: %zu bytes, want %zu + %llu", A.out.len, n,
		        (unsigned long long)o.c3_elems);
	if (oracle_walk(ORACLE_COUNT, A.out.b, A.out.len, &w))
		fz_fail("restore: the oracle rejects the output at %llu: %s",
		        (unsigned long long)w.err_off, w.err);
	if (w.nc3 || w.n23 != o.n23 + o.nc3 || w.elems != o.elems + o.c3_elems)
		fz_fail("restore: arrays %llu+%llu -> %llu+%llu",
		        (unsigned long long)o.n23, (unsigned long long)o.nc3,
		        (unsigned long long)w.n23, (unsigned long long)w.nc3);
	/* same arrays, same ids, same order: strip both, compare */
	oracle_walk(ORACLE_STRIP, x, n, &w);
	if (w.out_len > saved_cap) {
		saved = realloc(saved, w.out_len);
		saved_cap = w.out_len;
	}
	memcpy(saved, w.out, w.out_len);
	n = w.out_len;
	oracle_walk(ORACLE_STRIP, A.out.b, A.out.len, &w);
	fz_same_bytes(w.out, w.out_len, saved, n,
	              "strip(restore(x)) vs strip(x), by the oracle");
	return 0;
}
