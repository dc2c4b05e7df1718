#!/usr/bin/env python3
"""S3 upload: `aws s3 cp` of one 100 MiB file of random bytes into MockCDN's S3 API (bucket = the demo app,
`--data-dir` on a temporary folder, so the bytes go to disk as in a deployment) and into moto_server (the S3
endpoint the S3-store tests use, a bucket created before timing), timed in the same rounds.

The CLI runs with its defaults (multipart above 8 MiB: 13 parts of up to 8 MiB, 10 at a time), only the
endpoint URL and the keys given, through the environment. The machine's AWS setup is kept out as the compat
tests' `no_aws_configuration` does: every `AWS_*` variable removed, the config and credentials files
/dev/null. A figure is the file's size over the CLI's whole run, process start-up included on both sides.

100 MiB is the size the other upload rows use and the demo app's default upload limit (S3 uploads included),
so no setting differs from a default server. Before timing and again after the last round, each target must
answer a GET of the object with 200, exactly the file's size and SHA-256, and a multipart ETag (`"...-13"`).
Each round times MockCDN and moto back to back, and each ratio is taken within its round; reported: medians
of the rounds with their min-max. Servers run on CPU 0 and the CLI on CPU 1 where the machine has two.
"""
import argparse
import hashlib
import http.client
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse

from bench import Measure, cpus, free_port, pinned, wait_200

MIB = 1024 * 1024
CLI_PART_SIZE = 8 * MIB  # the CLI's default multipart_threshold and multipart_chunksize


def without_aws_configuration():
    """Keeps the machine's AWS setup out of this process and of the CLI it starts, as the compat tests'
    `no_aws_configuration` fixture does: a region, profile or CA bundle there would change what is timed."""
    for name in [name for name in os.environ if name.startswith("AWS_")]:
        del os.environ[name]
    os.environ["AWS_CONFIG_FILE"] = "/dev/null"
    os.environ["AWS_SHARED_CREDENTIALS_FILE"] = "/dev/null"


class Target:
    """One S3 endpoint the file is copied to: its bucket, key and keys."""

    def __init__(self, name, endpoint, bucket, key, access_key, secret_key):
        self.name, self.endpoint, self.bucket, self.key = name, endpoint, bucket, key
        self.access_key, self.secret_key = access_key, secret_key

    def cli_environment(self):
        return {**os.environ, "AWS_ENDPOINT_URL": self.endpoint, "AWS_ACCESS_KEY_ID": self.access_key,
                "AWS_SECRET_ACCESS_KEY": self.secret_key}

    def client(self):
        """A boto3 client for the checks, signing for us-east-1 as the CLI does with no region set (the banner's
        `region=` is the app's Stream region, not an S3 one)."""
        import boto3
        from botocore.config import Config

        return boto3.client("s3", endpoint_url=self.endpoint, aws_access_key_id=self.access_key,
                            aws_secret_access_key=self.secret_key, region_name="us-east-1",
                            config=Config(signature_version="s3v4", s3={"addressing_style": "path"}))


def copy_mib_per_s(aws, path, target):
    """Runs `aws s3 cp PATH s3://BUCKET/KEY` against `target` and returns the file's MiB over its run time."""
    argv = pinned(1, [aws, "s3", "cp", path, f"s3://{target.bucket}/{target.key}"])
    began = time.perf_counter()
    run = subprocess.run(argv, env=target.cli_environment(), capture_output=True, text=True)
    seconds = time.perf_counter() - began
    if run.returncode != 0:
        sys.exit(f"aws s3 cp to {target.name} exited {run.returncode}: {run.stderr.strip()[-500:]}")
    return os.path.getsize(path) / MIB / seconds


def read_back(target, size, digest, parts):
    """The object's ETag, once a presigned GET answered 200 with exactly `size` bytes hashing to `digest` and
    a multipart ETag of `parts` parts; stops the run otherwise."""
    url = target.client().generate_presigned_url("get_object", Params={"Bucket": target.bucket,
                                                                       "Key": target.key}, ExpiresIn=3600)
    parts_of_url = urllib.parse.urlsplit(url)
    connection = http.client.HTTPConnection(parts_of_url.hostname, parts_of_url.port, timeout=60)
    try:
        connection.request("GET", f"{parts_of_url.path}?{parts_of_url.query}")
        response = connection.getresponse()
        hasher, length = hashlib.sha256(), 0
        while chunk := response.read(MIB):
            hasher.update(chunk)
            length += len(chunk)
        etag = response.getheader("ETag", "")
    finally:
        connection.close()
    if response.status != 200 or length != size or hasher.hexdigest() != digest:
        sys.exit(f"{target.name}: GET {target.bucket}/{target.key} answered {response.status} with {length} "
                 f"bytes (SHA-256 {hasher.hexdigest()[:16]}...), not 200 with the {size} uploaded "
                 f"({digest[:16]}...)")
    if not etag.strip('"').endswith(f"-{parts}"):
        sys.exit(f"{target.name}: ETag {etag}, not a multipart upload's of {parts} parts")
    return etag


