#ifndef CPOOLWATCHDOG_H
#define CPOOLWATCHDOG_H

/// Starts the pool watchdog of a test process when MOCKCDN_POOL_WATCHDOG is set: a constructor of this target
/// calls `mockcdn_pool_watchdog_main` (MockCDNPoolWatchdog, Swift) on a thread of its own as the test binary
/// loads, so every test target that links it is watched from its first test on. Nothing to call.
void CPoolWatchdog_linked(void);

#endif
