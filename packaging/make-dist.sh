#!/usr/bin/env bash
# Builds the relocatable Linux tarball, the one artifact the image and the wheel wrap (docs/packaging.md):
#
#     mockcdn-VERSION-linux-ARCH/
#       README.txt LICENSE
#       bin/mockcdn                       release build, the Swift runtime linked in (--static-swift-stdlib)
#       lib/mockcdn/libMockCDNVips.so     C over libvips, loaded by the image worker
#       lib/mockcdn/mockcdn-imaging       the image worker: libvips in a child process of the server (C)
#       share/mockcdn/                    the server's resources, the fixtures, the demo keys, the example
#                                         config, runtime-packages.txt, the docs (README.md and docs/, as in the repository) and
#                                         the helpers' sources (clients/python, clients/js, clients/java)
#
# Prints the tarball's path. Unpacked anywhere (or into /usr/local, as packaging/install-dist.sh does), the
# binary finds everything relative to itself.
set -euo pipefail
cd "$(dirname "$0")/.."
SWIFT="${SWIFT:-swift}"
version="$(sed -n 's/^public let mockCDNVersion = "\(.*\)"$/\1/p' Sources/MockCDNServer/Shared/Version.swift)"
name="mockcdn-${version}-linux-$(uname -m)"
SWIFT="$SWIFT" scripts/build-server.sh -c release --static-swift-stdlib >&2
bin="$("$SWIFT" build -c release --static-swift-stdlib --show-bin-path)"
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
root="$stage/$name"
mkdir -p "$root/bin" "$root/lib/mockcdn" "$root/share/mockcdn"
cp "$bin/mockcdn" "$root/bin/"
cp "$bin/libMockCDNVips.so" "$bin/mockcdn-imaging" "$root/lib/mockcdn/"
# Without its debug symbols the binary is half the size (binutils' strip, when the machine has it).
if command -v strip >/dev/null; then
    strip "$root/bin/mockcdn" "$root/lib/mockcdn/libMockCDNVips.so" "$root/lib/mockcdn/mockcdn-imaging"
fi
cp -R "$bin/MockCDN_MockCDNServer.resources" "$root/share/mockcdn/"
cp -R Fixtures/media "$root/share/mockcdn/fixtures"
cp -R Fixtures/keys "$root/share/mockcdn/keys"
cp -R Fixtures/config "$root/share/mockcdn/config"
# The docs, whose guides run from this install (`mockcdn fixtures` names the samples), and the helpers as
# sources: the wheel holds the Python one; the JS one installs with `npm install PATH`, the Java one with
# `mvn install` in its folder.
cp README.md "$root/share/mockcdn/"
cp -R docs "$root/share/mockcdn/docs"
tar -cf - --exclude=build --exclude=node_modules --exclude='*.egg-info' --exclude=__pycache__ \
    --exclude=.pytest_cache clients/python clients/js clients/java | tar -xf - -C "$root/share/mockcdn"
cp -L openapi.yaml packaging/runtime-packages.txt "$root/share/mockcdn/"
cp LICENSE "$root/"
{
    echo "MockCDN ${version} for Linux ($(uname -m))"
    echo
    echo "Run it from anywhere; it finds its module, resources and fixtures relative to the binary:"
    echo
    echo "    bin/mockcdn serve"
    echo
    python3 packaging/runtime_packages.py install-text
    echo
    echo "To install it under /usr/local (as the container image does):"
    echo
    echo "    tar -xzf $name.tar.gz -C /usr/local --strip-components=1 $name/bin $name/lib $name/share"
    echo
    echo "bin/mockcdn --help lists the flags and commands; bin/mockcdn fixtures prints where the samples are."
    echo "The documentation is share/mockcdn/README.md and share/mockcdn/docs (guides/ among them), the helpers'"
    echo "sources in share/mockcdn/clients (python, js, java; their READMEs say how to install them)."
} > "$root/README.txt"
mkdir -p dist
# Owned by root in the archive, whoever built it, as an install under /usr/local expects.
tar -C "$stage" --owner=0 --group=0 --numeric-owner -czf "dist/$name.tar.gz" "$name"
echo "dist/$name.tar.gz"
