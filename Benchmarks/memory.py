#!/usr/bin/env python3
"""Memory of a busy server and how much of it comes back (issue 34: RSS after the read load <= 1.5x idle, and
within 10% of idle 30 s after the load ends; start <= 50 ms and idle RSS <= 40 MiB kept).

Starts the release `mockcdn serve` with its defaults (fixtures preloaded) and reads VmRSS from /proc once it
has been idle a second (as Benchmarks/bench.py reads idle RSS). Uploads what bench.py uploads (64 KiB, 1 MiB
and 10 MiB of random bytes, Stream's upload route) and checks each of bench.py's reads once (200 or 206 and
exactly the expected bytes): 64 KiB with a FAT header, a FAT query, a CloudFront canned link, Stream's
custom-policy link, a SigV4 presigned URL and the listing's link; 1 MiB by a CloudFront link; the 400x400
variant of the 4000x4000 fixture (rendered once, by libvips in a `mockcdn-imaging` child, whose RSS is read
right after the render); 64 KiB of 10 MiB by a Range. Each is
then loaded for --seconds (5) with `wrk -t2 -c64`, as one round of bench.py. Then `wrk -t2 -c64` GETs the
64 KiB object with the FAT header for --load-seconds (60), bench.py's last load, and VmRSS is read right after
it and every second for --settle-seconds (30). `--reads fat` uploads only the 64 KiB object and checks only
its FAT read: no round, no variant. Last, --starts (10) fresh servers are timed from spawn to their first 200
(the median, with min-max). The 30 s figure is also given less the 11 MiB the memory store holds, and
--also-data-dir runs the whole again with `--data-dir` (objects on disk) and adds its idle, after and 30 s
figures.
Server on CPU 0, wrk on CPU 1 (taskset), where the machine has two CPUs or more. --env and --serve-arg run the
same with another environment or more serve flags (what `docs/memory.md` compares). Prints markdown;
--output also writes it to a file.
"""
import argparse
import http.client
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import cpus, free_port, pinned  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MIB = 1024
# What `reads` uploads (64 KiB, 1 MiB and 10 MiB), in KiB.
STORED_KIB = 64 + 1024 + 10 * 1024
RANGE = (1024 * 1024, 1024 * 1024 + 64 * 1024 - 1)


def request(port, method, path, body=None, headers=None):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.request(method, path, body, headers or {})
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


class Rss(int):
    """VmRSS in KiB, with the part of it that is anonymous memory (heap, stacks, stored objects: what load can
    grow) and the part that is file-backed (the binary's and the shared libraries' pages: code, which a first
    resize adds once, when libvips and its libraries are loaded, and which load does not grow)."""

    def __new__(cls, pid):
        fields = {}
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                name, _, value = line.partition(":")
                if name in ("VmRSS", "RssAnon", "RssFile", "RssShmem"):
                    fields[name] = int(value.split()[0])
        if "VmRSS" not in fields:
            raise RuntimeError("no VmRSS")
        rss = super().__new__(cls, fields["VmRSS"])
        rss.anon, rss.file = fields.get("RssAnon", 0), fields.get("RssFile", 0) + fields.get("RssShmem", 0)
        return rss

    def parts(self):
        return f"anonymous {self.anon / MIB:.1f}, file-backed {self.file / MIB:.1f}"


