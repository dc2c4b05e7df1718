#!/usr/bin/env bash
# Peak RSS growth during a 100 MiB upload to a release build with --data-dir. Usage: Benchmarks/upload-memory.sh
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .build/release/mockcdn ] && [ -e .build/release/libMockCDNVips.so ] || scripts/build-server.sh -c release
mkdir -p Benchmarks/results
python3 Benchmarks/upload_memory.py | tee Benchmarks/results/upload-memory.md
