/*
 * splitcheck: the engine's output must not depend on where its input was
 * cut. Feeds a dump whole, then in fixed piece sizes (1 byte at a time: a
 * cut at every byte, whatever the file's size), every 2-way split in a
 * prefix, and seeded random pieces, and compares every output (and the
 * counters: arrays, objects, kept, the whole census) with the one-shot
 * output.
 *
 *   splitcheck [MODE...] [-s SEED] [-n ROUNDS] [-p PREFIX] FILE
 *       MODE: a mode's letter from the table of modes (tests/modes.tsv):
 *       -r restore, -j restore --jvm, -a restore --app-only, -A strip
 *       --app-only, -k strip keeping strings, streamed (fixed tables,
 *       hold-back), -b ... keeping bitmaps (streamed), -R strip redacting values (fresh layout tables), -N
 *       ... and names (a fixed key: the originals given are compared
 *       too), -S streamed output (segments, never a patch), -V --salvage;
 *       several together
 *       -t SLOTS with -k or -R: tables of SLOTS slots (a power of 2 under
 *          8 is too small: the engine keeps none, or knows no layout);
 *          with -R the fast path's caches at their least too (one
 *          layout, HS_FLAT_SPANS patches)
 *       -c CUT: only the first CUT bytes of FILE, a dump cut short there
 *   splitcheck -O [-s SEED] FILE
 *       JDK 8 replay at engine level: every heap record length is zeroed
 *       (the placeholder) and, once its body is fed, rewritten with
 *       hs_rewrite as the writer's seek-back patch does, its 4 bytes in
 *       seeded pieces and order; the output must equal the normal one.
 *   splitcheck -F OFFSET [-s SEED] FILE
 *       the byte at OFFSET becomes an invalid sub-record tag; with
 *       HS_FALLBACK the engine must report it there, copy the rest
 *       verbatim, and leave the top-level framing exact, for any cut.
 *   splitcheck -w FILE OUT   write the one-shot strip output (for tests)
 */
#include "cutrun.h"
#include "../strip/io/histo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char cr_prefix[] = "splitcheck: ";
const int cr_abort = 0;

static unsigned flags;

/* -N: the originals the engine gives, hashed as they come */
static uint64_t map_hash, map_bytes;

static void original(void *user, unsigned idsize, uint64_t id, uint32_t len,
                     uint32_t at, const unsigned char *text, size_t n)
{
	size_t i;

	(void)user;
	if (at == 0) {  /* the record's id and length count too */
		map_hash = (map_hash ^ id) * 0x100000001B3u;
		map_hash = (map_hash ^ (len + idsize)) * 0x100000001B3u;
	}
	for (i = 0; i < n; i++)
		map_hash = (map_hash ^ text[i]) * 0x100000001B3u;
	map_bytes += n;
}
static unsigned slots;  /* -t: keep tables of this many slots (0: the default) */

static uint64_t rng;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* -O: the heap records, whose lengths the writer rewrites (in seeded
 * pieces and order) once their body is fed */
static struct cr_rec *recs;
static size_t nrecs, recs_cap;

static uint64_t seek_back_rand(void *user, size_t i)
{
	(void)user, (void)i;
	return next_rand();
}

/* the cut points, sorted, may repeat */
struct points {
	const size_t *at;
	size_t n, i;
};

static size_t to_next_point(void *user, size_t pos, size_t left)
{
	struct points *p = user;

	while (p->i < p->n && p->at[p->i] <= pos)
		p->i++;
	return p->i < p->n && p->at[p->i] - pos < left ? p->at[p->i] - pos
	                                                : left;
}

/* FNV-1a over the histogram's text as it is written */
static int histo_out(void *user, const void *buf, size_t len)
{
	struct cr_run *r = user;
	const unsigned char *b = buf;
	size_t i;

	for (i = 0; i < len; i++)
		r->histo_hash = (r->histo_hash ^ b[i]) * 0x100000001B3u;
	r->histo_len += len;
	return 0;
}

