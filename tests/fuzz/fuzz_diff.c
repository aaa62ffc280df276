/*
 * libFuzzer target: the old engine (commit OLD_REV in tests/fuzz/fuzz.mk,
 * before issue 28's refactor) against the new one, linked into one binary
 * (diff.h). On every input, in every mode below, both run over the same
 * bytes cut at the same points, and must give the same output bytes, the
 * same error and offset, fallback, and counters (arrays, elem_bytes,
 * records, kept, objects, redacted, withheld, zeroed, names, the census),
 * the same ids to keep's exact pass 1 and the same originals to redact
 * names' callback.
 *
 * Input: flags (bit 0: every run in one piece), 3 seed bytes for the
 * piece sizes (each mode cuts with the seed xor its own salt), the dump.
 * Runs over the dump: the table below. Over the new strip's output: the
 * restores, and HS_NO_HEADER over its records; over the values level's
 * output: HS_UNREDACT with the names given back.
 */
#include "common.h"
#include "diff.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RESTORE_SLACK (16u << 20)

enum room { ROOM_N, ROOM_2N, ROOM_RESTORE };

struct mode {
	const char *name;
	unsigned flags;
	enum df_tables tables;
	enum room room;
};

static const struct mode over_dump[] = {
	{ "strip", 0, DF_NONE, ROOM_N },
	{ "stream", HS_STREAM, DF_NONE, ROOM_2N },
	{ "fallback", HS_FALLBACK, DF_NONE, ROOM_N },
	{ "stream fallback", HS_STREAM | HS_FALLBACK, DF_NONE, ROOM_2N },
	{ "restore", HS_RESTORE, DF_NONE, ROOM_RESTORE },
	{ "restore jvm", HS_RESTORE | HS_JVM, DF_NONE, ROOM_RESTORE },
	{ "restore app-only", HS_RESTORE | HS_APP_ONLY, DF_NONE, ROOM_RESTORE },
	{ "restore jvm app-only", HS_RESTORE | HS_JVM | HS_APP_ONLY, DF_NONE,
	  ROOM_RESTORE },
	{ "restore fallback", HS_RESTORE | HS_FALLBACK, DF_NONE, ROOM_RESTORE },
	{ "app-only", HS_APP_ONLY, DF_NONE, ROOM_N },
	{ "app-only stream", HS_APP_ONLY | HS_STREAM, DF_NONE, ROOM_2N },
	{ "app-only fallback", HS_APP_ONLY | HS_FALLBACK, DF_NONE, ROOM_2N },
	{ "app-only stream fallback", HS_APP_ONLY | HS_STREAM | HS_FALLBACK,
	  DF_NONE, ROOM_2N },
	{ "app-only keep", HS_APP_ONLY | HS_KEEP_STRINGS, DF_KEEP_TINY, ROOM_N },
	{ "keep", HS_KEEP_STRINGS, DF_KEEP_TINY, ROOM_N },
	{ "keep fallback", HS_KEEP_STRINGS | HS_FALLBACK, DF_KEEP_TINY, ROOM_N },
	{ "keep stream", HS_KEEP_STRINGS | HS_STREAM, DF_KEEP_TINY, ROOM_2N },
	{ "salvage", HS_SALVAGE, DF_NONE, ROOM_2N },
	{ "salvage stream", HS_SALVAGE | HS_STREAM, DF_NONE, ROOM_2N },
	{ "salvage fallback", HS_SALVAGE | HS_FALLBACK, DF_NONE, ROOM_2N },
	{ "redact", HS_REDACT, DF_REDACT_ROOMY, ROOM_N },
	{ "redact tiny", HS_REDACT, DF_REDACT_TINY, ROOM_N },
	{ "redact stream", HS_REDACT | HS_STREAM, DF_REDACT_ROOMY, ROOM_2N },
	{ "redact tiny stream", HS_REDACT | HS_STREAM, DF_REDACT_TINY, ROOM_2N },
	{ "redact fallback", HS_REDACT | HS_FALLBACK, DF_REDACT_ROOMY, ROOM_N },
	{ "redact tiny fallback", HS_REDACT | HS_FALLBACK, DF_REDACT_TINY,
	  ROOM_N },
	{ "redact stream fallback", HS_REDACT | HS_STREAM | HS_FALLBACK,
	  DF_REDACT_ROOMY, ROOM_2N },
	{ "redact salvage", HS_REDACT | HS_SALVAGE, DF_REDACT_ROOMY, ROOM_2N },
	{ "redact app-only", HS_REDACT | HS_APP_ONLY, DF_REDACT_ROOMY, ROOM_N },
};

