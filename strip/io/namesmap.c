/* The names map: see namesmap.h. */
#include "namesmap.h"
#include "../engine/hprof.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MAP_HEADER "JAVA PROFILE 1.0.2"

static void put_id(unsigned char *p, unsigned idsize, uint64_t id)
{
	if (idsize == 8) {
		hs_put_be32(p, (uint32_t)(id >> 32));
		p += 4;
	}
	hs_put_be32(p, (uint32_t)id);
}

static void header(struct io_namesmap *m, unsigned idsize)
{
	unsigned char h[sizeof MAP_HEADER + 12] = MAP_HEADER;

	hs_put_be32(h + sizeof MAP_HEADER, idsize);
	/* the time stamp is the dump's, patched in at the end */
	io_ob_write(m->ob, h, sizeof h);
	m->started = 1;
}

void io_map_original(void *user, unsigned idsize, uint64_t id, uint32_t len,
                     uint32_t at, const unsigned char *text, size_t n)
{
	struct io_namesmap *m = user;
	unsigned char r[9 + 8] = { HS_REC_STRING };

	if (!m->started)
		header(m, idsize);
	if (at == 0) {  /* a record begins: tag, time 0, length, id */
		m->rec_start = io_ob_size(m->ob);
		m->rec_left = len;
		hs_put_be32(r + 5, idsize + len);
		put_id(r + 9, idsize, id);
		io_ob_write(m->ob, r, 9 + idsize);
		m->names++;
	}
	io_ob_write(m->ob, text, n);
	m->rec_left -= n < m->rec_left ? (uint32_t)n : m->rec_left;
}

uint64_t io_map_end(struct io_namesmap *m, unsigned idsize, uint64_t time)
{
	unsigned char t[8];

	if (!m->started)
		header(m, idsize ? idsize : 8);
	hs_put_be32(t, (uint32_t)(time >> 32));
	hs_put_be32(t + 4, (uint32_t)time);
	io_ob_patch(m->ob, sizeof MAP_HEADER + 4, t, sizeof t);
	if (!m->rec_left)
		return UINT64_MAX;
	io_ob_truncate(m->ob, m->rec_start);
	m->rec_left = 0;
	m->names--;
	return m->rec_start;
}

/* ---- reading ------------------------------------------------------------ */

/* qsort has no user pointer: the entries being sorted by, for by_id */
static const struct io_mapent *sorting;

static int by_id(const void *a, const void *b)
{
	const struct io_mapent *x = &sorting[*(const size_t *)a];
	const struct io_mapent *y = &sorting[*(const size_t *)b];
	return x->id < y->id ? -1 : x->id > y->id;
}

static int bad(char *err, size_t errlen, size_t off, const char *what)
{
	snprintf(err, errlen, "offset %zu: %s", off, what);
	return -1;
}

/* The records of the map in r->buf, after the header at off: STRING
 * records only, none cut. */
static int index_records(struct io_mapread *r, size_t off, char *err,
                         size_t errlen)
{
	size_t cap = 0, p;
	unsigned id = r->idsize;

	for (p = off; p < r->size;) {
		uint32_t len;
		if (r->size - p < 9)
			return bad(err, errlen, p, "cut inside a record header");
		len = hs_be32(r->buf + p + 5);
		if (r->buf[p] != HS_REC_STRING)
			return bad(err, errlen, p, "not a STRING record");
		if (len < id || r->size - p - 9 < len)
			return bad(err, errlen, p, "record cut short");
		if (r->n == cap) {
			struct io_mapent *e;
			cap = cap ? 2 * cap : 1024;
			e = realloc(r->ent, cap * sizeof *e);
			if (!e)
				return bad(err, errlen, p, strerror(ENOMEM));
			r->ent = e;
		}
		r->ent[r->n].id = id == 8 ? (uint64_t)hs_be32(r->buf + p + 9) << 32 |
		                                hs_be32(r->buf + p + 13)
		                          : hs_be32(r->buf + p + 9);
		r->ent[r->n].off = p + 9 + id;
		r->ent[r->n].len = len - id;
		r->n++;
		p += 9 + (size_t)len;
	}
	r->by_id = malloc((r->n ? r->n : 1) * sizeof *r->by_id);
	if (!r->by_id)
		return bad(err, errlen, p, strerror(ENOMEM));
	for (p = 0; p < r->n; p++)
		r->by_id[p] = p;
	sorting = r->ent;
	qsort(r->by_id, r->n, sizeof *r->by_id, by_id);
	return 0;
}

