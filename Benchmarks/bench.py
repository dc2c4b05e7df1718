#!/usr/bin/env python3
"""`make bench`: MockCDN next to the tools users would otherwise run, in one run on one machine, each figure
a ratio against a reference measured in the same run (median of N runs, min-max given). Writes markdown.

1. Signed GET of a 64 KiB object, wrk 2 threads / 64 connections, keep-alive: MockCDN with (a) a FAT header,
   (b) a CloudFront canned link, (c) a SigV4 presigned link; reference nginx `secure_link` (md5 + expiry)
   serving the same file; also moto_server serving a presigned GET of the same object.
2. The same for a 1 MiB object (MockCDN CloudFront link vs nginx).
3. Startup to the first 200 from the health route, MockCDN vs moto_server.
4. Idle RSS after start with the fixtures loaded, next to moto_server's.
Upload and resize figures come from upload_memory.py and resize.py (run by bench.sh).
Servers run on CPU 0 and wrk on CPU 1 (taskset) where the machine has two or more.
"""
import argparse
import base64
import hashlib
import http.client
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import uuid

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SECRET = "demo-secret-for-local-testing-only"
NGINX_SECRET = "bench-secret"


def cpus():
    return len(os.sched_getaffinity(0))


def pinned(cpu, argv):
    return (["taskset", "-c", str(cpu)] + argv) if cpus() >= 2 and shutil.which("taskset") else argv


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_200(port, path, timeout=30, host="127.0.0.1"):
    deadline = time.perf_counter() + timeout
    while time.perf_counter() < deadline:
        try:
            connection = http.client.HTTPConnection(host, port, timeout=1)
            connection.request("GET", path)
            if connection.getresponse().status == 200:
                return True
        except OSError:
            time.sleep(0.002)
        finally:
            connection.close()
    return False


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def tree_rss_kib(pid):
    """RSS of a process and its children (nginx's workers, for instance)."""
    total = rss_kib(pid)
    for child in subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout.split():
        total += tree_rss_kib(int(child))
    return total


def wrk(url, seconds, headers=()):
    argv = ["wrk", "-t2", "-c64", f"-d{seconds}s"]
    for header in headers:
        argv += ["-H", header]
    output = subprocess.run(pinned(1, argv + [url]), capture_output=True, text=True, check=True).stdout
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1))
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    socket_errors = re.search(r"Socket errors: (.*)", output)
    if errors or socket_errors:
        sys.exit(f"wrk saw errors from {url}:\n{output}")
    return rate


def median_runs(measure, runs):
    samples = [measure() for _ in range(runs)]
    return statistics.median(samples), min(samples), max(samples)


class MockCDN:
    def __init__(self, binary):
        port = free_port()
        self.process = subprocess.Popen(
            pinned(0, [binary, "serve", "--port", str(port), "--log-level", "error"]),
            stdout=subprocess.DEVNULL, cwd=REPO,
        )
        self.port = port
        if not wait_200(port, "/_mockcdn/health"):
            sys.exit("mockcdn did not start")
        self.binary = binary
        self.base = f"http://127.0.0.1:{port}"

    def upload(self, data, name):
        token = subprocess.run([self.binary, "token", "user", "--user-id", "bench"], capture_output=True, text=True,
                               check=True).stdout.strip()
        boundary = uuid.uuid4().hex
        body = (f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{name}"\r\n'
                f"Content-Type: application/octet-stream\r\n\r\n").encode() + data + f"\r\n--{boundary}--\r\n".encode()
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        connection.request("POST", "/api/v2/uploads/file?api_key=demo-key", body,
                           {"Authorization": token, "Content-Type": f"multipart/form-data; boundary={boundary}"})
        response = connection.getresponse()
        payload = response.read()
        if response.status != 201:
            sys.exit(f"upload failed: {response.status} {payload[:200]!r}")
        return json.loads(payload)["file"]

    def cli(self, *arguments):
        return subprocess.run([self.binary, *arguments], capture_output=True, text=True, check=True).stdout.strip()

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=20)


