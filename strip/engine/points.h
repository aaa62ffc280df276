/*
 * The core's calls at its fixed points (engine.c, record.c, rewrite.c,
 * salvage.c; names.c hands a name's start on): each listed layer's hook
 * (st->mode.layer, internal.h's struct hs_layer), combined one of these
 * ways:
 *   L_CALL        every layer's hook is called;
 *   lay_<hook>    "taken": the first layer whose hook returns 1 takes the
 *                 unit, the layers after it are not asked (1; 0: none);
 *   lay_act, lay_step: the first answer >= 0 (act -1, step 0: none);
 *   lay_value, lay_field: the first layer that has the hook (at most one
 *                 has: resolve_mode);
 *   lay_reads_record: the most bytes any layer reads.
 */
#ifndef HPROFSTRIP_POINTS_H
#define HPROFSTRIP_POINTS_H

#include "internal.h"

/* Each layer on, in order: for (L_EACH(st, l)) ... (*l)->hook */
#define L_EACH(st, l) \
	const struct hs_layer *const *l = (st)->mode.layer; *l; l++

/* Every listed layer's hook in turn. */
#define L_CALL(st, hook, ...) do { \
	for (L_EACH(st, l_)) \
		if ((*l_)->hook) \
			(*l_)->hook(__VA_ARGS__); \
} while (0)

static inline int lay_takes_record(const struct hs_state *st, unsigned tag,
                                   uint32_t len)
{
	for (L_EACH(st, l))
		if ((*l)->takes_record && (*l)->takes_record(st, tag, len))
			return 1;
	return 0;
}

static inline int lay_heap_start(struct hs_state *st)
{
	for (L_EACH(st, l))
		if ((*l)->heap_start && (*l)->heap_start(st))
			return 1;
	return 0;
}

/* The act of the first layer that has one for this tag; else -1. */
static inline int lay_act(const struct hs_state *st, unsigned tag)
{
	int a;

	for (L_EACH(st, l))
		if ((*l)->act && (a = (*l)->act(st, tag)) >= 0)
			return a;
	return -1;
}

static inline int lay_heap_header(struct hs_state *st)
{
	for (L_EACH(st, l))
		if ((*l)->heap_header && (*l)->heap_header(st))
			return 1;
	return 0;
}

static inline int lay_instance(struct hs_state *st, struct cur *c,
                               const unsigned char *h, uint64_t len)
{
	for (L_EACH(st, l))
		if ((*l)->instance && (*l)->instance(st, c, h, len))
			return 1;
	return 0;
}

static inline int lay_objarray(struct hs_state *st, struct cur *c,
                               const unsigned char *h, uint64_t len)
{
	for (L_EACH(st, l))
		if ((*l)->objarray && (*l)->objarray(st, c, h, len))
			return 1;
	return 0;
}

static inline int lay_reserve(struct hs_state *st, uint64_t len)
{
	for (L_EACH(st, l))
		if ((*l)->reserve && (*l)->reserve(st, len))
			return 1;
	return 0;
}

static inline int lay_array(struct hs_state *st, struct cur *c,
                            const unsigned char *h, uint64_t bytes)
{
	for (L_EACH(st, l))
		if ((*l)->array && (*l)->array(st, c, h, bytes))
			return 1;
	return 0;
}

static inline int lay_fields(const struct hs_state *st)
{
	for (L_EACH(st, l))
		if ((*l)->fields && (*l)->fields(st))
			return 1;
	return 0;
}

static inline int lay_record_end(struct hs_state *st, struct cur *c)
{
	for (L_EACH(st, l))
		if ((*l)->record_end && (*l)->record_end(st, c))
			return 1;
	return 0;
}

static inline int lay_record_close(struct hs_state *st)
{
	for (L_EACH(st, l))
		if ((*l)->record_close && (*l)->record_close(st))
			return 1;
	return 0;
}

static inline int lay_zeros_held(const struct hs_state *st)
{
	for (L_EACH(st, l))
		if ((*l)->zeros_held && (*l)->zeros_held(st))
			return 1;
	return 0;
}

static inline int lay_zeros_copy(const struct hs_state *st)
{
	for (L_EACH(st, l))
		if ((*l)->zeros_copy && (*l)->zeros_copy(st))
			return 1;
	return 0;
}

static inline int lay_whole_units(const struct hs_state *st)
{
	for (L_EACH(st, l))
		if ((*l)->whole_units && (*l)->whole_units(st))
			return 1;
	return 0;
}

static inline int lay_rewrite(const struct hs_state *st, uint64_t in_off,
                              size_t len)
{
	for (L_EACH(st, l))
		if ((*l)->rewrite && (*l)->rewrite(st, in_off, len))
			return 1;
	return 0;
}

static inline int lay_holds(const struct hs_state *st)
{
	for (L_EACH(st, l))
		if ((*l)->holds && (*l)->holds(st))
			return 1;
	return 0;
}

static inline int lay_finish(struct hs_state *st, struct cur *c)
{
	for (L_EACH(st, l))
		if ((*l)->finish && (*l)->finish(st, c))
			return 1;
	return 0;
}

/* The most bytes of a record body a layer reads (0: none). */
static inline uint32_t lay_reads_record(const struct hs_state *st,
                                        unsigned tag, uint32_t len)
{
	uint32_t most = 0, n;

	for (L_EACH(st, l))
		if ((*l)->reads_record &&
		    (n = (*l)->reads_record(st, tag, len)) > most)
			most = n;
	return most;
}

/* The act for a class dump's value: the first layer's that has one. */
static inline unsigned lay_value(struct hs_state *st, unsigned type)
{
	for (L_EACH(st, l))
		if ((*l)->value)
			return (*l)->value(st, type);
	return ACT_PASS;
}

/* A field read one by one (PH_IF): the layer that took the fields (one
 * layer at most has the hook: resolve_mode). */
static inline void lay_field(struct hs_state *st, const unsigned char *h)
{
	for (L_EACH(st, l))
		if ((*l)->field) {
			(*l)->field(st, h);
			return;
		}
}

/* A layer's phase: its step. */
static inline int lay_step(struct hs_state *st, struct cur *c)
{
	int r;

	for (L_EACH(st, l))
		if ((*l)->step && (r = (*l)->step(st, c)) >= 0)
			return r;
	return 0;
}

#endif
