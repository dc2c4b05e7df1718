// libcrypto (OpenSSL 3) behind CMockCDNCrypto.h. Every OpenSSL type stays in this file.
#include "CMockCDNCrypto.h"

#include <openssl/crypto.h>
#include <openssl/decoder.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/err.h>
#include <openssl/rsa.h>
#include <openssl/ec.h>
#include <openssl/obj_mac.h>
#include <openssl/bn.h>
#include <openssl/param_build.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

/// Stands in for the NULL that Swift passes for an empty buffer; OpenSSL wants a real pointer.
static const unsigned char empty_input = 0;
#define NONNULL_INPUT(pointer) ((pointer) != NULL ? (const void *)(pointer) : (const void *)&empty_input)

struct CMockCDNHMACKey {
    EVP_MAC_CTX *template;
};

struct CMockCDNSHA256 {
    EVP_MD_CTX *context;
};

struct CMockCDNSHA1 {
    EVP_MD_CTX *context;
};

struct CMockCDNMD5 {
    EVP_MD_CTX *context;
};

struct CMockCDNSHA512 {
    EVP_MD_CTX *context;
};

struct CMockCDNRSAKey {
    EVP_PKEY *pkey;
    int is_private;
};

struct CMockCDNECKey {
    EVP_PKEY *pkey;
    int is_private;
};

// MARK: - Digests and MACs

static EVP_MAC_CTX *hmac_context_with(const char *digest_name, const void *key, size_t key_length) {
    EVP_MAC *mac = EVP_MAC_fetch(NULL, "HMAC", NULL);
    if (mac == NULL) return NULL;
    EVP_MAC_CTX *context = EVP_MAC_CTX_new(mac);
    EVP_MAC_free(mac);
    if (context == NULL) return NULL;
    OSSL_PARAM params[] = {
        // libcrypto reads the name, never writes it.
        OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, (char *)digest_name, 0),
        OSSL_PARAM_construct_end(),
    };
    if (EVP_MAC_init(context, NONNULL_INPUT(key), key_length, params) != 1) {
        EVP_MAC_CTX_free(context);
        return NULL;
    }
    return context;
}

static EVP_MAC_CTX *hmac_context(const void *key, size_t key_length) {
    return hmac_context_with("SHA256", key, key_length);
}

static int hmac_finish_length(EVP_MAC_CTX *context, const void *data, size_t data_length, void *out, size_t length) {
    size_t written = 0;
    return EVP_MAC_update(context, NONNULL_INPUT(data), data_length) == 1
        && EVP_MAC_final(context, out, &written, length) == 1 && written == length;
}

static int hmac_finish(EVP_MAC_CTX *context, const void *data, size_t data_length, void *out) {
    return hmac_finish_length(context, data, data_length, out, CMOCKCDN_SHA256_LENGTH);
}

int CMockCDNCrypto_hmac_sha256(
    const void *key, size_t key_length, const void *data, size_t data_length, void *out) {
    EVP_MAC_CTX *context = hmac_context(key, key_length);
    if (context == NULL) return 0;
    int ok = hmac_finish(context, data, data_length, out);
    EVP_MAC_CTX_free(context);
    return ok;
}

int CMockCDNCrypto_hmac_sha1(const void *key, size_t key_length, const void *data, size_t data_length, void *out) {
    EVP_MAC_CTX *context = hmac_context_with("SHA1", key, key_length);
    if (context == NULL) return 0;
    int ok = hmac_finish_length(context, data, data_length, out, CMOCKCDN_SHA1_LENGTH);
    EVP_MAC_CTX_free(context);
    return ok;
}

CMockCDNHMACKey *CMockCDNCrypto_hmac_key_new(const void *key, size_t key_length) {
    EVP_MAC_CTX *context = hmac_context(key, key_length);
    if (context == NULL) return NULL;
    CMockCDNHMACKey *result = malloc(sizeof(CMockCDNHMACKey));
    if (result == NULL) {
        EVP_MAC_CTX_free(context);
        return NULL;
    }
    result->template = context;
    return result;
}

int CMockCDNCrypto_hmac_key_mac(const CMockCDNHMACKey *key, const void *data, size_t data_length, void *out) {
    // The keyed template is never mutated, so concurrent callers each work on their own copy.
    EVP_MAC_CTX *context = EVP_MAC_CTX_dup(key->template);
    if (context == NULL) return 0;
    int ok = hmac_finish(context, data, data_length, out);
    EVP_MAC_CTX_free(context);
    return ok;
}

void CMockCDNCrypto_hmac_key_free(CMockCDNHMACKey *key) {
    if (key == NULL) return;
    EVP_MAC_CTX_free(key->template);
    free(key);
}

