#!/usr/bin/env bash
# Resize benchmark: MockCDN over HTTP against the same libvips operation in process. Usage: Benchmarks/resize.sh
set -euo pipefail
cd "$(dirname "$0")/.."
command -v wrk >/dev/null || { echo "installing wrk"; apt-get install -y -qq wrk >/dev/null; }
[ -x .build/release/mockcdn ] && [ -e .build/release/libMockCDNVips.so ] || scripts/build-server.sh -c release
mkdir -p Benchmarks/results .build/bench
cc -O2 -o .build/bench/vips_resize Benchmarks/resize/vips_resize.c $(pkg-config --cflags --libs vips)
python3 Benchmarks/resize.py --reference .build/bench/vips_resize "$@" | tee Benchmarks/results/resize.md