class Nginx:
    """nginx with secure_link: /files/NAME?md5=...&expires=..., md5 over "$expires$uri secret"."""

    def __init__(self, folder):
        self.port = free_port()
        self.folder = folder
        config = f"""
worker_processes 1;
daemon off;
pid {folder}/nginx.pid;
error_log {folder}/error.log;
events {{ worker_connections 1024; }}
http {{
    access_log off;
    sendfile on;
    keepalive_requests 1000000;
    client_body_temp_path {folder}/body;
    proxy_temp_path {folder}/proxy;
    fastcgi_temp_path {folder}/fastcgi;
    uwsgi_temp_path {folder}/uwsgi;
    scgi_temp_path {folder}/scgi;
    server {{
        listen 127.0.0.1:{self.port};
        location /files/ {{
            root {folder};
            secure_link $arg_md5,$arg_expires;
            secure_link_md5 "$secure_link_expires$uri {NGINX_SECRET}";
            if ($secure_link = "") {{ return 403; }}
            if ($secure_link = "0") {{ return 410; }}
        }}
    }}
}}
"""
        with open(f"{folder}/nginx.conf", "w") as handle:
            handle.write(config)
        self.process = subprocess.Popen(pinned(0, ["nginx", "-c", f"{folder}/nginx.conf", "-p", folder]))
        deadline = time.time() + 10
        while time.time() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.05)

    def link(self, name):
        expires = int(time.time()) + 86400
        uri = f"/files/{name}"
        digest = hashlib.md5(f"{expires}{uri} {NGINX_SECRET}".encode()).digest()
        token = base64.urlsafe_b64encode(digest).rstrip(b"=").decode()
        return f"http://127.0.0.1:{self.port}{uri}?md5={token}&expires={expires}"

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=20)