/* HS_HISTO: fresh tables for a run; after it, its text hashed into r */
static void histo_tables(struct hs_histo *h)
{
	memset(h, 0, sizeof *h);
	h->slot_count = HS_HISTO_SLOTS;
	h->class_max = HS_HISTO_CLASSES;
	h->name_slot_count = HS_HISTO_NAME_SLOTS;
	h->names_size = HS_HISTO_NAMES;
	h->slots = calloc(h->slot_count, sizeof *h->slots);
	h->classes = calloc(h->class_max, sizeof *h->classes);
	h->name_slots = calloc(h->name_slot_count, sizeof *h->name_slots);
	h->names = calloc(1, h->names_size);
	if (!h->slots || !h->classes || !h->name_slots || !h->names) {
		perror("calloc");
		exit(2);
	}
}

static void histo_text(struct hs_histo *h, struct cr_run *r)
{
	struct io_histo_meta m = { .idsize = r->idsize, .version = r->version,
	                           .cut = r->err != 0, .cut_at = r->err_off };
	struct io_histo_row *rows = calloc(io_histo_room(h), sizeof *rows);
	size_t n;

	if (!rows) {
		perror("calloc");
		exit(2);
	}
	n = io_histo_rows(h, &m, rows);
	r->histo_hash = 0xCBF29CE484222325u;
	io_histo_write(h, &m, rows, n, 0, histo_out, r);
	free(rows);
	free(h->slots);
	free(h->classes);
	free(h->name_slots);
	free(h->names);
}

/* Feed [0,len) cut at the given points. With -O, close open records as
 * soon as their body has been fed. */
static void run(const unsigned char *in, size_t len, const size_t *cuts,
                size_t ncuts, struct cr_run *r)
{
	struct hs_config cfg = { .flags = flags };
	struct hs_keep keep;
	struct hs_redact red;
	struct hs_histo histo;
	struct hs_names names = { { 0x0123456789ABCDEFu, 0xFEDCBA9876543210u },
	                          original, NULL, NULL };
	struct points p = { cuts, ncuts, 0 };
	struct cr_open open = { recs, nrecs, 0, (size_t)-1, seek_back_rand,
	                        NULL };
	struct cr_cuts c = { to_next_point, &p,
	                     flags & HS_OPEN_LEN ? &open : NULL };

	memset(r, 0, sizeof *r);
	if (flags & (HS_KEEP_STRINGS | HS_KEEP_BITMAPS)) {  /* fresh tables */
		memset(&keep, 0, sizeof keep);
		keep.pending = calloc(HS_KEEP_PENDING, sizeof *keep.pending);
		keep.classes = calloc(HS_KEEP_CLASSES, sizeof *keep.classes);
		keep.hold = malloc(HS_KEEP_HOLD);
		if (!keep.pending || !keep.classes || !keep.hold) {
			perror("calloc");
			exit(2);
		}
		keep.pending_slots = slots ? slots : HS_KEEP_PENDING;
		keep.class_slots = slots ? slots : HS_KEEP_CLASSES;
		keep.hold_size = HS_KEEP_HOLD;
		cfg.keep = &keep;
	}
	if (flags & HS_REDACT) {  /* fresh tables for every run too */
		memset(&red, 0, sizeof red);
		red.classes = calloc(HS_REDACT_CLASSES, sizeof *red.classes);
		red.types = malloc(HS_REDACT_TYPES);
		red.gather = malloc(HS_REDACT_GATHER);
		red.fw_names = calloc(HS_REDACT_FW, sizeof *red.fw_names);
		red.fw_classes = calloc(HS_REDACT_FW, sizeof *red.fw_classes);
		red.flat = malloc(HS_REDACT_FLAT * sizeof *red.flat);
		red.patch = malloc(HS_REDACT_PATCHES * sizeof *red.patch);
		red.sized = malloc(HS_REDACT_SIZED * sizeof *red.sized);
		if (!red.classes || !red.types || !red.gather ||
		    !red.fw_names || !red.fw_classes || !red.flat ||
		    !red.patch || !red.sized) {
			perror("calloc");
			exit(2);
		}
		red.class_slots = slots ? slots : HS_REDACT_CLASSES;
		red.types_size = HS_REDACT_TYPES;
		/* -t: a tiny gather too, so that it fills */
		red.gather_size = slots ? 256 : HS_REDACT_GATHER;
		red.fw_slots = slots ? slots : HS_REDACT_FW;
		/* -t: the fast path's caches at their least too */
		red.flat_slots = slots ? 1 : HS_REDACT_FLAT;
		red.patch_slots = slots ? HS_FLAT_SPANS : HS_REDACT_PATCHES;
		red.sized_slots = HS_REDACT_SIZED;
		cfg.redact = &red;
	}
	cfg.names = &names;
	if (flags & HS_HISTO) {
		histo_tables(&histo);
		cfg.histo = &histo;
	}
	map_hash = 0xCBF29CE484222325u;
	map_bytes = 0;
	cr_run(in, len, &cfg, &c, SIZE_MAX, r);
	r->map_hash = map_hash;
	r->map_bytes = map_bytes;
	if (cfg.histo)
		histo_text(&histo, r);
	if (cfg.redact) {
		free(red.classes);
		free(red.types);
		free(red.gather);
		free(red.fw_names);
		free(red.fw_classes);
		free(red.flat);
		free(red.patch);
		free(red.sized);
	}
	if (cfg.keep) {
		free(keep.pending);
		free(keep.classes);
		free(keep.hold);
	}
}