class Server:
    """`mockcdn serve` on a free port, with the time from spawn to its first 200."""

    def __init__(self, binary, flags, env):
        self.binary = binary
        self.port = free_port()
        began = time.perf_counter()
        self.process = subprocess.Popen(
            pinned(0, [binary, "serve", "--port", str(self.port), "--log-level", "error", *flags]),
            stdout=subprocess.DEVNULL, cwd=REPO, env={**os.environ, **env},
        )
        deadline = began + 30
        while time.perf_counter() < deadline:
            try:
                if request(self.port, "GET", "/_mockcdn/health")[0] == 200:
                    break
            except OSError:
                time.sleep(0.002)
        else:
            self.stop()
            sys.exit("mockcdn did not start")
        self.start_ms = (time.perf_counter() - began) * 1000

    def cli(self, *arguments):
        return subprocess.run([self.binary, *arguments], capture_output=True, text=True, check=True).stdout.strip()

    def upload(self, data, name):
        """Stream's upload route, as bench.py uploads; the stored object's path."""
        token = self.cli("token", "user", "--user-id", "bench")
        boundary = uuid.uuid4().hex
        body = (f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{name}"\r\n'
                f"Content-Type: application/octet-stream\r\n\r\n").encode() + data + f"\r\n--{boundary}--\r\n".encode()
        status, payload = request(self.port, "POST", "/channels/messaging/bench/file?api_key=demo-key", body,
                                  {"Authorization": token, "stream-auth-type": "jwt",
                                   "Content-Type": f"multipart/form-data; boundary={boundary}"})
        if status != 201:
            sys.exit(f"upload failed: {status} {payload[:200]!r}")
        return json.loads(payload)["file"]

    def listed(self):
        """The channel's uploads, each with a link signed now."""
        token = self.cli("token", "user", "--user-id", "bench")
        status, payload = request(self.port, "GET", "/channels/messaging/bench/uploads?api_key=demo-key",
                                  headers={"Authorization": token, "stream-auth-type": "jwt"})
        return {item["name"]: item["file"] for item in json.loads(payload)["uploads"]}

    def rss(self):
        return Rss(self.process.pid)

    def worker_rss(self):
        """VmRSS in KiB of the server's `mockcdn-imaging` children (libvips runs there; 0 when none runs)."""
        total = 0
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    # pid (comm) state ppid ...: the comm may hold spaces, so split after its ')'.
                    name, rest = stat.read().split("(", 1)[1].rsplit(")", 1)
                if name == "mockcdn-imaging" and int(rest.split()[1]) == self.process.pid:
                    total += Rss(int(entry))
            except (OSError, RuntimeError, ValueError, IndexError):
                continue  # it ended while being read
        return total

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=20)


def wrk(url, seconds, connections, headers):
    # A long timeout: the machine may be shared, and a slow answer is not a wrong one.
    argv = ["wrk", "-t2", f"-c{connections}", f"-d{seconds}s", "--timeout", "10s"]
    for header in headers:
        argv += ["-H", header]
    output = subprocess.run(pinned(1, argv + [url]), capture_output=True, text=True, check=True).stdout
    if re.search(r"Non-2xx or 3xx responses: (\d+)", output) or re.search(r"Socket errors: (.*)", output):
        sys.exit(f"wrk saw errors from {url}:\n{output}")
    return float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1))


def checked(server, name, url, headers, expected, status=200):
    """Fetches `url` once; stops the run unless it answers `status` with exactly `expected`."""
    parts = urllib.parse.urlsplit(url)
    got, body = request(server.port, "GET", parts.path + ("?" + parts.query if parts.query else ""),
                        headers=dict(header.split(": ", 1) for header in headers))
    if got != status or (expected is not None and body != expected):
        sys.exit(f"{name}: {url} answered {got} with {len(body)} bytes, not {status} with the expected bytes")
    return body


def reads(server, everything):
    """bench.py's reads of one server, each checked once: (name, url, headers). The first is the FAT load's;
    without `everything`, it is the only one (64 KiB uploaded, no variant: libvips is not loaded)."""
    small = os.urandom(64 * 1024)
    custom_small = server.upload(small, "small.bin")
    fat = server.cli("token", "fat", "--user-id", "bench", "--ttl", "86400")
    fat_header = [f"fat: {fat}"]
    fat_read = ("64 KiB, FAT header", custom_small.split("?", 1)[0], fat_header)
    checked(server, *fat_read, small)
    if not everything:
        return [fat_read]
    large, huge = os.urandom(1024 * 1024), os.urandom(10 * 1024 * 1024)
    custom_large = server.upload(large, "large.bin")
    custom_huge = server.upload(huge, "huge.bin")
    plain_small, plain_huge = custom_small.split("?", 1)[0], custom_huge.split("?", 1)[0]
    range_header = f"Range: bytes={RANGE[0]}-{RANGE[1]}"
    variant_url = f"http://127.0.0.1:{server.port}/demo/fixtures/large-4000x4000.jpg?w=400&h=400"
    variant = checked(server, "variant", variant_url, fat_header, None)
    server.at_render = (server.rss(), server.worker_rss())
    if not variant.startswith(b"\xff\xd8"):
        sys.exit("the variant is no JPEG")
    cases = [
        ("64 KiB, FAT header", plain_small, fat_header, small, 200),
        ("64 KiB, FAT query", f"{plain_small}?fat={urllib.parse.quote(fat, safe='')}", [], small, 200),
        ("64 KiB, CloudFront canned link", server.cli("sign", "cloudfront", plain_small), [], small, 200),
        ("64 KiB, CloudFront custom policy (Stream's link)", custom_small, [], small, 200),
        ("64 KiB, SigV4 presigned", server.cli("sign", "presign", plain_small, "--ttl", "604800"), [], small, 200),
        ("64 KiB, 14-day link from the channel listing", server.listed()["small.bin"], [], small, 200),
        ("1 MiB, CloudFront custom policy", custom_large, [], large, 200),
        ("cached 400x400 variant, FAT header", variant_url, fat_header, variant, 200),
        ("206, 64 KiB of 10 MiB, FAT header", plain_huge, fat_header + [range_header],
         huge[RANGE[0]:RANGE[1] + 1], 206),
    ]
    for name, url, headers, expected, status in cases:
        checked(server, name, url, headers, expected, status)
    return [(name, url, headers) for name, url, headers, _, _ in cases]


