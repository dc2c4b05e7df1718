// CMockCDNCrypto: the few libcrypto calls MockCDN needs, behind a C API with no OpenSSL type in it.
//
// Why a shim: OpenSSL's API is macro- and type-heavy (EVP_*, BIO, OSSL_PARAM) and imports badly into
// Swift; this keeps every OpenSSL type inside CMockCDNCrypto.c. Functions return 1 on success and 0 on
// failure, and fill out-parameters; bytes travel as `void *` with explicit lengths. The CRCs are the exception:
// plain table-driven C with no libcrypto in them (libcrypto has no CRC), returning the running value. xxHash
// (S3's XXHASH64, XXHASH3 and XXHASH128 checksums) is the xxHash library's own code: Debian's libxxhash-dev
// header compiled into CMockCDNXXHash.c with XXH_INLINE_ALL, so the binary needs no libxxhash at run time.
#ifndef CMOCKCDN_CRYPTO_H
#define CMOCKCDN_CRYPTO_H

#include <stddef.h>
#include <stdint.h>

#pragma clang assume_nonnull begin

#define CMOCKCDN_SHA256_LENGTH 32
#define CMOCKCDN_SHA1_LENGTH 20
#define CMOCKCDN_MD5_LENGTH 16
#define CMOCKCDN_SHA512_LENGTH 64

/// An HMAC-SHA256 key prepared once and reused for many messages (thread-safe: each use works on a copy).
typedef struct CMockCDNHMACKey CMockCDNHMACKey;
/// A running SHA-256 over data that arrives in pieces.
typedef struct CMockCDNSHA256 CMockCDNSHA256;
/// A running SHA-1 over data that arrives in pieces (S3's x-amz-checksum-sha1).
typedef struct CMockCDNSHA1 CMockCDNSHA1;
/// A running MD5 over data that arrives in pieces (S3's Content-MD5 and ETags).
typedef struct CMockCDNMD5 CMockCDNMD5;
/// A running SHA-512 over data that arrives in pieces (S3's x-amz-checksum-sha512).
typedef struct CMockCDNSHA512 CMockCDNSHA512;
/// A running xxHash (XXH64, XXH3 64-bit or XXH3 128-bit) over data that arrives in pieces.
typedef struct CMockCDNXXHash CMockCDNXXHash;
/// An RSA key, private (can sign and verify) or public (can verify).
typedef struct CMockCDNRSAKey CMockCDNRSAKey;
/// An ECDSA key on P-256 (prime256v1), private (can sign and verify) or public (can verify).
typedef struct CMockCDNECKey CMockCDNECKey;

// MARK: - Digests and MACs
// Message and key pointers may be NULL when their length is 0.

/// HMAC-SHA256 of `data` under `key`; writes 32 bytes to `out`.
int CMockCDNCrypto_hmac_sha256(
    const void *_Nullable key, size_t key_length, const void *_Nullable data, size_t data_length, void *out);

/// HMAC-SHA1 of `data` under `key`; writes 20 bytes to `out` (S3's SigV2 signatures).
int CMockCDNCrypto_hmac_sha1(
    const void *_Nullable key, size_t key_length, const void *_Nullable data, size_t data_length, void *out);

CMockCDNHMACKey *_Nullable CMockCDNCrypto_hmac_key_new(const void *_Nullable key, size_t key_length);
int CMockCDNCrypto_hmac_key_mac(const CMockCDNHMACKey *key, const void *_Nullable data, size_t data_length, void *out);
void CMockCDNCrypto_hmac_key_free(CMockCDNHMACKey *_Nullable key);

/// SHA-256 (`out` 32 bytes) of a whole buffer.
int CMockCDNCrypto_sha256(const void *_Nullable data, size_t length, void *out);

CMockCDNSHA256 *_Nullable CMockCDNCrypto_sha256_new(void);
int CMockCDNCrypto_sha256_update(CMockCDNSHA256 *state, const void *_Nullable data, size_t length);
/// Writes the digest to `out`; the state cannot be updated afterwards.
int CMockCDNCrypto_sha256_final(CMockCDNSHA256 *state, void *out);
void CMockCDNCrypto_sha256_free(CMockCDNSHA256 *_Nullable state);

/// SHA-1 (`out` 20 bytes) of a whole buffer.
int CMockCDNCrypto_sha1(const void *_Nullable data, size_t length, void *out);

CMockCDNSHA1 *_Nullable CMockCDNCrypto_sha1_new(void);
int CMockCDNCrypto_sha1_update(CMockCDNSHA1 *state, const void *_Nullable data, size_t length);
/// Writes the digest to `out`; the state cannot be updated afterwards.
int CMockCDNCrypto_sha1_final(CMockCDNSHA1 *state, void *out);
void CMockCDNCrypto_sha1_free(CMockCDNSHA1 *_Nullable state);

