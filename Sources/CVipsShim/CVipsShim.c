// libvips behind CVipsShim.h, built as the loadable module libMockCDNVips. Its only exported symbol is
// CVipsShimModule_get, the table of the functions below; CVipsLoader calls through it. No GObject or glib
// type leaves this file.
#include "CVipsShim.h"
#include "CVipsShimModule.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vips/vips.h>

static void module_free(void *pointer);

/// The largest intermediate a cover resize may build (width x height), well above 4096 x 4096 outputs.
#define CVIPSSHIM_MAXIMUM_COVER_PIXELS (64.0 * 1024 * 1024)

/// The one loader class each source format may be decoded by (BMP has none: the shim reads it).
static const struct {
    const char *class_name;
} allowed_loaders[] = {
    [CVipsShimSourceJPEG] = {"VipsForeignLoadJpegBuffer"},
    [CVipsShimSourcePNG] = {"VipsForeignLoadPngBuffer"},
    [CVipsShimSourceWebP] = {"VipsForeignLoadWebpBuffer"},
    [CVipsShimSourceGIF] = {"VipsForeignLoadNsgifBuffer"},
    [CVipsShimSourceHEIF] = {"VipsForeignLoadHeifBuffer"},
};

/// The largest BMP the shim decodes (pixels); the caller's pixel bound is lower.
#define CVIPSSHIM_MAXIMUM_BMP_PIXELS (64.0 * 1024 * 1024)

struct CVipsShimControl {
    atomic_int cancelled;
    gint64 deadline;
};

static CVipsShimControl *module_control_new(double seconds) {
    CVipsShimControl *control = g_new0(CVipsShimControl, 1);
    atomic_init(&control->cancelled, 0);
    control->deadline = g_get_monotonic_time() + (gint64)(seconds * 1e6);
    return control;
}

static void module_control_cancel(CVipsShimControl *control) {
    atomic_store(&control->cancelled, 1);
}

static void module_control_free(CVipsShimControl *control) {
    g_free(control);
}

/// vips' "eval" signal, raised as pixels are computed: kills the pipeline once the control says stop.
static void on_eval(VipsImage *image, VipsProgress *progress, void *user) {
    (void)progress;
    CVipsShimControl *control = user;
    if (atomic_load(&control->cancelled) || g_get_monotonic_time() > control->deadline) {
        vips_image_set_kill(image, TRUE);
    }
}

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
    // Every loader is blocked but the buffer loaders of Stream's image types. Whatever bytes arrive, no other
    // decoder runs: not ImageMagick (which renders SVG and reads local files named inside it), not SVG,
    // TIFF, PDF, FITS or any other format libvips could sniff. BMP is read by this shim (read_bmp).
    vips_block_untrusted_set(TRUE);
    vips_operation_block_set("VipsForeignLoad", TRUE);
    for (size_t index = 0; index < sizeof(allowed_loaders) / sizeof(allowed_loaders[0]); index++) {
        vips_operation_block_set(allowed_loaders[index].class_name, FALSE);
    }
    // Variants are cached by MockCDN itself; vips' operation cache would only hold memory.
    vips_cache_set_max(0);
}

static int module_initialize(char **error) {
    *error = NULL;
    pthread_once(&initialize_once, initialize);
    if (initialize_failure != NULL) {
        *error = g_strdup(initialize_failure);
        return 0;
    }
    return 1;
}

static VipsImage *open_header(const void *data, size_t length, char **error) {
    if (!module_initialize(error)) return NULL;
    // Loading from a buffer is lazy: only the header is parsed until pixels are asked for.
    VipsImage *image = vips_image_new_from_buffer(data, length, "", "access", VIPS_ACCESS_SEQUENTIAL, NULL);
    if (image == NULL) fail(error, "unsupported image");
    return image;
}

static uint32_t little32(const uint8_t *bytes) {
    return (uint32_t)bytes[0] | (uint32_t)bytes[1] << 8 | (uint32_t)bytes[2] << 16 | (uint32_t)bytes[3] << 24;
}

/// The geometry of an uncompressed 24- or 32-bit BMP: all this shim reads.
typedef struct {
    int width;
    int height;
    int top_down;
    int bytes_per_pixel;
    size_t offset;
    size_t stride;
} BMPLayout;