/* compare the census too: not against the normal file's when the heap
 * records' lengths are placeholders (-O: the census reads them as written) */
static int census_too = 1;

static int same(const struct cr_run *a, const struct cr_run *b,
                const char *what)
{
	size_t i;

	if (a->err != b->err || a->err_off != b->err_off ||
	    a->fallback != b->fallback || a->fallback_off != b->fallback_off) {
		fprintf(stderr, "splitcheck: %s: error %s@%llu vs %s@%llu\n", what,
		        hs_strerror(a->err), (unsigned long long)a->err_off,
		        hs_strerror(b->err), (unsigned long long)b->err_off);
		return 0;
	}
	if (a->arrays != b->arrays || a->elem_bytes != b->elem_bytes ||
	    a->objects != b->objects || a->redacted != b->redacted ||
	    a->withheld != b->withheld || a->zeroed != b->zeroed ||
	    a->names != b->names || a->map_hash != b->map_hash ||
	    a->map_bytes != b->map_bytes ||
	    (census_too && memcmp(&a->census, &b->census, sizeof a->census)) ||
	    a->kept != b->kept || a->kept_bytes != b->kept_bytes ||
	    a->histo_hash != b->histo_hash || a->histo_len != b->histo_len) {
		fprintf(stderr, "splitcheck: %s: counters differ\n", what);
		return 0;
	}
	for (i = 0; i < a->out.len && i < b->out.len; i++)
		if (a->out.b[i] != b->out.b[i])
			break;
	if (i < a->out.len || i < b->out.len) {
		fprintf(stderr,
		        "splitcheck: %s: output differs at offset %zu "
		        "(lengths %zu, %zu)\n", what, i, a->out.len, b->out.len);
		return 0;
	}
	return 1;
}

static int check_cuts(const unsigned char *in, size_t len, const size_t *cuts,
                      size_t ncuts, const struct cr_run *want,
                      const char *what)
{
	struct cr_run got;
	int ok;

	run(in, len, cuts, ncuts, &got);
	ok = same(&got, want, what);
	free(got.out.b);
	return ok;
}

static size_t *cuts_every(size_t len, size_t piece, size_t *n)
{
	size_t k = piece ? len / piece : 0, i;
	size_t *c = malloc((k + 1) * sizeof *c);
	for (i = 0; i < k; i++)
		c[i] = (i + 1) * piece;
	*n = k;
	return c;
}

static size_t *cuts_random(size_t len, size_t *n)
{
	size_t cap = 1024, k = 0, pos = 0;
	size_t *c = malloc(cap * sizeof *c);
	while (pos < len) {
		uint64_t r = next_rand();
		/* mostly tiny pieces, some large: every boundary class gets cut */
		size_t piece = (r & 3) == 0 ? (size_t)(r >> 8) % 65536 + 1
		                            : (size_t)(r >> 8) % 17 + 1;
		if ((r & 0xF0) == 0)
			piece = 0; /* empty feeds too */
		pos += piece;
		if (pos >= len)
			break;
		if (k == cap)
			c = realloc(c, (cap *= 2) * sizeof *c);
		c[k++] = pos;
	}
	*n = k;
	return c;
}

/* Top-level framing of an output: header then records that end exactly at
 * the end of the buffer. */
