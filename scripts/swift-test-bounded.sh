#!/usr/bin/env bash
# Runs `swift test` with a wall-clock bound, so that a test that hangs fails the run in minutes instead of
# holding CI until its own limit: on expiry it names the tests that started and never finished, prints the
# test process's thread stacks (when gdb is there), kills it and exits non-zero. It also fails a run in which
# the pool watchdog saw the cooperative pool blocked, naming the tests that were running then.
#
#   scripts/swift-test-bounded.sh SECONDS [swift test arguments...]
set -u
limit=$1
shift
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# The tests the log shows started and not yet finished: at its end (`running end`), or at each POOL STALL line,
# printed before them (`running stalls`).
running() {
    python3 - "$log" "$1" <<'PY'
import re, sys
path, mode = sys.argv[1], sys.argv[2]
running = {}
for line in open(path, encoding="utf-8", errors="replace"):
    if started := re.search(r'◇ Test "([^"]+)" started', line):
        running[started.group(1)] = True
    elif ended := re.search(r'[✔✘] Test "([^"]+)"', line):
        running.pop(ended.group(1), None)
    elif mode == "stalls" and line.startswith("POOL STALL"):
        print(line.rstrip())
        for name in running:
            print("  -", name)
if mode == "end":
    for name in running:
        print("  -", name)
PY
}

# On two cores, Swift Testing starts every test case at once, and NIO's blocking-I/O pool (every disk store's
# file work, fsyncs included) has as many threads as cores: on a busy machine a test's own few awaits then
# wait behind the whole suite's, past their time limits. A bounded width and a larger pool keep each test's
# time its own (set either in the environment to override).
export SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=${SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH:-8}
export NIO_SINGLETON_BLOCKING_POOL_THREAD_COUNT=${NIO_SINGLETON_BLOCKING_POOL_THREAD_COUNT:-16}
# The pool watchdog (Tests/MockCDNPoolWatchdog): a job on Swift's cooperative pool that waits this many seconds
# while every thread of the pool sleeps in the kernel is a blocking call on the pool; it prints `POOL STALL`,
# and the run fails below, naming the tests that were running.
export MOCKCDN_POOL_WATCHDOG=${MOCKCDN_POOL_WATCHDOG:-5}

# Line-buffered, so that what a killed run printed last is all there; in a session of its own, so that the
# whole tree (swift test and the test process) can be stopped.
setsid stdbuf -oL -eL "${SWIFT:-swift}" test "$@" >"$log" 2>&1 &
runner=$!
tail -n +1 -f --pid="$runner" "$log" &
deadline=$((SECONDS + limit))
while kill -0 "$runner" 2>/dev/null; do
    if ((SECONDS >= deadline)); then
        sleep 1
        echo "swift test: still running after ${limit} s; tests started and not finished:"
        running end
        for pid in $(pgrep -s "$runner" -f 'PackageTests.xctest'); do
            if command -v gdb >/dev/null; then
                echo "thread stacks of $pid:"
                timeout 60 gdb -p "$pid" -batch -ex "thread apply all bt 12" 2>/dev/null | grep -E '^(Thread|#)'
            fi
        done
        kill -9 -- "-$runner"
        wait "$runner"
        exit 124
    fi
    sleep 2
done
wait "$runner"
status=$?
if grep -q '^POOL STALL' "$log"; then
    echo "swift test: the cooperative pool was blocked; the tests running then:"
    running stalls
    [ "$status" -ne 0 ] || status=1
fi
exit "$status"
