/*
 * Shared by the libFuzzer targets: a memory sink with a size limit, runs
 * of the engine over an input cut into pieces, result comparison.
 *
 * A fuzz input is a 4-byte prefix then the dump:
 *   byte 0     flags (each target gives them a meaning)
 *   bytes 1-3  seed of the piece sizes the dump is cut into
 * Failed checks print what differs and abort(), which libFuzzer reports
 * as a crash.
 */
#ifndef HPROFSTRIP_FUZZ_COMMON_H
#define HPROFSTRIP_FUZZ_COMMON_H

#include "../../strip/engine/hprof.h"

#include <stddef.h>
#include <stdint.h>

#define FZ_PREFIX 4

/* Output of one run. Bytes past `limit` are refused (the write fails, so
 * the engine stops with HS_E_EMIT) and `over` is set. */
struct fz_out {
	unsigned char *b;
	size_t len, cap, limit;
	int over;
};

/* The sink over a struct fz_out (user). A patch outside the bytes written
 * fails the check. */
int fz_sink_write(void *user, const void *buf, size_t len);
int fz_sink_patch(void *user, uint64_t off, const void *buf, size_t len);

struct fz_run {
	struct fz_out out;
	enum hs_err err, fallback;
	uint64_t err_off, fallback_off, fb_in, fb_out;
	uint64_t in_off, out_off, arrays, elem_bytes, records, kept, kept_bytes;
	unsigned idsize;
	char version;
};

/* Piece sizes: a small PRNG seeded from the prefix. Seed 0: one piece. */
struct fz_cuts {
	uint64_t s;
	int whole, ones;
};

/* A fuzz input split into its prefix (*flags, *seed) and the dump (*x,
 * *n); 0 if it is too short to have a prefix. */
int fz_input(const unsigned char *data, size_t size, const unsigned char **x,
             size_t *n, unsigned *flags, uint32_t *seed);

void fz_cuts_init(struct fz_cuts *c, uint32_t seed);
/* Pieces of 1 byte each. */
void fz_cuts_ones(struct fz_cuts *c);
size_t fz_next_piece(struct fz_cuts *c, size_t left);

/* Runs the engine over in[0,len) with flags (idsize: for HS_NO_HEADER),
 * cut as c says (NULL: one piece), output limited to limit bytes, census
 * into census if not NULL. The run's output buffer is reused from r->out. */
void fz_engine(const unsigned char *in, size_t len, unsigned flags,
               unsigned idsize, struct fz_cuts *c, size_t limit,
               struct hs_census *census, struct fz_run *r);

/* HS_KEEP_STRINGS runs use these tables (zeroed before each run) and
 * callbacks; set by the target. */
extern struct hs_keep fz_keep;
/* set while an HS_STREAM run is fed: a patch then fails the run */
extern int fz_streaming;

/* Same outcome: errors, counters, output. With both runs over their
 * limit only the common prefix of the outputs is compared (the failing
 * write, hence err_off, depends on the cuts). */
void fz_same(const struct fz_run *a, const struct fz_run *b,
             const char *what);
/* Byte-for-byte equal buffers, or abort with the first difference. */
void fz_same_bytes(const unsigned char *a, size_t alen,
                   const unsigned char *b, size_t blen, const char *what);

/* abort() with a message. */
void fz_fail(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

void fz_free(struct fz_run *r);

/* Header length (string, NUL, id size, timestamp) if the buffer starts
 * with one, else 0. */
size_t fz_header_len(const unsigned char *in, size_t len);

#endif