def start_mockcdn(binary, data_dir):
    """`mockcdn serve` on a free port with `--data-dir`; returns the process, its URL and the demo app's
    `app_id`, `api_key` and `api_secret` (its bucket and S3 keys) from its second ready line."""
    process = subprocess.Popen(
        pinned(0, [binary, "serve", "--port", "0", "--data-dir", data_dir, "--fixtures", "none",
                   "--log-level", "error"]), stdout=subprocess.PIPE, text=True)
    ready, keys = process.stdout.readline().strip(), process.stdout.readline().strip()
    found = re.fullmatch(r"mockcdn ready on (http://\S+)", ready)
    app = dict(pair.split("=", 1) for pair in keys.split())
    if not found or not {"app_id", "api_key", "api_secret"} <= app.keys():
        process.kill()
        sys.exit(f"mockcdn did not start: {ready!r} {keys!r}")
    return process, found.group(1), app


def start_moto():
    """moto_server on a free loopback port, as the S3-store tests start it; returns the process and its URL."""
    port = free_port()
    process = subprocess.Popen(pinned(0, ["moto_server", "-H", "127.0.0.1", "-p", str(port)]),
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if not wait_200(port, "/moto-api/"):
        process.kill()
        sys.exit("moto_server did not start")
    return process, f"http://127.0.0.1:{port}"


def filesystem(path):
    """The type of the file system `path` is on (ext4, tmpfs, ...), as util-linux's findmnt names it."""
    found = subprocess.run(["findmnt", "-n", "-o", "FSTYPE", "--target", path], capture_output=True, text=True)
    return found.stdout.strip() or "an unknown file system"


def random_file(path, mib):
    """Writes `mib` MiB of random bytes to `path`; returns their SHA-256, in hex."""
    hasher = hashlib.sha256()
    with open(path, "wb") as handle:
        for _ in range(mib):
            chunk = os.urandom(MIB)
            hasher.update(chunk)
            handle.write(chunk)
    return hasher.hexdigest()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", default=os.path.join(os.path.dirname(__file__), "..", ".build/release/mockcdn"))
    parser.add_argument("--aws", default=shutil.which("aws"), help="the AWS CLI (default: the first `aws` on PATH)")
    parser.add_argument("--runs", type=int, default=5, help="rounds, each timing MockCDN then moto_server")
    parser.add_argument("--size-mib", type=int, default=100,
                        help="the file's size; at most 100, the demo app's upload limit, which S3 uploads keep")
    args = parser.parse_args()
    if not args.aws:
        sys.exit("no `aws` on PATH (make py-deps installs awscli into .venv)")
    without_aws_configuration()
    cli_version = subprocess.run([args.aws, "--version"], capture_output=True, text=True).stdout.strip()

    work = tempfile.mkdtemp(prefix="mockcdn-bench-s3-")
    servers = []
    try:
        path, size = os.path.join(work, "upload.bin"), args.size_mib * MIB
        digest, parts = random_file(path, args.size_mib), math.ceil(size / CLI_PART_SIZE)

        data_dir, disk = os.path.join(work, "data"), filesystem(work)
        mockcdn, mockcdn_url, app = start_mockcdn(args.binary, data_dir)
        servers.append(mockcdn)
        moto, moto_url = start_moto()
        servers.append(moto)
        targets = [
            Target("MockCDN", mockcdn_url, app["app_id"], "bench/s3-upload.bin", app["api_key"], app["api_secret"]),
            Target("moto_server", moto_url, "bench", "s3-upload.bin", "bench", "bench"),
        ]
        targets[1].client().create_bucket(Bucket="bench")
        # The first copy to each is the check (and a warm-up: the file is in the page cache for every timed run).
        for target in targets:
            copy_mib_per_s(args.aws, path, target)
            read_back(target, size, digest, parts)

        rates = {target.name: [] for target in targets}
        ratios = []
        for _ in range(args.runs):
            for target in targets:
                rates[target.name].append(copy_mib_per_s(args.aws, path, target))
            ratios.append(rates["MockCDN"][-1] / rates["moto_server"][-1])
        etags = [read_back(target, size, digest, parts) for target in targets]
    finally:
        for server in servers:
            server.terminate()
            server.wait(timeout=20)
        shutil.rmtree(work, ignore_errors=True)

    print(f"Machine: {cpus()} CPUs; servers on CPU 0, the CLI on CPU 1. {cli_version}, defaults only (endpoint "
          f"and keys from the environment, no config files). {args.runs} rounds, each copying the same "
          f"{args.size_mib} MiB file to MockCDN and then to moto_server; a ratio is the median of the rounds' "
          f"ratios (min-max). MockCDN: --data-dir on {disk} (each part, then the object "
          f"joined from them, written and fsynced before the answer); moto_server: parts in memory, spilled to "
          f"temporary files, no fsync.\n")
    print("| upload | MockCDN MiB/s | moto_server MiB/s | MockCDN / moto |")
    print("|---|---|---|---|")
    print(f"| {args.size_mib} MiB, `aws s3 cp` ({parts} parts of up to 8 MiB), CLI start-up included | "
          f"{Measure(rates['MockCDN'])} | {Measure(rates['moto_server'])} | {Measure(ratios).ratio()} |")
    print(f"\nBefore timing and after the last round, both answered a GET of the object with 200 and its "
          f"{size:,} bytes (SHA-256 {digest[:12]}...); ETags {etags[0]} and {etags[1]}.")


if __name__ == "__main__":
    main()
