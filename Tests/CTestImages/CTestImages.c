#include "CTestImages.h"

#include <vips/vips.h>

static int fail(char **error, const char *what) {
    const char *detail = vips_error_buffer();
    *error = g_strdup_printf("%s: %s", what, detail != NULL ? detail : "");
    vips_error_clear();
    return 0;
}

int CTestImages_encode(const void *pixels, size_t length, int width, int height, int bands, int page_height,
    const char *options, void **out, size_t *out_length, char **error) {
    *error = NULL;
    *out = NULL;
    *out_length = 0;
    if (width < 1 || height < 1 || bands < 1 || bands > 4 || (size_t)width * height * bands != length) {
        *error = g_strdup("pixel buffer does not match width x height x bands");
        return 0;
    }
    VipsImage *image = vips_image_new_from_memory(pixels, length, width, height, bands, VIPS_FORMAT_UCHAR);
    if (image == NULL) return fail(error, "cannot wrap pixels");
    if (page_height > 0 && page_height < height && height % page_height == 0) {
        vips_image_set_int(image, VIPS_META_PAGE_HEIGHT, page_height);
    }
    int ok = vips_image_write_to_buffer(image, options, out, out_length, NULL) == 0;
    g_object_unref(image);
    return ok ? 1 : fail(error, "encode failed");
}

int CTestImages_decode(const void *data, size_t length, void **pixels, size_t *pixels_length, int *width,
    int *height, int *bands, char **error) {
    *error = NULL;
    *pixels = NULL;
    *pixels_length = 0;
    VipsImage *image = vips_image_new_from_buffer(data, length, "", "access", VIPS_ACCESS_SEQUENTIAL, NULL);
    if (image == NULL) return fail(error, "cannot decode");
    VipsImage *uchar = NULL;
    int cast = vips_cast_uchar(image, &uchar, NULL);
    g_object_unref(image);
    if (cast != 0) return fail(error, "cannot convert to 8-bit");
    *pixels = vips_image_write_to_memory(uchar, pixels_length);
    *width = vips_image_get_width(uchar);
    *height = vips_image_get_height(uchar);
    *bands = vips_image_get_bands(uchar);
    g_object_unref(uchar);
    return *pixels != NULL ? 1 : fail(error, "decode failed");
}

void CTestImages_free(void *pointer) {
    g_free(pointer);
}