/* over the new strip's output */
static const struct mode over_strip[] = {
	{ "restore(strip)", HS_RESTORE, DF_NONE, ROOM_RESTORE },
	{ "restore jvm(strip)", HS_RESTORE | HS_JVM, DF_NONE, ROOM_RESTORE },
	{ "restore app-only(strip)", HS_RESTORE | HS_APP_ONLY, DF_NONE,
	  ROOM_RESTORE },
	{ "restore jvm app-only(strip)", HS_RESTORE | HS_JVM | HS_APP_ONLY,
	  DF_NONE, ROOM_RESTORE },
	{ "strip(strip)", 0, DF_NONE, ROOM_N },
};

static const char *mode_name;

/* the first difference of the two runs, or none */
static void same_counter(const char *what, uint64_t a, uint64_t b)
{
	if (a != b)
		fz_fail("diff %s: %s old %llu, new %llu", mode_name, what,
		        (unsigned long long)a, (unsigned long long)b);
}

static void same_runs(const struct df_out *a, const struct df_out *b)
{
	char what[128];

	if (a->err != b->err || a->err_off != b->err_off)
		fz_fail("diff %s: error old %s at %llu, new %s at %llu", mode_name,
		        a->errname, (unsigned long long)a->err_off, b->errname,
		        (unsigned long long)b->err_off);
	same_counter("fallback", (uint64_t)a->fallback, (uint64_t)b->fallback);
	same_counter("fallback_off", a->fallback_off, b->fallback_off);
	same_counter("fb_in", a->fb_in, b->fb_in);
	same_counter("fb_out", a->fb_out, b->fb_out);
	same_counter("over the limit", (uint64_t)a->over, (uint64_t)b->over);
	same_counter("in_off", a->in_off, b->in_off);
	same_counter("out_off", a->out_off, b->out_off);
	same_counter("arrays", a->arrays, b->arrays);
	same_counter("elem_bytes", a->elem_bytes, b->elem_bytes);
	same_counter("records", a->records, b->records);
	same_counter("kept", a->kept, b->kept);
	same_counter("kept_bytes", a->kept_bytes, b->kept_bytes);
	same_counter("objects", a->objects, b->objects);
	same_counter("redacted", a->redacted, b->redacted);
	same_counter("withheld", a->withheld, b->withheld);
	same_counter("zeroed", a->zeroed, b->zeroed);
	same_counter("names", a->names, b->names);
	same_counter("census hash", a->census, b->census);
	same_counter("idsize", a->idsize, b->idsize);
	same_counter("version", (uint64_t)a->version, (uint64_t)b->version);
	snprintf(what, sizeof what, "diff %s, old vs new", mode_name);
	fz_same_bytes(a->b, a->len, b->b, b->len, what);
}

/* q set for mode m over in[0,len): its flags, tables and output room */
static void aim(const struct mode *m, struct df_req *q,
                const unsigned char *in, size_t len)
{
	static const uint32_t room_slack[] = { 0, 64, RESTORE_SLACK };

	mode_name = m->name;
	q->in = in;
	q->len = len;
	q->flags = m->flags;
	q->tables = m->tables;
	q->limit = (m->room == ROOM_2N ? 2 * len : len) + room_slack[m->room];
}

/* both engines in mode m over in[0,len); the new one's run in *nw */
static void both(const struct mode *m, struct df_req *q,
                 const unsigned char *in, size_t len, uint32_t seed,
                 struct df_out *nw)
{
	struct df_out od;

