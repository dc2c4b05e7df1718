#ifndef CMOCKCDN_MEMORY_H
#define CMOCKCDN_MEMORY_H

#include <stddef.h>
#include <stdint.h>

/// Serves every allocation of `threshold` bytes or more with its own mapping, returned to the system when freed.
///
/// glibc starts so, but raises the threshold to the size of each such block freed (up to 32 MiB) and then
/// serves those sizes from per-thread arenas that keep freed memory. An S3 upload frees blocks of several MiB
/// on one thread while another allocates: with the raise, a 100 MiB upload held 22 to 43 MiB; without it, 11.
/// Setting the threshold turns the raise off (mallopt). Does nothing where the C library is not glibc.
///
/// @return 1 when applied, 0 otherwise.
int CMockCDNMemory_keepLargeAllocationsMapped(size_t threshold);

/// Gives the free memory of every allocator arena back to the system.
///
/// glibc keeps what a thread frees in that thread's arena for its next allocation, and returns only the free
/// top of the main heap on its own; after a burst of requests on several threads, RSS stays at the burst's
/// peak. malloc_trim(0) unmaps the free pages of every arena (madvise), taking each arena's lock in turn.
/// Does nothing where the C library is not glibc.
///
/// @return 1 when memory was returned, 0 otherwise.
int CMockCDNMemory_returnFreeMemory(void);

/// Starts writing a file's dirty page-cache pages in `[offset, offset + length)` to its disk, and returns without
/// waiting for them (Linux's sync_file_range with SYNC_FILE_RANGE_WRITE).
///
/// A large upload's bytes otherwise stay dirty in memory until its fsync, which then writes them all while the
/// client waits. Started as each part is written, the writing runs beside the upload, and the fsync is left
/// only the last part. It promises nothing about durability: the fsync still does. Does nothing on other
/// systems.
///
/// @return 1 when started, 0 otherwise.
int CMockCDNMemory_startWriteback(int descriptor, int64_t offset, int64_t length);

#endif
