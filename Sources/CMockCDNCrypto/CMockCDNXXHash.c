// xxHash behind CMockCDNCrypto.h: S3's XXHASH64, XXHASH3 and XXHASH128 checksums.
//
// Why inline: Debian's libxxhash-dev ships the library as one header that compiles whole into a caller with
// XXH_INLINE_ALL (its documented way of use), so the hashes are xxHash's own, well-kept code (the reference
// implementation, with its SSE2/AVX2 paths picked at compile time), yet `mockcdn` links no libxxhash and needs
// no new package at run time. Every xxHash type stays in this file.
#include "CMockCDNCrypto.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <stdlib.h>
#include <string.h>

struct CMockCDNXXHash {
    int kind;
    XXH64_state_t *_Nullable xxh64;
    XXH3_state_t *_Nullable xxh3;
};

CMockCDNXXHash *CMockCDNCrypto_xxhash_new(int kind) {
    if (kind != CMOCKCDN_XXHASH64 && kind != CMOCKCDN_XXHASH3 && kind != CMOCKCDN_XXHASH128) return NULL;
    CMockCDNXXHash *state = calloc(1, sizeof *state);
    if (state == NULL) return NULL;
    state->kind = kind;
    int started = 0;
    if (kind == CMOCKCDN_XXHASH64) {
        state->xxh64 = XXH64_createState();
        started = state->xxh64 != NULL && XXH64_reset(state->xxh64, 0) == XXH_OK;
    } else {
        // XXH3_createState aligns the state as XXH3's vector code needs (64 bytes); malloc would not.
        state->xxh3 = XXH3_createState();
        started = state->xxh3 != NULL
            && (kind == CMOCKCDN_XXHASH3 ? XXH3_64bits_reset(state->xxh3) : XXH3_128bits_reset(state->xxh3))
                == XXH_OK;
    }
    if (!started) {
        CMockCDNCrypto_xxhash_free(state);
        return NULL;
    }
    return state;
}

int CMockCDNCrypto_xxhash_update(CMockCDNXXHash *state, const void *data, size_t length) {
    if (length == 0) return 1;
    switch (state->kind) {
    case CMOCKCDN_XXHASH64: return XXH64_update(state->xxh64, data, length) == XXH_OK;
    case CMOCKCDN_XXHASH3: return XXH3_64bits_update(state->xxh3, data, length) == XXH_OK;
    default: return XXH3_128bits_update(state->xxh3, data, length) == XXH_OK;
    }
}

int CMockCDNCrypto_xxhash_final(CMockCDNXXHash *state, void *out, size_t *out_length) {
    switch (state->kind) {
    case CMOCKCDN_XXHASH64: {
        XXH64_canonical_t canonical;
        XXH64_canonicalFromHash(&canonical, XXH64_digest(state->xxh64));
        memcpy(out, canonical.digest, sizeof canonical.digest);
        *out_length = sizeof canonical.digest;
        return 1;
    }
    case CMOCKCDN_XXHASH3: {
        XXH64_canonical_t canonical;
        XXH64_canonicalFromHash(&canonical, XXH3_64bits_digest(state->xxh3));
        memcpy(out, canonical.digest, sizeof canonical.digest);
        *out_length = sizeof canonical.digest;
        return 1;
    }
    default: {
        XXH128_canonical_t canonical;
        XXH128_canonicalFromHash(&canonical, XXH3_128bits_digest(state->xxh3));
        memcpy(out, canonical.digest, sizeof canonical.digest);
        *out_length = sizeof canonical.digest;
        return 1;
    }
    }
}

void CMockCDNCrypto_xxhash_free(CMockCDNXXHash *state) {
    if (state == NULL) return;
    if (state->xxh64 != NULL) XXH64_freeState(state->xxh64);
    if (state->xxh3 != NULL) XXH3_freeState(state->xxh3);
    free(state);
}
