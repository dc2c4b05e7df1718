#!/usr/bin/env python3
"""`make bench`: MockCDN's signed reads next to two references measured in the same run on the same machine:
nginx with `secure_link` (md5 + expiry) serving the same file from disk, and a bare Hummingbird 2 route
serving the same bytes from memory (Benchmarks/Reference, the framework's ceiling). Every figure is a median
of N wrk runs with its min-max; every ratio divides medians. Writes markdown.

Reads (wrk -t2 -c64, keep-alive): 64 KiB with a FAT header, a FAT query, a CloudFront canned link, a
CloudFront custom-policy link (Stream's shape), a SigV4 presigned URL, and a 14-day link from the channel
listing (re-signed); 1 MiB through a CloudFront link; a cached 400x400 variant; a 206 of 64 KiB out of
10 MiB. Then start to ready (N runs), idle RSS, and RSS after a minute of load, with moto_server's figures
for scale.

Before anything is timed, every URL (MockCDN's and the references') is fetched once and must answer the
expected status with exactly the expected bytes: a reference that answers 403 fast is not a reference.
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
NGINX_SECRET = "bench-secret"
RANGE = (1024 * 1024, 1024 * 1024 + 64 * 1024 - 1)


def cpus():
    return len(os.sched_getaffinity(0))


def pinned(cpu, argv):
    return (["taskset", "-c", str(cpu)] + argv) if cpus() >= 2 and shutil.which("taskset") else argv


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def fetch(url, headers=None):
    parts = urllib.parse.urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    try:
        connection.request("GET", parts.path + ("?" + parts.query if parts.query else ""), headers=headers or {})
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def checked(name, url, expected, headers=None, status=200):
    """`url`, once it answered `status` with exactly `expected`; stops the run otherwise."""
    got_status, body = fetch(url, dict(h.split(": ", 1) for h in headers or []))
    if got_status != status or body != expected:
        sys.exit(f"{name}: {url} answered {got_status} with {len(body)} bytes, not {status} with the "
                 f"{len(expected)} expected")
    return url


def wait_200(port, path, timeout=30):
    deadline = time.perf_counter() + timeout
    while time.perf_counter() < deadline:
        try:
            if fetch(f"http://127.0.0.1:{port}{path}")[0] == 200:
                return True
        except OSError:
            time.sleep(0.002)
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


def wrk(url, seconds, headers=(), connections=64):
    # A long timeout: on a shared machine a slow answer is not a wrong one (wrk's default is 2 s).
    argv = ["wrk", f"-t{min(2, connections)}", f"-c{connections}", f"-d{seconds}s", "--timeout", "10s"]
    for header in headers:
        argv += ["-H", header]
    output = subprocess.run(pinned(1, argv + [url]), capture_output=True, text=True, check=True).stdout
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1))
    if re.search(r"Non-2xx or 3xx responses: (\d+)", output) or re.search(r"Socket errors: (.*)", output):
        sys.exit(f"wrk saw errors from {url}:\n{output}")
    if rate == 0:
        sys.exit(f"wrk got no answer from {url} in {seconds} s:\n{output}")
    return rate


class Measure:
    def __init__(self, samples):
        self.median = statistics.median(samples)
        self.low, self.high = min(samples), max(samples)

    def __str__(self):
        return f"{self.median:,.0f} ({self.low:,.0f}-{self.high:,.0f})"

    def ratio(self):
        return f"{self.median:.2f}x ({self.low:.2f}-{self.high:.2f})"


class MockCDN:
    def __init__(self, binary, *flags, env=None, cpu=0):
        """Starts `mockcdn serve` on CPU `cpu` (None: on every CPU)."""
        self.binary = binary
        self.port = free_port()
        argv = [binary, "serve", "--port", str(self.port), "--log-level", "error", *flags]
        self.process = subprocess.Popen(
            argv if cpu is None else pinned(cpu, argv),
            stdout=subprocess.DEVNULL, cwd=REPO, env={**os.environ, **(env or {})},
        )
        if not wait_200(self.port, "/_mockcdn/health"):
            sys.exit("mockcdn did not start")
        self.base = f"http://127.0.0.1:{self.port}"

    def cli(self, *arguments):
        return subprocess.run([self.binary, *arguments], capture_output=True, text=True, check=True).stdout.strip()

    def upload(self, data, name, channel="messaging/bench"):
        """The signed link of a Stream file upload of `data`."""
        return self.upload_answer(data, name, channel=channel)["file"]

    def upload_answer(self, data, name, content_type="application/octet-stream", channel="messaging/bench"):
        """Stream's answer to a file upload of `data`: `file`, and `thumb_url` for a video with a poster."""
        token = self.cli("token", "user", "--user-id", "bench")
        boundary = uuid.uuid4().hex
        body = (f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{name}"\r\n'
                f"Content-Type: {content_type}\r\n\r\n").encode() + data + f"\r\n--{boundary}--\r\n".encode()
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        connection.request("POST", f"/channels/{channel}/file?api_key=demo-key", body,
                           {"Authorization": token, "stream-auth-type": "jwt",
                            "Content-Type": f"multipart/form-data; boundary={boundary}"})
        response = connection.getresponse()
        payload = response.read()
        if response.status != 201:
            sys.exit(f"upload failed: {response.status} {payload[:200]!r}")
        return json.loads(payload)

    def listed(self, channel="messaging/bench"):
        """The channel's uploads, each with a link signed now."""
        token = self.cli("token", "user", "--user-id", "bench")
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        connection.request("GET", f"/channels/{channel}/uploads?api_key=demo-key",
                           headers={"Authorization": token, "stream-auth-type": "jwt"})
        response = connection.getresponse()
        return {item["name"]: item["file"] for item in json.loads(response.read())["uploads"]}

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=20)


