#!/usr/bin/env bash
# `make test` after its one apt transaction: two lanes side by side, one per core (issue 48, docs/development.md
# "Where a cold make test spends its time"). Every line is prefixed with its lane, and each step's time is
# printed as it ends.
#
#   swift: the server binary, then a copy of it for the peers lane (.build/peers-bin), then the DocC check,
#          the Swift suites (their test build first; they wait for the other lane's pip, for moto_server), the
#          example consumer and the client's isolated build.
#   peers: the Python peers (pip), the format, architecture and OpenAPI checks; then, once the copy exists,
#          the compatibility suite, the helpers' suites and the Java helper's, against that copy.
#
# The peers run a copy because the swift lane's later builds rewrite .build/debug (a `swift build` of every
# product leaves SwiftPM's own mockcdn-imaging there) while the peers' servers start from it.
#
#   MAKE=make scripts/test-lanes.sh
set -u
cd "$(dirname "$0")/.."
MAKE="${MAKE:-make} --no-print-directory"
start=$(date +%s)
signals=$(mktemp -d)
trap 'rm -rf "$signals"' EXIT

# Runs make targets one after another, printing each one's time; stops at the first failure.
steps() {
    local lane=$1
    shift
    for target in "$@"; do
        local begun=$(date +%s)
        $MAKE "$target" || { echo "lane $lane: $target FAILED after $(($(date +%s) - begun)) s"; return 1; }
        echo "lane $lane: $target took $(($(date +%s) - begun)) s (at $(($(date +%s) - start)) s)"
    done
}

# Each line of a lane's output, prefixed with its name as it arrives.
label() { sed -u "s/^/[$1] /"; }

# The server binary, with its worker, image module and resources, copied where no later build writes.
peers_binary() {
    local bin=.build/debug copy=.build/peers-bin
    rm -rf "$copy" && mkdir -p "$copy"
    cp -a "$bin/mockcdn" "$bin/mockcdn-imaging" "$bin/libMockCDNVips.so" "$bin/MockCDN_MockCDNServer.resources" "$copy/"
}

(
    {
        if steps swift binary && peers_binary; then
            touch "$signals/binary"
        else
            touch "$signals/failed"
            exit 1
        fi
        steps swift docs || exit 1
        # test-swift needs the Python peers (moto_server) the other lane installs: one pip at a time in .venv.
        while [ ! -e "$signals/py-deps" ]; do
            [ -e "$signals/failed" ] && { echo "lane swift: no Python peers, the peers lane failed"; exit 1; }
            sleep 1
        done
        steps swift test-swift test-consumer client-isolation
    } 2>&1 | label swift
    exit "${PIPESTATUS[0]}"
) &
swift=$!

(
    {
        if steps peers py-deps; then
            touch "$signals/py-deps"
        else
            touch "$signals/failed"
            exit 1
        fi
        steps peers format-check architecture-check openapi-check || exit 1
        # The binary: the swift lane builds it first (a few minutes cold).
        while [ ! -e "$signals/binary" ]; do
            [ -e "$signals/failed" ] && { echo "lane peers: no binary, the swift lane failed"; exit 1; }
            sleep 1
        done
        MAKE="$MAKE PEERS_BINARY=$PWD/.build/peers-bin/mockcdn" steps peers test-compat test-helpers test-java
    } 2>&1 | label peers
    exit "${PIPESTATUS[0]}"
) &
peers=$!

wait "$swift"
swift_status=$?
wait "$peers"
peers_status=$?
echo "make test: swift lane exited $swift_status, peers lane $peers_status, after $(($(date +%s) - start)) s"
[ "$swift_status" = 0 ] && [ "$peers_status" = 0 ]
