#!/usr/bin/env bash
# The `mockcdn` binary and, next to it, libMockCDNVips, the libvips module it loads on its first image
# operation. Arguments go to both `swift build` calls (e.g. `-c release`, `--static-swift-stdlib`).
set -euo pipefail
"${SWIFT:-swift}" build "$@" --product mockcdn
"${SWIFT:-swift}" build "$@" --product MockCDNVips
