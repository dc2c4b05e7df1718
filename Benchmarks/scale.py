#!/usr/bin/env python3
"""`make bench SECTIONS=scale`: how MockCDN's cost grows with the work, as tables and SVG charts
(Benchmarks/results/scale-*.svg):

- read throughput (64 KiB, FAT header) at 1, 16, 64 and 256 connections, next to nginx's secure_link
  serving the same file at the same connections;
- ListObjectsV2 page time (1,000 keys a page) at 1k, 10k and 100k keys, first page and a page half way in;
- request journal query time (a filtered `GET /_mockcdn/requests` that scans every entry) at 10k entries and
  at the journal's largest size;
- resize throughput (4000x4000 JPEG to 400x400, variant cache off) with 1, 2 and 4 concurrent distinct
  sources, next to libvips' own `vipsthumbnail` run with the same parallelism on the same files;
- the time to a video poster (a Stream upload of an MP4 answered with its poster made) next to the `ffmpeg`
  command that makes the same frame.

Every reference is checked for its status and bytes before it is timed; rounds alternate MockCDN and its
reference, and each figure is a median with its min-max.
"""
import argparse
import concurrent.futures
import http.client
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402
import charts  # noqa: E402

RESULTS = os.path.join(bench.REPO, "Benchmarks", "results")
ACCESS_KEY, SECRET_KEY = "demo-key", "demo-secret-for-local-testing-only"


def median_range(samples, unit="", digits=1):
    return (f"{statistics.median(samples):,.{digits}f}{unit} "
            f"({min(samples):,.{digits}f}-{max(samples):,.{digits}f})")


def alternating(runs, ours_once, reference_once):
    """`runs` rounds, each measuring MockCDN and then its reference: (MockCDN's samples, the reference's, and
    each round's ratio of the two)."""
    ours, references = [], []
    for _ in range(runs):
        ours.append(ours_once())
        references.append(reference_once())
    return ours, references, [mine / reference for mine, reference in zip(ours, references)]


def reads(binary, seconds, runs):
    """Read throughput against connections, MockCDN and nginx alternating within each round."""
    work = tempfile.mkdtemp(prefix="mockcdn-scale-")
    os.chmod(work, 0o755)
    os.makedirs(f"{work}/files")
    data = os.urandom(64 * 1024)
    with open(f"{work}/files/small.bin", "wb") as handle:
        handle.write(data)
    server, nginx = bench.MockCDN(binary), bench.Nginx(work)
    try:
        url = server.upload(data, "small.bin").split("?", 1)[0]
        fat = server.cli("token", "fat", "--user-id", "bench", "--ttl", "86400")
        bench.checked("MockCDN", url, data, [f"fat: {fat}"])
        nginx_url = bench.checked("nginx", nginx.link("small.bin"), data)
        rows, ours, theirs = [], [], []
        for connections in (1, 16, 64, 256):
            rates, references, ratios = alternating(
                runs,
                lambda: bench.wrk(url, seconds, [f"fat: {fat}"], connections=connections),
                lambda: bench.wrk(nginx_url, seconds, connections=connections),
            )
            ours.append(statistics.median(rates))
            theirs.append(statistics.median(references))
            rows.append(f"| {connections} | {median_range(rates, digits=0)} | {median_range(references, digits=0)} "
                        f"| {median_range(ratios, 'x', 2)} |")
    finally:
        server.stop()
        nginx.stop()
        shutil.rmtree(work, ignore_errors=True)
    charts.line_chart(f"{RESULTS}/scale-reads.svg", "64 KiB reads, FAT header", "connections", "requests/s",
                      [1, 16, 64, 256], {"MockCDN": ours, "nginx secure_link": theirs})
    return ["| connections | MockCDN req/s | nginx req/s | ratio |", "|---|---|---|---|", *rows,
            "", "![read throughput against connections](scale-reads.svg)"]


