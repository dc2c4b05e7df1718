// mockcdn-imaging: libvips in a child process of `mockcdn serve` (see CVipsWorker.h). Its one argument is how
// many seconds it waits for a request before it quits. It loads libMockCDNVips as the server would, from
// beside itself in the install layout (`lib/mockcdn/`) or the copy linked into a build.
#include <stdlib.h>

#include "CVipsWorker.h"

int main(int argc, char **argv) {
    int idle_seconds = argc > 1 ? atoi(argv[1]) : 10;
    return CVipsWorker_serve(idle_seconds > 0 ? idle_seconds : 10);
}
