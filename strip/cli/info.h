/* hprofstrip --info: a census of a dump, stripped or not. */
#ifndef HPROFSTRIP_INFO_H
#define HPROFSTRIP_INFO_H

#include "../engine/hprof.h"

#include <stddef.h>
#include <stdio.h>

struct info {
	const char *in_name;   /* for the report */
	int json;              /* one JSON object instead of text */
	struct hs_state st;    /* feed it, then print */
	struct hs_census census;
};

/* The engine with a census and a sink that discards its output; flags:
 * HS_SALVAGE or 0. */
void info_start(struct info *in, const char *name, int json, unsigned flags);
/* A sink that takes everything and keeps nothing (a census, a pass that
 * only reads). */
extern const struct hs_sink info_discard;
/* The census on f; -1 if writing it failed. */
int info_print(const struct info *in, FILE *f);

/* The same census and report (on stdout, no message on stderr) of an
 * in-memory dump, for the fuzz target. Returns the exit code. */
int info_mem(const char *name, const void *buf, size_t len, int json);

#endif
