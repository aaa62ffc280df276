/*
 * --keep-strings and --keep-bitmaps for the tools: the memory the engine
 * is given, and, on a seekable input, the exact mode (pass 1 collects
 * every String's value id and bitmap's array ids, pass 2 keeps exactly
 * those arrays; bitmaps: pass 1 once more, knowing the DumpData.buffers
 * ids, when such an array came before its DumpData).
 */
#ifndef HPROFSTRIP_KEEPSET_H
#define HPROFSTRIP_KEEPSET_H

#include "../engine/hprof.h"

struct keepset {
	struct hs_keep tables; /* the engine's, for hs_config.keep */
	uint64_t *ids;         /* exact: the value ids, sorted, unique */
	size_t n, cap;
	uint64_t *known;       /* exact, bitmaps: the previous pass 1's ids,
	                          sorted, unique (has, for object arrays) */
	size_t nknown;
	int exact, oom;
	uint64_t strings;      /* exact: String instances pass 1 read */
	uint64_t bitmaps, bitmap_refs; /* ... Bitmap and DumpData instances,
	                          and the array ids they gave */
	unsigned passes;       /* exact: the passes 1 */
};

/* Streaming: a fixed pending table, class table and hold-back buffer
 * (HS_KEEP_*). -1: out of memory. */
int keepset_stream(struct keepset *k);
/* Exact: pass 1 over fd (a regular file, read from its offset, and left
 * there). pass feeds the whole input into st, from fd's offset (a
 * compressed file decompressed again), and finishes it: 0, or -1 on a
 * read error (errno). -1: out of memory or a read error; a dump the
 * engine rejects is left for pass 2 to report. */
int keepset_exact(struct keepset *k, int fd, unsigned flags,
                  int (*pass)(void *user, struct hs_state *st), void *user);
/* The memory pass 1's ids take, or the streaming tables. */
size_t keepset_bytes(const struct keepset *k);
void keepset_free(struct keepset *k);

#endif
