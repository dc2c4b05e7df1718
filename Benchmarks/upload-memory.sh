#!/usr/bin/env bash
# Peak RSS growth during a 100 MiB upload to a release build with --data-dir. Usage: Benchmarks/upload-memory.sh
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .build/release/mockcdn ] || swift build -c release --product mockcdn
mkdir -p Benchmarks/results
python3 Benchmarks/upload_memory.py | tee Benchmarks/results/upload-memory.md