static pthread_once_t sha256_once = PTHREAD_ONCE_INIT;
static EVP_MD *sha256_fetched = NULL;

static void fetch_sha256(void) { sha256_fetched = EVP_MD_fetch(NULL, "SHA256", NULL); }

/// SHA-256, fetched once: `EVP_sha256()` makes every digest look its implementation up again (locks and a
/// property query), which cost more than hashing a token.
static const EVP_MD *sha256_md(void) {
    pthread_once(&sha256_once, fetch_sha256);
    return sha256_fetched != NULL ? sha256_fetched : EVP_sha256();
}

static int digest(const EVP_MD *type, const void *data, size_t length, void *out) {
    return EVP_Digest(NONNULL_INPUT(data), length, out, NULL, type, NULL) == 1;
}

int CMockCDNCrypto_sha256(const void *data, size_t length, void *out) {
    return digest(sha256_md(), data, length, out);
}

/// A digest context ready for its first update, or NULL.
static EVP_MD_CTX *digest_context(const EVP_MD *type) {
    EVP_MD_CTX *context = EVP_MD_CTX_new();
    if (context == NULL) return NULL;
    if (EVP_DigestInit_ex(context, type, NULL) != 1) {
        EVP_MD_CTX_free(context);
        return NULL;
    }
    return context;
}

CMockCDNSHA256 *CMockCDNCrypto_sha256_new(void) {
    EVP_MD_CTX *context = digest_context(sha256_md());
    if (context == NULL) return NULL;
    CMockCDNSHA256 *state = malloc(sizeof(CMockCDNSHA256));
    if (state == NULL) {
        EVP_MD_CTX_free(context);
        return NULL;
    }
    state->context = context;
    return state;
}

int CMockCDNCrypto_sha256_update(CMockCDNSHA256 *state, const void *data, size_t length) {
    return EVP_DigestUpdate(state->context, NONNULL_INPUT(data), length) == 1;
}

int CMockCDNCrypto_sha256_final(CMockCDNSHA256 *state, void *out) {
    return EVP_DigestFinal_ex(state->context, out, NULL) == 1;
}

void CMockCDNCrypto_sha256_free(CMockCDNSHA256 *state) {
    if (state == NULL) return;
    EVP_MD_CTX_free(state->context);
    free(state);
}

// SHA-1 and MD5, fetched once like SHA-256.
static pthread_once_t sha1_once = PTHREAD_ONCE_INIT;
static EVP_MD *sha1_fetched = NULL;
static pthread_once_t md5_once = PTHREAD_ONCE_INIT;
static EVP_MD *md5_fetched = NULL;

static void fetch_sha1(void) { sha1_fetched = EVP_MD_fetch(NULL, "SHA1", NULL); }

/// "-fips" drops a FIPS requirement from the default query: S3's MD5 (Content-MD5, ETags) checks integrity,
/// not authenticity, and a FIPS-configured libcrypto would otherwise refuse it.
static void fetch_md5(void) { md5_fetched = EVP_MD_fetch(NULL, "MD5", "-fips"); }

static const EVP_MD *sha1_md(void) {
    pthread_once(&sha1_once, fetch_sha1);
    return sha1_fetched != NULL ? sha1_fetched : EVP_sha1();
}

static const EVP_MD *md5_md(void) {
    pthread_once(&md5_once, fetch_md5);
    return md5_fetched != NULL ? md5_fetched : EVP_md5();
}

int CMockCDNCrypto_sha1(const void *data, size_t length, void *out) {
    return digest(sha1_md(), data, length, out);
}

CMockCDNSHA1 *CMockCDNCrypto_sha1_new(void) {
    EVP_MD_CTX *context = digest_context(sha1_md());
    if (context == NULL) return NULL;
    CMockCDNSHA1 *state = malloc(sizeof(CMockCDNSHA1));
    if (state == NULL) {
        EVP_MD_CTX_free(context);
        return NULL;
    }
    state->context = context;
    return state;
}

int CMockCDNCrypto_sha1_update(CMockCDNSHA1 *state, const void *data, size_t length) {
    return EVP_DigestUpdate(state->context, NONNULL_INPUT(data), length) == 1;
}

int CMockCDNCrypto_sha1_final(CMockCDNSHA1 *state, void *out) {
    return EVP_DigestFinal_ex(state->context, out, NULL) == 1;
}

void CMockCDNCrypto_sha1_free(CMockCDNSHA1 *state) {
    if (state == NULL) return;
    EVP_MD_CTX_free(state->context);
    free(state);
}

int CMockCDNCrypto_md5(const void *data, size_t length, void *out) {
    return digest(md5_md(), data, length, out);
}

