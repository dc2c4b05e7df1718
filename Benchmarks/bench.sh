#!/usr/bin/env bash
# `make bench`: every benchmark in one run, written to Benchmarks/results/latest.md. Installs what it lacks
# (nginx, wrk, hyperfine with apt; moto[server] with pip). Pass --quick for 3 s wrk runs and 20 s of load.
# BEFORE=REV (a commit, e.g. `make bench BEFORE=a36f5ea`) also builds that revision in .build/bench-before and
# times it in the same rounds as the current build, for before-and-after ratios from one run; BEFORE may also
# name a mockcdn binary built already.
set -euo pipefail
cd "$(dirname "$0")/.."
SUDO=$(command -v sudo >/dev/null && [ "$(id -u)" != 0 ] && echo sudo || true)
missing=""
for tool in nginx wrk hyperfine; do command -v "$tool" >/dev/null || missing="$missing $tool"; done
if [ -n "$missing" ]; then
    echo "installing$missing"
    $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing >/dev/null
fi
command -v moto_server >/dev/null || python3 -m pip install -q 'moto[server]'
python3 -c 'import boto3' 2>/dev/null || python3 -m pip install -q boto3
# What is measured is the release tarball's binary, as users run it (make dist's build, unpacked here).
tarball=$(packaging/make-dist.sh)
rm -rf .build/bench/dist && mkdir -p .build/bench/dist
tar -xzf "$tarball" -C .build/bench/dist --strip-components=1
binary=.build/bench/dist/bin/mockcdn
# The bare Hummingbird reference, in a scratch folder of its own (its own package and dependency graph).
swift build -c release --package-path Benchmarks/Reference --scratch-path .build/bench-reference
mkdir -p Benchmarks/results .build/bench
cc -O2 -o .build/bench/vips_resize Benchmarks/resize/vips_resize.c $(pkg-config --cflags --libs vips)
before=()
if [ -n "${BEFORE:-}" ] && [ -x "$BEFORE" ]; then
    before=(--before "$BEFORE")
elif [ -n "${BEFORE:-}" ]; then
    rev=$(git rev-parse --verify "$BEFORE^{commit}")
    tree=.build/bench-before/$rev
    [ -d "$tree" ] || git worktree add --detach "$tree" "$rev" >/dev/null
    swift build -c release --package-path "$tree" --scratch-path "$tree/.build" --product mockcdn
    # The libvips module: the earlier tree's own script builds it next to the binary, by SwiftPM or by clang.
    (cd "$tree" && scripts/build-server.sh -c release --scratch-path "$tree/.build" >/dev/null 2>&1) || true
    before=(--before "$tree/.build/release/mockcdn")
fi
seconds=5
load_seconds=60
[ "${1:-}" = "--quick" ] && seconds=3 && load_seconds=20
{
    echo "# MockCDN benchmarks ($(date -u +%Y-%m-%d), $(git rev-parse --short HEAD))"
    echo
    echo "## Signed GETs, startup, idle memory"
    echo
    python3 Benchmarks/bench.py --binary "$binary" --seconds "$seconds" --load-seconds "$load_seconds" "${before[@]}"
    echo
    echo "## Upload (100 MiB, --data-dir)"
    echo
    python3 Benchmarks/upload_memory.py --binary "$binary"
    echo
    echo "## Upload (100 MiB, --store s3:// on moto_server)"
    echo
    python3 Benchmarks/upload_memory.py --binary "$binary" --store s3
    echo
    echo "## Resize"
    echo
    python3 Benchmarks/resize.py --binary "$binary" --reference .build/bench/vips_resize --wrk-seconds "$seconds"
} | tee Benchmarks/results/latest.md