def start_ms(args, env, flags):
    """Start to first 200, the median of --starts fresh servers (one start on a shared machine is noise)."""
    samples = []
    for _ in range(args.starts):
        server = Server(args.binary, flags, env)
        samples.append(server.start_ms)
        server.stop()
    return statistics.median(samples), min(samples), max(samples)


def run(args, env, flags):
    """One server's figures: start ms, idle, after-load and settle RSS (KiB), req/s."""
    server = Server(args.binary, flags, env)
    try:
        time.sleep(1)  # idle, on purpose: bench.py's idle RSS is read one second after the first 200
        idle = server.rss()
        cases = reads(server, args.reads == "all")
        if args.reads == "all":
            for _, url, headers in cases:
                wrk(url, args.seconds, args.connections, headers)
        before_load = server.rss()
        _, url, headers = cases[0]
        rate = wrk(url, args.load_seconds, args.connections, headers)
        ended = time.monotonic()
        after = server.rss()
        workers_after = server.worker_rss()
        settle = {}
        for second in range(1, args.settle_seconds + 1):
            time.sleep(max(0.0, ended + second - time.monotonic()))
            settle[second] = server.rss()
        return {"idle": idle, "before": before_load, "after": after, "settle": settle,
                "rate": rate, "render": getattr(server, "at_render", None), "workers_after": workers_after}
    finally:
        server.stop()


def mib(kib):
    return f"{kib / MIB:.1f} MiB"


