/*
 * The engine run into memory over an input cut into pieces: the sink and
 * the runner shared by tests/splitcheck.c and the fuzz targets
 * (tests/fuzz/common.c).
 *
 * A failed check calls cr_fail(): one line on stderr, cr_prefix first,
 * then exit(1), or abort() where cr_abort is set (a fuzz target: libFuzzer
 * reports it as a crash). The program that links this file defines both.
 */
#ifndef HPROFSTRIP_CUTRUN_H
#define HPROFSTRIP_CUTRUN_H

#include "../strip/engine/hprof.h"

#include <stddef.h>
#include <stdint.h>

extern const char cr_prefix[];
extern const int cr_abort;
void cr_fail(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

/* A growing output buffer. Bytes past `limit` are refused (the write
 * fails, so the engine stops with HS_E_EMIT) and `over` is set. The engine
 * may patch only bytes it has written, never a streamed output, and
 * truncate only to a length it has written: anything else fails the
 * check. */
struct cr_mem {
	unsigned char *b;
	size_t len, cap, limit;
	int over, streamed;
};

/* Empties m (its buffer is reused), sets its limit, and makes *s the sink
 * over it: write, patch, truncate. */
void cr_sink(struct hs_sink *s, struct cr_mem *m, size_t limit, int streamed);

/* One run: its output and the engine's results. */
struct cr_run {
	struct cr_mem out;
	enum hs_err err, fallback;
	uint64_t err_off, fallback_off, fb_in, fb_out;
	uint64_t in_off, out_off, arrays, elem_bytes, records, kept, kept_bytes;
	uint64_t objects;
	uint64_t redacted, withheld, zeroed;  /* HS_REDACT */
	uint64_t names;           /* HS_REDACT_NAMES: texts tokenized */
	uint64_t map_hash, map_bytes; /* ... the originals given (the
	                             caller's, FNV-1a) */
	struct hs_census census;  /* the caller's cfg->census, or this */
	uint64_t histo_hash, histo_len; /* HS_HISTO: the histogram's text
	                             (FNV-1a), as the tools write it */
	unsigned idsize;
	char version;
};

/* A heap record (HEAP_DUMP or HEAP_DUMP_SEGMENT) of the input: where its
 * length field is, where its body starts, its length, and where the
 * writer closes it (`end`: the body's end unless the caller moves it). */
struct cr_rec {
	size_t len_off, body, end;
	uint32_t len;
};

/* HS_OPEN_LEN runs: the heap records whose length is a placeholder; the
 * runner stops feeding at each one's `end` and rewrites its length there
 * (cr_seek_back, cut as rand() says), all but `unclosed` (none:
 * (size_t)-1). */
struct cr_open {
	const struct cr_rec *rec;
	size_t n, next, unclosed;
	uint64_t (*rand)(void *user, size_t i);
	void *user;
};

/* Where the input is cut: piece() gives the next piece's size, at most
 * `left` (0: an empty feed; more than 64 in a row, and the runner feeds 1
 * byte); NULL: the input in one piece. `open`: see struct cr_open. */
struct cr_cuts {
	size_t (*piece)(void *user, size_t pos, size_t left);
	void *user;
	struct cr_open *open;
};

/* Runs the engine configured as *cfg (HS_STREAM without a seg_buf: one is
 * given) over in[0,len), cut as *cuts says (NULL: one piece), into r->out
 * (its buffer reused) limited to `limit` bytes, then hs_finish unless
 * an error stopped it; the results into *r. */
void cr_run(const unsigned char *in, size_t len, const struct hs_config *cfg,
            struct cr_cuts *cuts, size_t limit, struct cr_run *r);

/* The heap records of in[0,len), whose records start at off; a growing
 * array in *rec (*cap entries); returns how many. A record cut short is
 * listed with its end past len. */
size_t cr_heap_records(const unsigned char *in, size_t len, size_t off,
                       struct cr_rec **rec, size_t *cap);

/* The writer's seek back to a placeholder: the record's 4 length bytes
 * through hs_rewrite, whole, in two pieces, or one byte at a time, in
 * either order, as r says. */
enum hs_err cr_seek_back(struct hs_state *st, const struct cr_rec *rc,
                         uint64_t r);

#endif