/// MD5 (`out` 16 bytes) of a whole buffer. An integrity check for S3, never a security one, so it is fetched
/// even where libcrypto's default query asks for FIPS implementations.
int CMockCDNCrypto_md5(const void *_Nullable data, size_t length, void *out);

CMockCDNMD5 *_Nullable CMockCDNCrypto_md5_new(void);
int CMockCDNCrypto_md5_update(CMockCDNMD5 *state, const void *_Nullable data, size_t length);
/// Writes the digest to `out`; the state cannot be updated afterwards.
int CMockCDNCrypto_md5_final(CMockCDNMD5 *state, void *out);
void CMockCDNCrypto_md5_free(CMockCDNMD5 *_Nullable state);

/// SHA-512 (`out` 64 bytes) of a whole buffer.
int CMockCDNCrypto_sha512(const void *_Nullable data, size_t length, void *out);

CMockCDNSHA512 *_Nullable CMockCDNCrypto_sha512_new(void);
int CMockCDNCrypto_sha512_update(CMockCDNSHA512 *state, const void *_Nullable data, size_t length);
/// Writes the digest to `out`; the state cannot be updated afterwards.
int CMockCDNCrypto_sha512_final(CMockCDNSHA512 *state, void *out);
void CMockCDNCrypto_sha512_free(CMockCDNSHA512 *_Nullable state);

// MARK: - xxHash (S3's XXHASH64, XXHASH3 and XXHASH128 checksums)
// Seed 0, as S3 and the AWS CRT use them. The digest is xxHash's canonical form (big-endian; XXH128's high
// half first), which is the byte string S3 base64-encodes.

/// XXH64: 8 bytes.
#define CMOCKCDN_XXHASH64 0
/// XXH3, 64-bit: 8 bytes.
#define CMOCKCDN_XXHASH3 1
/// XXH3, 128-bit (XXH128): 16 bytes.
#define CMOCKCDN_XXHASH128 2

/// A fresh state for `kind` (one of the three above); NULL for another kind or when memory runs out.
CMockCDNXXHash *_Nullable CMockCDNCrypto_xxhash_new(int kind);
int CMockCDNCrypto_xxhash_update(CMockCDNXXHash *state, const void *_Nullable data, size_t length);
/// Writes the canonical digest (8 or 16 bytes, `out_length` says which) to `out`, which holds 16 bytes. The
/// state may be finalized again; it is not reset.
int CMockCDNCrypto_xxhash_final(CMockCDNXXHash *state, void *out, size_t *out_length);
void CMockCDNCrypto_xxhash_free(CMockCDNXXHash *_Nullable state);

// MARK: - CRCs (S3's flexible checksums)
// Incremental like zlib's crc32(): start from 0, and pass each result back in with the next piece; the value
// returned is the finished CRC of everything so far (the initial and final inversions happen inside).
// Slice-by-8 tables, built on first use; `data` may be NULL when `length` is 0.

/// CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320), as zlib and S3's x-amz-checksum-crc32.
uint32_t CMockCDNCrypto_crc32_update(uint32_t crc, const void *_Nullable data, size_t length);
/// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), as iSCSI and S3's x-amz-checksum-crc32c.
uint32_t CMockCDNCrypto_crc32c_update(uint32_t crc, const void *_Nullable data, size_t length);
/// CRC-64/NVME (reflected polynomial 0x9A6C9329AC4BC9B5, all-ones init and xorout), as S3's
/// x-amz-checksum-crc64nvme. Carry-less multiply folding on a CPU with PCLMULQDQ, else the portable loop.
uint64_t CMockCDNCrypto_crc64nvme_update(uint64_t crc, const void *_Nullable data, size_t length);
/// The same CRC by the portable slice-by-8 loop alone, whatever the CPU: what the fast path is tested against.
uint64_t CMockCDNCrypto_crc64nvme_update_portable(uint64_t crc, const void *_Nullable data, size_t length);

// MARK: - Random bytes and comparison

int CMockCDNCrypto_random_bytes(void *out, size_t length);
/// 1 when the buffers are equal; time depends on `length` only, never on where they differ.
int CMockCDNCrypto_constant_time_equal(const void *a, const void *b, size_t length);

// MARK: - RSA

