/*
 * dumpbuf.h: a dump built in memory, for the engine's C unit tests
 * (tests/holdtest.c, tests/memtest.c): a growing buffer and its
 * big-endian writers. Include after the engine's hprof.h.
 */
#ifndef TESTS_DUMPBUF_H
#define TESTS_DUMPBUF_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct buf {
	unsigned char *p;
	size_t len, cap;
};

static void put(struct buf *b, const void *p, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2;
		if (!(b->p = realloc(b->p, b->cap))) {
			perror("dumpbuf");
			exit(2);
		}
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

static void u1(struct buf *b, unsigned v)
{
	unsigned char c = (unsigned char)v;
	put(b, &c, 1);
}

static inline void u2(struct buf *b, unsigned v)
{
	u1(b, v >> 8);
	u1(b, v);
}

static void u4(struct buf *b, uint32_t v)
{
	unsigned char c[4];
	hs_put_be32(c, v);
	put(b, c, 4);
}

#endif
