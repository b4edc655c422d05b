/* SPDX-License-Identifier: MIT */
/*
 * The password generator: ChaCha20 (RFC 8439's block function) as a
 * fast-key-erasure generator.  Every block yields a new key and four words
 * of output, so a later compromise of the state reveals no earlier
 * password; fresh hardware entropy is mixed into the key every
 * CSPRNG_RESEED blocks.  Pure: the host tests check the block function
 * against the RFC's vector.
 */
#ifndef MUNGI_CHACHA_H
#define MUNGI_CHACHA_H

#include <stdbool.h>
#include <stdint.h>

#define CSPRNG_RESEED 256               /* blocks between reseeds */

struct csprng {
	uint32_t key[8];
	uint64_t blocks;                    /* blocks made, the nonce of the next */
	uint64_t out[4];
	unsigned avail;                     /* words of out not yet handed out */
	unsigned since_seed;
};

/* RFC 8439 §2.3: the 64-byte block for key, counter and 96-bit nonce. */
void chacha20_block(const uint32_t key[8], uint32_t counter, const uint32_t nonce[3], uint8_t out[64]);
/* Mix 256 bits of entropy into the key (the first call makes the state usable). */
void csprng_seed(struct csprng *r, const uint64_t entropy[4]);
/* True when the generator wants csprng_seed before more output. */
bool csprng_wants_seed(const struct csprng *r);
uint64_t csprng_u64(struct csprng *r);

#endif
