/*
 * The names map for the tools (names.c): --redact=names writes it beside
 * the output, --unredact reads it (the format: strip/io/namesmap.h).
 */
#ifndef HPROFSTRIP_NAMES_H
#define HPROFSTRIP_NAMES_H

#include "args.h"
#include "out.h"
#include "../io/namesmap.h"

/* --redact=names: the map of the original names (namesmap.h), written
 * as the output is; --unredact: a map read. */
struct names_io {
	struct hs_names names;
	struct out mo;         /* the map written */
	int open;              /* ... is open */
	struct io_namesmap map;
	struct io_mapread rd;  /* the map read */
	char path[4096];
};

/* The map opened (its path: --names-map, or OUT.names; never the input,
 * in_fd, nor the output) or read, into cfg; -1 if it cannot be (said), -2
 * on a usage error (said). */
int names_start(const struct args *a, int in_fd, const char *out_path,
                struct names_io *n, struct hs_config *cfg);
/* A second pass: the map written again. */
int names_restart(struct names_io *n);
/* The output committed (ok) or not: the map likewise; 0, or -1 (said). */
int names_end(struct names_io *n, const struct hs_state *st, int ok);

#endif
