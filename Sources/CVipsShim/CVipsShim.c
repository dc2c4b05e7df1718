// libvips behind CVipsShim.h. No GObject or glib type leaves this file.
#include "CVipsShim.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <vips/vips.h>

/// The largest intermediate a cover resize may build (width x height), well above 4096 x 4096 outputs.
#define CVIPSSHIM_MAXIMUM_COVER_PIXELS (64.0 * 1024 * 1024)

static pthread_once_t initialize_once = PTHREAD_ONCE_INIT;
static char *initialize_failure = NULL;

/// Copies vips' error buffer into a string the caller owns, then clears the buffer.
static int fail(char **error, const char *fallback) {
    // vips_error_buffer_copy takes and clears the buffer under vips' own lock.
    char *buffer = vips_error_buffer_copy();
    if (buffer != NULL && buffer[0] != 0) {
        *error = buffer;
    } else {
        g_free(buffer);
        *error = g_strdup(fallback);
    }
    return 0;
}

static void initialize(void) {
    if (VIPS_INIT("mockcdn") != 0) {
        const char *buffer = vips_error_buffer();
        initialize_failure = g_strdup(buffer != NULL && buffer[0] != 0 ? buffer : "vips_init failed");
        vips_error_clear();
        return;
    }
    // Refuse loaders libvips marks as untrusted (SVG among them: MockCDN never rasterises SVG), except
    // ImageMagick's buffer loader, the only one that reads BMP. The policy layer decides what reaches it.
    vips_block_untrusted_set(TRUE);
    vips_operation_block_set("VipsForeignLoadMagickBuffer", FALSE);
    // Variants are cached by MockCDN itself; vips' operation cache would only hold memory.
    vips_cache_set_max(0);
}

int CVipsShim_initialize(char **error) {
    *error = NULL;
    pthread_once(&initialize_once, initialize);
    if (initialize_failure != NULL) {
        *error = g_strdup(initialize_failure);
        return 0;
    }
    return 1;
}

static VipsImage *open_header(const void *data, size_t length, char **error) {
    if (!CVipsShim_initialize(error)) return NULL;
    // Loading from a buffer is lazy: only the header is parsed until pixels are asked for.
    VipsImage *image = vips_image_new_from_buffer(data, length, "", "access", VIPS_ACCESS_SEQUENTIAL, NULL);
    if (image == NULL) fail(error, "unsupported image");
    return image;
}

int CVipsShim_probe(const void *data, size_t length, CVipsShimHeader *header, char **error) {
    *error = NULL;
    memset(header, 0, sizeof(*header));
    VipsImage *image = open_header(data, length, error);
    if (image == NULL) return 0;
    header->width = vips_image_get_width(image);
    header->page_height = vips_image_get_page_height(image);
    header->pages = vips_image_get_n_pages(image);
    const char *loader = NULL;
    if (vips_image_get_string(image, VIPS_META_LOADER, &loader) == 0 && loader != NULL) {
        snprintf(header->loader, sizeof(header->loader), "%s", loader);
    }
    g_object_unref(image);
    return 1;
}

static const char *suffix(CVipsShimFormat format) {
    switch (format) {
    case CVipsShimFormatJPEG: return ".jpg";
    case CVipsShimFormatPNG: return ".png";
    case CVipsShimFormatWebP: return ".webp";
    case CVipsShimFormatGIF: return ".gif";
    }
    return ".png";
}

static int encode(VipsImage *image, CVipsShimFormat format, int quality, void **out, size_t *out_length, char **error) {
    char options[32];
    if (format == CVipsShimFormatJPEG || format == CVipsShimFormatWebP) {
        snprintf(options, sizeof(options), "%s[Q=%d,strip]", suffix(format), quality);
    } else {
        snprintf(options, sizeof(options), "%s[strip]", suffix(format));
    }
    if (vips_image_write_to_buffer(image, options, out, out_length, NULL) != 0) return fail(error, "encode failed");
    return 1;
}