CMockCDNMD5 *CMockCDNCrypto_md5_new(void) {
    EVP_MD_CTX *context = digest_context(md5_md());
    if (context == NULL) return NULL;
    CMockCDNMD5 *state = malloc(sizeof(CMockCDNMD5));
    if (state == NULL) {
        EVP_MD_CTX_free(context);
        return NULL;
    }
    state->context = context;
    return state;
}

int CMockCDNCrypto_md5_update(CMockCDNMD5 *state, const void *data, size_t length) {
    return EVP_DigestUpdate(state->context, NONNULL_INPUT(data), length) == 1;
}

int CMockCDNCrypto_md5_final(CMockCDNMD5 *state, void *out) {
    return EVP_DigestFinal_ex(state->context, out, NULL) == 1;
}

void CMockCDNCrypto_md5_free(CMockCDNMD5 *state) {
    if (state == NULL) return;
    EVP_MD_CTX_free(state->context);
    free(state);
}

// MARK: - SHA-512 (S3's x-amz-checksum-sha512)

static pthread_once_t sha512_once = PTHREAD_ONCE_INIT;
static EVP_MD *sha512_fetched = NULL;

static void fetch_sha512(void) { sha512_fetched = EVP_MD_fetch(NULL, "SHA512", NULL); }

static const EVP_MD *sha512_md(void) {
    pthread_once(&sha512_once, fetch_sha512);
    return sha512_fetched != NULL ? sha512_fetched : EVP_sha512();
}

int CMockCDNCrypto_sha512(const void *data, size_t length, void *out) {
    return digest(sha512_md(), data, length, out);
}

CMockCDNSHA512 *CMockCDNCrypto_sha512_new(void) {
    EVP_MD_CTX *context = digest_context(sha512_md());
    if (context == NULL) return NULL;
    CMockCDNSHA512 *state = malloc(sizeof *state);
    if (state == NULL) {
        EVP_MD_CTX_free(context);
        return NULL;
    }
    state->context = context;
    return state;
}

int CMockCDNCrypto_sha512_update(CMockCDNSHA512 *state, const void *data, size_t length) {
    return EVP_DigestUpdate(state->context, NONNULL_INPUT(data), length) == 1;
}

int CMockCDNCrypto_sha512_final(CMockCDNSHA512 *state, void *out) {
    return EVP_DigestFinal_ex(state->context, out, NULL) == 1;
}

void CMockCDNCrypto_sha512_free(CMockCDNSHA512 *state) {
    if (state == NULL) return;
    EVP_MD_CTX_free(state->context);
    free(state);
}

// MARK: - CRCs (S3's flexible checksums)

// Slice-by-8 (Intel's, as in zlib and the Linux kernel): table[0] is the classic byte-at-a-time table, and
// table[k][n] is the CRC of byte n followed by k zero bytes, so eight table lookups fold eight input bytes at
// once, with no dependency between them. About a byte per cycle on one core, several times byte-at-a-time.
static uint32_t crc32_table[8][256];
static uint32_t crc32c_table[8][256];
static uint64_t crc64nvme_table[8][256];
static pthread_once_t crc_tables_once = PTHREAD_ONCE_INIT;

static void build_crc32_table(uint32_t table[8][256], uint32_t polynomial) {
    for (uint32_t n = 0; n < 256; n++) {
        uint32_t crc = n;
        for (int bit = 0; bit < 8; bit++) crc = (crc >> 1) ^ (polynomial & (0u - (crc & 1)));
        table[0][n] = crc;
    }
    for (int k = 1; k < 8; k++) {
        for (int n = 0; n < 256; n++) table[k][n] = (table[k - 1][n] >> 8) ^ table[0][table[k - 1][n] & 0xff];
    }
}

static void build_crc64_table(uint64_t table[8][256], uint64_t polynomial) {
    for (uint64_t n = 0; n < 256; n++) {
        uint64_t crc = n;
        for (int bit = 0; bit < 8; bit++) crc = (crc >> 1) ^ (polynomial & (0ull - (crc & 1)));
        table[0][n] = crc;
    }
    for (int k = 1; k < 8; k++) {
        for (int n = 0; n < 256; n++) table[k][n] = (table[k - 1][n] >> 8) ^ table[0][table[k - 1][n] & 0xff];
    }
}

#if defined(__x86_64__)
static void build_crc64nvme_fold_constants(void);
#endif

static void build_crc_tables(void) {
    build_crc32_table(crc32_table, 0xEDB88320u);
    build_crc32_table(crc32c_table, 0x82F63B78u);
    build_crc64_table(crc64nvme_table, 0x9A6C9329AC4BC9B5ull);
#if defined(__x86_64__)
    build_crc64nvme_fold_constants();
#endif
}

