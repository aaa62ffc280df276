/*
 * maptest: the names map's reader (strip/io/namesmap.c), hprofrestore
 * --unredact's, against a model. Maps are written here by hand (a header
 * and STRING records, 4- and 8-byte ids), loaded with io_map_load and
 * asked with io_map_rename as a dump asks: in the map's order (the next
 * record's text), out of it (the search by id), for ids it lacks, for the
 * right id with another length, an id written twice, and a map stamped
 * for another dump. Maps of 0 to 3000 records, ids dense and sparse,
 * ascending, descending and shuffled, so the search meets every boundary.
 * Bad maps give their offset.
 *
 * usage: maptest [DIR] (a scratch directory; a new one in $TMPDIR or
 * /tmp, removed at the end, by default)
 */
#include "../strip/io/namesmap.h"
#include "check.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static uint64_t rng = 0x9e3779b97f4a7c15u;
static uint64_t next_rand(void)
{
	/* Knuth's MMIX LCG: wraps on purpose (unsigned) */
	rng = rng * 6364136223846793005u + 1442695040888963407u;
	return rng >> 17;
}

struct rec { uint64_t id; char text[24]; uint32_t len; };

static void put32(FILE *f, uint32_t v)
{
	unsigned char b[4] = { (unsigned char)(v >> 24), (unsigned char)(v >> 16),
	                       (unsigned char)(v >> 8), (unsigned char)v };
	fwrite(b, 1, 4, f);
}

static void put_id(FILE *f, unsigned idsize, uint64_t id)
{
	if (idsize == 8)
		put32(f, (uint32_t)(id >> 32));
	put32(f, (uint32_t)id);
}

/* the map at path: header (idsize, time), then recs in their order */
static void write_map(const char *path, unsigned idsize, uint64_t time,
                      const struct rec *recs, size_t n)
{
	FILE *f = fopen(path, "wb");
	size_t i;

	if (!f) {
		perror(path);
		exit(2);
	}
	fwrite("JAVA PROFILE 1.0.2", 1, 19, f);
	put32(f, idsize);
	put32(f, (uint32_t)(time >> 32));
	put32(f, (uint32_t)time);
	for (i = 0; i < n; i++) {
		fputc(0x01, f);
		put32(f, 0);
		put32(f, idsize + recs[i].len);
		put_id(f, idsize, recs[i].id);
		fwrite(recs[i].text, 1, recs[i].len, f);
	}
	fclose(f);
}

/* the model: the text of id (the first record of id), or NULL */
static const struct rec *model(const struct rec *recs, size_t n, uint64_t id)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (recs[i].id == id)
			return &recs[i];
	return NULL;
}

static int same(const unsigned char *got, const struct rec *want)
{
	return got && !memcmp(got, want->text, want->len);
}

/* n records, ids by kind: 0 dense ascending, 1 sparse ascending, 2
 * descending, 3 shuffled, 4 sparse 64-bit (8-byte ids only) */
