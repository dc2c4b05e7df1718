#!/bin/sh
# Installs the release tarball under a prefix: bin/mockcdn, lib/mockcdn/ and share/mockcdn/ land in
# PREFIX/bin, PREFIX/lib and PREFIX/share, where the binary finds them relative to itself. docker/Dockerfile
# installs the image this way, and make dist-check its clean root. POSIX sh and tar only: the image has no more.
# Usage: packaging/install-dist.sh TARBALL [PREFIX]   (PREFIX defaults to /usr/local)
set -eu
tarball="$1"
prefix="${2:-/usr/local}"
top="$(tar -tzf "$tarball" | head -n 1 | cut -d/ -f1)"
mkdir -p "$prefix"
tar -xzf "$tarball" -C "$prefix" --strip-components=1 --no-same-owner "$top/bin" "$top/lib" "$top/share"
test -x "$prefix/bin/mockcdn"
