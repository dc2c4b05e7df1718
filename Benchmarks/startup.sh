#!/usr/bin/env bash
# Startup to ready of a release build, against python3 -m http.server in the same run.
# Usage: Benchmarks/startup.sh [runs]   (build first: make release)
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .build/release/mockcdn ] && [ -e .build/release/libMockCDNVips.so ] || scripts/build-server.sh -c release
mkdir -p Benchmarks/results
python3 Benchmarks/startup.py --runs "${1:-15}" | tee Benchmarks/results/startup.md