static int framing_ok(const struct cr_mem *m)
{
	size_t off = 0;
	while (off < m->len && m->b[off])
		off++;
	off += 1 + 4 + 8;
	while (off + 9 <= m->len)
		off += 9 + (size_t)hs_be32(m->b + off + 5);
	return off == m->len;
}

/* The input offset where the record holding byte at ends (the file's
 * records walked from its header). */
static size_t record_end(const unsigned char *in, size_t len, size_t at)
{
	size_t off = 0;

	while (off < len && in[off])
		off++;
	off += 1 + 4 + 8;
	while (off + 9 <= len && off + 9 + (size_t)hs_be32(in + off + 5) <= at)
		off += 9 + (size_t)hs_be32(in + off + 5);
	off += 9 + (size_t)hs_be32(in + off + 5);
	return off < len ? off : len;
}

static int zeros(const unsigned char *p, size_t n)
{
	while (n && !*p)
		p++, n--;
	return n == 0;
}

static unsigned char *load(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *b;
	long n;

	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET)) {
		perror(path);
		exit(2);
	}
	b = malloc((size_t)n + 1);
	if (!b || fread(b, 1, (size_t)n, f) != (size_t)n) {
		perror(path);
		exit(2);
	}
	fclose(f);
	*len = (size_t)n;
	return b;
}

/* The modes' letters, from the table of modes (tests/modes.tsv, written
 * to $(BUILD)/modes.h by tests/modes.sh header) */
static const struct mode {
	char letter;
	unsigned flags;
	const char *name;
} modes[] = {
#define MODE(letter, flags, name) { letter, flags, name },
#include "modes.h"
#undef MODE
};

/* arg is -LETTER of a mode: its flags added to *fl, 1; else 0 */
static int mode_flags(const char *arg, unsigned *fl)
{
	size_t i;

	for (i = 0; i < sizeof modes / sizeof modes[0]; i++)
		if (arg[0] == '-' && arg[1] == modes[i].letter && !arg[2]) {
			*fl |= modes[i].flags;
			return 1;
		}
	return 0;
}

static int usage(void)
{
	size_t i;

	fprintf(stderr, "usage: splitcheck [MODE...] [-t SLOTS] [-O|-F OFF] "
	        "[-V -c CUT] [-s SEED] [-n ROUNDS] [-p PREFIX] FILE\n"
	        "       splitcheck [MODE...] -w FILE OUT\n"
	        "MODE, from tests/modes.tsv:");
	for (i = 0; i < sizeof modes / sizeof modes[0]; i++)
		fprintf(stderr, " -%c %s", modes[i].letter, modes[i].name);
	fprintf(stderr, "\n");
	return 2;
}

