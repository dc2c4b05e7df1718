#!/usr/bin/env python3
"""The S3 store at the store's pace: MockCDN on `--store s3://` (a bucket on a moto_server this script starts)
next to that moto_server itself, with the same client on both sides, in alternating rounds:

- reads: wrk -t2 -c64 GETs of one 64 KiB object through MockCDN with a FAT header, and wrk GETs of moto's own
  presigned URL for the very object MockCDN keeps (its blob in the bucket), the same bytes;
- uploads: 100 MiB of random bytes, curl's streamed multipart POST to the Stream upload route of MockCDN on
  the S3 store (which sends it on to the bucket as a multipart upload of 8 MiB parts), and `aws s3 cp` of the
  same file straight to moto_server (the CLI's defaults: 8 MiB parts, 10 at a time). Both figures are the
  file's size over the client's whole run, process start-up included.

Before timing, each reference must answer as expected: MockCDN's read and moto's presigned read 200 with exactly
the object's bytes; the upload to MockCDN 201 and a GET of its link the file's size and SHA-256; the object
`aws s3 cp` wrote, a presigned GET with the file's size and SHA-256. Each ratio is taken within its round;
reported: medians of the rounds with their min-max.

Placement, where the machine has two CPUs: moto_server (the store, a single Python process and the reads'
bottleneck) alone on CPU 0 in every read run, so that both sides of the ratio get the same store; MockCDN and
the clients on CPU 1, as a CDN and its store are on different machines in use. MockCDN's own cost is not
hidden: its CPU time per read is reported, and each round also times the reads with MockCDN moved onto the
store's CPU 0 (the placement of the earlier runs), where every millisecond MockCDN spends is one the store
loses. The uploads run with MockCDN on CPU 0 as before. moto_server's access log counts the store requests
each MockCDN read cost, and moto_server's CPU time per read gives the store's work ratio (its CPU per presigned
GET over its CPU per MockCDN read): what the read ratio comes to when the store is the bottleneck on a CPU of
its own, and a figure that other load on the machine moves far less than the request rates.

Writes markdown to stdout and, with --output, to that file.
"""
import argparse
import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time

from bench import REPO, Measure, MockCDN, checked, cpus, fetch, free_port, pinned, wait_200, wrk
from s3_upload import Target, copy_mib_per_s, random_file, read_back, without_aws_configuration

MIB = 1024 * 1024
BUCKET = "bench-store"


def store_environment(moto_url):
    return {"AWS_ENDPOINT_URL_S3": moto_url, "AWS_ACCESS_KEY_ID": "bench", "AWS_SECRET_ACCESS_KEY": "bench",
            "AWS_REGION": "us-east-1"}


def stream_upload_mib_per_s(server, path, size, digest, checked_read=False):
    """curl's streamed multipart POST of `path` to the Stream file route (`Expect:` cleared, as
    upload_memory.py does); returns the file's MiB over curl's run. With `checked_read`, the link it answered must
    then serve exactly the file."""
    token = server.cli("token", "user", "--user-id", "bench")
    argv = pinned(1, ["curl", "-sS", "-o", "-", "-w", "\n%{http_code}", "-H", "Expect:",
                      "-H", f"Authorization: {token}", "-H", "stream-auth-type: jwt",
                      "-F", f"file=@{path};type=application/octet-stream",
                      f"{server.base}/channels/messaging/bench/file?api_key=demo-key"])
    began = time.perf_counter()
    run = subprocess.run(argv, capture_output=True, text=True)
    seconds = time.perf_counter() - began
    body, _, code = run.stdout.rpartition("\n")
    if run.returncode != 0 or code != "201":
        sys.exit(f"upload to MockCDN on the S3 store: curl exited {run.returncode}, status {code}: "
                 f"{body[:300]} {run.stderr[-300:]}")
    if checked_read:
        link = json.loads(body)["file"]
        status, got = fetch(link)
        if status != 200 or len(got) != size or hashlib.sha256(got).hexdigest() != digest:
            sys.exit(f"MockCDN on the S3 store: the uploaded object read back {status} with {len(got)} bytes, "
                     f"not 200 with the {size} uploaded")
    return size / MIB / seconds