// Little-endian loads byte by byte: the compiler makes each one load on a little-endian machine, and the code
// stays right on a big-endian one and at any alignment.
static inline uint32_t load32le(const unsigned char *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t load64le(const unsigned char *p) {
    return (uint64_t)load32le(p) | (uint64_t)load32le(p + 4) << 32;
}

static uint32_t crc32_slice8(const uint32_t table[8][256], uint32_t crc, const void *data, size_t length) {
    if (length == 0) return crc;
    const unsigned char *p = data;
    crc = ~crc;
    for (; length >= 8; p += 8, length -= 8) {
        uint32_t low = crc ^ load32le(p), high = load32le(p + 4);
        crc = table[7][low & 0xff] ^ table[6][(low >> 8) & 0xff] ^ table[5][(low >> 16) & 0xff]
            ^ table[4][low >> 24] ^ table[3][high & 0xff] ^ table[2][(high >> 8) & 0xff]
            ^ table[1][(high >> 16) & 0xff] ^ table[0][high >> 24];
    }
    for (; length > 0; p++, length--) crc = (crc >> 8) ^ table[0][(crc ^ *p) & 0xff];
    return ~crc;
}

uint32_t CMockCDNCrypto_crc32_update(uint32_t crc, const void *data, size_t length) {
    pthread_once(&crc_tables_once, build_crc_tables);
    return crc32_slice8(crc32_table, crc, data, length);
}

uint32_t CMockCDNCrypto_crc32c_update(uint32_t crc, const void *data, size_t length) {
    pthread_once(&crc_tables_once, build_crc_tables);
    return crc32_slice8(crc32c_table, crc, data, length);
}

// The raw slice-by-8 step: `crc` is the running register, already inverted (no initial or final inversion).
static uint64_t crc64nvme_slice8(uint64_t crc, const unsigned char *p, size_t length) {
    const uint64_t (*table)[256] = crc64nvme_table;
    for (; length >= 8; p += 8, length -= 8) {
        uint64_t word = crc ^ load64le(p);
        crc = table[7][word & 0xff] ^ table[6][(word >> 8) & 0xff] ^ table[5][(word >> 16) & 0xff]
            ^ table[4][(word >> 24) & 0xff] ^ table[3][(word >> 32) & 0xff] ^ table[2][(word >> 40) & 0xff]
            ^ table[1][(word >> 48) & 0xff] ^ table[0][word >> 56];
    }
    for (; length > 0; p++, length--) crc = (crc >> 8) ^ table[0][(crc ^ *p) & 0xff];
    return crc;
}

uint64_t CMockCDNCrypto_crc64nvme_update_portable(uint64_t crc, const void *data, size_t length) {
    pthread_once(&crc_tables_once, build_crc_tables);
    if (length == 0) return crc;
    return ~crc64nvme_slice8(~crc, data, length);
}

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>

// Carry-less multiplication folding (Intel, "Fast CRC Computation for Generic Polynomials Using PCLMULQDQ
// Instruction", 2009). Every S3 object gets a CRC64NVME, and slice-by-8 runs at about a byte per cycle, a fifth
// of an upload's hashing (Benchmarks/results/upload.md); PCLMULQDQ multiplies 64-bit polynomials in a few
// cycles, so eight independent 16-byte lanes go through the body several times faster (100 MiB: 0.05 s against
// 0.26 s for slice-by-8 on the loaded 2-core EPYC of that page).
//
// The register holds bytes in the reflected order a reflected CRC reads them: bit i of a 64-bit half stands for
// x^(63 - i). A 16-byte block H·x^64 + L, with more bytes to come D bytes later, is congruent modulo P to
// H·(x^(8D + 64) mod P) + L·(x^(8D) mod P) at that later place, each product under 128 bits. A carry-less
// multiply of two reflected halves lands one degree low, so the constants are x^(8D + 63) and x^(8D - 1)
// mod P. What is left after folding (16 bytes, and a tail of fewer) goes through the tables, so no Barrett
// reduction is needed.
static uint64_t crc64nvme_fold128[2];  // D = 128: eight lanes, each 128 bytes ahead of where it was
static uint64_t crc64nvme_fold16[2];   // D = 16: one lane into the next

// x^n mod P, reflected: multiplying by x is the bitwise CRC step.
static uint64_t crc64nvme_xpow(unsigned n) {
    uint64_t value = 1ull << 63;  // x^0
    for (unsigned i = 0; i < n; i++) value = (value >> 1) ^ (0x9A6C9329AC4BC9B5ull & (0ull - (value & 1)));
    return value;
}

static int crc64nvme_use_clmul;

static void build_crc64nvme_fold_constants(void) {
    crc64nvme_fold128[0] = crc64nvme_xpow(8 * 128 + 63);
    crc64nvme_fold128[1] = crc64nvme_xpow(8 * 128 - 1);
    crc64nvme_fold16[0] = crc64nvme_xpow(8 * 16 + 63);
    crc64nvme_fold16[1] = crc64nvme_xpow(8 * 16 - 1);
    // PCLMULQDQ and SSE4.1 are CPUID leaf 1, ECX; the SSE registers are always enabled on x86-64. CPUID itself
    // rather than __builtin_cpu_supports, which reads a __cpu_model that libgcc or compiler-rt must provide.
    unsigned eax, ebx, ecx, edx;
    crc64nvme_use_clmul = __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & bit_PCLMUL) && (ecx & bit_SSE4_1);
}