	aim(m, q, in, len);
	/* a salt per mode name's length and flags; seed 0 stays one piece */
	q->seed = seed ? (seed ^ (m->flags * 0x9E37u + (uint32_t)strlen(m->name)))
	                 & 0xFFFFFF : 0;
	if (seed && !q->seed)
		q->seed = 1;
	old_df_run(q, &od);
	df_run(q, nw);
	same_runs(&od, nw);
}

/* A copy of a run's output, for the runs over it. */
struct held {
	unsigned char *b;
	size_t len, cap;
};

static void hold(struct held *h, const struct df_out *o)
{
	if (o->len > h->cap) {
		free(h->b);
		h->cap = o->len;
		if (!(h->b = malloc(h->cap)))
			fz_fail("out of memory");
	}
	if (o->len)
		memcpy(h->b, o->b, o->len);
	h->len = o->len;
}

/* keep exact, pass 1: the ids each engine gives found() */
struct ids {
	uint64_t id[4096];
	size_t n;
	int over;
};

static struct ids ids_old, ids_new;

static void found(void *user, uint64_t id)
{
	struct ids *s = user;

	if (s->n < sizeof s->id / sizeof *s->id)
		s->id[s->n++] = id;
	else
		s->over = 1;
}

static int has(void *user, uint64_t id)
{
	const struct ids *s = user;
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->id[i] == id)
			return 1;
	return 0;
}

/* The old engine's callbacks get the old list as user, the new one's the
 * new: both() gives one user to both, so pass 1 runs each side apart. */
static void check_keep_exact(const unsigned char *x, size_t n, uint32_t seed)
{
	static const struct mode pass1 = { "keep exact pass 1", HS_KEEP_STRINGS,
	                                   DF_KEEP_FOUND, ROOM_N };
	static const struct mode pass2 = { "keep exact pass 2", HS_KEEP_STRINGS,
	                                   DF_KEEP_HAS, ROOM_N };
	struct df_req q = { .found = found, .has = has };
	struct df_out od, nw;
	size_t i;

	aim(&pass1, &q, x, n);
	ids_old.n = ids_new.n = 0;
	ids_old.over = ids_new.over = 0;
	q.user = &ids_old;
	old_df_run(&q, &od);
	q.user = &ids_new;
	df_run(&q, &nw);
	same_runs(&od, &nw);
	same_counter("ids found", ids_old.n, ids_new.n);
	for (i = 0; i < ids_new.n; i++)
		if (ids_old.id[i] != ids_new.id[i])
			fz_fail("diff %s: id %zu found: old %llx, new %llx",
			        mode_name, i, (unsigned long long)ids_old.id[i],
			        (unsigned long long)ids_new.id[i]);
	if (ids_new.over)
		return;
	q.user = &ids_new;
	both(&pass2, &q, x, n, seed, &nw);
}

/* redact names: the originals each engine gives, hashed, and the new
 * one's held (as hprofrestore's map, the last text of an id) for the
 * names given back */
struct map {
	uint64_t hash;
	unsigned char text[1u << 20];
	struct { uint64_t id; uint32_t off, len; } ent[4096];
	size_t n, used, next;
	int over;
};

static struct map map_old, map_new;

static void map_reset(struct map *m)
{
	m->n = m->used = m->next = 0;
	m->over = 0;
	m->hash = 0xCBF29CE484222325u;
}

static void original(void *user, unsigned idsize, uint64_t id, uint32_t len,
                     uint32_t at, const unsigned char *text, size_t n)
{
	struct map *m = user;
	size_t i;

	m->hash = (m->hash ^ idsize ^ id ^ (uint64_t)len << 32 ^ at) *
	          0x100000001B3u;
	for (i = 0; i < n; i++)
		m->hash = (m->hash ^ text[i]) * 0x100000001B3u;
	if (at == 0) {
		if (m->n == sizeof m->ent / sizeof m->ent[0] ||
		    len > sizeof m->text - m->used) {
			m->over = 1;
			return;
		}
		m->ent[m->n].id = id;
		m->ent[m->n].off = (uint32_t)m->used;
		m->ent[m->n].len = len;
		m->n++;
		m->used += len;
	}
	if (!m->over && m->n && at + n <= m->ent[m->n - 1].len)
		memcpy(m->text + m->ent[m->n - 1].off + at, text, n);
}

