// The reference for Benchmarks/resize.sh: the libvips operation MockCDN runs for `w=400&h=400` on a JPEG
// (thumbnail from a buffer, fit inside, never enlarging; JPEG save at Q=85 with metadata stripped), timed
// in process with the operation cache off, as MockCDN runs it.
//
//   vips_resize make OUT SIDE                    writes a SIDE x SIDE blurred-noise RGB JPEG (Q=90) to OUT
//   vips_resize time IN WIDTH HEIGHT ITERATIONS  prints the per-operation times in milliseconds
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vips/vips.h>

/// Blurred noise: detail at every scale, and a file size like a camera photo's (a few MB), not raw noise's.
static int make(const char *out, int side) {
    VipsImage *noise = NULL, *bands[3] = {NULL, NULL, NULL}, *joined = NULL, *cast = NULL, *blurred = NULL;
    for (int band = 0; band < 3; band++) {
        if (vips_gaussnoise(&bands[band], side, side, "mean", 128.0 - band * 20, "sigma", 40.0, NULL)) return 1;
    }
    if (vips_bandjoin(bands, &noise, 3, NULL)) return 1;
    if (vips_gaussblur(noise, &blurred, 2.0, NULL)) return 1;
    if (vips_cast_uchar(blurred, &cast, NULL)) return 1;
    if (vips_copy(cast, &joined, "interpretation", VIPS_INTERPRETATION_sRGB, NULL)) return 1;
    int status = vips_image_write_to_file(joined, out, "Q", 90, NULL);
    return status;
}

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int time_resize(const char *in, int width, int height, int iterations) {
    gchar *data = NULL;
    gsize length = 0;
    if (!g_file_get_contents(in, &data, &length, NULL)) return 1;
    double *times = calloc(iterations, sizeof(double));
    for (int i = 0; i < iterations; i++) {
        gint64 start = g_get_monotonic_time();
        VipsImage *out = NULL;
        if (vips_thumbnail_buffer(data, length, &out, width, "height", height, "size", VIPS_SIZE_DOWN, NULL)) return 1;
        void *buffer = NULL;
        size_t size = 0;
        if (vips_image_write_to_buffer(out, ".jpg[Q=85,strip]", &buffer, &size, NULL)) return 1;
        g_object_unref(out);
        g_free(buffer);
        times[i] = (g_get_monotonic_time() - start) / 1000.0;
    }
    for (int i = 0; i < iterations; i++) printf("%.3f\n", times[i]);
    free(times);
    g_free(data);
    return 0;
}

int main(int argc, char **argv) {
    if (VIPS_INIT(argv[0])) vips_error_exit(NULL);
    vips_cache_set_max(0);
    int status = 2;
    if (argc == 4 && strcmp(argv[1], "make") == 0) status = make(argv[2], atoi(argv[3]));
    if (argc == 6 && strcmp(argv[1], "time") == 0) {
        status = time_resize(argv[2], atoi(argv[3]), atoi(argv[4]), atoi(argv[5]));
    }
    if (status == 2) fprintf(stderr, "usage: %s make OUT SIDE | time IN WIDTH HEIGHT ITERATIONS\n", argv[0]);
    if (status == 1) vips_error_exit(NULL);
    vips_shutdown();
    return status;
}
