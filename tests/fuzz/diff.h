/*
 * The differential target (fuzz_diff.c) and its two sides: one engine
 * run, described and answered in types of its own, so that one side can be
 * built against the old engine's headers and the other against the new
 * one's. diff_side.c is compiled once per engine; the old copy's symbols
 * get an "old_" prefix (tests/fuzz/fuzz.mk), so both link into one binary.
 * Nothing here includes hprof.h.
 */
#ifndef HPROFSTRIP_FUZZ_DIFF_H
#define HPROFSTRIP_FUZZ_DIFF_H

#include <stddef.h>
#include <stdint.h>

/* a layer's tables, set up as fuzz_engine.c sets them */
enum df_tables {
	DF_NONE,
	DF_KEEP_TINY,     /* keep: 64 pending, 16 classes, 64 bytes held */
	DF_KEEP_FOUND,    /* keep exact, pass 1: found() collects */
	DF_KEEP_HAS,      /* keep exact, pass 2: has() asks */
	DF_REDACT_ROOMY,  /* redact: 1024 classes, 4096 types, 4 KiB gather */
	DF_REDACT_TINY    /* redact: 16 classes, 8 types, 64 B gather */
};

struct df_req {
	const unsigned char *in;
	size_t len;
	unsigned flags;           /* HS_* (the same values in both) */
	unsigned idsize;          /* HS_NO_HEADER */
	uint32_t seed;            /* the cuts (common.c's); 0: one piece */
	size_t limit;             /* output bytes allowed */
	enum df_tables tables;
	/* HS_REDACT_NAMES, HS_UNREDACT: hs_names's key and callbacks */
	uint64_t key[2];
	void (*original)(void *user, unsigned idsize, uint64_t id,
	                 uint32_t len, uint32_t at, const unsigned char *text,
	                 size_t n);
	const unsigned char *(*rename)(void *user, uint64_t id, uint32_t len);
	/* DF_KEEP_FOUND, DF_KEEP_HAS */
	void (*found)(void *user, uint64_t id);
	int (*has)(void *user, uint64_t id);
	void *user;
};

/* A run's output (the side's buffer, valid until its next run) and every
 * result the old and the new state both have. */
struct df_out {
	const unsigned char *b;
	size_t len;
	int over;                 /* the output went over req.limit */
	int err, fallback;        /* enum hs_err */
	uint64_t err_off, fallback_off, fb_in, fb_out, in_off, out_off;
	uint64_t arrays, elem_bytes, records, kept, kept_bytes, objects;
	uint64_t redacted, withheld, zeroed, names;
	uint64_t census;          /* FNV-1a of struct hs_census's bytes */
	unsigned idsize;
	int version;
	const char *errname;      /* hs_strerror(err) */
};

/* One run of the side's engine (old_df_run: the old engine's). */
void df_run(const struct df_req *q, struct df_out *o);
void old_df_run(const struct df_req *q, struct df_out *o);

#endif
