/* The analysis's large arrays: see big.h. */
#include "big.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define PAGE ((size_t)65536)

void big_init(struct big *b, struct big_pool *pool)
{
	memset(b, 0, sizeof *b);
	b->fd = -1;
	b->pool = pool;
}

static int fail(struct big *b, int err)
{
	if (!b->pool->err)
		b->pool->err = err ? err : ENOMEM;
	return -1;
}

/* A temporary file in the pool's directory, unlinked: -1 (errno). */
static int temp_file(const struct big_pool *pool)
{
	char path[4096];
	int fd;

	if (snprintf(path, sizeof path, "%s/.hprofstrip-suspects.XXXXXX",
	             pool->dir ? pool->dir : ".") >= (int)sizeof path) {
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = mkostemp(path, O_CLOEXEC);
	if (fd >= 0)
		unlink(path);
	return fd;
}

static void account(struct big *b, size_t old, size_t now, int file)
{
	struct big_pool *p = b->pool;

	if (file) {
		p->file_used = p->file_used - old + now;
		if (p->file_used > p->file_peak)
			p->file_peak = p->file_used;
	} else {
		p->used = p->used - old + now;
		if (p->used > p->peak)
			p->peak = p->used;
	}
}

/* The mapping moved to a temporary file of cap bytes: 0 or -1. */
static int to_file(struct big *b, size_t cap)
{
	int fd = temp_file(b->pool);
	void *q;

	if (fd < 0)
		return fail(b, errno);
	if (ftruncate(fd, (off_t)cap)) {
		close(fd);
		return fail(b, errno);
	}
	q = mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (q == MAP_FAILED) {
		close(fd);
		return fail(b, errno);
	}
	if (b->len)
		memcpy(q, b->p, b->len);
	if (b->p) {
		munmap(b->p, b->cap);
		account(b, b->cap, 0, 0);
	}
	b->p = q;
	b->fd = fd;
	account(b, 0, cap, 1);
	b->cap = cap;
	b->pool->files++;
	return 0;
}

/* A new array in memory of cap bytes from the largest kept mapping,
 * grown or shrunk to it: 0, or -1 (none kept, or it would not move). */
static int take_spare(struct big *b, size_t cap)
{
	struct big_pool *p = b->pool;
	int i, best = -1;
	void *q;

	for (i = 0; i < 6; i++)
		if (p->spare[i].p && (best < 0 || p->spare[i].cap > p->spare[best].cap))
			best = i;
	if (best < 0)
		return -1;
	q = p->spare[best].cap == cap ? p->spare[best].p
	    : mremap(p->spare[best].p, p->spare[best].cap, cap, MREMAP_MAYMOVE);
	if (q == MAP_FAILED)
		return -1;
	/* the kept bytes were counted: now this array's, resized */
	p->used -= p->spare[best].cap;
	p->spare[best].p = NULL;
	account(b, 0, cap, 0);
	b->p = q;
	b->cap = cap;
	return 0;
}

int big_reserve(struct big *b, size_t need)
{
	struct big_pool *p = b->pool;
	size_t cap = b->cap ? b->cap : PAGE;
	void *q;

	if (need <= b->cap)
		return 0;
	while (cap < need) {
		if (cap > SIZE_MAX / 2)
			return fail(b, ENOMEM);
		cap = cap < (size_t)1 << 30 ? cap * 2 : cap + ((size_t)1 << 30);
	}
	cap = (cap + PAGE - 1) & ~(PAGE - 1);
	if (b->fd < 0 && p->cap && p->used - b->cap + cap > p->cap)
		return to_file(b, cap);
	if (b->fd >= 0 && ftruncate(b->fd, (off_t)cap))
		return fail(b, errno);
	if (!b->p && b->fd < 0 && take_spare(b, cap) == 0)
		return 0;
	if (!b->p)
		q = mmap(NULL, cap, PROT_READ | PROT_WRITE,
		         MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	else
		q = mremap(b->p, b->cap, cap, MREMAP_MAYMOVE);
	if (q == MAP_FAILED)
		return fail(b, errno);
#ifdef MADV_HUGEPAGE
	/* large arrays in huge pages where the kernel has them on request:
	   a 512th of the page faults */
	if (b->fd < 0 && cap >= ((size_t)8 << 20))
		madvise(q, cap, MADV_HUGEPAGE);
#endif
	account(b, b->cap, cap, b->fd >= 0);
	b->p = q;
	b->cap = cap;
	return 0;
}

int big_put(struct big *b, const void *p, size_t n)
{
	if (n > SIZE_MAX - b->len || big_reserve(b, b->len + n))
		return -1;
	memcpy((char *)b->p + b->len, p, n);
	b->len += n;
	return 0;
}

void big_trim(struct big *b)
{
	size_t cap = (b->len + PAGE - 1) & ~(PAGE - 1);
	void *q;

	if (!b->p || cap >= b->cap)
		return;
	if (!cap) {
		big_free(b);
		return;
	}
	q = mremap(b->p, b->cap, cap, 0);
	if (q == MAP_FAILED)
		return;
	if (b->fd >= 0 && ftruncate(b->fd, (off_t)cap))
		return;
	account(b, b->cap, cap, b->fd >= 0);
	b->cap = cap;
}

void big_free(struct big *b)
{
	struct big_pool *p = b->pool;
	int i;

	/* a large mapping in memory is kept for the next array (not under a
	   cap: what is kept would count against it) */
	for (i = 0; b->p && b->fd < 0 && !p->cap && b->cap >= ((size_t)1 << 20) &&
	     i < 6; i++)
		if (!p->spare[i].p) {
			p->spare[i].p = b->p;
			p->spare[i].cap = b->cap;
			b->p = NULL;
		}
	if (b->p) {
		munmap(b->p, b->cap);
		account(b, b->cap, 0, b->fd >= 0);
	}
	if (b->fd >= 0)
		close(b->fd);
	big_init(b, b->pool);
}

void big_pool_end(struct big_pool *pool)
{
	int i;

	for (i = 0; i < 6; i++)
		if (pool->spare[i].p) {
			munmap(pool->spare[i].p, pool->spare[i].cap);
			pool->used -= pool->spare[i].cap;
			pool->spare[i].p = NULL;
		}
}
