/*
 * Between the two halves of hprofstrip --suspects' report: findings.c
 * finds what the report says (the dominator tree's children, the
 * shortest paths from the roots and their steps' names, each biggest
 * object's accumulation point and fan-out, the retained bytes by class,
 * the watched Android objects), and report.c writes it (suspects.h).
 */
#ifndef HPROFSTRIP_ANALYZE_REPORT_H
#define HPROFSTRIP_ANALYZE_REPORT_H

#include "suspects.h"
#include "dom.h"
#include "../io/lineout.h"

#define PATH_ENDS 24           /* a path longer than 2 * this is cut */
#define FANOUT_ROWS 5
#define ACC_RATIO 0.7
#define SUSPECT_SHARE 0.10

struct rep {
	const struct suspects_opt *o;
	const struct suspects_io *io;
	struct heap *h;
	struct dom *d;
	struct io_line l;
	struct big choff, ch;          /* the dominator tree's children */
	struct big bfs;                /* uint32_t[k + 1], by number: the
	                                  breadth-first parent, HEAP_NONE
	                                  unseen; a root its own */
	uint32_t *wt;                  /* the watched objects' numbers, 0: not
	                                  reachable */
	struct step *steps;            /* the paths' steps, labelled */
	size_t nsteps;
	int labelled;                  /* the dump was read again */
};

/* each object's children in the dominator tree (rep_children): of
 * number t, CH(r)[CH_OFF(r)[t]] to CH(r)[CH_OFF(r)[t + 1] - 1] */
#define CH_OFF(r) ((uint32_t *)(r)->choff.p)
#define CH(r) ((uint32_t *)(r)->ch.p)

/* a row of a by-class table: group g, its objects, retained and shallow
 * bytes */
struct grp {
	uint32_t g;
	uint64_t n, bytes, shallow;
};

/* a biggest object, number t, and its accumulation point acc */
struct top {
	uint32_t t, acc;
};

/* errno from the pool (ENOMEM): -1 */
int rep_pool_fail(struct rep *r);
/* the dominator tree's children lists (CH_OFF, CH): 0, -1 */
int rep_children(struct rep *r);
/* the breadth-first parents from the roots (r->bfs): 0, -1 */
int rep_bfs(struct rep *r);
/* the objects (their numbers) of the path from a root to number o, root
 * first, into p (cap): how many there are (more than cap: the first and
 * last cap/2 kept) */
size_t rep_path_of(const struct rep *r, uint32_t o, uint32_t *p,
                   size_t cap);
/* every step of the paths to these objects, labelled by a second read
 * when the input can be read again */
int rep_label(struct rep *r, const uint32_t *targets, size_t n);
/* the labelled step from number from to number to, or NULL */
const struct step *rep_step_of(const struct rep *r, uint32_t from,
                               uint32_t to);
/* is to one of thread from's frames' references? */
int rep_is_local(const struct heap *h, uint32_t from, uint32_t to);
/* the kind of root o is, by its root sub-record ("root" when none
 * names it) */
const char *rep_root_kind_of(const struct heap *h, uint32_t o);
/* number t's accumulation point: down through the biggest child while
 * it keeps ACC_RATIO of its parent's bytes */
uint32_t rep_accumulation(const struct rep *r, uint32_t t);
/* group g's name (a class, java.lang.Class, a primitive array) in buf */
const char *rep_group_name(const struct heap *h, uint32_t g, char *buf,
                           size_t cap);
/* t's dominated objects by class: the biggest rows into g (cap), how
 * many rows in all */
size_t rep_fanout(const struct rep *r, uint32_t t, struct grp *g,
                  size_t cap, uint64_t *rest_n, uint64_t *rest_b);
/* Each group's retained bytes: the objects with no dominator of their own
 * group above them. groups: ncls + 13 rows. */
struct grp *rep_by_class(struct rep *r, size_t *rows);
/* the watched objects' numbers (r->wt): 0, -1 */
int rep_watched_numbers(struct rep *r);
/* the biggest objects only the virtual root dominates, by retained
 * bytes: at most cap into tp, how many */
size_t rep_biggest(const struct rep *r, struct top *tp, size_t cap);

#endif
