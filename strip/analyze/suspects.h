/*
 * hprofstrip --suspects: what holds the heap, without a viewer. The dump
 * read once into its object graph (heap.h), its dominator tree and
 * retained sizes (dom.h), then the report (report.c): the biggest
 * objects, each with its shortest path from a GC root and its
 * accumulation point, the retained bytes by class, Android's destroyed
 * activities and detached fragments; and on request the dominator tree
 * itself, a line per reachable object. The front end (strip/cli/) opens
 * the input and the outputs; this part reads bytes and writes text.
 */
#ifndef HPROFSTRIP_ANALYZE_SUSPECTS_H
#define HPROFSTRIP_ANALYZE_SUSPECTS_H

#include "heap.h"

#include <stddef.h>
#include <stdint.h>

struct suspects_opt {
	const char *prog, *name;  /* for messages and the report */
	int json;
	unsigned top;             /* objects and classes listed (--top) */
	int strong;               /* ahat's references (--strong) */
	int redacted;             /* the values were redacted: Android's
	                             flags are not known (--redacted) */
	int salvage;
	int verbosity;
	uint64_t max_memory;      /* 0: none */
	const char *tmp_dir;      /* past max_memory: the arrays' files */
	int tree;                 /* write the dominator tree (tree_out) */
};

struct suspects_io {
	/* the report, and the dominator tree */
	int (*out)(void *user, const void *buf, size_t len);
	void *user;
	int (*tree_out)(void *user, const void *buf, size_t len);
	void *tree_user;
	/* the input from its start again, for the paths' field names; NULL
	   when it cannot be (a pipe). 0 or -1. */
	int (*again)(void *user, struct heap_src *src);
	void *again_user;
};

/* What the run found, for the front end's messages. */
struct suspects_result {
	uint64_t objects, reachable, references, peak, file_peak;
	double t_read, t_resolve, t_dom, t_report;  /* seconds per phase */
	int cut, bad, err;
	uint64_t err_off, cut_off;
	char msg[256];
};

/* 0, or -1: res says why (bad: the dump at err_off; err: errno) */
int suspects_run(const struct suspects_opt *o, const struct heap_src *src,
                 const struct suspects_io *io, struct suspects_result *res);

#endif