static void one_map(const char *dir, unsigned idsize, size_t n, int kind)
{
	char path[4096];
	struct rec *recs = calloc(n ? n : 1, sizeof *recs);
	size_t *order = calloc(n ? n : 1, sizeof *order);
	struct io_mapread r;
	char err[256];
	size_t i;

	for (i = 0; i < n; i++) {
		uint64_t id = kind == 0 ? i + 1 : kind == 2 ? 3 * (n - i) + 5 :
		              7 * i + 3;
		if (kind == 4)
			id = ((uint64_t)(i + 1) << 35) | (next_rand() & 0xff);
		recs[i].id = id;
		recs[i].len = (uint32_t)snprintf(recs[i].text, sizeof recs[i].text,
		                                 "name%zu-%u", i, (unsigned)(id & 0xffff));
	}
	if (kind == 3)  /* shuffled ids */
		for (i = n; i > 1; i--) {
			size_t j = next_rand() % i;
			uint64_t t = recs[i - 1].id;
			recs[i - 1].id = recs[j].id;
			recs[j].id = t;
		}
	snprintf(path, sizeof path, "%s/map-%u-%zu-%d", dir, idsize, n, kind);
	write_map(path, idsize, 1234567890123u, recs, n);
	CHECK(io_map_load(&r, path, err, sizeof err) == 0,
	      "%s: load: %s", path, err);
	CHECK(r.n == n && r.idsize == idsize, "%s: %zu records, id size %u",
	      path, r.n, r.idsize);
	/* out of order: each id once, shuffled, so the search finds each */
	for (i = 0; i < n; i++)
		order[i] = i;
	for (i = n; i > 1; i--) {
		size_t j = next_rand() % i, t = order[i - 1];
		order[i - 1] = order[j];
		order[j] = t;
	}
	for (i = 0; i < n; i++) {
		const struct rec *w = &recs[order[i]];
		CHECK(same(io_map_rename(&r, w->id, w->len), w),
		      "%s: id %#llx (record %zu) asked out of order",
		      path, (unsigned long long)w->id, order[i]);
		/* the right id with another length: nothing */
		CHECK(!io_map_rename(&r, w->id, w->len + 1),
		      "%s: id %#llx with another length", path,
		      (unsigned long long)w->id);
	}
	/* ids it lacks: below, above, and between every two */
	CHECK(!io_map_rename(&r, 0, 5), "%s: id 0", path);
	CHECK(!io_map_rename(&r, UINT64_MAX, 5), "%s: the largest id", path);
	for (i = 0; i < n; i++) {
		uint64_t id = recs[i].id + 1;
		if (!model(recs, n, id))
			CHECK(!io_map_rename(&r, id, recs[i].len),
			      "%s: id %#llx is not in it", path,
			      (unsigned long long)id);
		id = recs[i].id - 1;
		if (!model(recs, n, id))
			CHECK(!io_map_rename(&r, id, recs[i].len),
			      "%s: id %#llx is not in it", path,
			      (unsigned long long)id);
	}
	io_map_free(&r);
	/* in order, as the dump that made it asks: each in turn */
	CHECK(io_map_load(&r, path, err, sizeof err) == 0, "%s: %s", path, err);
	for (i = 0; i < n; i++) {
		/* the next record's id with another length is not it */
		CHECK(!io_map_rename(&r, recs[i].id, recs[i].len + 1),
		      "%s: record %zu's id in order, another length", path, i);
		CHECK(same(io_map_rename(&r, recs[i].id, recs[i].len), &recs[i]),
		      "%s: record %zu in order", path, i);
	}
	io_map_free(&r);
	unlink(path);
	free(recs);
	free(order);
}

/* an id written twice (a dump that names it twice): each text in turn
 * in order; the search gives one of them */
static void twice(const char *dir)
{
	char path[4096], err[256];
	struct rec recs[3] = { { 9, "first", 5 }, { 9, "again", 5 }, { 4, "four", 4 } };
	struct io_mapread r;
	const unsigned char *t;

	snprintf(path, sizeof path, "%s/twice", dir);
	write_map(path, 4, 77, recs, 3);
	CHECK(io_map_load(&r, path, err, sizeof err) == 0, "twice: %s", err);
	CHECK(same(io_map_rename(&r, 9, 5), &recs[0]), "twice: the first text first");
	CHECK(same(io_map_rename(&r, 9, 5), &recs[1]), "twice: then the second");
	CHECK(same(io_map_rename(&r, 4, 4), &recs[2]), "twice: then the third");
	t = io_map_rename(&r, 9, 5);
	CHECK(same(t, &recs[0]) || same(t, &recs[1]), "twice: by search, one of id 9's");
	io_map_free(&r);
	unlink(path);
}

