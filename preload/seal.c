/* Sealing a segment file: see seal.h. ChaCha20 (Bernstein, 2008: 20
 * rounds, a 64-bit block counter and a 64-bit nonce), keyed once a
 * process from getrandom. */
#include "seal.h"

#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static uint32_t key[8];
static int key_state;       /* 0: not yet; 1: had; -1: none to be had */
static uint32_t counter;    /* nonces taken (atomic) */

#define ROTL(v, n) ((v) << (n) | (v) >> (32 - (n)))
#define QR(a, b, c, d) (a += b, d ^= a, d = ROTL(d, 16), \
                        c += d, b ^= c, b = ROTL(b, 12), \
                        a += b, d ^= a, d = ROTL(d, 8), \
                        c += d, b ^= c, b = ROTL(b, 7))

/* The 64 bytes of key stream of block blk. */
static void block(uint64_t nonce, uint64_t blk, unsigned char out[64])
{
	uint32_t x[16], in[16] = {
		0x61707865, 0x3320646e, 0x79622d32, 0x6b206574,
		key[0], key[1], key[2], key[3], key[4], key[5], key[6], key[7],
		(uint32_t)blk, (uint32_t)(blk >> 32),
		(uint32_t)nonce, (uint32_t)(nonce >> 32) };
	int i;

	memcpy(x, in, sizeof x);
	for (i = 0; i < 10; i++) {
		QR(x[0], x[4], x[8], x[12]);
		QR(x[1], x[5], x[9], x[13]);
		QR(x[2], x[6], x[10], x[14]);
		QR(x[3], x[7], x[11], x[15]);
		QR(x[0], x[5], x[10], x[15]);
		QR(x[1], x[6], x[11], x[12]);
		QR(x[2], x[7], x[8], x[13]);
		QR(x[3], x[4], x[9], x[14]);
	}
	for (i = 0; i < 16; i++) {
		uint32_t v = x[i] + in[i];
		out[4 * i] = (unsigned char)v;
		out[4 * i + 1] = (unsigned char)(v >> 8);
		out[4 * i + 2] = (unsigned char)(v >> 16);
		out[4 * i + 3] = (unsigned char)(v >> 24);
	}
}

/* The key, read once (the first sealed segment's open, under the fd
 * table's lock: never two at once). */
static int have_key(void)
{
	int saved = errno;
	size_t got = 0;

	if (__atomic_load_n(&key_state, __ATOMIC_ACQUIRE))
		return key_state > 0;
	while (got < sizeof key) {
		long n = syscall(SYS_getrandom, (char *)key + got,
		                 sizeof key - got, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	errno = saved;
	__atomic_store_n(&key_state, got == sizeof key ? 1 : -1,
	                 __ATOMIC_RELEASE);
	return got == sizeof key;
}

uint64_t seal_nonce(void)
{
	uint32_t n;

	if (!have_key())
		return 0;
	n = __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED);
	return (uint64_t)(uint32_t)getpid() << 32 | n;
}

void seal_xor(uint64_t nonce, uint64_t off, const unsigned char *in,
              unsigned char *out, size_t n)
{
	unsigned char ks[64];
	size_t i = 0, k;

	while (i < n) {
		unsigned at = (unsigned)(off % 64);
		block(nonce, off / 64, ks);
		for (k = at; k < 64 && i < n; k++, i++, off++)
			out[i] = in[i] ^ ks[k];
	}
}
