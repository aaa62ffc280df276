/*
 * hprofstrip --histo: the class histogram of a dump (the engine's
 * HS_HISTO counts it, strip/io/histo.h sorts and prints it), and
 * --baseline OLD: the change per class between two histograms, each of a
 * dump or read back from a .histo file (histoload.c).
 */
#ifndef HPROFSTRIP_CLI_HISTO_H
#define HPROFSTRIP_CLI_HISTO_H

#include "../io/histo.h"

#include <stddef.h>
#include <stdint.h>

/* One dump's histogram: the engine's tables (heap memory, zeroed), what
 * the counts are of, and the sorted rows. */
struct histo {
	struct hs_histo h;
	struct io_histo_meta m;
	struct io_histo_row *rows;
	size_t count;
};

/* The tables at the tools' sizes (histo.h: HS_HISTO_SLOTS ...), zeroed,
 * for hs_config.histo. -1 (errno) if they cannot be had. */
int histo_alloc(struct histo *t);
/* After the engine ran over the dump (st: its state; cut: the dump was
 * cut at st->in_off and salvaged): the meta and the sorted rows. -1
 * (errno) if there is no memory for them. */
int histo_rows(struct histo *t, const struct hs_state *st, int cut);
void histo_free(struct histo *t);

/* A class's counts in a histogram read by name (a class name in jmap's
 * form, one row per name: same-named classes summed). */
struct histo_class {
	size_t name;           /* offset of its NUL-ended name in pool */
	uint64_t n, bytes;     /* instances, shallow bytes */
};

/* A histogram by class name, sorted by name: one side of --baseline. */
struct histo_list {
	struct histo_class *c;
	size_t count, cap;
	char *pool;            /* the names */
	size_t used, size;
	int cut;               /* its dump was cut (a note, "cut") ... */
	uint64_t cut_at;       /* ... at this byte */
	int jmap;              /* jmap -histo's text: its bytes are the
	                          JVM's object sizes, not a dump's */
};

/* The rows of t by name. -1 (errno) without memory. */
int histo_list_of(struct histo_list *l, const struct histo *t);
/* A row (a name of len bytes) added to l; then histo_list_end sorts the
 * rows by name and sums the rows of one name into one. -1 (errno)
 * without memory. */
int histo_list_add(struct histo_list *l, const char *name, size_t len,
                   uint64_t n, uint64_t bytes);
void histo_list_end(struct histo_list *l);
/* A histogram's text (len bytes at text, then a NUL): this tool's jmap
 * layout (the header gives the heap columns, a Total row must end the
 * rows and equal their sums), jmap -histo's own (JDK 9+: each name
 * followed by its module; l->jmap) or this tool's --json. -1 with why (size bytes)
 * saying where and what is wrong. */
int histo_list_parse(struct histo_list *l, const char *text, size_t len,
                     char *why, size_t size);
void histo_list_free(struct histo_list *l);

/* Does a file that starts with these n bytes look like a histogram's
 * text (its header line or '{')? */
int histo_text_head(const unsigned char *head, size_t n);

/* The change from old (named old_name) to now, one row per class in
 * either, sorted by the change in bytes, largest growth first (then by
 * the change in instances, then by name; old jmap -histo's: by the
 * change in instances first, bytes being another measure there), then a Total row and notes
 * ('#': a cut side); json: one JSON object. Through out(user, buf, len),
 * which returns 0 on success; returns its first non-zero return, or -1
 * (ENOMEM). */
int histo_diff_write(const struct histo_list *old, const char *old_name,
                     const struct histo_list *now, int json,
                     int (*out)(void *user, const void *buf, size_t len),
                     void *user);

#endif
