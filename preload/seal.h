/*
 * Inside dump tracking (hprofstrip.h): sealing. Under HPROFSTRIP_REDACT a
 * JDK 22+ dump's .pN segment files are written enciphered, ChaCha20 under
 * a key that exists only in this process's memory, and read back in the
 * clear at the merge, where the dump's main file redacts them with every
 * class dump known (session.h). A runtime killed before the merge leaves
 * segment files nobody can read. Not an interface for anyone else.
 */
#ifndef HPROFSTRIP_SEAL_H
#define HPROFSTRIP_SEAL_H

#include <stddef.h>
#include <stdint.h>

/* A nonce never used before in this process or any other (the pid is in
 * it, so a forked child's differ from its parent's); 0 if the process has
 * no key (the kernel gave no random bytes): nothing can be sealed. */
uint64_t seal_nonce(void);
/* out = in XOR the key stream of nonce from byte off on (in == out is
 * allowed): sealing and unsealing are the same. */
void seal_xor(uint64_t nonce, uint64_t off, const unsigned char *in,
              unsigned char *out, size_t n);

#endif