class BareHummingbird:
    def __init__(self, binary, file):
        self.port = free_port()
        self.process = subprocess.Popen(pinned(0, [binary, str(self.port), file]), stdout=subprocess.DEVNULL)
        if not wait_200(self.port, "/object"):
            sys.exit("the bare Hummingbird reference did not start")
        self.url = f"http://127.0.0.1:{self.port}/object"

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


def read_cases(server, small, large, huge, range_header, range_bytes):
    """The timed reads of one MockCDN server, each checked once for its status and exact bytes:
    (name, url, headers, expected bytes, status, reference kind, target vs nginx), and the variant's bytes."""
    custom_small = server.upload(small, "small.bin")
    custom_large = server.upload(large, "large.bin")
    custom_huge = server.upload(huge, "huge.bin")
    plain_small, plain_huge = custom_small.split("?", 1)[0], custom_huge.split("?", 1)[0]
    fat = server.cli("token", "fat", "--user-id", "bench", "--ttl", "86400")
    fat_header = [f"fat: {fat}"]
    canned_small = server.cli("sign", "cloudfront", plain_small)
    presigned_small = server.cli("sign", "presign", plain_small, "--ttl", "604800")
    listed_small = server.listed()["small.bin"]
    variant_url = f"{server.base}/demo/fixtures/large-4000x4000.jpg?w=400&h=400"
    status, variant = fetch(variant_url, {"fat": fat})  # renders once; every timed read is a cache hit
    if status != 200 or not variant.startswith(b"\xff\xd8"):
        sys.exit(f"the variant answered {status}")
    cases = [
        ("64 KiB, FAT header", plain_small, fat_header, small, 200, "small", 0.9),
        ("64 KiB, FAT query", f"{plain_small}?fat={urllib.parse.quote(fat, safe='')}", [], small, 200, "small", 0.9),
        ("64 KiB, CloudFront canned link", canned_small, [], small, 200, "small", 0.8),
        ("64 KiB, CloudFront custom policy (Stream's link)", custom_small, [], small, 200, "small", 0.8),
        ("64 KiB, SigV4 presigned", presigned_small, [], small, 200, "small", 0.8),
        ("64 KiB, 14-day link from the channel listing", listed_small, [], small, 200, "small", 0.8),
        ("1 MiB, CloudFront custom policy", custom_large, [], large, 200, "large", 1.0),
        ("cached 400x400 variant, FAT header", variant_url, fat_header, variant, 200, "variant", None),
        ("206, 64 KiB of 10 MiB, FAT header", plain_huge, fat_header + [range_header], range_bytes, 206, "range",
         None),
    ]
    for name, url, headers, expected, status, _, _ in cases:
        checked(name, url, expected, headers, status)
    return cases, variant


def describe(binary):
    """What `--before` was: its `--version` line, or that none was given."""
    if not binary:
        return "not measured (--before BINARY times an earlier build in the same rounds)"
    version = subprocess.run([binary, "--version"], capture_output=True, text=True).stdout.strip()
    return f"{binary} ({version or 'no version'})"


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


def mockcdn_start_ms(binary):
    port = free_port()
    return startup_ms(pinned(0, [binary, "serve", "--port", str(port), "--log-level", "error"]), port,
                      "/_mockcdn/health")


def idle_rss_kib(binary):
    """RSS of a fresh server (fixtures loaded) once it answers and has been idle a second."""
    fresh = MockCDN(binary)
    time.sleep(1)  # idle, on purpose: the figure is memory at rest, not a margin
    try:
        return rss_kib(fresh.process.pid)
    finally:
        fresh.stop()


