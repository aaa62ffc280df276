/*
 * libFuzzer target: hprofstrip --suspects, the leak analysis
 * (strip/analyze/), on any bytes.
 *
 * Input: flags, 3 seed bytes (unused), the dump. Flag 1: --strong; 2:
 * --json; 4: --max-memory 64K (the arrays in files); 8: --salvage; 16:
 * the input cannot be read again (a pipe's). Checks, on a dump the
 * analysis accepts:
 *   - the dominator tree's lines are in ascending id order, each
 *     dominator is a line of its own (or 0x0), and each line's objects
 *     and bytes are its own shallow bytes' sum over the objects under it
 *     (every line adds its count to its dominator's chain: recomputed
 *     from the lines, they must agree);
 *   - the report is not empty, and a JSON report starts with '{' and
 *     ends with "}\n".
 * A rejected dump must say why (a message, or an errno).
 */
#include "common.h"
#include "../../strip/analyze/suspects.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

struct sink {
	char *b;
	size_t len, cap;
};

static int put(void *user, const void *buf, size_t len)
{
	struct sink *s = user;

	if (s->len + len + 1 > s->cap) {
		size_t cap = (s->len + len + 1) * 2;
		char *b = realloc(s->b, cap);
		if (!b)
			return -1;
		s->b = b;
		s->cap = cap;
	}
	memcpy(s->b + s->len, buf, len);
	s->len += len;
	s->b[s->len] = 0;
	return 0;
}

static int fd = -1;

static int again(void *user, struct heap_src *src)
{
	(void)user;
	if (lseek(fd, 0, SEEK_SET) < 0)
		return -1;
	src->fd = fd;
	src->head = NULL;
	src->head_len = 0;
	return 0;
}

struct line {
	unsigned long long id, dom, n, bytes;
};

static int by_id(const void *a, const void *b)
{
	const struct line *x = a, *y = b;
	return x->id < y->id ? -1 : x->id > y->id;
}

static void check_tree(const char *t)
{
	size_t n = 0, cap = 64, i;
	struct line *l = malloc(cap * sizeof *l), key, *d;
	unsigned long long *cnt;
	const char *p = t;

	while (*p) {
		if (n == cap)
			l = realloc(l, (cap *= 2) * sizeof *l);
		if (sscanf(p, "0x%llx 0x%llx %llu %llu", &l[n].id, &l[n].dom,
		           &l[n].n, &l[n].bytes) != 4)
			fz_fail("a tree line that does not parse: %.60s", p);
		if (n && l[n].id <= l[n - 1].id)
			fz_fail("tree lines out of order at 0x%llx", l[n].id);
		n++;
		p = strchr(p, '\n');
		if (!p)
			fz_fail("a tree line without its newline");
		p++;
	}
	cnt = calloc(n + 1, sizeof *cnt);
	/* each object counted once on its own line and each line above it */
	for (i = 0; i < n; i++) {
		size_t steps = 0;
		cnt[i]++;
		for (key = l[i]; key.dom; key.id = key.dom, key.dom = d->dom) {
			key.id = key.dom;
			d = bsearch(&key, l, n, sizeof *l, by_id);
			if (!d)
				fz_fail("0x%llx's dominator 0x%llx has no line",
				        l[i].id, key.id);
			cnt[d - l]++;
			if (++steps > n)
				fz_fail("a cycle of dominators at 0x%llx", l[i].id);
		}
	}
	for (i = 0; i < n; i++)
		if (cnt[i] != l[i].n)
			fz_fail("0x%llx retains %llu objects by the tree, says %llu",
			        l[i].id, cnt[i], l[i].n);
	free(cnt);
	free(l);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const unsigned char *x;
	size_t n;
	unsigned flags;
	uint32_t seed;
	struct suspects_opt o;
	struct suspects_io io;
	struct suspects_result res;
	struct heap_src src;
	struct sink rep = { 0 }, tree = { 0 };
	int rc;

	if (!fz_input(data, size, &x, &n, &flags, &seed))
		return 0;
	if (fd < 0)
		fd = memfd_create("fuzz_suspects", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, 0) || pwrite(fd, x, n, 0) != (ssize_t)n ||
	    lseek(fd, 0, SEEK_SET) < 0)
		fz_fail("memfd: %s", strerror(errno));
	memset(&o, 0, sizeof o);
	o.prog = "fuzz";
	o.name = "input";
	o.top = 3;
	o.strong = flags & 1;
	o.json = (flags & 2) != 0;
	o.max_memory = flags & 4 ? 65536 : 0;
	o.tmp_dir = "/tmp";
	o.salvage = (flags & 8) != 0;
	o.tree = 1;
	memset(&io, 0, sizeof io);
	io.out = put;
	io.user = &rep;
	io.tree_out = put;
	io.tree_user = &tree;
	io.again = flags & 16 ? NULL : again;
	src.fd = fd;
	src.head = NULL;
	src.head_len = 0;
	rc = suspects_run(&o, &src, &io, &res);
	if (rc) {
		if (!res.bad && !res.err)
			fz_fail("rejected without a reason");
		if (res.bad && !res.msg[0])
			fz_fail("rejected as bad without a message");
	} else {
		if (!rep.len)
			fz_fail("an empty report");
		if (o.json && (rep.b[0] != '{' || rep.len < 2 ||
		               memcmp(rep.b + rep.len - 2, "}\n", 2)))
			fz_fail("a JSON report that is not one object");
		check_tree(tree.b ? tree.b : "");
	}
	free(rep.b);
	free(tree.b);
	return 0;
}
