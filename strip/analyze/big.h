/*
 * The analysis's large arrays (strip/analyze/): each one a mapping of its
 * own that can grow and shrink in place, in memory or, past the memory
 * cap, in a temporary file beside the output (unlinked at once, so a
 * crash leaves nothing). Every byte the arrays hold is counted, so the
 * peak is known and printed, and the cap decides where the next array
 * goes, never the kernel's OOM killer.
 */
#ifndef HPROFSTRIP_ANALYZE_BIG_H
#define HPROFSTRIP_ANALYZE_BIG_H

#include <stddef.h>
#include <stdint.h>

/* Where the arrays live and what they hold, for a whole analysis. */
struct big_pool {
	uint64_t cap;          /* bytes in memory at most; 0: no cap */
	uint64_t used, peak;   /* bytes held now, and at most */
	uint64_t file_used, file_peak; /* ... of them in temporary files */
	const char *dir;       /* where temporary files go */
	int files;             /* arrays that went to a file */
	int err;               /* the first failure's errno */
	/* mappings freed and kept for the next array, whose pages are
	   there already (no page faults, no kernel zeroing): counted in
	   used while kept */
	struct { void *p; size_t cap; } spare[6];
};

struct big {
	void *p;               /* NULL until the first big_grow */
	size_t len;            /* bytes in use */
	size_t cap;            /* bytes mapped */
	int fd;                /* its temporary file, or -1: memory */
	struct big_pool *pool;
};

void big_init(struct big *b, struct big_pool *pool);
/* Room for need bytes in all (cap >= need), contents kept: 0, or -1 with
 * pool->err set (no memory, no room on disk). */
int big_reserve(struct big *b, size_t need);
/* Appends n bytes (b->len grows): 0 or -1 as big_reserve. */
int big_put(struct big *b, const void *p, size_t n);
/* big_put of one value, inline while there is room */
static inline int big_put_fast(struct big *b, const void *p, size_t n)
{
	if (b->cap - b->len >= n) {
		__builtin_memcpy((char *)b->p + b->len, p, n);
		b->len += n;
		return 0;
	}
	return big_put(b, p, n);
}

/* Gives back what is mapped past len. */
void big_trim(struct big *b);
void big_free(struct big *b);
/* the kept mappings given back (the analysis's end) */
void big_pool_end(struct big_pool *pool);

#endif