def blob_of(moto_url, prefix):
    """The key of the one blob MockCDN keeps under `prefix` in the bucket."""
    import boto3

    s3 = boto3.client("s3", endpoint_url=moto_url, aws_access_key_id="bench", aws_secret_access_key="bench",
                      region_name="us-east-1")
    keys = [item["Key"] for item in s3.list_objects_v2(Bucket=BUCKET, Prefix=prefix).get("Contents", [])]
    if len(keys) != 1:
        sys.exit(f"expected one blob under {prefix}, found {keys}")
    return keys[0]


def start_store(log):
    """moto_server on CPU 0 on a free loopback port, its access log (werkzeug's, one line a request) to `log`;
    returns the process and its URL."""
    port = free_port()
    process = subprocess.Popen(pinned(0, ["moto_server", "-H", "127.0.0.1", "-p", str(port)]),
                               stdout=subprocess.DEVNULL, stderr=log)
    if not wait_200(port, "/moto-api/"):
        process.kill()
        sys.exit("moto_server did not start")
    return process, f"http://127.0.0.1:{port}"


def store_requests(log_path):
    """The GETs moto_server logged so far: (record GETs, blob GETs) under MockCDN's prefix."""
    with open(log_path, errors="replace") as handle:
        text = handle.read()
    return text.count(f'"GET /{BUCKET}/mockcdn/meta/'), text.count(f'"GET /{BUCKET}/mockcdn/blobs/')


def cpu_seconds(pid):
    """User plus system CPU time of process `pid` so far, threads included."""
    with open(f"/proc/{pid}/stat") as handle:
        fields = handle.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def move(process, cpu):
    """Every thread of `process` onto CPU `cpu` (threads it starts later inherit it)."""
    if cpus() >= 2 and shutil.which("taskset"):
        subprocess.run(["taskset", "-a", "-p", "-c", str(cpu), str(process.pid)], capture_output=True, check=True)