int main(int argc, char **argv)
{
	unsigned long long seed = 1;
	long rounds = 20, prefix = 2048, corrupt = -1, cut_at = -1;
	int i, open_mode = 0, fails = 0;
	const char *path = NULL, *write_to = NULL;
	unsigned char *in;
	size_t len, n, *c;
	struct cr_run want;
	char what[128];
	static const size_t pieces[] = { 1, 2, 3, 7, 4096, 65536, 1 << 20 };

	for (i = 1; i < argc; i++) {
		if (mode_flags(argv[i], &flags))
			;
		else if (!strcmp(argv[i], "-c") && i + 1 < argc)
			cut_at = atol(argv[++i]);
		else if (!strcmp(argv[i], "-t") && i + 1 < argc &&
		         (slots = (unsigned)atol(argv[++i])) <= HS_REDACT_CLASSES)
			;
		else if (!strcmp(argv[i], "-O"))
			open_mode = 1;
		else if (!strcmp(argv[i], "-F") && i + 1 < argc)
			corrupt = atol(argv[++i]);
		else if (!strcmp(argv[i], "-s") && i + 1 < argc)
			seed = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "-n") && i + 1 < argc)
			rounds = atol(argv[++i]);
		else if (!strcmp(argv[i], "-p") && i + 1 < argc)
			prefix = atol(argv[++i]);
		else if (!strcmp(argv[i], "-w") && i + 2 < argc) {
			path = argv[++i];
			write_to = argv[++i];
		} else if (!path)
			path = argv[i];
		else
			return usage();
	}
	if (!path) {
		fprintf(stderr, "splitcheck: no file\n");
		return 2;
	}
	in = load(path, &len);
	if (cut_at >= 0 && (size_t)cut_at < len)
		len = (size_t)cut_at;  /* a dump cut short there */
	rng = seed ? seed : 1;
	if (write_to) {
		FILE *f;
		run(in, len, NULL, 0, &want);
		f = fopen(write_to, "wb");
		if (want.err || !f || fwrite(want.out.b, 1, want.out.len, f) !=
		    want.out.len || fclose(f)) {
			fprintf(stderr, "splitcheck: %s\n", hs_strerror(want.err));
			return 1;
		}
		return 0;
	}

	if (corrupt >= 0) {
		if ((size_t)corrupt >= len)
			return fprintf(stderr, "splitcheck: -F past the end\n"), 2;
		in[corrupt] = 0x77;
		flags |= HS_FALLBACK;
	}
	run(in, len, NULL, 0, &want);
	if (open_mode) {
		/* the reference is the normal output of the real file */
		size_t r, off = 0;
		while (off < len && in[off])
			off++;
		nrecs = cr_heap_records(in, len, off + 1 + 4 + 8, &recs, &recs_cap);
		for (r = 0; r < nrecs; r++)
			memset(in + recs[r].len_off, 0, 4);
		flags |= HS_OPEN_LEN;
		census_too = 0;
		if (!check_cuts(in, len, NULL, 0, &want, "open whole"))
			return 1;
		/* the same output: the open file's census is the cuts' */
		census_too = 1;
		free(want.out.b);
		run(in, len, NULL, 0, &want);
	}
	if (want.err && corrupt < 0 && !open_mode && !(flags & HS_SALVAGE)) {
		fprintf(stderr, "splitcheck: %s: offset %llu: %s\n", path,
		        (unsigned long long)want.err_off, hs_strerror(want.err));
		return 1;
	}
	if (corrupt >= 0) {
		if (want.fallback != HS_E_SUBTAG ||
		    want.fallback_off != (uint64_t)corrupt) {
			fprintf(stderr, "splitcheck: fallback %s@%llu, expected "
			        "bad tag @%ld\n", hs_strerror(want.fallback),
			        (unsigned long long)want.fallback_off, corrupt);
			return 1;
		}
		if (!framing_ok(&want.out)) {
			fprintf(stderr, "splitcheck: fallback output framing broken\n");
			return 1;
		}
		/* redact: the rest of that heap record is zeros, and the
		 * records after it are read as usual */
		if ((flags & HS_REDACT) &&
		    !zeros(want.out.b + want.fb_out,
		           record_end(in, len, (size_t)corrupt) - (size_t)corrupt)) {
			fprintf(stderr, "splitcheck: redacted fallback: the rest "
			        "of the heap record is not zeros\n");
			return 1;
		}
		/* else everything from the bad byte on is verbatim */
		if (!(flags & HS_REDACT) && memcmp(want.out.b + want.out.len - (len - (size_t)corrupt),
		           in + corrupt, len - (size_t)corrupt)) {
			fprintf(stderr, "splitcheck: fallback tail not verbatim\n");
			return 1;
		}
	}

	for (i = 0; i < (int)(sizeof pieces / sizeof pieces[0]); i++) {
		c = cuts_every(len, pieces[i], &n);
		snprintf(what, sizeof what, "pieces of %zu", pieces[i]);
		fails += !check_cuts(in, len, c, n, &want, what);
		free(c);
	}
	for (n = 1; n < (size_t)prefix && n < len; n++) {
		snprintf(what, sizeof what, "split at %zu", n);
		if (!check_cuts(in, len, &n, 1, &want, what) && ++fails > 5)
			break;
	}
	for (i = 0; i < rounds; i++) {
		unsigned long long s = rng;
		c = cuts_random(len, &n);
		snprintf(what, sizeof what, "random pieces, seed %#llx", s);
		fails += !check_cuts(in, len, c, n, &want, what);
		free(c);
	}
	if (fails) {
		fprintf(stderr, "splitcheck: %s: %d failures (seed %llu)\n", path,
		        fails, seed);
		return 1;
	}
	printf("splitcheck: %s: ok, %zu -> %zu bytes, %llu arrays, seed %llu\n",
	       path, len, want.out.len, (unsigned long long)want.arrays, seed);
	return 0;
}