def start_moto(port):
    process = subprocess.Popen(pinned(0, ["moto_server", "-p", str(port)]), stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    return process


def moto_presigned(port, data):
    import boto3
    from botocore.config import Config

    s3 = boto3.client("s3", endpoint_url=f"http://127.0.0.1:{port}", aws_access_key_id="test",
                      aws_secret_access_key="test", region_name="us-east-1",
                      config=Config(signature_version="s3v4", s3={"addressing_style": "path"}))
    s3.create_bucket(Bucket="bench")
    s3.put_object(Bucket="bench", Key="object.bin", Body=data)
    return s3.generate_presigned_url("get_object", Params={"Bucket": "bench", "Key": "object.bin"}, ExpiresIn=86400)


def startup_ms(argv, port, path):
    began = time.perf_counter()
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=REPO)
    try:
        if not wait_200(port, path, timeout=60):
            sys.exit(f"no 200 from {' '.join(argv)}")
        return (time.perf_counter() - began) * 1000
    finally:
        process.terminate()
        process.wait(timeout=20)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--binary", default=os.path.join(REPO, ".build/release/mockcdn"))
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--startup-runs", type=int, default=20)
    args = parser.parse_args()

    work = tempfile.mkdtemp(prefix="mockcdn-bench-")
    os.chmod(work, 0o755)  # nginx workers run as an unprivileged user
    os.makedirs(f"{work}/files")
    small = os.urandom(64 * 1024)
    large = os.urandom(1024 * 1024)
    for name, data in (("small.bin", small), ("large.bin", large)):
        with open(f"{work}/files/{name}", "wb") as handle:
            handle.write(data)

    rows = []
    mockcdn = MockCDN(args.binary)
    nginx = Nginx(work)
    moto_port = free_port()
    moto = start_moto(moto_port)
    try:
        if not wait_200(moto_port, "/moto-api/"):
            sys.exit("moto_server did not start")
        signed_small = mockcdn.upload(small, "small.bin")
        signed_large = mockcdn.upload(large, "large.bin")
        plain_small = signed_small.split("?", 1)[0]
        fat = mockcdn.cli("token", "fat", "--user-id", "bench", "--ttl", "86400")
        presigned_small = mockcdn.cli("sign", "presign", plain_small, "--ttl", "604800")
        moto_url = moto_presigned(moto_port, small)

        def measure(url, headers=()):
            return median_runs(lambda: wrk(url, args.seconds, headers), args.runs)

        nginx_small = measure(nginx.link("small.bin"))
        moto_small = measure(moto_url)
        cases = [
            ("64 KiB, FAT header", measure(plain_small, [f"fat: {fat}"]), 0.6),
            ("64 KiB, CloudFront canned link", measure(signed_small), 0.5),
            ("64 KiB, SigV4 presigned link", measure(presigned_small), 0.5),
        ]
        rows.append("| measure | MockCDN req/s (median, min-max) | nginx secure_link req/s | ratio to nginx | target | moto_server req/s | ratio to moto | target |")
        rows.append("|---|---|---|---|---|---|---|---|")
        for name, (median, low, high), target in cases:
            ratio = median / nginx_small[0]
            moto_ratio = median / moto_small[0]
            rows.append(
                f"| {name} | {median:,.0f} ({low:,.0f}-{high:,.0f}) | {nginx_small[0]:,.0f} | {ratio:.2f}x | "
                f">= {target}x {'met' if ratio >= target else 'MISSED'} | {moto_small[0]:,.0f} | {moto_ratio:.1f}x | "
                f">= 20x {'met' if moto_ratio >= 20 else 'MISSED'} |"
            )
        nginx_large = measure(nginx.link("large.bin"))
        mock_large = measure(signed_large)
        ratio = mock_large[0] / nginx_large[0]
        rows.append(
            f"| 1 MiB, CloudFront canned link | {mock_large[0]:,.0f} ({mock_large[1]:,.0f}-{mock_large[2]:,.0f}) | "
            f"{nginx_large[0]:,.0f} | {ratio:.2f}x | >= 0.7x {'met' if ratio >= 0.7 else 'MISSED'} | | | |"
        )
        time.sleep(1)
        idle_mock = rss_kib(mockcdn.process.pid)
        idle_moto = tree_rss_kib(moto.pid)
    finally:
        mockcdn.stop()
        nginx.stop()
        moto.terminate()
        moto.wait(timeout=20)

    # Idle RSS of a fresh MockCDN with the fixtures loaded (the one above served load).
    fresh = MockCDN(args.binary)
    time.sleep(1)
    idle_fresh = rss_kib(fresh.process.pid)
    fresh.stop()

    mock_start, moto_start = [], []
    for _ in range(args.startup_runs):
        port = free_port()
        mock_start.append(startup_ms(pinned(0, [args.binary, "serve", "--port", str(port), "--log-level", "error"]),
                                     port, "/_mockcdn/health"))
        port = free_port()
        moto_start.append(startup_ms(pinned(0, ["moto_server", "-p", str(port)]), port, "/moto-api/"))
    mock_median, moto_median = statistics.median(mock_start), statistics.median(moto_start)
    speedup = moto_median / mock_median

    print(f"Machine: {cpus()} CPUs; servers on CPU 0, wrk on CPU 1; wrk -t2 -c64 -d{args.seconds}s, median of {args.runs}.\n")
    print("\n".join(rows))
    print()
    print("| measure | MockCDN | reference | ratio | target |")
    print("|---|---|---|---|---|")
    print(
        f"| startup to first 200 ({args.startup_runs} runs) | {mock_median:.1f} ms ({min(mock_start):.1f}-{max(mock_start):.1f}) | "
        f"moto_server {moto_median:.1f} ms ({min(moto_start):.1f}-{max(moto_start):.1f}) | {speedup:.1f}x faster | "
        f"<= 150 ms {'met' if mock_median <= 150 else 'MISSED'}, >= 3x {'met' if speedup >= 3 else 'MISSED'} |"
    )
    print(
        f"| idle RSS, fixtures loaded | {idle_fresh / 1024:.1f} MiB (after the load above: {idle_mock / 1024:.1f} MiB) | "
        f"moto_server {idle_moto / 1024:.1f} MiB | {idle_fresh / max(idle_moto, 1):.2f}x | - |"
    )
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