class Costs:
    """wrk's rate over one run, and what each server spent on it."""

    def __init__(self, url, seconds, headers, mockcdn, store, log_path):
        before = cpu_seconds(mockcdn.process.pid), cpu_seconds(store.pid), store_requests(log_path)
        self.rate = wrk(url, seconds, headers)
        after = cpu_seconds(mockcdn.process.pid), cpu_seconds(store.pid), store_requests(log_path)
        self.requests = self.rate * seconds
        self.mockcdn_ms = (after[0] - before[0]) * 1000 / self.requests
        self.store_ms = (after[1] - before[1]) * 1000 / self.requests
        self.records = after[2][0] - before[2][0]
        self.blobs = after[2][1] - before[2][1]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", default=os.path.join(REPO, ".build/release/mockcdn"))
    parser.add_argument("--aws", default=shutil.which("aws"), help="the AWS CLI (default: the first `aws` on PATH)")
    parser.add_argument("--runs", type=int, default=3, help="rounds, each timing MockCDN then moto_server")
    parser.add_argument("--seconds", type=int, default=5, help="each wrk run's length")
    parser.add_argument("--size-mib", type=int, default=100, help="the upload's size; at most 100 (the demo "
                        "app's upload limit)")
    parser.add_argument("--output", help="also write the markdown here")
    args = parser.parse_args()
    if not args.aws:
        sys.exit("no `aws` on PATH (make py-deps installs awscli into .venv)")
    if not shutil.which("wrk"):
        sys.exit("no `wrk` on PATH (apt-get install wrk)")
    without_aws_configuration()
    cli_version = subprocess.run([args.aws, "--version"], capture_output=True, text=True).stdout.strip()
    version = subprocess.run([args.binary, "--version"], capture_output=True, text=True).stdout.strip()
    commit = subprocess.run(["git", "-C", REPO, "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", REPO, "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True).stdout.strip()

    work = tempfile.mkdtemp(prefix="mockcdn-bench-s3-store-")
    store_log_path = os.path.join(work, "moto.log")
    store_log = open(store_log_path, "w")
    servers = []
    try:
        moto, moto_url = start_store(store_log)
        servers.append(moto)
        moto_target = Target("moto_server", moto_url, BUCKET, "cp/s3-upload.bin", "bench", "bench")
        moto_target.client().create_bucket(Bucket=BUCKET)
        mockcdn = MockCDN(args.binary, "--store", f"s3://{BUCKET}/mockcdn", "--fixtures", "none",
                          env=store_environment(moto_url), cpu=1)
        servers.append(mockcdn)

        # Reads: one 64 KiB object, through MockCDN with a FAT header, and its blob by moto's presigned GET.
        small = os.urandom(64 * 1024)
        plain = mockcdn.upload(small, "small.bin").split("?", 1)[0]
        fat = mockcdn.cli("token", "fat", "--user-id", "bench", "--ttl", "86400")
        fat_header = [f"fat: {fat}"]
        checked("MockCDN on the S3 store, FAT header", plain, small, fat_header)
        object_path = plain.split("/", 3)[3]  # demo/attachments/UUID/small.bin
        blob = blob_of(moto_url, f"mockcdn/blobs/{object_path}/")
        moto_read = moto_target.client().generate_presigned_url(
            "get_object", Params={"Bucket": BUCKET, "Key": blob}, ExpiresIn=86400)
        checked("moto_server's presigned GET of the same blob", moto_read, small)

        # Uploads: the same file both ways, each checked once before timing (and warming the page cache).
        path, size = os.path.join(work, "upload.bin"), args.size_mib * MIB
        digest = random_file(path, args.size_mib)
        stream_upload_mib_per_s(mockcdn, path, size, digest, checked_read=True)
        copy_mib_per_s(args.aws, path, moto_target)
        read_back(moto_target, size, digest, -(-size // (8 * MIB)))

        reads = {"own": [], "shared": [], "moto_server": []}
        costs = {"own": [], "shared": [], "moto_server": []}
        uploads = {"MockCDN": [], "moto_server": []}
        read_ratios, work_ratios = {"own": [], "shared": []}, {"own": [], "shared": []}
        upload_ratios = []
        for _ in range(args.runs):
            move(mockcdn.process, 1)
            for name, url, headers in (("own", plain, fat_header), ("moto_server", moto_read, []),
                                       ("shared", plain, fat_header)):
                if name == "shared":
                    move(mockcdn.process, 0)
                costs[name].append(Costs(url, args.seconds, headers, mockcdn, moto, store_log_path))
                reads[name].append(costs[name][-1].rate)
            for name in ("own", "shared"):
                read_ratios[name].append(reads[name][-1] / reads["moto_server"][-1])
                work_ratios[name].append(costs["moto_server"][-1].store_ms / costs[name][-1].store_ms)
            uploads["MockCDN"].append(stream_upload_mib_per_s(mockcdn, path, size, digest))
            uploads["moto_server"].append(copy_mib_per_s(args.aws, path, moto_target))
            upload_ratios.append(uploads["MockCDN"][-1] / uploads["moto_server"][-1])
        # Still right after the rounds.
        checked("MockCDN on the S3 store, FAT header", plain, small, fat_header)
        checked("moto_server's presigned GET of the same blob", moto_read, small)
    finally:
        for server in reversed(servers):
            if isinstance(server, MockCDN):
                server.stop()
            else:
                server.terminate()
                server.wait(timeout=20)
        store_log.close()
        shutil.rmtree(work, ignore_errors=True)

    def rate(values, unit):
        measure = Measure(values)
        if unit == "req/s":
            return f"{measure} req/s"
        return f"{measure.median:.1f} ({measure.low:.1f}-{measure.high:.1f}) MiB/s"

    def per_read(runs, field):
        measure = Measure([getattr(run, field) for run in runs])
        return f"{measure.median:.2f} ({measure.low:.2f}-{measure.high:.2f})"

    def record_gets(runs):
        reads = sum(run.requests for run in runs)
        records, blobs = sum(run.records for run in runs), sum(run.blobs for run in runs)
        return f"{records / reads:.3f} ({records:,} record GETs, {blobs:,} blob GETs, {reads:,.0f} reads)"

    def verdict(ratios):
        """Issue 34's target for the S3 store's reads and uploads."""
        return f"; target >= 0.8x {'met' if Measure(ratios).median >= 0.8 else 'MISSED'}"

    load = os.getloadavg()
    own, shared, direct = costs["own"], costs["shared"], costs["moto_server"]
    lines = [
        "# The S3 store at the store's pace",
        "",
        f"`python3 Benchmarks/s3_store.py` at `{commit}`{' (with uncommitted changes)' if dirty else ''}, "
        f"{version or 'mockcdn'} (`{os.path.relpath(args.binary, REPO)}`); {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}.",
        f"Machine: {cpus()} CPUs ({platform.machine()}), shared with other builds while this ran (load average "
        f"{load[0]:.1f} {load[1]:.1f} {load[2]:.1f} at the end), so absolute figures are noisy; the ratios are "
        f"taken within each round. moto_server (MockCDN's store) alone on CPU 0 and the clients on CPU 1; MockCDN "
        f"on CPU 1 (\"own CPU\") or moved onto CPU 0 (\"store's CPU\"); uploads with MockCDN on CPU 0. "
        f"{args.runs} rounds; medians (min-max).",
        "",
        "| case | MockCDN on the S3 store | reference (moto_server alone, same client) | MockCDN / reference |",
        "|---|---|---|---|",
        f"| 64 KiB GET, wrk -t2 -c64 {args.seconds} s, FAT header / moto's presigned GET of the same blob; the "
        f"store on its own CPU | {rate(reads['own'], 'req/s')} | {rate(reads['moto_server'], 'req/s')} | "
        f"{Measure(read_ratios['own']).ratio()}{verdict(read_ratios['own'])} |",
        f"| the same, MockCDN on the store's CPU | {rate(reads['shared'], 'req/s')} | (the same runs) | "
        f"{Measure(read_ratios['shared']).ratio()} |",
        f"| {args.size_mib} MiB upload: curl multipart to the Stream route / `aws s3 cp` straight to moto | "
        f"{rate(uploads['MockCDN'], 'MiB/s')} | {rate(uploads['moto_server'], 'MiB/s')} | "
        f"{Measure(upload_ratios).ratio()}{verdict(upload_ratios)} |",
        "",
        "Per read, over the same runs (CPU time from /proc, store requests from moto_server's access log; a "
        "run's blob GETs include those of the reads still in flight when wrk stopped):",
        "",
        "| | own CPU | store's CPU | moto_server alone |",
        "|---|---|---|---|",
        f"| MockCDN's CPU per read, ms | {per_read(own, 'mockcdn_ms')} | {per_read(shared, 'mockcdn_ms')} | - |",
        f"| moto_server's CPU per read, ms | {per_read(own, 'store_ms')} | {per_read(shared, 'store_ms')} | "
        f"{per_read(direct, 'store_ms')} |",
        f"| record GETs per read, besides the blob's GET | {record_gets(own)} | {record_gets(shared)} | 0 |",
        f"| the store's work ratio: moto's CPU per presigned GET / per MockCDN read, same round | "
        f"{Measure(work_ratios['own']).ratio()} | {Measure(work_ratios['shared']).ratio()} | 1 |",
        "",
        f"Checked before timing and after the last round: both reads answer 200 with the object's "
        f"{len(small):,} bytes; the upload to MockCDN answered 201 and its link served the file's {size:,} "
        f"bytes (SHA-256 {digest[:12]}...), as did a presigned GET of what `aws s3 cp` wrote. {cli_version}, "
        f"defaults only.",
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.output:
        with open(args.output, "w") as handle:
            handle.write(text)


if __name__ == "__main__":
    main()
