// CVipsShim: fixed-arity wrappers over libvips.
//
// Where it runs: the functions below are CVipsLoader's. They load the shim itself (Sources/CVipsShim, built
// as the loadable module libMockCDNVips) on the first image operation: in the image worker (CVipsWorker.h),
// which is where `mockcdn serve` sends them, so the server never maps libvips and its hundred libraries; or
// in process, in a binary without a worker beside it. A binary that links the shim in (the test harness
// does) uses that copy and loads nothing. Without either, every call fails with a message saying so.
//
// Why a shim: libvips' API is variadic (NULL-terminated option lists), which Swift cannot call, and it
// hands out GObject references that Swift should never see. Every function here returns 1 on success
// and 0 on failure; on failure `*error` gets a message read from vips' error buffer, which the caller
// frees with CVipsShim_free. Output buffers are freed with CVipsShim_free too.
#ifndef CVIPSSHIM_H
#define CVIPSSHIM_H

#include <stddef.h>

#pragma clang assume_nonnull begin

/// How a resize fits the source into the target box.
typedef enum {
    /// Fit inside width x height keeping the aspect ratio; never enlarge.
    CVipsShimModeFit = 0,
    /// Cover width x height keeping the aspect ratio, then cut to exactly width x height at the anchor.
    CVipsShimModeCover = 1,
    /// Exactly width x height, aspect ratio ignored.
    CVipsShimModeForce = 2,
    /// Fit inside width x height (never enlarging), then pad with black to exactly width x height.
    CVipsShimModePad = 3,
} CVipsShimMode;

/// Which part of the image a cover resize keeps.
typedef enum {
    CVipsShimAnchorCenter = 0,
    CVipsShimAnchorTop = 1,
    CVipsShimAnchorBottom = 2,
    CVipsShimAnchorLeft = 3,
    CVipsShimAnchorRight = 4,
} CVipsShimAnchor;

typedef enum {
    CVipsShimFormatJPEG = 0,
    CVipsShimFormatPNG = 1,
    CVipsShimFormatWebP = 2,
    CVipsShimFormatGIF = 3,
} CVipsShimFormat;

/// The source formats MockCDN decodes, each only by its own loader: the bytes must be what the caller says
/// they are, or the call fails. BMP is read by the shim itself (libvips reads BMP only through ImageMagick,
/// which MockCDN never loads).
typedef enum {
    CVipsShimSourceJPEG = 0,
    CVipsShimSourcePNG = 1,
    CVipsShimSourceWebP = 2,
    CVipsShimSourceGIF = 3,
    CVipsShimSourceHEIF = 4,
    CVipsShimSourceBMP = 5,
} CVipsShimSource;

/// Stops a render from another thread, or once its deadline passes: checked as vips evaluates pixels.
typedef struct CVipsShimControl CVipsShimControl;

/// A control whose deadline is `seconds` from now.
CVipsShimControl *CVipsShim_control_new(double seconds);
/// Asks the render that uses `control` to stop; safe from any thread.
void CVipsShim_control_cancel(CVipsShimControl *control);
void CVipsShim_control_free(CVipsShimControl *_Nullable control);

/// What an image header says, read without decoding pixels.
typedef struct {
    int width;
    /// Height of one page (frame).
    int page_height;
    /// Number of pages (frames); 1 for a still image.
    int pages;
    /// vips' loader nickname, e.g. "jpegload_buffer".
    char loader[64];
} CVipsShimHeader;

/// Loads the shim (not libvips' own start-up, which `CVipsShim_initialize` does): 0, with `*error` saying
/// what is missing, when it cannot be loaded.
int CVipsShim_load(char *_Nullable *_Nonnull error);

/// Starts libvips once per process; later calls return the first result.
int CVipsShim_initialize(char *_Nullable *_Nonnull error);

/// Reads the header of an encoded image in memory, which must be in the `source` format.
int CVipsShim_probe(
    const void *data, size_t length, CVipsShimSource source, CVipsShimHeader *header,
    char *_Nullable *_Nonnull error);

/// Resizes an encoded image in the `source` format and encodes the result. `quality` 1...100 applies to
/// JPEG and WebP; `all_pages` keeps every frame of an animated image; `control`, when given, can stop it.
int CVipsShim_resize(
    const void *data, size_t length, CVipsShimSource source, int width, int height, CVipsShimMode mode,
    CVipsShimAnchor anchor, CVipsShimFormat format, int quality, int all_pages,
    CVipsShimControl *_Nullable control, void *_Nullable *_Nonnull out, size_t *out_length,
    char *_Nullable *_Nonnull error);

void CVipsShim_free(void *_Nullable pointer);

/// The shim's functions, as the loadable module hands them over (`CVipsShimModule_get`).
typedef struct {
    CVipsShimControl *_Nullable (*_Nonnull control_new)(double seconds);
    void (*control_cancel)(CVipsShimControl *control);
    void (*control_free)(CVipsShimControl *_Nullable control);
    int (*initialize)(char *_Nullable *_Nonnull error);
    int (*probe)(
        const void *data, size_t length, CVipsShimSource source, CVipsShimHeader *header,
        char *_Nullable *_Nonnull error);
    int (*resize)(
        const void *data, size_t length, CVipsShimSource source, int width, int height, CVipsShimMode mode,
        CVipsShimAnchor anchor, CVipsShimFormat format, int quality, int all_pages,
        CVipsShimControl *_Nullable control, void *_Nullable *_Nonnull out, size_t *out_length,
        char *_Nullable *_Nonnull error);
    void (*free)(void *_Nullable pointer);
} CVipsShimModule;

#pragma clang assume_nonnull end

#endif
