#!/usr/bin/env bash
# `make bench`: every benchmark in one run, written to Benchmarks/results/latest.md with the commit measured
# and the machine. Installs what it lacks (nginx, wrk, hyperfine, vipsthumbnail, perf with apt; moto[server],
# awscli and boto3 with pip). Pass --quick for 3 s wrk runs and 20 s of load.
# --before BINARY (or BEFORE=BINARY) times an earlier mockcdn build in the same rounds as the current one, for
# before-and-after ratios from one run; BEFORE=REV (a commit, e.g. `make bench BEFORE=a36f5ea`) builds that
# revision in .build/bench-before first.
# BINARY=PATH measures that mockcdn binary (e.g. .build/release/mockcdn from `make release`) instead of building
# the release tarball.
#
# Usage: Benchmarks/bench.sh [--quick] [--before BINARY] [SECTION...]   (make bench SECTIONS="SECTION...")
# SECTIONs, in the order a whole run takes them:
#   reads            signed GETs, startup and idle memory, next to nginx, bare Hummingbird and moto_server
#   upload           100 MiB upload to --data-dir, peak RSS; multipart and raw PUT next to nginx's WebDAV PUT and cp + sync
#   upload-s3-store  the same upload with --store s3:// on moto_server
#   s3-upload        `aws s3 cp` of 100 MiB (multipart) into MockCDN's S3 API and into moto_server
#   s3-store         reads and uploads through --store s3:// next to moto_server alone (Benchmarks/s3_store.py)
#   resize           per-request resize next to in-process libvips, and a cached variant
#   events           small PutObject throughput with no webhook and with a webhook that never answers
#   verify           POST /_mockcdn/verify with the largest body of costly path globs over a full journal, next
#                    to the same verify with literal paths and the journal's listing (with BEFORE, also timed on
#                    the earlier build)
#   small-objects    boto3 PUT and GET objects/s at concurrency 1 and 25, 1 KB and 100 KB, next to moto_server
#   s3-xml           DeleteObjects of 1,000 keys, a 10,000-part completion, two 8 MiB bodies and health meanwhile,
#                    next to moto_server
#   scale            cost against work: reads by connections, ListObjectsV2 by keys, journal queries by
#                    entries, resizes by concurrent sources, a video poster; tables and SVG charts
#   profile          perf's top-10 functions of the FAT read (the tarball's build, unstripped)
#   memory           RSS idle, right after the reads and a minute of FAT reads, and 30 s later (memory.md)
# With no SECTION every one runs and latest.md is rewritten (with every target, met or MISSED, in one table near
# its top: Benchmarks/targets.py); with some, only those run and are printed, and
# latest.md is left alone.
set -euo pipefail
[ -z "${BINARY:-}" ] || BINARY=$(realpath "$BINARY")
cd "$(dirname "$0")/.."
quick=0
chosen=()
while [ $# -gt 0 ]; do
    argument=$1
    shift
    case "$argument" in
    --quick) quick=1 ;;
    --before) BEFORE=$(realpath "${1:?--before needs a mockcdn binary}") && shift ;;
    reads | upload | upload-s3-store | s3-upload | s3-store | resize | events | verify | small-objects | s3-xml | scale \
        | profile | memory)
        chosen+=("$argument") ;;
    -h | --help) sed -n '/^# Usage:/,/^# latest.md is left alone/s/^# //p' "$0" && exit 0 ;;
    *) sed -n '/^# Usage:/,/^# latest.md is left alone/s/^# //p' "$0" >&2; exit 2 ;;
    esac
