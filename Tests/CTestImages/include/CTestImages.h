#ifndef CTESTIMAGES_H
#define CTESTIMAGES_H

#include <stddef.h>

#pragma clang assume_nonnull begin

/// Encodes 8-bit interleaved pixels (`bands` 1 to 4 per pixel, row-major) with libvips' saver for `options`
/// (".png", ".jpg[Q=90]", ...). A `page_height` that divides `height` makes the pixels a strip of frames (an
/// animation, for GIF and WebP); 0 for a still image. Tests only: the server never encodes raw pixels.
int CTestImages_encode(const void *pixels, size_t length, int width, int height, int bands, int page_height,
    const char *options, void *_Nullable *_Nonnull out, size_t *out_length, char *_Nullable *_Nonnull error);

/// Decodes the first page of an encoded image to 8-bit interleaved pixels.
int CTestImages_decode(const void *data, size_t length, void *_Nullable *_Nonnull pixels, size_t *pixels_length,
    int *width, int *height, int *bands, char *_Nullable *_Nonnull error);

void CTestImages_free(void *_Nullable pointer);

#pragma clang assume_nonnull end

#endif
