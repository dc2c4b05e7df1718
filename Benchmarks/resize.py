#!/usr/bin/env python3
"""Resize: MockCDN's per-request resize of a 4000x4000 JPEG to 400x400 over HTTP (release build, variant
cache off, keep-alive, warm) next to the same libvips operation timed in process by a small C program
(resize/vips_resize.c), in one run (issue 34's target: at most 1.1x); then the request rate of a cached
variant next to MockCDN's rate for a plain object holding the same bytes (wrk, 2 threads, 64 connections):
the cost of the variant path (target: at least 0.95x). Both reads are checked once for 200 and the variant's
exact bytes before they are timed.

Each figure is a median; rounds alternate between MockCDN and the reference, and the ratio's min-max over
rounds is given too.
"""
import argparse
import base64
import hashlib
import hmac
import http.client
import json
import re
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench import Measure  # noqa: E402

SECRET = b"demo-secret-for-local-testing-only"


def jwt(claims):
    def b64(raw):
        return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()

    head = b64(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    body = b64(json.dumps(claims).encode())
    sig = b64(hmac.new(SECRET, f"{head}.{body}".encode(), hashlib.sha256).digest())
    return f"{head}.{body}.{sig}"


def start(binary, *flags):
    process = subprocess.Popen(
        [binary, "serve", "--port", "0", "--log-level", "error", *flags], stdout=subprocess.PIPE, text=True
    )
    match = re.match(r"mockcdn ready on http://127\.0\.0\.1:(\d+)", process.stdout.readline())
    if not match:
        sys.exit("mockcdn did not start")
    return process, int(match.group(1))


def upload(port, data):
    """Uploads `data` through the Stream image endpoint and returns the signed link."""
    boundary = uuid.uuid4().hex
    body = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.jpg"\r\n'
        f"Content-Type: image/jpeg\r\n\r\n"
    ).encode() + data + f"\r\n--{boundary}--\r\n".encode()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    connection.request(
        "POST",
        "/api/v2/uploads/image?api_key=demo-key",
        body,
        {"Authorization": jwt({"user_id": "bench"}), "Content-Type": f"multipart/form-data; boundary={boundary}"},
    )
    response = connection.getresponse()
    payload = response.read()
    if response.status != 201:
        sys.exit(f"upload failed: {response.status} {payload[:200]!r}")
    return json.loads(payload)["file"]


def fetch(port, target):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    connection.request("GET", target)
    response = connection.getresponse()
    body = response.read()
    connection.close()
    if response.status != 200:
        sys.exit(f"GET {target} failed: {response.status} {body[:200]!r}")
    return body


def time_requests(port, target, count):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    samples = []
    for _ in range(count):
        began = time.perf_counter()
        connection.request("GET", target)
        response = connection.getresponse()
        body = response.read()
        samples.append((time.perf_counter() - began) * 1000)
        if response.status != 200 or not body.startswith(b"\xff\xd8"):
            sys.exit(f"resize request failed: {response.status} {body[:200]!r}")
    connection.close()
    return samples


def wrk(url, seconds):
    output = subprocess.run(
        ["wrk", "-t2", "-c64", f"-d{seconds}s", url], capture_output=True, text=True, check=True
    ).stdout
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1))
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    if errors:
        sys.exit(f"wrk saw {errors.group(1)} error answers from {url}")
    return rate


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--binary", default=".build/release/mockcdn")
    parser.add_argument("--reference", required=True, help="the compiled resize/vips_resize.c")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--requests", type=int, default=20)
    parser.add_argument("--wrk-seconds", type=int, default=10)
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="mockcdn-resize-"))
    source = work / "big.jpg"
    subprocess.run([args.reference, "make", str(source), "4000"], check=True)
    data = source.read_bytes()

    process, port = start(args.binary, "--variant-cache-mb", "0")
    try:
        link = urllib.parse.urlparse(upload(port, data))
        target = f"{link.path}?{link.query}&w=400&h=400"
        time_requests(port, target, 3)  # warm-up
        ours, theirs, ratios = [], [], []
        for _ in range(args.rounds):
            mockcdn = statistics.median(time_requests(port, target, args.requests))
            output = subprocess.run(
                [args.reference, "time", str(source), "400", "400", str(args.requests)],
                capture_output=True, text=True, check=True,
            ).stdout
            reference = statistics.median(float(line) for line in output.split())
            ours.append(mockcdn)
            theirs.append(reference)
            ratios.append(mockcdn / reference)
    finally:
        process.terminate()
        process.wait(timeout=20)

    process, port = start(args.binary)
    try:
        link = urllib.parse.urlparse(upload(port, data))
        base = f"http://127.0.0.1:{port}{link.path}?{link.query}"
        variant = fetch(port, f"{link.path}?{link.query}&w=400&h=400")  # fills the cache
        plain = urllib.parse.urlparse(upload(port, variant))
        if fetch(port, f"{plain.path}?{plain.query}") != variant:
            sys.exit("the plain object does not answer the variant's bytes")
        if fetch(port, f"{link.path}?{link.query}&w=400&h=400") != variant:
            sys.exit("the cached variant answers other bytes")
        cached, original, variant_ratios = [], [], []
        for _ in range(args.rounds):
            cached.append(wrk(base + "&w=400&h=400", args.wrk_seconds))
            original.append(wrk(f"http://127.0.0.1:{port}{plain.path}?{plain.query}", args.wrk_seconds))
            variant_ratios.append(cached[-1] / original[-1])
    finally:
        process.terminate()
        process.wait(timeout=20)

    print("| measure | MockCDN | reference | ratio |")
    print("|---|---|---|---|")
    print(
        f"| resize 4000x4000 JPEG ({len(data) / 1e6:.1f} MB) -> 400x400, per request, cache off (median of {args.rounds} rounds x "
        f"{args.requests}) | {statistics.median(ours):.1f} ms | {statistics.median(theirs):.1f} ms in-process "
        f"libvips | {Measure(ratios).ratio()}; target <= 1.1x {'met' if Measure(ratios).median <= 1.1 else 'MISSED'} |"
    )
    print(
        f"| cached 400x400 variant ({len(variant):,} B; wrk -t2 -c64 -d{args.wrk_seconds}s, {args.rounds} rounds) | "
        f"{statistics.median(cached):,.0f} req/s ({min(cached):,.0f}-{max(cached):,.0f}) | "
        f"{statistics.median(original):,.0f} req/s ({min(original):,.0f}-{max(original):,.0f}) for a plain object "
        f"of the same bytes | {Measure(variant_ratios).ratio()}; target >= 0.95x "
        f"{'met' if Measure(variant_ratios).median >= 0.95 else 'MISSED'} |"
    )



if __name__ == "__main__":
    main()
