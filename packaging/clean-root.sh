#!/usr/bin/env bash
# A clean Debian bookworm root with exactly the run-stage packages (packaging/runtime-packages.txt), for make
# dist-check: debootstrap --variant=minbase from the Debian mirror this machine's apt uses, then `apt-get
# install --no-install-recommends` of the list inside it, as docker/Dockerfile's run stage does. With
# `--layer python`, also an overlay layer on top of it with python3-venv (the wheel step only) and a wheelhouse
# of pytest for it, fetched by this machine's pip.
#
# Cached outside the checkout ($MOCKCDN_CLEAN_ROOT_CACHE, default /var/cache/mockcdn-clean-root), keyed by the
# package list, the suite and the mirror, so a second run takes seconds. Needs root (debootstrap, chroot).
# Prints the cache folder: root/ (the base), python/ (the layer's upper folder) and wheels/.
set -euo pipefail
cd "$(dirname "$0")/.."
suite=bookworm
cache_base="${MOCKCDN_CLEAN_ROOT_CACHE:-/var/cache/mockcdn-clean-root}"
layer="${2:-}"
[ "${1:-}" = "--layer" ] || layer=""

# The mirror this machine's apt is configured with (deb822 sources first, then the one-line format).
mirror="$(sed -n 's/^URIs: *\([^ ]*\).*/\1/p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n 1)"
[ -n "$mirror" ] || mirror="$(awk '$1 == "deb" { print $2; exit }' /etc/apt/sources.list 2>/dev/null || true)"
[ -n "$mirror" ] || mirror="http://deb.debian.org/debian"
packages="$(python3 packaging/runtime_packages.py names)"
key="$(printf '%s\n%s\n%s\n' "$suite" "$mirror" "$packages" | sha256sum | cut -c1-16)"
cache="$cache_base/$key"
mkdir -p "$cache"
exec 9> "$cache/lock"
flock 9

in_root() { # FOLDER COMMAND...: a command inside the root, as root, with the network for apt.
    local folder="$1"
    shift
    cp /etc/resolv.conf "$folder/etc/resolv.conf"
    chroot "$folder" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive "$@"
}

if [ ! -e "$cache/root.done" ]; then
    rm -rf "$cache/root"
    echo "clean root: debootstrap $suite from $mirror into $cache/root" >&2
    debootstrap --variant=minbase "$suite" "$cache/root" "$mirror" > "$cache/debootstrap.log" 2>&1 \
        || { tail -n 20 "$cache/debootstrap.log" >&2; exit 1; }
    # The suite's updates and security archives too, as the debian:bookworm-slim image has them.
    {
        echo "deb $mirror $suite main"
        echo "deb $mirror $suite-updates main"
        echo "deb http://deb.debian.org/debian-security $suite-security main"
    } > "$cache/root/etc/apt/sources.list"
    echo "clean root: apt-get install $packages" >&2
    # shellcheck disable=SC2086 # one word a package
    in_root "$cache/root" sh -c "apt-get update -qq && apt-get install -y -qq --no-install-recommends $packages \
        && apt-get clean && rm -rf /var/lib/apt/lists/*" > "$cache/apt.log" 2>&1 \
        || { tail -n 20 "$cache/apt.log" >&2; exit 1; }
    touch "$cache/root.done"
fi

if [ "$layer" = python ] && [ ! -e "$cache/python.done" ]; then
    echo "clean root: the python3-venv layer" >&2
    rm -rf "$cache/python" "$cache/python.work" "$cache/python.merged" "$cache/wheels"
    mkdir -p "$cache/python" "$cache/python.work" "$cache/python.merged"
    mount -t overlay overlay -o "lowerdir=$cache/root,upperdir=$cache/python,workdir=$cache/python.work" \
        "$cache/python.merged"
    trap 'umount "$cache/python.merged" 2>/dev/null || true' EXIT
    in_root "$cache/python.merged" sh -c "apt-get update -qq && apt-get install -y -qq --no-install-recommends \
        python3-venv && apt-get clean && rm -rf /var/lib/apt/lists/*" > "$cache/apt-python.log" 2>&1 \
        || { tail -n 20 "$cache/apt-python.log" >&2; exit 1; }
    umount "$cache/python.merged"
    trap - EXIT
    rm -rf "$cache/python.work" "$cache/python.merged"
    # pytest for the helper's own suite inside the root, as wheels: the root installs them with no index.
    # The root's Python (the layer installed it), so the wheels fit it.
    version="$(ls "$cache/python/usr/lib" | sed -n 's/^python3\.\([0-9]*\)$/3.\1/p' | head -n 1)"
    python3 -m pip download -q --only-binary=:all: --python-version "$version" -d "$cache/wheels" pytest
    touch "$cache/python.done"
fi
echo "$cache"
