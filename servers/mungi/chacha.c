// SPDX-License-Identifier: MIT
// ChaCha20's block function and the fast-key-erasure generator built on it.
#include "chacha.h"

static inline uint32_t rotl(uint32_t v, int n)
{
	return (v << n) | (v >> (32 - n));
}

#define QR(a, b, c, d) \
	(a += b, d ^= a, d = rotl(d, 16), c += d, b ^= c, b = rotl(b, 12), \
	 a += b, d ^= a, d = rotl(d, 8), c += d, b ^= c, b = rotl(b, 7))

void chacha20_block(const uint32_t key[8], uint32_t counter, const uint32_t nonce[3], uint8_t out[64])
{
	uint32_t in[16] = { 0x61707865, 0x3320646e, 0x79622d32, 0x6b206574 }, x[16];
	for (int i = 0; i < 8; i++)
		in[4 + i] = key[i];
	in[12] = counter;
	in[13] = nonce[0];
	in[14] = nonce[1];
	in[15] = nonce[2];
	for (int i = 0; i < 16; i++)
		x[i] = in[i];
	for (int round = 0; round < 10; round++) {
		QR(x[0], x[4], x[8], x[12]);
		QR(x[1], x[5], x[9], x[13]);
		QR(x[2], x[6], x[10], x[14]);
		QR(x[3], x[7], x[11], x[15]);
		QR(x[0], x[5], x[10], x[15]);
		QR(x[1], x[6], x[11], x[12]);
		QR(x[2], x[7], x[8], x[13]);
		QR(x[3], x[4], x[9], x[14]);
	}
	for (int i = 0; i < 16; i++) {
		uint32_t v = x[i] + in[i];
		out[4 * i] = (uint8_t)v;
		out[4 * i + 1] = (uint8_t)(v >> 8);
		out[4 * i + 2] = (uint8_t)(v >> 16);
		out[4 * i + 3] = (uint8_t)(v >> 24);
	}
}

static uint32_t le32(const uint8_t *p)
{
	return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

void csprng_seed(struct csprng *r, const uint64_t entropy[4])
{
	for (int i = 0; i < 4; i++) {
		r->key[2 * i] ^= (uint32_t)entropy[i];
		r->key[2 * i + 1] ^= (uint32_t)(entropy[i] >> 32);
	}
	r->since_seed = 0;
	r->avail = 0;            /* nothing made from the old key is handed out any more */
}

bool csprng_wants_seed(const struct csprng *r)
{
	return r->since_seed >= CSPRNG_RESEED;
}

/* One block: its first half is the next key, its second the next four words. */
static void refill(struct csprng *r)
{
	uint8_t b[64];
	uint32_t nonce[3] = { (uint32_t)r->blocks, (uint32_t)(r->blocks >> 32), 0x4d756e67 };
	chacha20_block(r->key, 0, nonce, b);
	r->blocks++;
	r->since_seed++;
	for (int i = 0; i < 8; i++)
		r->key[i] = le32(b + 4 * i);
	for (int i = 0; i < 4; i++)
		r->out[i] = le32(b + 32 + 8 * i) | (uint64_t)le32(b + 36 + 8 * i) << 32;
	for (int i = 0; i < 64; i++)
		b[i] = 0;
	r->avail = 4;
}

uint64_t csprng_u64(struct csprng *r)
{
	if (!r->avail)
		refill(r);
	uint64_t v = r->out[--r->avail];
	r->out[r->avail] = 0;
	return v;
}
