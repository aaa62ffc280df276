/*
 * The compressors, named once: the shim writes a dump through one
 * (HPROFSTRIP_COMPRESS, preload/policy.c and pipe.c), the launcher checks
 * the name its --compress is given (preload/hprofstrip-run.c), and the
 * tools read a compressed dump through one, known by its magic bytes
 * (strip/cli/decomp.c). Each is the program of that name on PATH.
 */
#ifndef HPROFSTRIP_COMPRESSORS_H
#define HPROFSTRIP_COMPRESSORS_H

#include <stddef.h>
#include <string.h>

struct io_compressor {
	const char *name;             /* the program, and the variable's word */
	const char *suffix;           /* of what it writes: PATH.zst */
	int lo, hi;                   /* its levels: -lo .. -hi */
	const char *args[3];          /* before -c -LEVEL when it compresses */
	unsigned char magic[6];       /* the first bytes of its stream */
	size_t magic_len;
};

/* The i-th compressor (0, 1, ...), or NULL past the last. */
static inline const struct io_compressor *io_compressor(size_t i)
{
	static const struct io_compressor all[] = {
		/* a thread reads while others compress: measured faster than
		 * one thread even on 2 cores (make bench, section 7) */
		{ "zstd", ".zst", 1, 19, { "-q", "-T0", NULL },
		  { 0x28, 0xB5, 0x2F, 0xFD }, 4 },
		{ "gzip", ".gz", 1, 9, { NULL }, { 0x1F, 0x8B }, 2 },
		{ "xz", ".xz", 0, 9, { NULL },
		  { 0xFD, '7', 'z', 'X', 'Z', 0x00 }, 6 },
		/* lighter than zstd -1 where the dump's threads need the cores
		 * (make bench-big, 6 GiB of small objects on 2 cores: 1.15x
		 * the plain dump against zstd's 1.56x), files 1.7x zstd's */
		{ "lz4", ".lz4", 1, 12, { "-q", NULL },
		  { 0x04, 0x22, 0x4D, 0x18 }, 4 },
	};

	return i < sizeof all / sizeof all[0] ? &all[i] : NULL;
}

/* The compressor called by the n bytes at name, or NULL. */
static inline const struct io_compressor *io_compressor_named(const char *name,
                                                              size_t n)
{
	const struct io_compressor *c;
	size_t i;

	for (i = 0; (c = io_compressor(i)) != NULL; i++)
		if (strlen(c->name) == n && !memcmp(c->name, name, n))
			return c;
	return NULL;
}

#endif
