// The start of the test process's pool watchdog (MockCDNPoolWatchdog): Swift has no code that runs when a test
// binary loads, so a constructor starts it, on a thread of its own, when MOCKCDN_POOL_WATCHDOG is set.
#include "CPoolWatchdog.h"

#include <pthread.h>
#include <stdlib.h>

// Defined by MockCDNPoolWatchdog (@_cdecl); weak, so a binary without it loads and runs no watchdog.
extern void mockcdn_pool_watchdog_main(void) __attribute__((weak));

static void *run(void *unused) {
    (void)unused;
    mockcdn_pool_watchdog_main();
    return NULL;
}

__attribute__((constructor)) static void start(void) {
    const char *setting = getenv("MOCKCDN_POOL_WATCHDOG");
    if (setting == NULL || setting[0] == '\0' || mockcdn_pool_watchdog_main == NULL) {
        return;
    }
    pthread_t thread;
    if (pthread_create(&thread, NULL, run, NULL) == 0) {
        pthread_detach(thread);
    }
}

void CPoolWatchdog_linked(void) {}
