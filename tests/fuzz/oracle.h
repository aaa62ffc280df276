/*
 * The test oracle as a library (tests/oracle.c built with -DORACLE_LIB,
 * linked with the test side's walker, tests/walk.c): whole-buffer,
 * bounds-checked, independent of the engine. Not reentrant; one walk at a
 * time.
 */
#ifndef HPROFSTRIP_ORACLE_H
#define HPROFSTRIP_ORACLE_H

#include <stddef.h>
#include <stdint.h>

enum oracle_mode {
	ORACLE_ZERO,  /* out: the input with every 0x23 element byte zeroed */
	ORACLE_STRIP, /* out: 0x23 -> 0xC3 without elements, lengths fixed */
	ORACLE_COUNT  /* no output, counters only */
};

struct oracle_result {
	int ok;              /* 1: the whole input is well-formed */
	uint64_t err_off;    /* !ok: offset and reason of the first problem */
	const char *err;
	unsigned idsize;     /* 0 if the header was not read */
	uint64_t hdr_len;    /* header bytes (string, id size, timestamp) */
	/* counters, up to the problem when !ok */
	uint64_t n23, nc3;   /* 0x23 and 0xC3 sub-records */
	uint64_t elems;      /* element bytes of the 0x23 arrays */
	uint64_t c3_elems;   /* element bytes the 0xC3 arrays stand for */
	uint64_t sub_count[256]; /* heap sub-records by tag */
	/* ZERO, STRIP: the output (complete only when ok); valid until the
	 * next call */
	const unsigned char *out;
	size_t out_len;
};

/* 0 if the input is well-formed, else -1 (r says where and why). */
int oracle_walk(enum oracle_mode mode, const void *in, size_t len,
                struct oracle_result *r);

#endif