static int bmp_layout(const uint8_t *bytes, size_t length, BMPLayout *layout, char **error) {
    if (length < 54 || bytes[0] != 'B' || bytes[1] != 'M') {
        *error = g_strdup("not a BMP file");
        return 0;
    }
    uint32_t header_size = little32(bytes + 14);
    int32_t width = (int32_t)little32(bytes + 18);
    int32_t height = (int32_t)little32(bytes + 22);
    int planes = bytes[26] | bytes[27] << 8;
    int bits = bytes[28] | bytes[29] << 8;
    uint32_t compression = little32(bytes + 30);
    if (header_size < 40 || planes != 1 || (bits != 24 && bits != 32) || compression != 0) {
        *error = g_strdup("only uncompressed 24- and 32-bit BMP files can be resized");
        return 0;
    }
    if (width < 1 || height == 0 || height == INT32_MIN || width > 65535 || labs((long)height) > 65535) {
        *error = g_strdup("BMP dimensions out of range");
        return 0;
    }
    layout->width = width;
    layout->height = (int)labs((long)height);
    layout->top_down = height < 0;
    layout->bytes_per_pixel = bits / 8;
    layout->offset = little32(bytes + 10);
    layout->stride = ((size_t)width * (size_t)bits + 31) / 32 * 4;
    if (layout->offset < 14 + header_size || layout->offset > length
        || layout->stride * (size_t)layout->height > length - layout->offset) {
        *error = g_strdup("BMP pixel data is truncated");
        return 0;
    }
    return 1;
}

/// Decodes an uncompressed BMP into an RGB vips image that owns its pixels.
static VipsImage *read_bmp(const void *data, size_t length, char **error) {
    BMPLayout layout;
    if (!bmp_layout(data, length, &layout, error)) return NULL;
    if ((double)layout.width * layout.height > CVIPSSHIM_MAXIMUM_BMP_PIXELS) {
        *error = g_strdup("BMP is too large to decode");
        return NULL;
    }
    size_t row_bytes = (size_t)layout.width * 3;
    uint8_t *pixels = g_try_malloc(row_bytes * (size_t)layout.height);
    if (pixels == NULL) {
        *error = g_strdup("out of memory decoding BMP");
        return NULL;
    }
    const uint8_t *source = (const uint8_t *)data + layout.offset;
    for (int y = 0; y < layout.height; y++) {
        const uint8_t *in = source + (size_t)(layout.top_down ? y : layout.height - 1 - y) * layout.stride;
        uint8_t *out = pixels + (size_t)y * row_bytes;
        for (int x = 0; x < layout.width; x++, in += layout.bytes_per_pixel, out += 3) {
            out[0] = in[2];
            out[1] = in[1];
            out[2] = in[0];
        }
    }
    VipsImage *image = vips_image_new_from_memory_copy(
        pixels, row_bytes * (size_t)layout.height, layout.width, layout.height, 3, VIPS_FORMAT_UCHAR);
    g_free(pixels);
    if (image == NULL) fail(error, "cannot wrap BMP pixels");
    return image;
}

/// Fails unless the one loader allowed for `source` is the one libvips picks for these bytes.
static int check_loader(const void *data, size_t length, CVipsShimSource source, char **error) {
    if (!module_initialize(error)) return 0;
    if (source == CVipsShimSourceBMP) {
        BMPLayout layout;
        return bmp_layout(data, length, &layout, error);
    }
    const char *loader = vips_foreign_find_load_buffer(data, length);
    vips_error_clear();
    // libvips names the loader by its class.
    if (loader == NULL || strcmp(loader, allowed_loaders[source].class_name) != 0) {
        *error = g_strdup("the bytes are not in the image format they were stored as");
        return 0;
    }
    return 1;
}

/// An encoded source and, for BMP, its decoded pixels.
typedef struct {
    const void *data;
    size_t length;
    VipsImage *decoded;
} Source;

static int open_source(const void *data, size_t length, CVipsShimSource format, Source *source, char **error) {
    source->data = data;
    source->length = length;
    source->decoded = NULL;
    if (!check_loader(data, length, format, error)) return 0;
    if (format == CVipsShimSourceBMP) {
        source->decoded = read_bmp(data, length, error);
        if (source->decoded == NULL) return 0;
    }
    return 1;
}