def signed_get(port, path, query):
    """A SigV4 header-signed GET as botocore signs it, to send again and again (valid for 15 minutes)."""
    from botocore.auth import SigV4Auth
    from botocore.awsrequest import AWSRequest
    from botocore.credentials import Credentials

    url = f"http://127.0.0.1:{port}{path}?{urllib.parse.urlencode(query)}"
    request = AWSRequest(method="GET", url=url, headers={"x-amz-content-sha256": "UNSIGNED-PAYLOAD"})
    SigV4Auth(Credentials(ACCESS_KEY, SECRET_KEY), "s3", "us-east-1").add_auth(request)
    return url, dict(request.headers.items())


def timed_gets(port, url, headers, count, check):
    """Milliseconds of each of `count` GETs on one keep-alive connection; `check` sees the first answer."""
    parts = urllib.parse.urlsplit(url)
    target = parts.path + "?" + parts.query
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    times = []
    try:
        for index in range(count):
            began = time.perf_counter()
            connection.request("GET", target, headers=headers)
            response = connection.getresponse()
            body = response.read()
            times.append((time.perf_counter() - began) * 1000)
            if index == 0:
                check(response.status, body)
    finally:
        connection.close()
    return times


def listings(binary, runs):
    """ListObjectsV2 page time against the number of keys, the keys loaded as fixtures."""
    rows, first_pages, middle_pages = [], [], []
    sizes = (1_000, 10_000, 100_000)
    for size in sizes:
        folder = tempfile.mkdtemp(prefix="mockcdn-keys-")
        for index in range(size):
            with open(f"{folder}/key-{index:06d}.txt", "wb") as handle:
                handle.write(b"x")
        began = time.perf_counter()
        server = bench.MockCDN(binary, "--fixtures", folder)
        loaded = time.perf_counter() - began
        try:
            samples = {}
            for name, start in (("first", None), ("middle", f"fixtures/key-{size // 2:06d}.txt")):
                query = {"list-type": "2", "prefix": "fixtures/", "max-keys": "1000"}
                if start:
                    query["start-after"] = start
                url, headers = signed_get(server.port, "/demo", query)

                def check(status, body, start=start):
                    first = size // 2 + 1 if start else 0
                    expected = f"<Key>fixtures/key-{first:06d}.txt</Key>"
                    if status != 200 or expected not in body.decode() or body.count(b"<Key>") != min(1000, size - first):
                        sys.exit(f"ListObjectsV2 of {size} keys answered {status}: {body[:300]!r}")

                samples[name] = []
                for _ in range(runs):
                    samples[name] += timed_gets(server.port, url, headers, 10, check)
            first_pages.append(statistics.median(samples["first"]))
            middle_pages.append(statistics.median(samples["middle"]))
            rows.append(f"| {size:,} | {median_range(samples['first'], ' ms', 2)} | "
                        f"{median_range(samples['middle'], ' ms', 2)} | {loaded:.1f} s |")
        finally:
            server.stop()
            shutil.rmtree(folder, ignore_errors=True)
    charts.line_chart(f"{RESULTS}/scale-list.svg", "ListObjectsV2, 1,000 keys a page", "keys in the bucket",
                      "ms a page", [f"{size:,}" for size in sizes],
                      {"first page": first_pages, "page half way": middle_pages})
    return ["| keys | first page | page half way (start-after) | server start with the keys as fixtures |",
            "|---|---|---|---|", *rows, "", "![ListObjectsV2 page time against keys](scale-list.svg)"]


def journal_sizes(binary):
    """The journal's largest size, from the server's own help text (`--journal-size`, 1-N)."""
    text = subprocess.run([binary, "serve", "--help"], capture_output=True, text=True).stdout
    match = re.search(r"--journal-size.*?1-([\d,]+)", text, re.S)
    largest = int(match.group(1).replace(",", "")) if match else 100_000
    return [size for size in (10_000, 100_000, 1_000_000) if size <= largest]


