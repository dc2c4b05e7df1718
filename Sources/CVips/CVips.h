// The libvips umbrella header, found through pkg-config "vips".
#include <vips/vips.h>
