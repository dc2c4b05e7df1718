#if defined(__linux__)
#define _GNU_SOURCE
#include <fcntl.h>
#endif

#include "CMockCDNMemory.h"

// Defines __GLIBC__ where the C library is glibc.
#include <stdlib.h>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

int CMockCDNMemory_keepLargeAllocationsMapped(size_t threshold) {
#if defined(__GLIBC__)
    if (threshold > (size_t)0x7fffffff) {
        return 0;
    }
    return mallopt(M_MMAP_THRESHOLD, (int)threshold) == 1 ? 1 : 0;
#else
    (void)threshold;
    return 0;
#endif
}

int CMockCDNMemory_returnFreeMemory(void) {
#if defined(__GLIBC__)
    return malloc_trim(0);
#else
    return 0;
#endif
}

int CMockCDNMemory_startWriteback(int descriptor, int64_t offset, int64_t length) {
#if defined(__linux__)
    return sync_file_range(descriptor, (off64_t)offset, (off64_t)length, SYNC_FILE_RANGE_WRITE) == 0 ? 1 : 0;
#else
    (void)descriptor;
    (void)offset;
    (void)length;
    return 0;
#endif
}