static VipsImage *thumbnail(const void *data, size_t length, int width, int height, VipsSize size, int all_pages) {
    VipsImage *out = NULL;
    int status = all_pages
        ? vips_thumbnail_buffer((void *)data, length, &out, width, "height", height, "size", size,
            "option_string", "n=-1", NULL)
        : vips_thumbnail_buffer((void *)data, length, &out, width, "height", height, "size", size, NULL);
    return status == 0 ? out : NULL;
}

/// Offset of a `target`-long window in `total` for an anchor on this axis.
static int anchor_offset(int total, int target, int low, int high) {
    if (low) return 0;
    if (high) return total - target;
    return (total - target) / 2;
}

static VipsImage *cover(const void *data, size_t length, int width, int height, CVipsShimAnchor anchor,
    int all_pages, char **error) {
    VipsImage *source = open_header(data, length, error);
    if (source == NULL) return NULL;
    double source_width = vips_image_get_width(source);
    double source_height = vips_image_get_page_height(source);
    g_object_unref(source);
    double scale = fmax(width / source_width, height / source_height);
    double cover_width = fmax(width, round(source_width * scale));
    double cover_height = fmax(height, round(source_height * scale));
    // A thin source cut to a wide box would be enlarged to an enormous strip first; refuse before any work.
    if (cover_width * cover_height > CVIPSSHIM_MAXIMUM_COVER_PIXELS) {
        *error = g_strdup("crop would enlarge the source past the intermediate pixel limit");
        return NULL;
    }
    int covered_width = (int)cover_width;
    int covered_height = (int)cover_height;
    VipsImage *covered = thumbnail(data, length, covered_width, covered_height, VIPS_SIZE_FORCE, all_pages);
    if (covered == NULL) return NULL;
    int left = anchor_offset(
        covered_width, width, anchor == CVipsShimAnchorLeft, anchor == CVipsShimAnchorRight);
    int top = anchor_offset(
        covered_height, height, anchor == CVipsShimAnchorTop, anchor == CVipsShimAnchorBottom);
    int pages = vips_image_get_n_pages(covered);
    if (vips_image_get_height(covered) != covered_height) pages = vips_image_get_height(covered) / covered_height;
    VipsImage *out = NULL;
    if (pages <= 1) {
        vips_extract_area(covered, &out, left, top, width, height, NULL);
    } else {
        // An animation is one tall strip of frames: cut each frame, then stack them again.
        VipsImage **frames = g_new0(VipsImage *, pages);
        int ok = 1;
        for (int page = 0; page < pages && ok; page++) {
            ok = vips_extract_area(covered, &frames[page], left, page * covered_height + top, width, height, NULL)
                == 0;
        }
        if (ok && vips_arrayjoin(frames, &out, pages, "across", 1, NULL) == 0) {
            vips_image_set_int(out, VIPS_META_PAGE_HEIGHT, height);
        }
        for (int page = 0; page < pages; page++) {
            if (frames[page] != NULL) g_object_unref(frames[page]);
        }
        g_free(frames);
    }
    g_object_unref(covered);
    return out;
}

/// Pads every frame of `image` to width x height with black, centred; an animation is one tall strip of
/// frames, so each frame is cut, padded, and the strip stacked again.
static VipsImage *pad_frames(VipsImage *image, int width, int height) {
    int frame_height = vips_image_get_page_height(image);
    int pages = vips_image_get_height(image) / frame_height;
    VipsImage *out = NULL;
    if (pages <= 1) {
        vips_gravity(image, &out, VIPS_COMPASS_DIRECTION_CENTRE, width, height, "extend", VIPS_EXTEND_BLACK, NULL);
        return out;
    }
    VipsImage **frames = g_new0(VipsImage *, pages);
    int ok = 1;
    for (int page = 0; page < pages && ok; page++) {
        VipsImage *frame = NULL;
        ok = vips_extract_area(image, &frame, 0, page * frame_height, vips_image_get_width(image), frame_height, NULL)
            == 0;
        if (ok) {
            ok = vips_gravity(frame, &frames[page], VIPS_COMPASS_DIRECTION_CENTRE, width, height, "extend",
                     VIPS_EXTEND_BLACK, NULL)
                == 0;
            g_object_unref(frame);
        }
    }
    if (ok && vips_arrayjoin(frames, &out, pages, "across", 1, NULL) == 0) {
        vips_image_set_int(out, VIPS_META_PAGE_HEIGHT, height);
    }
    for (int page = 0; page < pages; page++) {
        if (frames[page] != NULL) g_object_unref(frames[page]);
    }
    g_free(frames);
    return out;
}

