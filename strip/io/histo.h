/*
 * The class histogram's rows and their text, for both front ends: the
 * shim's <dump>.histo and hprofstrip --histo print the same bytes from
 * the same counts (the engine's struct hs_histo, strip/engine/histo.h).
 *
 * The text is jmap -histo's layout (JDK 8's header, no module column):
 *
 *    num     #instances         #bytes  class name
 *   ----------------------------------------------
 *      1:          5474         401696  [B
 *      2:          4907         117768  java.lang.String
 *   Total         10381         519464
 *
 * one row per class with objects, sorted by bytes, then as jmap sorts
 * names (array classes first, then strcmp), then by class id; names in
 * jmap's form (java.lang.String, [B, [Ljava.lang.Object;, HotSpot's
 * hidden classes' /0x...; ART's byte[] and java.lang.String[] become [B
 * and [Ljava.lang.String;). Bytes are the dump's shallow sizes: an
 * instance is its CLASS_DUMP's instance size (its field bytes when no
 * class dump came), an array its length x element size (x id size for
 * object arrays), each plus one id size for the object's header. An
 * Android (1.0.3) dump gets one column of bytes per heap with objects
 * (app, zygote, image, default...), before the name. Lines starting
 * with '#' after the Total say what the counts lack: a dump that was
 * cut, classes past the table (their objects in one <other classes>
 * row), names not kept. --json gives the same, as one JSON object.
 *
 * No allocation: the rows are the caller's memory (io_histo_rows).
 */
#ifndef HPROFSTRIP_IO_HISTO_H
#define HPROFSTRIP_IO_HISTO_H

#include "../engine/hprof.h"

/* What the counts are of. */
struct io_histo_meta {
	unsigned idsize;           /* 4 or 8 */
	char version;              /* '1', '2', '3' (the header's) */
	int cut;                   /* the dump ends inside a record, or could
	                              not be read past an offset: the counts
	                              are of what came before */
	uint64_t cut_at;           /* ... that offset */
	const char *dump;          /* the dump's file name, for a note that
	                              names it and its header's stamp (the
	                              shim's .histo); NULL: none */
	uint64_t stamp;            /* ... its stamp, ms since 1970 */
	uint64_t dumps;            /* heap dumps in the file (the hprof
	                              agent's hold two): more than 1, the
	                              counts are their sum, and a note says
	                              so; 0: not counted */
};

/* The note: "# dump: NAME, stamped MS (ISO time)"; histo_stamp_of finds
 * it in a histogram's text (len bytes at text): 1 and *name (at most size
 * bytes, NUL-ended), *stamp, or 0. */
#define IO_HISTO_STAMP_NOTE "# dump: "
int io_histo_stamp_of(const char *text, size_t len, char *name, size_t size,
                      uint64_t *stamp);

/* A row: a class, a primitive array type or the classes past the table. */
struct io_histo_row {
	uint64_t n, bytes;         /* objects, shallow bytes */
	uint32_t what;             /* IO_HISTO_CLASS + index in classes,
	                              IO_HISTO_PRIM + type, IO_HISTO_OTHER */
};
#define IO_HISTO_CLASS 0u
#define IO_HISTO_PRIM 0x80000000u
#define IO_HISTO_OTHER 0xFFFFFFFFu

/* The rows io_histo_rows may fill: one per class, primitive type and
 * other. */
size_t io_histo_room(const struct hs_histo *h);

/* Fills rows (io_histo_room of them) with every row that has objects,
 * sorted; returns how many. */
size_t io_histo_rows(const struct hs_histo *h, const struct io_histo_meta *m,
                     struct io_histo_row *rows);

/* A row's name in jmap's form into buf (IO_HISTO_NAME_BUF bytes),
 * NUL-ended; returns its length. */
#define IO_HISTO_NAME_BUF (2 * HS_HISTO_NAME_MAX + 64)
size_t io_histo_name(const struct hs_histo *h, const struct io_histo_row *r,
                     char *buf);

/* A row's objects and bytes in one heap (HS_HEAP_*). */
void io_histo_heap(const struct hs_histo *h, const struct io_histo_meta *m,
                   const struct io_histo_row *r, unsigned heap,
                   uint64_t *n, uint64_t *bytes);

/* The histogram's text (json: the JSON form) through out(user, buf, len),
 * which returns 0 on success; returns out's first non-zero return. */
int io_histo_write(const struct hs_histo *h, const struct io_histo_meta *m,
                   const struct io_histo_row *rows, size_t count, int json,
                   int (*out)(void *user, const void *buf, size_t len),
                   void *user);

/* The k largest rows for a one-line summary, "[B 61.0%, java.lang.String
 * 12.5%, ..." (percent of all bytes, one decimal), and, when none of them
 * is an application's class, "; top application class: com.acme.Cache
 * 3.3 MB (0.1%)", into buf (size bytes, NUL-ended, cut to fit); returns
 * its length. */
size_t io_histo_top(const struct hs_histo *h, const struct io_histo_row *rows,
                    size_t count, unsigned k, char *buf, size_t size);

#endif