def verdict(ok):
    return "met" if ok else "MISSED"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", default=os.path.join(REPO, ".build/release/mockcdn"))
    parser.add_argument("--reads", choices=["all", "fat"], default="all",
                        help="all: bench.py's round of reads before the FAT load; fat: only the FAT load")
    parser.add_argument("--seconds", type=int, default=5, help="wrk seconds of each read of the round")
    parser.add_argument("--load-seconds", type=int, default=60)
    parser.add_argument("--settle-seconds", type=int, default=30)
    parser.add_argument("--connections", type=int, default=64)
    parser.add_argument("--starts", type=int, default=10, help="fresh starts timed to the first 200 (median)")
    parser.add_argument("--env", action="append", default=[], metavar="NAME=VALUE",
                        help="an environment variable for the server (e.g. MALLOC_ARENA_MAX=2); repeatable")
    parser.add_argument("--serve-arg", action="append", default=[], metavar="ARG",
                        help="one more argument to `mockcdn serve` (e.g. --serve-arg=--journal-size=1); repeatable")
    parser.add_argument("--output", help="also write the markdown here (e.g. Benchmarks/results/memory.md)")
    parser.add_argument("--also-data-dir", action="store_true",
                        help="run the same again with --data-dir (objects on disk, not in RSS) and add its figures")
    args = parser.parse_args()
    if not shutil.which("wrk"):
        sys.exit("wrk is missing (apt-get install -y wrk)")
    env = dict(item.split("=", 1) for item in args.env)
    figures = run(args, env, args.serve_arg)
    start = start_ms(args, env, args.serve_arg)
    disk = None
    if args.also_data_dir:
        with tempfile.TemporaryDirectory(dir=os.path.join(REPO, ".build")) as folder:
            disk = run(args, env, [*args.serve_arg, "--data-dir", folder])

    idle, after, settle = figures["idle"], figures["after"], figures["settle"]
    last = settle[args.settle_seconds] if settle else after
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True,
                            text=True).stdout.strip()
    # The sources only, as bench.sh's header: a whole `make bench` is writing its results while this runs.
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no", "--", "Sources", "Package.swift"],
                           cwd=REPO, capture_output=True, text=True).stdout.strip()
    version = subprocess.run([args.binary, "--version"], capture_output=True, text=True).stdout.strip()
    load = os.getloadavg()
    lines = [
        f"# Memory under read load ({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
        f"{commit}{' + uncommitted changes' if dirty else ''})",
        "",
        f"Machine: {cpus()} CPUs ({platform.machine()}), shared with other builds (load average "
        f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f} when the run ended); server on CPU 0, wrk on CPU 1. "
        f"Binary: {args.binary} ({version or 'no version'}). Environment: "
        f"{' '.join(args.env) or 'as inherited'}; serve flags: {' '.join(args.serve_arg) or 'defaults'}.",
        (f"Reads: bench.py's nine, each checked once (status and exact bytes), then each loaded for "
         f"{args.seconds} s (wrk -t2 -c{args.connections}); the server then holds the 11 MiB uploaded and the "
         f"variant, rendered by libvips in a `mockcdn-imaging` child (whose RSS is reported on its own)"
         if args.reads == "all" else
         "Reads: only the 64 KiB FAT-header read, checked once (status and exact bytes); no variant, so "
         "libvips is never asked for")
        + f". Then the load: wrk -t2 -c{args.connections} -d{args.load_seconds}s, GET of the 64 KiB object "
        f"with a FAT header, {figures['rate']:,.0f} req/s.",
        "",
        "| measure | MockCDN | target |",
        "|---|---|---|",
        f"| start to first 200 ({args.starts} starts) | {start[0]:.1f} ms ({start[1]:.1f}-{start[2]:.1f}) | "
        f"<= 50 ms {verdict(start[0] <= 50)} |",
        f"| idle RSS, fixtures loaded (1 s after start) | {mib(idle)} ({idle.parts()}) | "
        f"<= 40 MiB {verdict(idle <= 40 * MIB)} |",
        ("| RSS after the uploads and the reads round" if args.reads == "all" else
         "| RSS after the upload and the checked read") + f" | {mib(figures['before'])} "
        f"({figures['before'].parts()}) | |",
        f"| RSS right after {args.load_seconds} s of load | {mib(after)} ({after / idle:.2f}x idle; "
        f"{after.parts()}) | <= 1.5x idle {verdict(after <= 1.5 * idle)} |",
    ]
    if figures["render"]:
        server_rss, worker_rss = figures["render"]
        worker = f"its image worker {mib(worker_rss)}" if worker_rss else "no image worker (libvips in process)"
        lines.insert(-2, f"| RSS right after the variant's render | server {mib(server_rss)}; {worker} | |")
    lines.append(f"| image workers right after the load | "
                 f"{mib(figures['workers_after']) if figures['workers_after'] else 'none running'} | |")
    for second in (5, 10):
        if second in settle and second < args.settle_seconds:
            lines.append(f"| RSS {second} s after the load | {mib(settle[second])} ({settle[second] / idle:.2f}x "
                         f"idle; {settle[second].parts()}) | |")
    lines.append(f"| RSS {args.settle_seconds} s after the load | {mib(last)} ({last / idle:.2f}x idle; "
                 f"{last.parts()}) | within 10% of idle {verdict(last <= 1.1 * idle)} |")
    if args.reads == "all":
        held = last - STORED_KIB
        lines.append(f"| the same, less the {mib(STORED_KIB)} of objects the memory store holds | {mib(held)} "
                     f"({held / idle:.2f}x idle) | |")
    if disk:
        disk_last = disk["settle"][args.settle_seconds] if disk["settle"] else disk["after"]
        lines.append(f"| with --data-dir (objects on disk): idle, right after the load, {args.settle_seconds} s after | "
                     f"{mib(disk['idle'])}, {mib(disk['after'])} ({disk['after'] / disk['idle']:.2f}x; "
                     f"{disk['after'].parts()}), "
                     f"{mib(disk_last)} ({disk_last / disk['idle']:.2f}x; {disk_last.parts()}) | |")
    text = "\n".join(lines)
    print(text)
    if args.output:
        with open(args.output, "w") as handle:
            handle.write(text + "\n")


if __name__ == "__main__":
    main()