/* the next record in turn (an id named twice gets each text back), else
 * the last of that id */
static const unsigned char *rename_id(void *user, uint64_t id, uint32_t len)
{
	struct map *m = user;
	size_t i = m->n;

	if (m->next < m->n && m->ent[m->next].id == id &&
	    m->ent[m->next].len == len)
		return m->text + m->ent[m->next++].off;
	while (i--)
		if (m->ent[i].id == id)
			return m->ent[i].len == len ? m->text + m->ent[i].off : NULL;
	return NULL;
}

static void check_names(const unsigned char *x, size_t n, uint32_t seed)
{
	static const struct mode values = { "redact values", HS_REDACT,
	                                    DF_REDACT_ROOMY, ROOM_N };
	static const struct mode names = { "redact names",
	                                   HS_REDACT | HS_REDACT_NAMES,
	                                   DF_REDACT_ROOMY, ROOM_N };
	static const struct mode unredact = { "unredact(redact values)",
	                                      HS_RESTORE | HS_UNREDACT, DF_NONE,
	                                      ROOM_RESTORE };
	static struct held v;
	struct df_req q = { .original = original, .rename = rename_id };
	struct df_out od, nw;

	q.key[0] = seed | (uint64_t)seed << 32;
	q.key[1] = ~q.key[0];
	aim(&names, &q, x, n);
	q.seed = seed ^ 0x4E4E4E;
	map_reset(&map_old);
	map_reset(&map_new);
	q.user = &map_old;
	old_df_run(&q, &od);
	q.user = &map_new;
	df_run(&q, &nw);
	same_runs(&od, &nw);
	same_counter("originals' hash", map_old.hash, map_new.hash);
	if (map_new.over)
		return;
	q.original = NULL;
	q.user = NULL;
	both(&values, &q, x, n, seed, &nw);
	if (nw.err)
		return;
	hold(&v, &nw);
	/* each side given back the same texts, from the map's start */
	q.rename = rename_id;
	q.user = &map_new;
	map_new.next = 0;
	aim(&unredact, &q, v.b, v.len);
	q.seed = seed ^ 0x5E5E5E;
	old_df_run(&q, &od);
	map_new.next = 0;
	df_run(&q, &nw);
	same_runs(&od, &nw);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	static struct held a;
	const unsigned char *x;
	size_t n, i, h;
	unsigned fl;
	uint32_t seed;
	struct df_req q;
	struct df_out nw;
	unsigned idsize = 0;

	if (!fz_input(data, size, &x, &n, &fl, &seed))
		return 0;
	if (fl & 1)
		seed = 0;
	for (i = 0; i < sizeof over_dump / sizeof *over_dump; i++) {
		memset(&q, 0, sizeof q);
		both(&over_dump[i], &q, x, n, seed, &nw);
		if (i == 0) {
			hold(&a, &nw);
			idsize = nw.idsize;
			if (nw.err)
				a.len = 0;
		}
	}
	check_keep_exact(x, n, seed);
	check_names(x, n, seed);
	if (!a.len)
		return 0;
	for (i = 0; i < sizeof over_strip / sizeof *over_strip; i++) {
		memset(&q, 0, sizeof q);
		both(&over_strip[i], &q, a.b, a.len, seed, &nw);
	}
	/* the records alone, as a JDK 22 .pN file */
	h = fz_header_len(a.b, a.len);
	memset(&q, 0, sizeof q);
	q.idsize = idsize;
	{
		static const struct mode nh = { "no-header(strip)", HS_NO_HEADER,
		                                DF_NONE, ROOM_N };
		both(&nh, &q, a.b + h, a.len - h, seed, &nw);
	}
	return 0;
}
