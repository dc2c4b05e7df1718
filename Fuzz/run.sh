#!/usr/bin/env bash
# Builds the libFuzzer targets (address sanitizer on) and runs each for FUZZ_SECONDS (default 60) from its
# corpus in Fuzz/Corpus (new inputs go to a scratch copy); then replays Fuzz/Regressions, inputs that once
# crashed. Part of `make soak`.
set -euo pipefail
cd "$(dirname "$0")"
seconds=${FUZZ_SECONDS:-60}
export SWIFT_BACKTRACE=enable=no
swift build --sanitize=fuzzer --sanitize=address
bin=$(swift build --sanitize=fuzzer --sanitize=address --show-bin-path)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for target in FuzzRange FuzzPolicy FuzzSigV4 FuzzMultipart FuzzXML; do
    mkdir -p "$work/$target"
    cp Corpus/$target/* "$work/$target/"
    if [ -d "Regressions/$target" ]; then
        echo "== $target: regressions"
        "$bin/$target" Regressions/$target/* 2>&1 | tail -1
    fi
    echo "== $target: ${seconds}s"
    (cd "$work" && "$bin/$target" "$work/$target" -max_total_time="$seconds" -max_len=4096 -timeout=10 2>&1 | grep -E '^Done|ERROR|SUMMARY')
done