int CVipsShim_resize(
    const void *data, size_t length, int width, int height, CVipsShimMode mode, CVipsShimAnchor anchor,
    CVipsShimFormat format, int quality, int all_pages, void **out, size_t *out_length, char **error) {
    *error = NULL;
    *out = NULL;
    *out_length = 0;
    if (!CVipsShim_initialize(error)) return 0;
    if (width < 1 || height < 1) {
        *error = g_strdup("width and height must be positive");
        return 0;
    }
    VipsImage *result = NULL;
    switch (mode) {
    case CVipsShimModeFit:
        result = thumbnail(data, length, width, height, VIPS_SIZE_DOWN, all_pages);
        break;
    case CVipsShimModeForce:
        result = thumbnail(data, length, width, height, VIPS_SIZE_FORCE, all_pages);
        break;
    case CVipsShimModeCover:
        result = cover(data, length, width, height, anchor, all_pages, error);
        if (result == NULL && *error != NULL) return 0;
        break;
    case CVipsShimModePad: {
        VipsImage *fitted = thumbnail(data, length, width, height, VIPS_SIZE_DOWN, all_pages);
        if (fitted != NULL) {
            result = pad_frames(fitted, width, height);
            g_object_unref(fitted);
        }
        break;
    }
    }
    if (result == NULL) return fail(error, "resize failed");
    int ok = encode(result, format, quality, out, out_length, error);
    g_object_unref(result);
    return ok;
}

int CVipsShim_encode_pixels(
    const void *pixels, size_t length, int width, int height, int bands, int page_height, CVipsShimFormat format,
    int quality, void **out, size_t *out_length, char **error) {
    *error = NULL;
    *out = NULL;
    *out_length = 0;
    if (!CVipsShim_initialize(error)) return 0;
    if (width < 1 || height < 1 || bands < 1 || bands > 4 || (size_t)width * height * bands != length) {
        *error = g_strdup("pixel buffer does not match width x height x bands");
        return 0;
    }
    VipsImage *image = vips_image_new_from_memory(pixels, length, width, height, bands, VIPS_FORMAT_UCHAR);
    if (image == NULL) return fail(error, "cannot wrap pixels");
    if (page_height > 0 && page_height < height && height % page_height == 0) {
        vips_image_set_int(image, VIPS_META_PAGE_HEIGHT, page_height);
    }
    int ok = encode(image, format, quality, out, out_length, error);
    g_object_unref(image);
    return ok;
}

int CVipsShim_decode_pixels(
    const void *data, size_t length, void **pixels, size_t *pixels_length, int *width, int *height, int *bands,
    char **error) {
    *error = NULL;
    *pixels = NULL;
    *pixels_length = 0;
    VipsImage *image = open_header(data, length, error);
    if (image == NULL) return 0;
    VipsImage *uchar = NULL;
    if (vips_cast_uchar(image, &uchar, NULL) != 0) {
        g_object_unref(image);
        return fail(error, "cannot convert to 8-bit");
    }
    g_object_unref(image);
    *pixels = vips_image_write_to_memory(uchar, pixels_length);
    *width = vips_image_get_width(uchar);
    *height = vips_image_get_height(uchar);
    *bands = vips_image_get_bands(uchar);
    g_object_unref(uchar);
    if (*pixels == NULL) return fail(error, "decode failed");
    return 1;
}

void CVipsShim_free(void *pointer) {
    g_free(pointer);
}
