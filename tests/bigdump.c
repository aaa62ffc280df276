/*
 * bigdump: writes a synthetic dump of about MIB MiB, made as it goes (no
 * input file, no memory to speak of), so that a 32-bit process can write a
 * dump past 2 GiB under the shim.
 *
 *   bigdump MIB OUT [jdk8]
 *
 * JAVA PROFILE 1.0.2, 4-byte ids; a STRING and a LOAD_CLASS; heap records
 * of at most 1 GiB each (HEAP_DUMP_SEGMENT), each of 8 MiB byte[] arrays
 * (their elements a counter's bytes) and an instance of the class; then
 * HEAP_DUMP_END. OUT "-" is stdout. With jdk8, each segment's length is
 * written as 0 first and patched when the segment is whole, with lseek64
 * back to it, a write of 4 bytes and lseek64 to the end, as JDK 8's
 * DumpWriter does (OUT a file). Built with _FILE_OFFSET_BITS=64: write and
 * lseek are the 64-bit calls on a 32-bit ABI, as in a runtime. Prints the
 * bytes written on stdout when OUT is a file. Exit 1 on a failed call.
 */
#define _FILE_OFFSET_BITS 64
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ARRAY (8u << 20)          /* elements of one byte[] */
#define SEGMENT (1ull << 30)      /* at most this much per segment */

static int out = 1;
static uint64_t written;
static unsigned char buf[1 << 20];
static size_t used;

static void die(const char *what)
{
	fprintf(stderr, "bigdump: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void flush(void)
{
	size_t off = 0;

	while (off < used) {
		ssize_t w = write(out, buf + off, used - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			die("write");
		off += (size_t)w;
	}
	used = 0;
}

static void put(const void *p, size_t n)
{
	const unsigned char *b = p;

	while (n) {
		size_t k = sizeof buf - used < n ? sizeof buf - used : n;
		memcpy(buf + used, b, k);
		used += k;
		b += k;
		n -= k;
		written += k;
		if (used == sizeof buf)
			flush();
	}
}

static void u1(unsigned v) { unsigned char b = (unsigned char)v; put(&b, 1); }

static void u4(uint32_t v)
{
	unsigned char b[4] = { v >> 24, v >> 16, v >> 8, v };
	put(b, 4);
}

int main(int argc, char **argv)
{
	uint64_t want, seg_at;
	uint32_t id = 0x1000, counter = 0;
	int jdk8 = argc > 3 && !strcmp(argv[3], "jdk8");
	unsigned char elems[4096];

	if (argc < 3 || argc > 4 || (want = strtoull(argv[1], NULL, 10) << 20) == 0) {
		fprintf(stderr, "usage: bigdump MIB OUT [jdk8]\n");
		return 2;
	}
	if (strcmp(argv[2], "-") &&
	    (out = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644)) < 0)
		die(argv[2]);
	if (jdk8 && out == 1)
		die("jdk8 needs a file");
	put("JAVA PROFILE 1.0.2", 19);
	u4(4);
	u4(0x197);
	u4(0x12345678);
	u1(0x01); u4(0); u4(4 + 4); u4(0x100); put("Big1", 4);
	u1(0x02); u4(0); u4(16); u4(1); u4(0x200); u4(0); u4(0x100);
	while (written < want) {
		/* a segment: a class dump (first only), arrays, an instance */
		uint64_t len = 0, left = want - written;
		unsigned n = 0, first;

		if (left > SEGMENT)
			left = SEGMENT;
		first = written < 4096;
		if (first)
			len += 1 + 4 + 4 + 6 * 4 + 4 + 2 + 2 + 2;
		while (len + 1 + 4 + 4 + 4 + 1 + ARRAY + 1 + 4 + 4 + 4 + 4 <= left ||
		       n == 0) {
			len += 1 + 4 + 4 + 4 + 1 + ARRAY;
			n++;
		}
		len += 1 + 4 + 4 + 4 + 4;  /* the instance: no fields */
		u1(0x1C);
		u4(0);
		seg_at = written;
		u4(jdk8 ? 0 : (uint32_t)len);
		if (first) {
			static const unsigned char zeros[6];
			u1(0x20); u4(0x200); u4(0);
			u4(0); u4(0); u4(0); u4(0); u4(0); u4(0);
			u4(0);              /* instance size */
			put(zeros, 6);      /* no constants, statics, fields */
		}
		while (n--) {
			uint32_t k;
			u1(0x23); u4(id++); u4(0); u4(ARRAY); u1(8);
			for (k = 0; k < ARRAY; k += sizeof elems) {
				memset(elems, (int)(counter++ & 0xFF), sizeof elems);
				put(elems, sizeof elems);
			}
		}
		u1(0x21); u4(id++); u4(0); u4(0x200); u4(0);
		if (jdk8) {
			unsigned char b[4] = { len >> 24, len >> 16, len >> 8, len };
			flush();
			if (lseek(out, (off_t)seg_at, SEEK_SET) != (off_t)seg_at)
				die("lseek back");
			if (write(out, b, 4) != 4)
				die("write the length");
			if (lseek(out, 0, SEEK_END) != (off_t)written)
				die("lseek to the end");
		}
	}
	u1(0x2C); u4(0); u4(0);
	flush();
	if (out != 1) {
		if (close(out))
			die("close");
		printf("%llu\n", (unsigned long long)written);
	}
	return 0;
}