/// Generates a fresh RSA key of `bits` bits with public exponent 65537.
CMockCDNRSAKey *_Nullable CMockCDNCrypto_rsa_generate(int bits);
/// Derives an RSA key of `bits` bits (e = 65537) from `seed` alone: the same seed gives the same key in every
/// process. Its primes come from HMAC-SHA256 blocks of the seed, stepped to the next prime; only as secret as
/// the seed (for MockCDN, an app's API secret), so never for a production key.
CMockCDNRSAKey *_Nullable CMockCDNCrypto_rsa_derive(const void *_Nullable seed, size_t seed_length, int bits);
/// Reads a PEM private key (PKCS#1 "RSA PRIVATE KEY" or PKCS#8 "PRIVATE KEY").
CMockCDNRSAKey *_Nullable CMockCDNCrypto_rsa_private_from_pem(const void *pem, size_t length);
/// Reads a PEM public key (SubjectPublicKeyInfo "PUBLIC KEY" or PKCS#1 "RSA PUBLIC KEY").
CMockCDNRSAKey *_Nullable CMockCDNCrypto_rsa_public_from_pem(const void *pem, size_t length);
/// 1 when the key holds a private part.
int CMockCDNCrypto_rsa_is_private(const CMockCDNRSAKey *key);
/// The key size in bits.
int CMockCDNCrypto_rsa_bits(const CMockCDNRSAKey *key);
/// Writes PEM text (PKCS#8 private or SubjectPublicKeyInfo public) into a buffer the caller frees with
/// CMockCDNCrypto_free.
int CMockCDNCrypto_rsa_to_pem(
    const CMockCDNRSAKey *key, int include_private, char *_Nullable *_Nonnull out, size_t *out_length);
/// RSASSA-PKCS1-v1_5 over SHA-1 (`sha256` 0) or SHA-256 (`sha256` 1). `signature` must hold
/// `bits / 8` bytes; `signature_length` gets the length written.
int CMockCDNCrypto_rsa_sign(
    const CMockCDNRSAKey *key, int sha256, const void *_Nullable data, size_t data_length, void *signature,
    size_t signature_capacity, size_t *signature_length);
/// 1 when `signature` is a valid RSASSA-PKCS1-v1_5 signature of `data`, 0 otherwise.
int CMockCDNCrypto_rsa_verify(
    const CMockCDNRSAKey *key, int sha256, const void *_Nullable data, size_t data_length, const void *signature,
    size_t signature_length);
void CMockCDNCrypto_rsa_free(CMockCDNRSAKey *_Nullable key);

// MARK: - ECDSA P-256
// CloudFront's other key type. Signatures are DER (ECDSA-Sig-Value, a SEQUENCE of the INTEGERs r and s), as
// `openssl dgst -sign` writes them and CloudFront reads them; a P-256 one is at most 72 bytes.

#define CMOCKCDN_ECDSA_P256_MAX_SIGNATURE 72

/// Generates a fresh P-256 key.
CMockCDNECKey *_Nullable CMockCDNCrypto_ec_generate(void);
/// Reads a PEM private key (SEC1 "EC PRIVATE KEY" or PKCS#8 "PRIVATE KEY"); NULL for any curve but P-256, for
/// an encrypted key, and for any other key type.
CMockCDNECKey *_Nullable CMockCDNCrypto_ec_private_from_pem(const void *pem, size_t length);
/// Reads a PEM public key (SubjectPublicKeyInfo "PUBLIC KEY"); NULL for any curve but P-256.
CMockCDNECKey *_Nullable CMockCDNCrypto_ec_public_from_pem(const void *pem, size_t length);
/// 1 when the key holds a private part.
int CMockCDNCrypto_ec_is_private(const CMockCDNECKey *key);
/// Writes PEM text (PKCS#8 private or SubjectPublicKeyInfo public) into a buffer the caller frees with
/// CMockCDNCrypto_free.
int CMockCDNCrypto_ec_to_pem(
    const CMockCDNECKey *key, int include_private, char *_Nullable *_Nonnull out, size_t *out_length);
/// ECDSA over SHA-1 (`sha256` 0) or SHA-256 (`sha256` 1), DER-encoded. `signature` must hold
/// CMOCKCDN_ECDSA_P256_MAX_SIGNATURE bytes; `signature_length` gets the length written.
int CMockCDNCrypto_ec_sign(
    const CMockCDNECKey *key, int sha256, const void *_Nullable data, size_t data_length, void *signature,
    size_t signature_capacity, size_t *signature_length);
/// 1 when `signature` is a valid DER-encoded ECDSA signature of `data`, 0 otherwise (also for a BER or
/// otherwise non-canonical encoding of a valid one, and for trailing bytes).
int CMockCDNCrypto_ec_verify(
    const CMockCDNECKey *key, int sha256, const void *_Nullable data, size_t data_length, const void *signature,
    size_t signature_length);
void CMockCDNCrypto_ec_free(CMockCDNECKey *_Nullable key);

void CMockCDNCrypto_free(void *_Nullable pointer);

#pragma clang assume_nonnull end

#endif
