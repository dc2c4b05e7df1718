// CVipsShim.h's functions, loading the libvips shim on first use: the copy linked into this binary when there
// is one (a weak reference finds it), else the loadable module libMockCDNVips in the install layout
// (`EXE/../lib/mockcdn/`, as the release tarball, the image and the wheel lay it out), else next to the
// executable (a build folder), else one the dynamic loader finds by name (its run path, LD_LIBRARY_PATH,
// DYLD_LIBRARY_PATH). The module is plain C over libvips: it needs no Swift runtime.
#include "CVipsShim.h"

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(__APPLE__)
#include <mach-o/dyld.h>
#define CVIPSLOADER_MODULE_NAME "libMockCDNVips.dylib"
#else
#define CVIPSLOADER_MODULE_NAME "libMockCDNVips.so"
#endif

#if !defined(__APPLE__)
/// Defined only when the shim is linked into this binary. (ELF executables export nothing to `dlsym`
/// unless told to, so a weak reference is how the loader sees a linked-in copy there; Mach-O linkers refuse
/// an undefined weak reference without extra flags, and there `dlsym(RTLD_DEFAULT, ...)` finds it instead.)
extern const void *CVipsShimModule_get(void) __attribute__((weak));
#endif

/// The shim's table when a copy is linked into this binary, else NULL.
static const void *linked_in(void) {
#if defined(__APPLE__)
    const void *(*get)(void) = (const void *(*)(void))dlsym(RTLD_DEFAULT, "CVipsShimModule_get");
    return get != NULL ? get() : NULL;
#else
    return CVipsShimModule_get != NULL ? CVipsShimModule_get() : NULL;
#endif
}

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static const CVipsShimModule *loaded = NULL;
static char load_failure[512] = "";

/// The folder of the running executable, with a trailing slash; empty when it cannot be told.
static void executable_folder(char *folder, size_t size) {
    folder[0] = 0;
    char path[PATH_MAX];
#if defined(__APPLE__)
    uint32_t length = sizeof(path);
    if (_NSGetExecutablePath(path, &length) != 0) return;
#else
    ssize_t length = readlink("/proc/self/exe", path, sizeof(path) - 1);
    if (length <= 0) return;
    path[length] = 0;
#endif
    char *slash = strrchr(path, '/');
    if (slash == NULL || (size_t)(slash - path + 2) > size) return;
    slash[1] = 0;
    snprintf(folder, size, "%s", path);
}

/// The module at `folder` + `relative`, or NULL.
static void *open_at(const char *folder, const char *relative) {
    if (folder[0] == 0) return NULL;
    char candidate[PATH_MAX + 64];
    snprintf(candidate, sizeof(candidate), "%s%s%s", folder, relative, CVIPSLOADER_MODULE_NAME);
    return dlopen(candidate, RTLD_NOW | RTLD_LOCAL);
}

static void load(void) {
    loaded = linked_in();
    if (loaded != NULL) return;
    char folder[PATH_MAX];
    executable_folder(folder, sizeof(folder));
    void *handle = open_at(folder, "../lib/mockcdn/");
    const char *reason = handle == NULL ? dlerror() : NULL;
    // A module that is there but cannot be loaded (a missing libvips) is the reason to report.
    char install_reason[256] = "";
    if (reason != NULL && strstr(reason, "No such file") == NULL) {
        snprintf(install_reason, sizeof(install_reason), "%s", reason);
    }
    if (handle == NULL) handle = open_at(folder, "");
    if (handle == NULL) handle = dlopen(CVIPSLOADER_MODULE_NAME, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        reason = install_reason[0] != 0 ? install_reason : dlerror();
        snprintf(
            load_failure, sizeof(load_failure),
            "image support is not installed: %s could not be loaded from ../lib/mockcdn/ or next to the "
            "executable (%s); install the runtime packages that share/mockcdn/runtime-packages.txt lists, "
            "or build the module with scripts/build-server.sh",
            CVIPSLOADER_MODULE_NAME, reason != NULL ? reason : "no reason given");
        return;
    }
    const void *(*get)(void) = (const void *(*)(void))dlsym(handle, "CVipsShimModule_get");
    if (get == NULL) {
        snprintf(load_failure, sizeof(load_failure), "%s has no CVipsShimModule_get", CVIPSLOADER_MODULE_NAME);
        return;
    }
    loaded = get();
}

/// The shim, loaded once; NULL with `*error` set (to free with CVipsShim_free) when it cannot be.
static const CVipsShimModule *module(char **error) {
    pthread_once(&load_once, load);
    if (loaded == NULL && error != NULL) *error = strdup(load_failure);
    return loaded;
}

CVipsShimControl *CVipsShim_control_new(double seconds) {
    const CVipsShimModule *shim = module(NULL);
    return shim != NULL ? shim->control_new(seconds) : NULL;
}

void CVipsShim_control_cancel(CVipsShimControl *control) {
    const CVipsShimModule *shim = module(NULL);
    if (shim != NULL) shim->control_cancel(control);
}

void CVipsShim_control_free(CVipsShimControl *control) {
    const CVipsShimModule *shim = module(NULL);
    if (shim != NULL) shim->control_free(control);
}

int CVipsShim_load(char **error) {
    *error = NULL;
    return module(error) != NULL;
}

int CVipsShim_initialize(char **error) {
    *error = NULL;
    const CVipsShimModule *shim = module(error);
    return shim != NULL ? shim->initialize(error) : 0;
}

int CVipsShim_probe(
    const void *data, size_t length, CVipsShimSource source, CVipsShimHeader *header, char **error) {
    *error = NULL;
    const CVipsShimModule *shim = module(error);
    return shim != NULL ? shim->probe(data, length, source, header, error) : 0;
}

int CVipsShim_resize(
    const void *data, size_t length, CVipsShimSource source, int width, int height, CVipsShimMode mode,
    CVipsShimAnchor anchor, CVipsShimFormat format, int quality, int all_pages, CVipsShimControl *control,
    void **out, size_t *out_length, char **error) {
    *error = NULL;
    const CVipsShimModule *shim = module(error);
    if (shim == NULL) return 0;
    return shim->resize(
        data, length, source, width, height, mode, anchor, format, quality, all_pages, control, out, out_length,
        error);
}

void CVipsShim_free(void *pointer) {
    if (pointer == NULL) return;
    const CVipsShimModule *shim = module(NULL);
    // Only a loaded shim hands out memory; a load failure's message comes from strdup.
    if (shim != NULL) {
        shim->free(pointer);
    } else {
        free(pointer);
    }
}
