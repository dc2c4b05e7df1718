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
