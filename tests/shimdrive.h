/*
 * shimdrive.h: what the drivers that write dumps under the shim share
 * (tests/replay.c, tests/shimstress.c, tests/shimrace.c): seeded piece
 * sizes, whole writes, a file read whole, a file's bytes compared. Static
 * inline functions, so that each driver's build stays one file (and each
 * of shimstress's builds calls the names its flags give: open64 with
 * _FILE_OFFSET_BITS=64, __open_2 fortified).
 *
 * The includer defines die(const char *call) before it: print the call
 * and strerror(errno) its own way, and exit.
 */
#ifndef HPROFSTRIP_TESTS_SHIMDRIVE_H
#define HPROFSTRIP_TESTS_SHIMDRIVE_H

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The next of a seeded stream (splitmix64): every driver's cuts are
 * reproducible from its seed. */
static inline uint64_t sd_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* A piece's size, the worst case for a stream parser: 40% 1..16 bytes,
 * 30% 17..4096, 30% 4097..64 KiB; at most left. */
static inline size_t sd_piece(uint64_t *s, size_t left)
{
	unsigned r = (unsigned)(sd_rand(s) % 10);
	size_t n = r < 4 ? 1 + sd_rand(s) % 16
	         : r < 7 ? 17 + sd_rand(s) % 4080 : 4097 + sd_rand(s) % 61440;
	return n < left ? n : left;
}

/* write() until done: again on EINTR and short writes, as HotSpot's
 * os::write (RESTARTABLE) + write loops and ART's WriteFully
 * (TEMP_FAILURE_RETRY) do; at most 0x7ffff000 bytes a call (Linux's
 * limit). A 0 return is an error (EIO), as in JDK 17's write_buf. */
static inline void sd_write_all(int fd, const void *buf, size_t len)
{
	const unsigned char *p = buf;

	while (len > 0) {
		ssize_t w = write(fd, p, len > 0x7ffff000u ? 0x7ffff000u : len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w == 0)
			errno = EIO;
		if (w <= 0)
			die("write");
		p += w;
		len -= (size_t)w;
	}
}

/* The file at path, whole (open O_RDONLY|O_CLOEXEC, fstat, read, close),
 * in a buffer of one byte more; its length in *len. */
static inline unsigned char *sd_slurp(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat sb;
	unsigned char *d;
	size_t got = 0;

	if (fd < 0 || fstat(fd, &sb))
		die(path);
	d = malloc((size_t)sb.st_size + 1);
	if (!d)
		die("malloc");
	while (got < (size_t)sb.st_size) {
		ssize_t r = read(fd, d + got, (size_t)sb.st_size - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			die("read");
		got += (size_t)r;
	}
	close(fd);
	*len = got;
	return d;
}

/* DIR/NAME, allocated */
static inline char *sd_path_in(const char *dir, const char *name)
{
	size_t n = strlen(dir) + strlen(name) + 2;
	char *p = malloc(n);

	if (!p)
		die("malloc");
	snprintf(p, n, "%s/%s", dir, name);
	return p;
}

/* 0 if the file at path holds exactly d[0, len), else -1 */
static inline int sd_same_file(const char *path, const void *d, size_t len)
{
	size_t n;
	unsigned char *f = sd_slurp(path, &n);
	int r = n == len && !memcmp(f, d, len);

	free(f);
	return r ? 0 : -1;
}

#endif