def journal(binary, seconds, runs):
    """A filtered journal query (it scans every entry, matching none) against the entries the journal holds,
    filled by wrk with cheap refused reads."""
    rows, medians = [], []
    sizes = journal_sizes(binary)
    for size in sizes:
        server = bench.MockCDN(binary, "--journal-size", str(size))
        try:
            url = f"{server.base}/demo/missing.bin"
            sent = 0  # every request wrk sends is journaled; the journal holds the last `size` of them
            while sent < size:
                output = subprocess.run(bench.pinned(1, ["wrk", "-t2", "-c64", f"-d{seconds}s", url]),
                                        capture_output=True, text=True, check=True).stdout
                sent += int(re.search(r"(\d+) requests in", output).group(1))
            query = f"{server.base}/_mockcdn/requests?method=DELETE"

            def check(status, body):
                if status != 200 or json.loads(body)["requests"] != []:
                    sys.exit(f"the journal query answered {status}: {body[:200]!r}")

            samples = []
            for _ in range(runs):
                samples += timed_gets(server.port, query, {}, 10, check)
            medians.append(statistics.median(samples))
            rows.append(f"| {size:,} | {median_range(samples, ' ms', 2)} |")
        finally:
            server.stop()
    charts.line_chart(f"{RESULTS}/scale-journal.svg", "Journal query (filter matching none)",
                      "entries held", "ms a query", [f"{size:,}" for size in sizes], {"MockCDN": medians})
    return ["| entries held | query time |", "|---|---|", *rows, "",
            "![journal query time against entries](scale-journal.svg)"]


def resizes(binary, per_worker, runs):
    """Resizes a second with 1, 2 and 4 concurrent distinct sources, MockCDN (cache off) and vipsthumbnail."""
    work = tempfile.mkdtemp(prefix="mockcdn-resize-")
    sources = []
    for index in range(4):
        source = f"{work}/source-{index}.jpg"
        subprocess.run(["vips", "gaussnoise", f"{work}/noise-{index}.v", "4000", "4000", "--mean", str(100 + index)],
                       check=True)
        subprocess.run(["vips", "copy", f"{work}/noise-{index}.v", f"{source}[Q=85]"], check=True)
        os.remove(f"{work}/noise-{index}.v")
        sources.append(source)
    # Renders run on a thread pool of their own; here both sides have every CPU.
    server = bench.MockCDN(binary, "--variant-cache-mb", "0", cpu=None)
    rows, ours, theirs = [], [], []
    try:
        fat = server.cli("token", "fat", "--user-id", "bench", "--ttl", "86400")
        urls = []
        for source in sources:
            with open(source, "rb") as handle:
                plain = server.upload(handle.read(), os.path.basename(source)).split("?", 1)[0]
            url = f"{plain}?w=400&h=400"
            status, body = bench.fetch(url, {"fat": fat})
            if status != 200 or not body.startswith(b"\xff\xd8"):
                sys.exit(f"the resize answered {status}")
            urls.append(url)
        check = subprocess.run(["vipsthumbnail", sources[0], "-s", "400x400", "-o", f"{work}/check.jpg"])
        if check.returncode != 0 or not open(f"{work}/check.jpg", "rb").read().startswith(b"\xff\xd8"):
            sys.exit("vipsthumbnail did not make a JPEG")

        def ours_once(parallel):
            def worker(url):
                for _ in range(per_worker):
                    status, _ = bench.fetch(url, {"fat": fat})
                    if status != 200:
                        sys.exit(f"resize answered {status}")

            began = time.perf_counter()
            with concurrent.futures.ThreadPoolExecutor(parallel) as pool:
                list(pool.map(worker, urls[:parallel]))
            return parallel * per_worker / (time.perf_counter() - began)

        def theirs_once(parallel):
            began = time.perf_counter()
            processes = [subprocess.Popen(["vipsthumbnail", *([source] * per_worker), "-s", "400x400", "-o",
                                           f"{work}/out-{index}-%s.jpg"])
                         for index, source in enumerate(sources[:parallel])]
            if any(process.wait() != 0 for process in processes):
                sys.exit("vipsthumbnail failed")
            return parallel * per_worker / (time.perf_counter() - began)

        for parallel in (1, 2, 4):
            rates, references, ratios = alternating(runs, lambda: ours_once(parallel), lambda: theirs_once(parallel))
            ours.append(statistics.median(rates))
            theirs.append(statistics.median(references))
            rows.append(f"| {parallel} | {median_range(rates)} | {median_range(references)} | "
                        f"{median_range(ratios, 'x', 2)} |")
    finally:
        server.stop()
        shutil.rmtree(work, ignore_errors=True)
    charts.line_chart(f"{RESULTS}/scale-resize.svg", "Resize 4000x4000 JPEG to 400x400", "concurrent sources",
                      "resizes/s", [1, 2, 4], {"MockCDN (cache off)": ours, "vipsthumbnail": theirs})
    return ["| concurrent sources | MockCDN resizes/s | vipsthumbnail resizes/s | ratio |", "|---|---|---|---|",
            *rows, "", f"Each source resized {per_worker} times a round, MockCDN over HTTP with keep-alive off; "
            "vipsthumbnail's process start is in its figure; both on every CPU.", "",
            "![resize throughput against concurrent sources](scale-resize.svg)"]


