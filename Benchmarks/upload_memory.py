#!/usr/bin/env python3
"""Peak RSS growth of the server during a 100 MiB upload, and the 100 MiB + 1 byte refusal.

Starts a release `mockcdn serve` with `--data-dir`, uploads exactly the limit (100 MiB) with curl as a
streamed multipart body (with `Expect:` cleared: Hummingbird does not answer `100-continue`, so curl would
otherwise wait its 1 s timeout before sending), and reads the server's VmHWM (peak resident set) from /proc before and after.
Reported next to the upload's own size (the ratio a buffering server would show as >= 1.0) and curl's
throughput against the same server writing the same bytes with `cp` to the same disk (reference).
With `--store s3`, the same against the S3 store on a moto_server this script starts: the upload goes up as
a multipart upload of 8 MiB parts, and the refusal aborts it.
"""
import argparse
import base64
import hashlib
import hmac
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

MIB = 1024 * 1024


def jwt(user, secret=b"demo-secret-for-local-testing-only"):
    encode = lambda raw: base64.urlsafe_b64encode(raw).rstrip(b"=").decode()
    head = encode(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    body = encode(json.dumps({"user_id": user}).encode())
    signature = hmac.new(secret, f"{head}.{body}".encode(), hashlib.sha256).digest()
    return f"{head}.{body}.{encode(signature)}"


def status_kib(pid, field):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(field)


def upload(port, path):
    started = time.perf_counter()
    result = subprocess.run(
        ["curl", "-sS", "-o", "/dev/null", "-w", "%{http_code}", "-H", "Expect:", "-H", f"Authorization: Bearer {jwt('bench')}",
         "-H", "stream-auth-type: jwt", "-F", f"file=@{path};type=application/octet-stream",
         f"http://127.0.0.1:{port}/channels/messaging/bench/file?api_key=demo-key"],
        capture_output=True, text=True, check=True)
    return int(result.stdout), time.perf_counter() - started


def start_moto():
    """moto_server on a free loopback port with the bucket `bench-upload`; returns the process and its URL."""
    import socket
    import urllib.request

    import boto3

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen(["moto_server", "-H", "127.0.0.1", "-p", str(port)], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    endpoint = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(endpoint + "/moto-api/", timeout=2)
            break
        except OSError:
            time.sleep(0.2)
    boto3.client("s3", endpoint_url=endpoint, aws_access_key_id="bench", aws_secret_access_key="bench",
                 region_name="us-east-1").create_bucket(Bucket="bench-upload")
    return process, endpoint


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--binary", default=".build/release/mockcdn")
    parser.add_argument("--store", choices=["disk", "s3"], default="disk")
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="mockcdn-bench-")
    try:
        exact, over = os.path.join(work, "exact.bin"), os.path.join(work, "over.bin")
        with open(exact, "wb") as file:
            for _ in range(100):
                file.write(os.urandom(MIB))
        shutil.copyfile(exact, over)
        with open(over, "ab") as file:
            file.write(b"x")

        moto = None
        store = ["--data-dir", os.path.join(work, "data")]
        environment = dict(os.environ)
        if args.store == "s3":
            moto, endpoint = start_moto()
            environment.update({"AWS_ENDPOINT_URL_S3": endpoint, "AWS_ACCESS_KEY_ID": "bench",
                                "AWS_SECRET_ACCESS_KEY": "bench", "AWS_REGION": "us-east-1"})
            store = ["--store", "s3://bench-upload/bench"]
        server = subprocess.Popen([args.binary, "serve", "--port", "0", *store, "--log-level", "error", "--fixtures", "none"],
                                  stdout=subprocess.PIPE, text=True, env=environment)
        try:
            port = int(re.search(r":(\d+)$", server.stdout.readline().strip()).group(1))
            time.sleep(0.5)
            idle_rss = status_kib(server.pid, "VmRSS")
            peak_before = status_kib(server.pid, "VmHWM")
            code, seconds = upload(port, exact)
            peak_after = status_kib(server.pid, "VmHWM")
            over_code, _ = upload(port, over)
            if moto:
                import boto3

                s3 = boto3.client("s3", endpoint_url=environment["AWS_ENDPOINT_URL_S3"], aws_access_key_id="bench",
                                  aws_secret_access_key="bench", region_name="us-east-1")
                blobs = [item["Size"] for item in s3.list_objects_v2(Bucket="bench-upload").get("Contents", [])
                         if "/blobs/" in item["Key"]]
                left_open = s3.list_multipart_uploads(Bucket="bench-upload").get("Uploads", [])
                if blobs != [100 * MIB] or left_open:
                    sys.exit(f"S3 store: blobs {blobs} and {len(left_open)} open uploads; one of 100 MiB and none expected")
        finally:
            server.terminate()
            server.wait(timeout=10)
            if moto:
                moto.kill()
                moto.wait()

        started = time.perf_counter()
        shutil.copyfile(exact, os.path.join(work, "copy.bin"))
        os.sync()
        copy_seconds = time.perf_counter() - started

        growth_mib = (peak_after - max(idle_rss, 0)) / 1024
        print("| measurement | value | reference | ratio |")
        print("|---|---|---|---|")
        print(f"| 100 MiB upload status | {code} | 201 expected | |")
        print(f"| 100 MiB + 1 byte status | {over_code} | 413 expected | |")
        print(f"| peak RSS growth during the upload | {growth_mib:.1f} MiB (idle {idle_rss / 1024:.1f} MiB, "
              f"peak before {peak_before / 1024:.1f}, after {peak_after / 1024:.1f}) | upload size 100 MiB | "
              f"{growth_mib / 100:.2f}x |")
        print(f"| upload throughput (curl, multipart) | {100 / seconds:.0f} MiB/s | cp + sync of the same file: "
              f"{100 / copy_seconds:.0f} MiB/s | {copy_seconds / seconds:.2f}x |")
        if moto:
            print("| what the bucket holds after both | the one 100 MiB blob, no open multipart upload | | |")
        if code != 201 or over_code != 413 or growth_mib >= 64:
            sys.exit("target missed: 201, 413 and growth < 64 MiB expected")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
