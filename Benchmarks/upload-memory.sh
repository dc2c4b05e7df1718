#!/usr/bin/env bash
# Peak RSS growth during a 100 MiB upload to a release build with --data-dir, and its throughput next to nginx's
# WebDAV PUT and cp + sync. Installs what it lacks (nginx with apt, boto3 with pip). Usage: Benchmarks/upload-memory.sh
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .build/release/mockcdn ] && [ -e .build/release/libMockCDNVips.so ] || scripts/build-server.sh -c release
if ! command -v nginx >/dev/null; then
    SUDO=$(command -v sudo >/dev/null && [ "$(id -u)" != 0 ] && echo sudo || true)
    $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq nginx >/dev/null
fi
python3 -c 'import boto3' 2>/dev/null || python3 -m pip install -q boto3
mkdir -p Benchmarks/results
python3 Benchmarks/upload_memory.py | tee Benchmarks/results/upload-memory.md