def posters(binary, runs):
    """Time to a poster: a Stream upload of an MP4 answered with its poster, and ffmpeg making the frame."""
    work = tempfile.mkdtemp(prefix="mockcdn-poster-")
    video = f"{work}/clip.mp4"
    subprocess.run(["ffmpeg", "-loglevel", "error", "-f", "lavfi", "-i", "testsrc=size=1280x720:rate=30",
                    "-t", "5", "-pix_fmt", "yuv420p", video], check=True)
    with open(video, "rb") as handle:
        data = handle.read()
    server = bench.MockCDN(binary)
    ours, theirs = [], []
    try:
        for _ in range(runs * 3):
            began = time.perf_counter()
            answer = server.upload_answer(data, "clip.mp4", "video/mp4")
            ours.append((time.perf_counter() - began) * 1000)
            if not answer.get("thumb_url"):
                sys.exit(f"the video upload answered no poster: {answer}")
            began = time.perf_counter()
            subprocess.run(["ffmpeg", "-loglevel", "error", "-y", "-skip_frame", "nokey", "-i", video,
                            "-frames:v", "1", "-vf", "scale=1024:1024:force_original_aspect_ratio=decrease",
                            f"{work}/poster.jpg"], check=True)
            theirs.append((time.perf_counter() - began) * 1000)
        ratios = [mine / reference for mine, reference in zip(ours, theirs)]
    finally:
        server.stop()
        shutil.rmtree(work, ignore_errors=True)
    return ["| | MockCDN: upload answered with its poster | ffmpeg: the same frame | ratio |", "|---|---|---|---|",
            f"| 5 s 1280x720 H.264 MP4 ({len(data) / 1024:,.0f} KiB) | {median_range(ours, ' ms')} | "
            f"{median_range(theirs, ' ms')} | {median_range(ratios, 'x', 2)} |"]


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--binary", default=os.path.join(bench.REPO, ".build/release/mockcdn"))
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seconds", type=int, default=5)
    parser.add_argument("--resizes", type=int, default=8, help="resizes of each source a round")
    parser.add_argument("--only", nargs="*", default=["reads", "list", "journal", "resize", "poster"])
    args = parser.parse_args()
    os.makedirs(RESULTS, exist_ok=True)
    print(f"Machine: {bench.cpus()} CPUs; servers on CPU 0, wrk on CPU 1. {args.runs} rounds, MockCDN and its "
          f"reference alternating; medians (min-max).")
    sections = [
        ("reads", "Read throughput against connections", lambda: reads(args.binary, args.seconds, args.runs)),
        ("list", "ListObjectsV2 page time against keys", lambda: listings(args.binary, args.runs)),
        ("journal", "Journal query time against entries", lambda: journal(args.binary, args.seconds, args.runs)),
        ("resize", "Resize throughput against concurrent sources",
         lambda: resizes(args.binary, args.resizes, args.runs)),
        ("poster", "Time to a video poster", lambda: posters(args.binary, args.runs)),
    ]
    for name, title, measure in sections:
        if name in args.only:
            lines = measure()
            print(f"\n### {title}\n")
            print("\n".join(lines), flush=True)


if __name__ == "__main__":
    main()