static int module_probe(
    const void *data, size_t length, CVipsShimSource source, CVipsShimHeader *header, char **error) {
    *error = NULL;
    memset(header, 0, sizeof(*header));
    if (!check_loader(data, length, source, error)) return 0;
    if (source == CVipsShimSourceBMP) {
        BMPLayout layout;
        bmp_layout(data, length, &layout, error);
        header->width = layout.width;
        header->page_height = layout.height;
        header->pages = 1;
        snprintf(header->loader, sizeof(header->loader), "%s", "mockcdn_bmp");
        return 1;
    }
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

static VipsImage *thumbnail(const Source *source, int width, int height, VipsSize size, int all_pages) {
    VipsImage *out = NULL;
    int status;
    if (source->decoded != NULL) {
        status = vips_thumbnail_image(source->decoded, &out, width, "height", height, "size", size, NULL);
    } else if (all_pages) {
        status = vips_thumbnail_buffer((void *)source->data, source->length, &out, width, "height", height, "size",
            size, "option_string", "n=-1", NULL);
    } else {
        status = vips_thumbnail_buffer(
            (void *)source->data, source->length, &out, width, "height", height, "size", size, NULL);
    }
    return status == 0 ? out : NULL;
}

/// Offset of a `target`-long window in `total` for an anchor on this axis.
static int anchor_offset(int total, int target, int low, int high) {
    if (low) return 0;
    if (high) return total - target;
    return (total - target) / 2;
}

static VipsImage *cover(const Source *source, int width, int height, CVipsShimAnchor anchor, int all_pages,
    char **error) {
    VipsImage *header = source->decoded != NULL ? g_object_ref(source->decoded)
                                                : open_header(source->data, source->length, error);
    if (header == NULL) return NULL;
    double source_width = vips_image_get_width(header);
    double source_height = vips_image_get_page_height(header);
    g_object_unref(header);
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
    VipsImage *covered = thumbnail(source, covered_width, covered_height, VIPS_SIZE_FORCE, all_pages);
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

static int module_resize(
    const void *data, size_t length, CVipsShimSource source_format, int width, int height, CVipsShimMode mode,
    CVipsShimAnchor anchor, CVipsShimFormat format, int quality, int all_pages, CVipsShimControl *control,
    void **out, size_t *out_length, char **error) {
    *error = NULL;
    *out = NULL;
    *out_length = 0;
    if (width < 1 || height < 1) {
        *error = g_strdup("width and height must be positive");
        return 0;
    }
    Source source;
    if (!open_source(data, length, source_format, &source, error)) return 0;
    VipsImage *result = NULL;
    switch (mode) {
    case CVipsShimModeFit:
        result = thumbnail(&source, width, height, VIPS_SIZE_DOWN, all_pages);
        break;
    case CVipsShimModeForce:
        result = thumbnail(&source, width, height, VIPS_SIZE_FORCE, all_pages);
        break;
    case CVipsShimModeCover:
        result = cover(&source, width, height, anchor, all_pages, error);
        break;
    case CVipsShimModePad: {
        VipsImage *fitted = thumbnail(&source, width, height, VIPS_SIZE_DOWN, all_pages);
        if (fitted != NULL) {
            result = pad_frames(fitted, width, height);
            g_object_unref(fitted);
        }
        break;
    }
    }
    if (source.decoded != NULL) g_object_unref(source.decoded);
    if (result == NULL) return *error != NULL ? 0 : fail(error, "resize failed");
    if (control != NULL) {
        // Pixels are computed while the result is encoded; each batch raises "eval" on it.
        vips_image_set_progress(result, TRUE);
        g_signal_connect(result, "eval", G_CALLBACK(on_eval), control);
    }
    int ok = encode(result, format, quality, out, out_length, error);
    g_object_unref(result);
    if (!ok && control != NULL && atomic_load(&control->cancelled)) {
        module_free(*error);
        *error = g_strdup("render cancelled");
    }
    return ok;
}

static void module_free(void *pointer) {
    g_free(pointer);
}

static const CVipsShimModule module = {
    .control_new = module_control_new,
    .control_cancel = module_control_cancel,
    .control_free = module_control_free,
    .initialize = module_initialize,
    .probe = module_probe,
    .resize = module_resize,
    .free = module_free,
};

const void *CVipsShimModule_get(void) { return &module; }
