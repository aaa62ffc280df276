/*
 * sealtest: the shim's sealing (preload/seal.c) as plain C: its key
 * stream is ChaCha20's (Bernstein's 64-bit-nonce form: the all-zero key
 * and nonce give the published first block), any byte range of it is the
 * same bytes of the whole stream (the merge unseals what sendfile reads,
 * from any offset), sealing twice gives the input back, nonces differ
 * and carry the pid. Prints 'seal: N passed, N failed'.
 */
#include "../preload/seal.c"
#include "check.h"

#include <stdlib.h>

/* ChaCha20, key 0, nonce 0: the key stream's first 64 bytes */
static const char zero_block[] =
	"76b8e0ada0f13d90405d6ae55386bd28bdd219b8a08ded1aa836efcc8b770dc7"
	"da41597c5157488d7724e03fb8d84a376a43b8f41518a11cc387b669b2ee6586";

int main(void)
{
	static unsigned char zeros[4096], whole[4096], part[4096], back[4096];
	char hex[129];
	uint64_t n1, n2;
	int i, bad;

	/* the published vector, under a key set here */
	memset(key, 0, sizeof key);
	__atomic_store_n(&key_state, 1, __ATOMIC_RELEASE);
	seal_xor(0, 0, zeros, whole, 64);
	for (i = 0; i < 64; i++)
		snprintf(hex + 2 * i, 3, "%02x", whole[i]);
	CHECK(!strcmp(hex, zero_block), "key stream: %s", hex);
	/* the second block is the counter's next */
	seal_xor(0, 0, zeros, whole, sizeof whole);
	seal_xor(0, 64, zeros, part, 64);
	CHECK(!memcmp(whole + 64, part, 64), "block 1 at offset 64");
	/* any range, any alignment, is the whole stream's bytes there */
	for (i = 1; i < (int)sizeof whole; i += 61)
		key[i % 8] ^= (uint32_t)i;
	seal_xor(0x1234, 0, zeros, whole, sizeof whole);
	bad = 0;
	for (i = 0; i < 500; i++) {
		size_t at = (size_t)rand() % sizeof whole, len;
		len = (size_t)rand() % (sizeof whole - at + 1);
		seal_xor(0x1234, at, zeros, part, len);
		bad += len && memcmp(part, whole + at, len) != 0;
	}
	CHECK(!bad, "%d ranges differ from the whole stream", bad);
	/* sealing is its own inverse; in place too */
	for (i = 0; i < (int)sizeof part; i++)
		part[i] = (unsigned char)(i * 7);
	seal_xor(9, 77, part, back, sizeof part);
	CHECK(memcmp(back, part, sizeof part) != 0, "sealed bytes are the input");
	seal_xor(9, 77, back, back, sizeof back);
	CHECK(!memcmp(back, part, sizeof part), "unsealed bytes are not the input");
	/* another nonce, another stream */
	seal_xor(10, 77, part, back, sizeof part);
	seal_xor(9, 77, back, back, sizeof back);
	CHECK(memcmp(back, part, sizeof part) != 0, "nonces 9 and 10 share a stream");
	/* nonces from the process's key: never 0, never twice, the pid's */
	__atomic_store_n(&key_state, 0, __ATOMIC_RELEASE);
	n1 = seal_nonce();
	n2 = seal_nonce();
	CHECK(n1 && n2 && n1 != n2, "nonces %llx %llx", (unsigned long long)n1,
	      (unsigned long long)n2);
	CHECK(n1 >> 32 == (uint32_t)getpid(), "nonce %llx: not the pid's",
	      (unsigned long long)n1);
	CHECK(key_state == 1, "no key from getrandom");
	return check_done("seal");
}