__attribute__((target("pclmul,sse4.1")))
static inline __m128i crc64nvme_fold(__m128i block, __m128i constants, __m128i next) {
    __m128i high = _mm_clmulepi64_si128(block, constants, 0x00);  // H, the block's first 8 bytes
    __m128i low = _mm_clmulepi64_si128(block, constants, 0x11);   // L, its last 8
    return _mm_xor_si128(_mm_xor_si128(high, low), next);
}

// `crc` is the raw register (inverted); `length` at least 128.
__attribute__((target("pclmul,sse4.1")))
static uint64_t crc64nvme_clmul(uint64_t crc, const unsigned char *p, size_t length) {
    const __m128i *in = (const __m128i *)p;
    __m128i lane[8];
    for (int i = 0; i < 8; i++) lane[i] = _mm_loadu_si128(in + i);
    lane[0] = _mm_xor_si128(lane[0], _mm_cvtsi64_si128((long long)crc));
    p += 128;
    length -= 128;
    const __m128i k128 = _mm_set_epi64x((long long)crc64nvme_fold128[1], (long long)crc64nvme_fold128[0]);
    for (; length >= 128; p += 128, length -= 128) {
        in = (const __m128i *)p;
        for (int i = 0; i < 8; i++) lane[i] = crc64nvme_fold(lane[i], k128, _mm_loadu_si128(in + i));
    }
    const __m128i k16 = _mm_set_epi64x((long long)crc64nvme_fold16[1], (long long)crc64nvme_fold16[0]);
    __m128i folded = lane[0];
    for (int i = 1; i < 8; i++) folded = crc64nvme_fold(folded, k16, lane[i]);
    for (; length >= 16; p += 16, length -= 16) {
        folded = crc64nvme_fold(folded, k16, _mm_loadu_si128((const __m128i *)p));
    }
    // The folded block is congruent to everything read so far: its CRC from a zero register is the CRC so far.
    unsigned char last[16];
    _mm_storeu_si128((__m128i *)last, folded);
    crc = crc64nvme_slice8(0, last, 16);
    return crc64nvme_slice8(crc, p, length);
}
#endif

uint64_t CMockCDNCrypto_crc64nvme_update(uint64_t crc, const void *data, size_t length) {
    pthread_once(&crc_tables_once, build_crc_tables);
    if (length == 0) return crc;
#if defined(__x86_64__)
    if (crc64nvme_use_clmul && length >= 128) return ~crc64nvme_clmul(~crc, data, length);
#endif
    return ~crc64nvme_slice8(~crc, data, length);
}

// MARK: - Random bytes and comparison

int CMockCDNCrypto_random_bytes(void *out, size_t length) {
    if (length > INT32_MAX) return 0;
    return RAND_bytes(out, (int)length) == 1;
}

int CMockCDNCrypto_constant_time_equal(const void *a, const void *b, size_t length) {
    return CRYPTO_memcmp(a, b, length) == 0;
}

// MARK: - RSA

static CMockCDNRSAKey *wrap_key(EVP_PKEY *pkey, int is_private) {
    if (pkey == NULL) return NULL;
    if (EVP_PKEY_get_base_id(pkey) != EVP_PKEY_RSA) {
        EVP_PKEY_free(pkey);
        return NULL;
    }
    CMockCDNRSAKey *key = malloc(sizeof(CMockCDNRSAKey));
    if (key == NULL) {
        EVP_PKEY_free(pkey);
        return NULL;
    }
    key->pkey = pkey;
    key->is_private = is_private;
    return key;
}

CMockCDNRSAKey *CMockCDNCrypto_rsa_generate(int bits) {
    return wrap_key(EVP_RSA_gen((unsigned int)bits), 1);
}

