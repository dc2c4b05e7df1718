#!/usr/bin/env bash
# Builds the relocatable Linux tarball: the release binary with the Swift runtime linked in
# (--static-swift-stdlib), libMockCDNVips and the resources next to it, the fixtures and the demo keys, and
# a README naming the system packages it needs. Prints the tarball's path.
set -euo pipefail
cd "$(dirname "$0")/.."
SWIFT="${SWIFT:-swift}"
version="$(sed -n 's/^public let mockCDNVersion = "\(.*\)"$/\1/p' Sources/MockCDNServer/App+build.swift)"
name="mockcdn-${version}-linux-$(uname -m)"
SWIFT="$SWIFT" scripts/build-server.sh -c release --static-swift-stdlib >&2
bin="$("$SWIFT" build -c release --static-swift-stdlib --show-bin-path)"
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
root="$stage/$name"
mkdir -p "$root/bin" "$root/share"
cp "$bin/mockcdn" "$bin/libMockCDNVips.so" "$root/bin/"
# Without its debug symbols the binary is half the size (binutils' strip, when the machine has it).
if command -v strip >/dev/null; then strip "$root/bin/mockcdn" "$root/bin/libMockCDNVips.so"; fi
cp -R "$bin/MockCDN_MockCDNServer.resources" "$root/bin/"
cp -R Fixtures/media "$root/share/fixtures"
cp -R Fixtures/keys "$root/share/keys"
cp LICENSE "$root/"
cat > "$root/README.txt" <<TEXT
MockCDN ${version} for Linux ($(uname -m))

Run it from anywhere; it finds libMockCDNVips.so and its resources next to the binary:

    bin/mockcdn serve --fixtures share/fixtures

The Swift runtime is linked in. The system needs, on Debian 12 or Ubuntu 22.04 and later:

    apt-get install libvips42 libssl3 ffmpeg

(libvips42 is loaded on the first image operation; libssl3 gives libcrypto; ffmpeg makes video posters.
On Ubuntu 24.04 the packages are libvips42t64 and libssl3t64.)

bin/mockcdn --help lists the flags; the documentation is in the source repository's README.md and docs/.
TEXT
mkdir -p dist
tar -C "$stage" -czf "dist/$name.tar.gz" "$name"
echo "dist/$name.tar.gz"
