#!/usr/bin/env python3
"""`make bench SECTIONS=profile`: where a signed read's time goes. Runs wrk's FAT-header reads of a 64 KiB
object against the release server while `perf record` samples it (software clock, so it works where the
machine has no hardware counters), then prints the ten hottest functions by their own time and the ten
by time including what they call (less the event loop's frames that every read passes through), names
demangled. Linux only; needs Debian's linux-perf, and a binary with its symbols (the release tarball's build
before it is stripped, as `make bench` passes it, or `swift build -c release`'s)."""
import argparse
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402


def demangle(names):
    """Swift symbols demangled (simplified) by `swift demangle`, others as they are."""
    tool = subprocess.run(["swift", "demangle", "--simplified", "--compact"], input="\n".join(names),
                          capture_output=True, text=True)
    lines = tool.stdout.splitlines() if tool.returncode == 0 else []
    return lines if len(lines) == len(names) else names


def top(data, children, count=10):
    """(percent, symbol) of the `count` hottest functions, by own time or including children."""
    argv = ["perf", "report", "-i", data, "--stdio", "--sort", "symbol", "-g", "none",
            "--children" if children else "--no-children"]
    report = subprocess.run(argv, capture_output=True, text=True, check=True).stdout
    rows = []
    for line in report.splitlines():
        match = re.match(r"\s+([\d.]+)%\s+(?:([\d.]+)%\s+)?\[[.k]\]\s+(.*\S)", line)
        if match:
            rows.append((float(match.group(1)), re.split(r"\s{2,}", match.group(3))[0]))
    # Demangled before filtering: Swift's mangling abbreviates repeated words, so a name is only found whole there.
    names = demangle([name for _, name in rows])
    rows = [(percent, name) for (percent, _), name in zip(rows, names)]
    if children:  # thread entry points and the event loop's read dispatch cover everything; keep the work
        rows = [row for row in rows if not re.search(r"start_thread|_dispatch_|swift_job_run|"
                                                     r"runJobInEstablishedExecutorContext|entry_SYSCALL|"
                                                     r"do_syscall|ThreadOpsPosix|setupThread|NIOThread|"
                                                     r"SelectableEventLoop|Selector\.|SelectorEvent|"
                                                     r"BaseSocketChannel|BaseStreamSocketChannel|fireChannelRead|"
                                                     r"invokeChannelRead|ByteToMessage|HTTPDecoder|BetterHTTPParser|"
                                                     r"llhttp", row[1])]
    rows = rows[:count]
    return [(percent, name[:140]) for percent, name in rows]


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--binary", default=os.path.join(bench.REPO, ".build/release/mockcdn"))
    parser.add_argument("--seconds", type=int, default=15)
    args = parser.parse_args()
    server = bench.MockCDN(args.binary)
    folder = tempfile.mkdtemp(prefix="mockcdn-profile-")
    data_file = f"{folder}/perf.data"
    try:
        data = os.urandom(64 * 1024)
        url = server.upload(data, "small.bin").split("?", 1)[0]
        fat = server.cli("token", "fat", "--user-id", "bench", "--ttl", "86400")
        bench.checked("MockCDN", url, data, [f"fat: {fat}"])
        recorder = subprocess.Popen(["perf", "record", "-F", "999", "-g", "-p", str(server.process.pid), "-o",
                                     data_file, "--", "sleep", str(args.seconds)],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        rate = bench.wrk(url, args.seconds - 1, [f"fat: {fat}"])
        if recorder.wait() != 0:
            sys.exit("perf record failed (is linux-perf installed, and perf_event_paranoid low enough?)")
    finally:
        server.stop()
    print(f"perf record -F 999 -g (cpu-clock) of the release server for {args.seconds} s under wrk -t2 -c64 "
          f"FAT-header reads of 64 KiB ({rate:,.0f} req/s while sampled).\n")
    for title, children in (("own time", False), ("time including callees", True)):
        print(f"| # | {title} | function |")
        print("|---|---|---|")
        for number, (percent, name) in enumerate(top(data_file, children), 1):
            print(f"| {number} | {percent:.1f}% | `{name.replace('|', '/')}` |")
        print()
    subprocess.run(["rm", "-rf", folder])


if __name__ == "__main__":
    main()