/// Fills `out` with `bits` bits from HMAC-SHA256(seed, label/counter) blocks, top two bits and the low bit
/// set, then steps by 2 to the first prime p with gcd(p - 1, e) = 1.
static int derive_prime(BIGNUM *out, const void *seed, size_t seed_length, const char *label, int bits,
    const BIGNUM *e, BN_CTX *ctx) {
    int bytes = bits / 8;
    unsigned char *buffer = malloc((size_t)bytes);
    if (buffer == NULL) return 0;
    for (int offset = 0, counter = 0; offset < bytes; counter++) {
        char message[64];
        int length = snprintf(message, sizeof(message), "%s/%d", label, counter);
        unsigned char block[32];
        if (!CMockCDNCrypto_hmac_sha256(seed, seed_length, message, (size_t)length, block)) {
            free(buffer);
            return 0;
        }
        int take = bytes - offset < 32 ? bytes - offset : 32;
        memcpy(buffer + offset, block, (size_t)take);
        offset += take;
    }
    buffer[0] |= 0xC0;
    buffer[bytes - 1] |= 1;
    int ok = BN_bin2bn(buffer, bytes, out) != NULL;
    OPENSSL_cleanse(buffer, (size_t)bytes);
    free(buffer);
    BIGNUM *less = BN_new(), *gcd = BN_new();
    ok = ok && less != NULL && gcd != NULL;
    while (ok) {
        int prime = BN_check_prime(out, ctx, NULL);
        if (prime < 0) ok = 0;
        if (prime == 1 && BN_sub(less, out, BN_value_one()) && BN_gcd(gcd, less, e, ctx) && BN_is_one(gcd)) break;
        ok = ok && BN_add_word(out, 2);
    }
    BN_free(less);
    BN_free(gcd);
    return ok;
}

CMockCDNRSAKey *CMockCDNCrypto_rsa_derive(const void *seed, size_t seed_length, int bits) {
    if (bits < 1024 || bits % 16 != 0) return NULL;
    BN_CTX *ctx = BN_CTX_new();
    BIGNUM *e = BN_new(), *p = BN_new(), *q = BN_new(), *n = BN_new(), *phi = BN_new(), *p1 = BN_new(),
           *q1 = BN_new(), *d = BN_new(), *dmp1 = BN_new(), *dmq1 = BN_new(), *iqmp = BN_new();
    OSSL_PARAM_BLD *builder = OSSL_PARAM_BLD_new();
    OSSL_PARAM *params = NULL;
    EVP_PKEY_CTX *context = NULL;
    EVP_PKEY *pkey = NULL;
    int ok = ctx && e && p && q && n && phi && p1 && q1 && d && dmp1 && dmq1 && iqmp && builder
        && BN_set_word(e, 65537)
        && derive_prime(p, seed, seed_length, "mockcdn-rsa-p", bits / 2, e, ctx)
        && derive_prime(q, seed, seed_length, "mockcdn-rsa-q", bits / 2, e, ctx)
        && BN_cmp(p, q) != 0
        && BN_mul(n, p, q, ctx) && BN_sub(p1, p, BN_value_one()) && BN_sub(q1, q, BN_value_one())
        && BN_mul(phi, p1, q1, ctx) && BN_mod_inverse(d, e, phi, ctx) != NULL
        && BN_mod(dmp1, d, p1, ctx) && BN_mod(dmq1, d, q1, ctx) && BN_mod_inverse(iqmp, q, p, ctx) != NULL
        && OSSL_PARAM_BLD_push_BN(builder, OSSL_PKEY_PARAM_RSA_N, n)
        && OSSL_PARAM_BLD_push_BN(builder, OSSL_PKEY_PARAM_RSA_E, e)
        && OSSL_PARAM_BLD_push_BN(builder, OSSL_PKEY_PARAM_RSA_D, d)
        && OSSL_PARAM_BLD_push_BN(builder, OSSL_PKEY_PARAM_RSA_FACTOR1, p)
        && OSSL_PARAM_BLD_push_BN(builder, OSSL_PKEY_PARAM_RSA_FACTOR2, q)
        && OSSL_PARAM_BLD_push_BN(builder, OSSL_PKEY_PARAM_RSA_EXPONENT1, dmp1)
        && OSSL_PARAM_BLD_push_BN(builder, OSSL_PKEY_PARAM_RSA_EXPONENT2, dmq1)
        && OSSL_PARAM_BLD_push_BN(builder, OSSL_PKEY_PARAM_RSA_COEFFICIENT1, iqmp)
        && (params = OSSL_PARAM_BLD_to_param(builder)) != NULL
        && (context = EVP_PKEY_CTX_new_from_name(NULL, "RSA", NULL)) != NULL
        && EVP_PKEY_fromdata_init(context) == 1
        && EVP_PKEY_fromdata(context, &pkey, EVP_PKEY_KEYPAIR, params) == 1;
    EVP_PKEY_CTX_free(context);
    OSSL_PARAM_free(params);
    OSSL_PARAM_BLD_free(builder);
    BN_free(e);
    BN_free(n);
    BN_free(phi);
    BN_free(p1);
    BN_free(q1);
    BN_clear_free(p);
    BN_clear_free(q);
    BN_clear_free(d);
    BN_clear_free(dmp1);
    BN_clear_free(dmq1);
    BN_clear_free(iqmp);
    BN_CTX_free(ctx);
    if (!ok) {
        EVP_PKEY_free(pkey);
        return NULL;
    }
    return wrap_key(pkey, 1);
}