/* another dump's map gives nothing back, and says so */
static void foreign(const char *dir)
{
	char path[4096], err[256];
	struct rec rec = { 5, "Customer", 8 };
	struct io_mapread r;
	uint64_t mine = 77, other = 78;

	snprintf(path, sizeof path, "%s/foreign", dir);
	write_map(path, 8, 77, &rec, 1);
	CHECK(io_map_load(&r, path, err, sizeof err) == 0, "foreign: %s", err);
	r.dump_time = &mine;
	CHECK(same(io_map_rename(&r, 5, 8), &rec) && !r.foreign, "its own dump's");
	io_map_free(&r);
	CHECK(io_map_load(&r, path, err, sizeof err) == 0, "foreign: %s", err);
	r.dump_time = &other;
	CHECK(!io_map_rename(&r, 5, 8) && r.foreign, "another dump's: nothing");
	io_map_free(&r);
	unlink(path);
}

/* bad maps: the offset of what is wrong */
static void bad(const char *dir)
{
	static const struct { const char *what; size_t cut; unsigned char tag;
	                      const char *want; } cases[] = {
		{ "header cut", 20, 1, "not a names map" },
		{ "record header cut", 31 + 4, 1, "offset 31: cut inside a record header" },
		{ "record cut", 31 + 9 + 6, 1, "offset 31: record cut short" },
		{ "not a STRING", 0, 2, "offset 31: not a STRING record" },
	};
	struct rec rec = { 5, "Customer", 8 };
	char path[4096], err[256];
	struct io_mapread r;
	size_t i;

	for (i = 0; i < sizeof cases / sizeof *cases; i++) {
		FILE *f;
		long size;
		snprintf(path, sizeof path, "%s/bad%zu", dir, i);
		write_map(path, 4, 1, &rec, 1);
		f = fopen(path, "r+b");
		fseek(f, 0, SEEK_END);
		size = ftell(f);
		if (cases[i].tag != 1) {
			fseek(f, 31, SEEK_SET);
			fputc(cases[i].tag, f);
		}
		fclose(f);
		if (cases[i].cut && truncate(path, (off_t)cases[i].cut))
			perror(path);
		err[0] = 0;
		CHECK(io_map_load(&r, path, err, sizeof err) == -1 &&
		      strstr(err, cases[i].want),
		      "%s (%ld bytes): \"%s\", not \"%s\"", cases[i].what, size,
		      err, cases[i].want);
		io_map_free(&r);
		unlink(path);
	}
	/* a map of an id size other than 4 or 8 */
	snprintf(path, sizeof path, "%s/idsize", dir);
	write_map(path, 2, 1, NULL, 0);
	CHECK(io_map_load(&r, path, err, sizeof err) == -1 &&
	      strstr(err, "identifier size"), "id size 2: %s", err);
	io_map_free(&r);
	unlink(path);
}

int main(int argc, char **argv)
{
	static const size_t sizes[] = { 0, 1, 2, 3, 4, 7, 8, 9, 15, 16, 17,
	                                 100, 1023, 1024, 1025, 3000 };
	char tmp[4096];
	const char *dir = argc > 1 ? argv[1] : NULL;
	size_t s;
	int kind;

	if (argc > 2) {
		fprintf(stderr, "usage: maptest [DIR]\n");
		return 2;
	}
	if (!dir) {
		const char *t = getenv("TMPDIR");
		snprintf(tmp, sizeof tmp, "%s/maptest.XXXXXX", t && *t ? t : "/tmp");
		if (!(dir = mkdtemp(tmp))) {
			perror(tmp);
			return 2;
		}
	}
	for (s = 0; s < sizeof sizes / sizeof *sizes; s++)
		for (kind = 0; kind < 5; kind++) {
			one_map(dir, 8, sizes[s], kind);
			if (kind < 4)
				one_map(dir, 4, sizes[s], kind);
		}
	twice(dir);
	foreign(dir);
	bad(dir);
	if (dir == tmp)
		rmdir(tmp);
	return check_done("maptest");
}