def startup_and_idle(args):
    """`--startup-only`: start to first 200 and idle RSS of --binary and --before, alternating run by run."""
    binaries = {"mockcdn": args.binary, **({"before": args.before} if args.before else {})}
    starts = {name: [] for name in binaries}
    idle = {name: [] for name in binaries}
    for _ in range(args.startup_runs):
        for name, binary in binaries.items():
            starts[name].append(mockcdn_start_ms(binary))
    for _ in range(args.runs):
        for name, binary in binaries.items():
            idle[name].append(idle_rss_kib(binary) / 1024)
    print(f"Machine: {cpus()} CPUs; servers on CPU 0. {args.startup_runs} starts and {args.runs} idle readings "
          f"of each binary, alternating. Binary: {describe(args.binary)}. Before: {describe(args.before)}.\n")
    print("| measure | MockCDN | before | ratio |")
    print("|---|---|---|---|")
    for label, samples, unit in (("start to first 200", starts, "ms"), ("idle RSS, fixtures loaded", idle, "MiB")):
        now = Measure(samples["mockcdn"])
        then = Measure(samples["before"]) if "before" in samples else None
        cell = lambda m: f"{m.median:.1f} {unit} ({m.low:.1f}-{m.high:.1f})"
        ratio = f"{now.median / then.median:.2f}x" if then else "-"
        print(f"| {label} | {cell(now)} | {cell(then) if then else '-'} | {ratio} |")


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--binary", default=os.path.join(REPO, ".build/release/mockcdn"))
    parser.add_argument("--reference", default=os.path.join(REPO, ".build/bench-reference/release/BareHummingbird"))
    parser.add_argument("--before", help="another mockcdn binary (an earlier build), timed in the same rounds")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seconds", type=int, default=5)
    parser.add_argument("--load-seconds", type=int, default=60)
    parser.add_argument("--startup-runs", type=int, default=20)
    parser.add_argument("--startup-only", action="store_true",
                        help="only start to first 200 and idle RSS, of --binary and --before, in alternating runs")
    args = parser.parse_args()
    if args.startup_only:
        startup_and_idle(args)
        return

    work = tempfile.mkdtemp(prefix="mockcdn-bench-")
    os.chmod(work, 0o755)  # nginx workers run as an unprivileged user
    os.makedirs(f"{work}/files")
    files = {"small.bin": os.urandom(64 * 1024), "large.bin": os.urandom(1024 * 1024),
             "huge.bin": os.urandom(10 * 1024 * 1024)}
    for name, data in files.items():
        with open(f"{work}/files/{name}", "wb") as handle:
            handle.write(data)
    small, large, huge = files["small.bin"], files["large.bin"], files["huge.bin"]
    range_header = f"Range: bytes={RANGE[0]}-{RANGE[1]}"
    range_bytes = huge[RANGE[0]:RANGE[1] + 1]

    mockcdn = MockCDN(args.binary)
    before = MockCDN(args.before) if args.before else None
    nginx = Nginx(work)
    moto_port = free_port()
    moto = subprocess.Popen(pinned(0, ["moto_server", "-p", str(moto_port)]), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    references = []
    try:
        if not wait_200(moto_port, "/moto-api/"):
            sys.exit("moto_server did not start")
        cases, files["variant.jpg"] = read_cases(mockcdn, small, large, huge, range_header, range_bytes)
        with open(f"{work}/files/variant.jpg", "wb") as handle:
            handle.write(files["variant.jpg"])
        before_cases = read_cases(before, small, large, huge, range_header, range_bytes)[0] if before else None
        moto_url = checked("moto_server", moto_presigned(moto_port, small), small)

        bare = {name: BareHummingbird(args.reference, f"{work}/files/{name}")
                for name in ("small.bin", "large.bin", "variant.jpg")}
        references += bare.values()
        nginx_urls = {name: checked("nginx", nginx.link(name), files[name]) for name in bare}
        for name, server in bare.items():
            checked("bare Hummingbird", server.url, files[name])
        # What each read is compared with: (nginx url, nginx headers, bare Hummingbird url).
        reference_of = {
            "small": (nginx_urls["small.bin"], [], bare["small.bin"].url),
            "large": (nginx_urls["large.bin"], [], bare["large.bin"].url),
            "variant": (nginx_urls["variant.jpg"], [], bare["variant.jpg"].url),
            "range": (checked("nginx range", nginx.link("huge.bin"), range_bytes, [range_header], 206),
                      [range_header], bare["small.bin"].url),
        }

        # Each round times MockCDN, nginx and bare Hummingbird (and the build before, if given) back to back,
        # and each ratio is taken within its round, so the machine's drift between rounds (other tenants of
        # the host) cancels out of it. Reported: the median of the rounds' ratios, with their min-max.
        rows = ["| read | MockCDN req/s | / nginx | target | / bare HB | before: / nginx |",
                "|---|---|---|---|---|---|"]
        results = {}
        for index, (name, url, headers, _, _, reference, target) in enumerate(cases):
            nginx_url, nginx_headers, bare_url = reference_of[reference]
            rates, to_nginx, to_bare, before_to_nginx = [], [], [], []
            for _ in range(args.runs):
                rate = wrk(url, args.seconds, headers)
                nginx_rate = wrk(nginx_url, args.seconds, nginx_headers)
                rates.append(rate)
                to_nginx.append(rate / nginx_rate)
                to_bare.append(rate / wrk(bare_url, args.seconds))
                if before_cases:
                    _, before_url, before_headers, *_ = before_cases[index]
                    before_to_nginx.append(wrk(before_url, args.seconds, before_headers) / nginx_rate)
            results[name] = Measure(rates)
            ratio_nginx, ratio_bare = Measure(to_nginx), Measure(to_bare)
            nginx_target = (f">= {target}x {'met' if ratio_nginx.median >= target else 'MISSED'}" if target
                            else "-")
            before_text = Measure(before_to_nginx).ratio() if before_to_nginx else "-"
            rows.append(f"| {name} | {results[name]} | {ratio_nginx.ratio()} | {nginx_target} | "
                        f"{ratio_bare.ratio()} | {before_text} |")
            print(rows[-1], file=sys.stderr, flush=True)  # progress; the table is printed whole at the end
        moto_rate = Measure([wrk(moto_url, args.seconds) for _ in range(args.runs)])
        presigned = results["64 KiB, SigV4 presigned"]
        rows.append(f"| 64 KiB, moto_server presigned GET (for scale) | {moto_rate} | | | | |")
        _, fat_url, fat_headers, *_ = cases[0]  # the FAT-header read, also the load below
        rows.append(f"\nMockCDN's SigV4 read is {presigned.median / moto_rate.median:.1f}x moto_server's.")

        time.sleep(1)
        idle_after_reads = rss_kib(mockcdn.process.pid)
        wrk(fat_url, args.load_seconds, fat_headers)
        loaded_rss = rss_kib(mockcdn.process.pid)
        idle_moto = tree_rss_kib(moto.pid)
        idle_bare = rss_kib(bare["small.bin"].process.pid)
    finally:
        mockcdn.stop()
        if before:
            before.stop()
        nginx.stop()
        for reference in references:
            reference.stop()
        moto.terminate()
        moto.wait(timeout=20)

    idle_fresh = idle_rss_kib(args.binary)
    idle_before = idle_rss_kib(args.before) if args.before else None

    starts = {"mockcdn": [], "bare": [], "moto": [], "before": []}
    for _ in range(args.startup_runs):
        starts["mockcdn"].append(mockcdn_start_ms(args.binary))
        if args.before:
            starts["before"].append(mockcdn_start_ms(args.before))
        port = free_port()
        starts["bare"].append(startup_ms(pinned(0, [args.reference, str(port), f"{work}/files/small.bin"]), port,
                                         "/object"))
        port = free_port()
        starts["moto"].append(startup_ms(pinned(0, ["moto_server", "-p", str(port)]), port, "/moto-api/"))
    start = {name: Measure(samples) for name, samples in starts.items() if samples}

    def ms(measure):
        return f"{measure.median:.1f} ms ({measure.low:.1f}-{measure.high:.1f})"

    print(f"Machine: {cpus()} CPUs; servers on CPU 0, wrk on CPU 1; wrk -t2 -c64 -d{args.seconds}s. {args.runs} "
          f"rounds, each timing MockCDN and its references back to back; a ratio is the median of the rounds' "
          f"ratios (min-max). Before: {describe(args.before)}.\n")
    print("\n".join(rows))
    print()
    print("| measure | MockCDN | bare Hummingbird | ratio | moto_server | target | before |")
    print("|---|---|---|---|---|---|---|")
    print(f"| start to first 200 ({args.startup_runs} runs) | {ms(start['mockcdn'])} | {ms(start['bare'])} | "
          f"{start['mockcdn'].median / start['bare'].median:.1f}x | {ms(start['moto'])} | "
          f"<= 50 ms {'met' if start['mockcdn'].median <= 50 else 'MISSED'} | "
          f"{ms(start['before']) if 'before' in start else '-'} |")
    print(f"| idle RSS, fixtures loaded | {idle_fresh / 1024:.1f} MiB | {idle_bare / 1024:.1f} MiB | "
          f"{idle_fresh / max(idle_bare, 1):.1f}x | {idle_moto / 1024:.1f} MiB | "
          f"<= 40 MiB {'met' if idle_fresh <= 40 * 1024 else 'MISSED'} | "
          f"{f'{idle_before / 1024:.1f} MiB' if idle_before else '-'} |")
    print(f"| RSS after the reads above, then after {args.load_seconds} s more of FAT reads | "
          f"{idle_after_reads / 1024:.1f} MiB, then {loaded_rss / 1024:.1f} MiB | | | | - | |")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