int io_map_load(struct io_mapread *r, const char *path, char *err,
                size_t errlen)
{
	struct stat sb;
	size_t got = 0, hl = sizeof MAP_HEADER;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	memset(r, 0, sizeof *r);
	if (fd < 0 || fstat(fd, &sb)) {
		snprintf(err, errlen, "%s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (!S_ISREG(sb.st_mode)) {
		snprintf(err, errlen, "not a regular file");
		close(fd);
		return -1;
	}
	r->size = (size_t)sb.st_size;
	r->buf = malloc(r->size ? r->size : 1);
	while (r->buf && got < r->size) {
		ssize_t n = read(fd, r->buf + got, r->size - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	if (!r->buf || got < r->size) {
		snprintf(err, errlen, "%s", strerror(r->buf ? EIO : ENOMEM));
		return -1;
	}
	if (r->size < hl + 12 || memcmp(r->buf, MAP_HEADER, hl))
		return bad(err, errlen, 0, "not a names map (no \"" MAP_HEADER
		           "\" header)");
	r->idsize = hs_be32(r->buf + hl);
	r->time = (uint64_t)hs_be32(r->buf + hl + 4) << 32 |
	          hs_be32(r->buf + hl + 8);
	if (r->idsize != 4 && r->idsize != 8)
		return bad(err, errlen, hl, "identifier size not 4 or 8");
	return index_records(r, hl + 12, err, errlen);
}

const unsigned char *io_map_rename(void *user, uint64_t id, uint32_t len)
{
	struct io_mapread *r = user;
	const struct io_mapent *e;
	size_t lo = 0, hi = r->n;

	if (r->dump_time && *r->dump_time != r->time)
		r->foreign = 1;
	if (r->foreign)
		return NULL;
	if (r->next < r->n && r->ent[r->next].id == id &&
	    r->ent[r->next].len == len)
		return r->buf + r->ent[r->next++].off;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		e = &r->ent[r->by_id[mid]];
		if (e->id < id)
			lo = mid + 1;
		else if (e->id > id)
			hi = mid;
		else
			return e->len == len ? r->buf + e->off : NULL;
	}
	return NULL;
}

void io_map_free(struct io_mapread *r)
{
	free(r->buf);
	free(r->ent);
	free(r->by_id);
	memset(r, 0, sizeof *r);
}

/* ---- the key -------------------------------------------------------------- */

static int hexval(int c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
	       : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

int io_names_key(const char *v, uint64_t key[2])
{
	size_t i;
	long got;

	if (v && strlen(v) == 32) {
		key[0] = key[1] = 0;
		for (i = 0; i < 32 && hexval(v[i]) >= 0; i++)
			key[i / 16] = key[i / 16] << 4 | (uint64_t)hexval(v[i]);
		if (i == 32)
			return 1;
	}
	/* random: the kernel's (a system call, no file: the shim's own open
	 * would see a file), or the clock's */
	do
		got = syscall(SYS_getrandom, key, 2 * sizeof *key, 0);
	while (got < 0 && errno == EINTR);
	if (got != (long)(2 * sizeof *key)) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		key[0] = (uint64_t)ts.tv_nsec * 0x9E3779B97F4A7C15u ^
		         (uint64_t)getpid() << 32;
		key[1] = (uint64_t)ts.tv_sec * 0xC2B2AE3D27D4EB4Fu ^ key[0];
	}
	return v && *v ? -1 : 0;
}