static BIO *memory_bio(const void *pem, size_t length) {
    if (length > INT32_MAX) return NULL;
    return BIO_new_mem_buf(pem, (int)length);
}

CMockCDNRSAKey *CMockCDNCrypto_rsa_private_from_pem(const void *pem, size_t length) {
    BIO *bio = memory_bio(pem, length);
    if (bio == NULL) return NULL;
    // The empty passphrase callback refuses encrypted keys instead of prompting on the terminal.
    EVP_PKEY *pkey = PEM_read_bio_PrivateKey(bio, NULL, NULL, "");
    BIO_free(bio);
    return wrap_key(pkey, 1);
}

CMockCDNRSAKey *CMockCDNCrypto_rsa_public_from_pem(const void *pem, size_t length) {
    // A decoder with no structure named reads SubjectPublicKeyInfo ("PUBLIC KEY") and PKCS#1
    // ("RSA PUBLIC KEY") alike.
    EVP_PKEY *pkey = NULL;
    OSSL_DECODER_CTX *decoder =
        OSSL_DECODER_CTX_new_for_pkey(&pkey, "PEM", NULL, "RSA", EVP_PKEY_PUBLIC_KEY, NULL, NULL);
    if (decoder == NULL) return NULL;
    const unsigned char *cursor = pem;
    size_t remaining = length;
    if (OSSL_DECODER_from_data(decoder, &cursor, &remaining) != 1) pkey = NULL;
    OSSL_DECODER_CTX_free(decoder);
    ERR_clear_error();
    return wrap_key(pkey, 0);
}

int CMockCDNCrypto_rsa_is_private(const CMockCDNRSAKey *key) {
    return key->is_private;
}

int CMockCDNCrypto_rsa_bits(const CMockCDNRSAKey *key) {
    return EVP_PKEY_get_bits(key->pkey);
}

// RSA and ECDSA keys share PEM export, signing and verifying: EVP does the same calls for both.

static int pkey_to_pem(EVP_PKEY *pkey, int is_private, int include_private, char **out, size_t *out_length) {
    *out = NULL;
    *out_length = 0;
    if (include_private && !is_private) return 0;
    BIO *bio = BIO_new(BIO_s_mem());
    if (bio == NULL) return 0;
    int ok = include_private
        ? PEM_write_bio_PrivateKey(bio, pkey, NULL, NULL, 0, NULL, NULL)
        : PEM_write_bio_PUBKEY(bio, pkey);
    if (ok == 1) {
        char *data = NULL;
        long length = BIO_get_mem_data(bio, &data);
        *out = malloc((size_t)length + 1);
        if (*out != NULL) {
            memcpy(*out, data, (size_t)length);
            (*out)[length] = 0;
            *out_length = (size_t)length;
        } else {
            ok = 0;
        }
    }
    BIO_free(bio);
    return ok == 1;
}

static int pkey_sign(
    EVP_PKEY *pkey, int is_private, int sha256, const void *data, size_t data_length, void *signature,
    size_t signature_capacity, size_t *signature_length) {
    *signature_length = 0;
    if (!is_private) return 0;
    EVP_MD_CTX *context = EVP_MD_CTX_new();
    if (context == NULL) return 0;
    size_t length = signature_capacity;
    int ok = EVP_DigestSignInit(context, NULL, sha256 ? EVP_sha256() : EVP_sha1(), NULL, pkey) == 1
        && EVP_DigestSign(context, signature, &length, NONNULL_INPUT(data), data_length) == 1;
    EVP_MD_CTX_free(context);
    if (ok) *signature_length = length;
    return ok;
}

static int pkey_verify(
    EVP_PKEY *pkey, int sha256, const void *data, size_t data_length, const void *signature,
    size_t signature_length) {
    EVP_MD_CTX *context = EVP_MD_CTX_new();
    if (context == NULL) return 0;
    int ok = EVP_DigestVerifyInit(context, NULL, sha256 ? EVP_sha256() : EVP_sha1(), NULL, pkey) == 1
        && EVP_DigestVerify(context, signature, signature_length, NONNULL_INPUT(data), data_length) == 1;
    EVP_MD_CTX_free(context);
    // A failed verification leaves reasons on OpenSSL's thread-local error queue; drop them.
    ERR_clear_error();
    return ok;
}

int CMockCDNCrypto_rsa_to_pem(const CMockCDNRSAKey *key, int include_private, char **out, size_t *out_length) {
    return pkey_to_pem(key->pkey, key->is_private, include_private, out, out_length);
}

