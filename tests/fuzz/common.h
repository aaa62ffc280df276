/*
 * Shared by the libFuzzer targets: runs of the engine over an input cut
 * into pieces (tests/cutrun.c's sink and runner, struct cr_run), result
 * comparison.
 *
 * A fuzz input is a 4-byte prefix then the dump:
 *   byte 0     flags (each target gives them a meaning)
 *   bytes 1-3  seed of the piece sizes the dump is cut into
 * Failed checks print what differs and abort(), which libFuzzer reports
 * as a crash.
 */
#ifndef HPROFSTRIP_FUZZ_COMMON_H
#define HPROFSTRIP_FUZZ_COMMON_H

#include "../cutrun.h"

#include <stddef.h>
#include <stdint.h>

#define FZ_PREFIX 4

/* A failed check: the message, then abort() (cutrun.h's cr_fail; common.c
 * sets cr_abort). */
#define fz_fail cr_fail

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
               struct hs_census *census, struct cr_run *r);
/* A cr_cuts over c (NULL: one piece): fz_next_piece's sizes. */
struct cr_cuts fz_pieces(struct fz_cuts *c);

/* HS_KEEP_STRINGS runs use these tables (zeroed before each run) and
 * callbacks; set by the target. */
extern struct hs_keep fz_keep;
/* HS_REDACT runs use these tables (the classes zeroed, none used, before
 * each run); set by the target. */
extern struct hs_redact fz_redact;
/* HS_REDACT_NAMES and HS_UNREDACT runs use these (set by the target). */
extern struct hs_names fz_names;

/* Same outcome: errors, counters, output. With both runs over their
 * limit only the common prefix of the outputs is compared (the failing
 * write, hence err_off, depends on the cuts). */
void fz_same(const struct cr_run *a, const struct cr_run *b,
             const char *what);
/* Byte-for-byte equal buffers, or abort with the first difference. */
void fz_same_bytes(const unsigned char *a, size_t alen,
                   const unsigned char *b, size_t blen, const char *what);

void fz_free(struct cr_run *r);

/* Header length (string, NUL, id size, timestamp) if the buffer starts
 * with one, else 0. */
size_t fz_header_len(const unsigned char *in, size_t len);

#endif
