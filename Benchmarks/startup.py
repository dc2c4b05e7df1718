#!/usr/bin/env python3
"""Startup to ready: process start -> first 200 from a health URL, median of N runs.

MockCDN (`mockcdn serve --port P`, GET /_mockcdn/health) is measured beside a reference started and
polled the same way in the same run (`python3 -m http.server`, GET /), and reported as a ratio, since
absolute times on shared machines are not comparable between runs.
"""
import argparse
import http.client
import socket
import statistics
import subprocess
import sys
import time


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def first_200(port, path, deadline):
    while time.perf_counter() < deadline:
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
            connection.request("GET", path)
            if connection.getresponse().status == 200:
                return True
        except OSError:
            time.sleep(0.001)
        finally:
            connection.close()
    return False


def measure(command, path, runs):
    samples = []
    for _ in range(runs):
        port = free_port()
        argv = [part.replace("{port}", str(port)) for part in command]
        start = time.perf_counter()
        process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            if not first_200(port, path, start + 30):
                sys.exit(f"no 200 from {' '.join(argv)} within 30 s")
            samples.append((time.perf_counter() - start) * 1000)
        finally:
            process.terminate()
            process.wait(timeout=10)
    return samples


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--binary", default=".build/release/mockcdn")
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()

    rows = [
        ("mockcdn serve", measure([args.binary, "serve", "--port", "{port}", "--log-level", "error"], "/_mockcdn/health", args.runs)),
        ("python3 -m http.server (reference)", measure([sys.executable, "-m", "http.server", "{port}", "--bind", "127.0.0.1"], "/", args.runs)),
    ]
    reference = statistics.median(rows[1][1])
    print("| server | runs | median ms | min ms | max ms | ratio to reference |")
    print("|---|---|---|---|---|---|")
    for name, samples in rows:
        median = statistics.median(samples)
        print(f"| {name} | {len(samples)} | {median:.1f} | {min(samples):.1f} | {max(samples):.1f} | {median / reference:.2f}x |")


if __name__ == "__main__":
    main()
