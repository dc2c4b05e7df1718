#!/usr/bin/env bash
# The `mockcdn` binary and, next to it, libMockCDNVips, the libvips module, and `mockcdn-imaging`, the worker
# that loads it for the server's image operations (Sources/CVipsLoader/include/CVipsWorker.h). Arguments go
# to `swift build` (e.g. `-c release`, `--static-swift-stdlib`).
#
# The module is C over libvips' C API, so the C compiler links it, not SwiftPM: a SwiftPM library product is
# linked by the Swift driver, which records the Swift runtime (libswiftCore.so) as a needed library even
# when no Swift code is in it, and the release tarball carries no Swift runtime (docs/packaging.md).
set -euo pipefail
cd "$(dirname "$0")/.."
SWIFT="${SWIFT:-swift}"
"$SWIFT" build "$@" --product mockcdn
bin="$("$SWIFT" build "$@" --show-bin-path)"
optimize=-O0
case " $* " in *" -c release "* | *" --configuration release "* | *" -c=release "*) optimize=-O2 ;; esac
case "$(uname -s)" in
Darwin) module="$bin/libMockCDNVips.dylib" shared=(-dynamiclib -install_name @rpath/libMockCDNVips.dylib) dl=() ;;
*) module="$bin/libMockCDNVips.so" shared=(-shared -Wl,--no-undefined -Wl,--as-needed) dl=(-ldl) ;;
esac
sources=(Sources/CVipsShim/CVipsShim.c Sources/CVipsShim/include/CVipsShimModule.h
    Sources/CVipsLoader/include/CVipsShim.h)
fresh=1
for source in "${sources[@]}"; do [ "$module" -nt "$source" ] || fresh=0; done
if [ "$fresh" = 0 ]; then
    # shellcheck disable=SC2046 # pkg-config's flags are words
    "${CC:-clang}" "$optimize" -g -fPIC -Wall -Werror "${shared[@]}" -ISources/CVipsShim/include \
        -ISources/CVipsLoader/include $(pkg-config --cflags vips) Sources/CVipsShim/CVipsShim.c \
        $(pkg-config --libs vips) -lm -o "$module.tmp"
    mv "$module.tmp" "$module"
fi
# The worker: C, with no libvips of its own (it loads the module beside it, as the server would). Always
# compiled, as it takes a moment: a `swift build` of every product leaves its own copy here, which links the
# shim in and needs the Swift runtime, and the release tarball must not ship that one.
"${CC:-clang}" "$optimize" -g -Wall -Werror -ISources/CVipsLoader/include Sources/mockcdn-imaging/main.c \
    Sources/CVipsLoader/CVipsWorker.c Sources/CVipsLoader/CVipsLoader.c ${dl[@]+"${dl[@]}"} -o "$bin/mockcdn-imaging.tmp"
mv "$bin/mockcdn-imaging.tmp" "$bin/mockcdn-imaging"
