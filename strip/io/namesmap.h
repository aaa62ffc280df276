/*
 * The names map of a dump redacted with names (HS_REDACT_NAMES): the
 * original text of every STRING record that became a token. It is an
 * HPROF file of its own, a header and those STRING records as they were,
 * so any HPROF reader lists it, and hprofrestore --unredact MAP puts the
 * names back. The shim and hprofstrip write it (through an io_outbuf,
 * beside the dump or where asked); hprofrestore reads it.
 */
#ifndef HPROFSTRIP_NAMESMAP_H
#define HPROFSTRIP_NAMESMAP_H

#include "outbuf.h"

#include <stddef.h>
#include <stdint.h>

/* Writing: the records go to ob, the header before the first. */
struct io_namesmap {
	struct io_outbuf *ob;  /* the map's buffer, the caller's */
	int started;           /* the header went out */
	uint64_t names;        /* records begun */
	uint64_t rec_start;    /* where the last record begins */
	uint32_t rec_left;     /* ... its text bytes still to come */
};

/* hs_names.original, user a struct io_namesmap. */
void io_map_original(void *user, unsigned idsize, uint64_t id, uint32_t len,
                     uint32_t at, const unsigned char *text, size_t n);
/* The header, if no record came (idsize: the dump's), and the dump's time
 * stamp in it (so hprofrestore can tell a map of another dump). A dump cut
 * inside a STRING text leaves its record cut in the map too: the offset
 * to cut the map at, to end it after the last whole record, is returned
 * (the buffer is cut already, the file is the caller's); else
 * UINT64_MAX. */
uint64_t io_map_end(struct io_namesmap *m, unsigned idsize, uint64_t time);

/* Reading (hprofrestore): the map held whole, its records in their order
 * (the dump's), and by id. */
struct io_mapread {
	unsigned char *buf;    /* the file */
	size_t size;
	unsigned idsize;
	struct io_mapent { uint64_t id; size_t off; uint32_t len; } *ent;
	size_t *by_id;         /* indices into ent, sorted by id */
	size_t n;
	size_t next;           /* the record the dump's next token should be */
	uint64_t time;         /* its header's time stamp: the dump's */
	const uint64_t *dump_time; /* the dump's, when renaming (NULL: not
	                          checked) */
	int foreign;           /* they differ: nothing was given back */
};

/* Reads the map at path: 0, or -1 with a message in err (the offset of
 * what is wrong in it, or errno's words). */
int io_map_load(struct io_mapread *r, const char *path, char *err,
                size_t errlen);
/* hs_names.rename, user a struct io_mapread: the original text of id, if
 * it is len bytes long: the map's next record's when it is that id (so an
 * id a dump names twice gets each text back in turn), else any of id's.
 * None if the map is another dump's (r->foreign). */
const unsigned char *io_map_rename(void *user, uint64_t id, uint32_t len);
void io_map_free(struct io_mapread *r);

/* A key for the tokens: v (HPROFSTRIP_NAMES_KEY, 32 hex digits) when set
 * and valid (then 1), else random (0); -1: v is set but not 32 hex digits
 * (a random key is in key all the same). */
int io_names_key(const char *v, uint64_t key[2]);

#endif