int CMockCDNCrypto_rsa_sign(
    const CMockCDNRSAKey *key, int sha256, const void *data, size_t data_length, void *signature,
    size_t signature_capacity, size_t *signature_length) {
    return pkey_sign(
        key->pkey, key->is_private, sha256, data, data_length, signature, signature_capacity, signature_length);
}

int CMockCDNCrypto_rsa_verify(
    const CMockCDNRSAKey *key, int sha256, const void *data, size_t data_length, const void *signature,
    size_t signature_length) {
    return pkey_verify(key->pkey, sha256, data, data_length, signature, signature_length);
}

void CMockCDNCrypto_rsa_free(CMockCDNRSAKey *key) {
    if (key == NULL) return;
    EVP_PKEY_free(key->pkey);
    free(key);
}

// MARK: - ECDSA P-256

/// Takes `pkey` (freed on failure) when it is an EC key on P-256: CloudFront's key groups take no other curve.
/// libcrypto names the group of a key read with explicit curve parameters when they are a known curve's, so
/// the name alone decides.
static CMockCDNECKey *wrap_ec_key(EVP_PKEY *pkey, int is_private) {
    if (pkey == NULL) return NULL;
    char group[32] = {0};
    size_t group_length = 0;
    if (EVP_PKEY_get_base_id(pkey) != EVP_PKEY_EC
        || EVP_PKEY_get_utf8_string_param(pkey, OSSL_PKEY_PARAM_GROUP_NAME, group, sizeof(group), &group_length) != 1
        || strcmp(group, SN_X9_62_prime256v1) != 0) {
        EVP_PKEY_free(pkey);
        ERR_clear_error();
        return NULL;
    }
    CMockCDNECKey *key = malloc(sizeof(CMockCDNECKey));
    if (key == NULL) {
        EVP_PKEY_free(pkey);
        return NULL;
    }
    key->pkey = pkey;
    key->is_private = is_private;
    return key;
}

CMockCDNECKey *CMockCDNCrypto_ec_generate(void) {
    return wrap_ec_key(EVP_EC_gen(SN_X9_62_prime256v1), 1);
}

CMockCDNECKey *CMockCDNCrypto_ec_private_from_pem(const void *pem, size_t length) {
    BIO *bio = memory_bio(pem, length);
    if (bio == NULL) return NULL;
    // As for RSA: the empty passphrase callback refuses encrypted keys instead of prompting.
    EVP_PKEY *pkey = PEM_read_bio_PrivateKey(bio, NULL, NULL, "");
    BIO_free(bio);
    ERR_clear_error();
    return wrap_ec_key(pkey, 1);
}

CMockCDNECKey *CMockCDNCrypto_ec_public_from_pem(const void *pem, size_t length) {
    EVP_PKEY *pkey = NULL;
    OSSL_DECODER_CTX *decoder =
        OSSL_DECODER_CTX_new_for_pkey(&pkey, "PEM", NULL, "EC", EVP_PKEY_PUBLIC_KEY, NULL, NULL);
    if (decoder == NULL) return NULL;
    const unsigned char *cursor = pem;
    size_t remaining = length;
    if (OSSL_DECODER_from_data(decoder, &cursor, &remaining) != 1) pkey = NULL;
    OSSL_DECODER_CTX_free(decoder);
    ERR_clear_error();
    return wrap_ec_key(pkey, 0);
}

int CMockCDNCrypto_ec_is_private(const CMockCDNECKey *key) {
    return key->is_private;
}

int CMockCDNCrypto_ec_to_pem(const CMockCDNECKey *key, int include_private, char **out, size_t *out_length) {
    return pkey_to_pem(key->pkey, key->is_private, include_private, out, out_length);
}

int CMockCDNCrypto_ec_sign(
    const CMockCDNECKey *key, int sha256, const void *data, size_t data_length, void *signature,
    size_t signature_capacity, size_t *signature_length) {
    return pkey_sign(
        key->pkey, key->is_private, sha256, data, data_length, signature, signature_capacity, signature_length);
}

int CMockCDNCrypto_ec_verify(
    const CMockCDNECKey *key, int sha256, const void *data, size_t data_length, const void *signature,
    size_t signature_length) {
    // libcrypto decodes the DER and re-encodes it, and refuses the signature unless both are the same bytes.
    return pkey_verify(key->pkey, sha256, data, data_length, signature, signature_length);
}

void CMockCDNCrypto_ec_free(CMockCDNECKey *key) {
    if (key == NULL) return;
    EVP_PKEY_free(key->pkey);
    free(key);
}

void CMockCDNCrypto_free(void *pointer) {
    free(pointer);
}