done
runs() { [ ${#chosen[@]} = 0 ] || [[ " ${chosen[*]} " == *" $1 "* ]]; }
# The project's virtualenv first, as under make: its python3, pip, aws and moto_server.
[ -d .venv/bin ] && PATH="$PWD/.venv/bin:$PATH"
SUDO=$(command -v sudo >/dev/null && [ "$(id -u)" != 0 ] && echo sudo || true)
missing=""
for tool in nginx wrk hyperfine; do command -v "$tool" >/dev/null || missing="$missing $tool"; done
command -v vipsthumbnail >/dev/null || missing="$missing libvips-tools"
command -v perf >/dev/null || missing="$missing linux-perf"
if [ -n "$missing" ]; then
    echo "installing$missing"
    $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing >/dev/null
fi
command -v moto_server >/dev/null || python3 -m pip install -q 'moto[server]'
command -v aws >/dev/null || python3 -m pip install -q awscli
python3 -c 'import boto3' 2>/dev/null || python3 -m pip install -q boto3
mkdir -p Benchmarks/results .build/bench
if [ -n "${BINARY:-}" ]; then
    binary=$BINARY
else
    # What is measured is the release tarball's binary, as users run it (make dist's build, unpacked here).
    tarball=$(packaging/make-dist.sh)
    rm -rf .build/bench/dist && mkdir -p .build/bench/dist
    tar -xzf "$tarball" -C .build/bench/dist --strip-components=1
    binary=.build/bench/dist/bin/mockcdn
fi
if runs reads; then
    # The bare Hummingbird reference, in a scratch folder of its own (its own package and dependency graph).
    swift build -c release --package-path Benchmarks/Reference --scratch-path .build/bench-reference
fi
if runs profile; then
    # perf needs the symbols the release tarball strips: the tarball's build keeps them in its build folder (the
    # same code as the binary measured); with BINARY=, a release build of the checkout.
    if [ -z "${BINARY:-}" ]; then
        profiled=$(swift build -c release --static-swift-stdlib --show-bin-path)/mockcdn
    else
        swift build -c release --product mockcdn
        profiled=.build/release/mockcdn
    fi
fi
if runs resize; then
    cc -O2 -o .build/bench/vips_resize Benchmarks/resize/vips_resize.c $(pkg-config --cflags --libs vips)
fi
before=()
if ! runs reads && ! runs verify && ! runs s3-xml; then
    :  # only the reads, verify and the XML bodies time an earlier build
elif [ -n "${BEFORE:-}" ] && [ -x "$BEFORE" ]; then
    before=(--before "$BEFORE")
elif [ -n "${BEFORE:-}" ]; then
    rev=$(git rev-parse --verify "$BEFORE^{commit}")
    tree=.build/bench-before/$rev
    [ -d "$tree" ] || git worktree add --detach "$tree" "$rev" >/dev/null
    swift build -c release --package-path "$tree" --scratch-path "$tree/.build" --product mockcdn
    # The libvips module: the earlier tree's own script builds it next to the binary, by SwiftPM or by clang.
    (cd "$tree" && scripts/build-server.sh -c release --scratch-path "$tree/.build" >/dev/null 2>&1) || true
    before=(--before "$tree/.build/release/mockcdn")
fi
seconds=5
load_seconds=60
[ "$quick" = 1 ] && seconds=3 && load_seconds=20
output=Benchmarks/results/latest.md
[ ${#chosen[@]} = 0 ] || output=/dev/null
# part SECTION HEADING COMMAND...: when SECTION is chosen, COMMAND's results under the heading. A section that
# fails (a reference that answered the wrong bytes, a server that did not start) says so in the results and the
# run goes on to the next; the run's exit status is then 1.
rm -f .build/bench/failed
part() {
    local name=$1 heading=$2
    shift 2
    runs "$name" || return 0
    printf '\n## %s\n\n' "$heading"
    "$@" || {
        status=$?
        echo
        echo "**This section failed (exit $status): its figures above are incomplete.**"
        echo "$status" >> .build/bench/failed
    }
}
{
    echo "# MockCDN benchmarks ($(date -u +%Y-%m-%d), $(git rev-parse --short HEAD))"
    echo
    echo "Measured: $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- Sources Package.swift || echo ' plus uncommitted changes'),"\
        "binary $binary. Machine: $(nproc) CPUs ($(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)),"\
        "$(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo), $(uname -sr); load average before:"\
        "$(cut -d' ' -f1-3 /proc/loadavg)."
    part reads "Signed GETs, startup, idle memory" \
        python3 Benchmarks/bench.py --binary "$binary" --seconds "$seconds" --load-seconds "$load_seconds" "${before[@]}"
    part upload "Upload (100 MiB, --data-dir)" python3 Benchmarks/upload_memory.py --binary "$binary"
    part upload-s3-store "Upload (100 MiB, --store s3:// on moto_server)" \
        python3 Benchmarks/upload_memory.py --binary "$binary" --store s3
    part s3-upload "S3 upload (100 MiB, aws s3 cp, multipart)" python3 Benchmarks/s3_upload.py --binary "$binary"
    part s3-store "The S3 store (64 KiB FAT reads, 100 MiB uploads) next to moto_server alone" \
        python3 Benchmarks/s3_store.py --binary "$binary" --seconds "$seconds"
    part resize "Resize" \
        python3 Benchmarks/resize.py --binary "$binary" --reference .build/bench/vips_resize --wrk-seconds "$seconds"
    part events "Uploads with a hanging webhook target" python3 Benchmarks/upload_events.py --binary "$binary"
    part verify "Verify with the largest body of costly path globs" \
        python3 Benchmarks/verify.py --binary "$binary" "${before[@]}"
    part small-objects "Small objects through boto3 (LocalStack's published measure)" \
        python3 Benchmarks/small_objects.py --binary "$binary"
    part s3-xml "S3 XML request bodies" python3 Benchmarks/s3_xml.py --binary "$binary" "${before[@]}"
    part scale "Scale curves" python3 Benchmarks/scale.py --binary "$binary" --seconds "$seconds"
    part profile "Profile of the FAT read" python3 Benchmarks/profile.py --binary "${profiled:-}"
    part memory "Memory under read load" python3 Benchmarks/memory.py --binary "$binary" --seconds "$seconds" --also-data-dir \
        --load-seconds "$load_seconds" --output Benchmarks/results/memory.md
} | tee "$output"
# A whole run puts every stated target (met or MISSED) in one table near the top of latest.md.
if [ ${#chosen[@]} = 0 ]; then python3 Benchmarks/targets.py "$output"; fi
[ ! -s .build/bench/failed ]
