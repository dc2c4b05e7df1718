#!/usr/bin/env python3
"""`make bench SECTIONS=small-objects`: small-object PUT and GET throughput through boto3, in objects per
second at concurrency 1 and 25 for 1 KB and 100 KB objects (the figures LocalStack published for its own S3),
MockCDN's S3 API next to moto_server measured the same way in the same rounds.

Each worker thread has its own boto3 client with its defaults (SigV4 header auth, checksums as boto3 sends
them) and PUTs its share of the objects, then GETs each back and compares the bytes; a reference that answers
fast with the wrong bytes stops the run. Servers run on CPU 0, the client on CPU 1.
"""
import argparse
import concurrent.futures
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402


def client(endpoint, key, secret):
    import boto3

    return boto3.session.Session().client("s3", endpoint_url=endpoint, aws_access_key_id=key,
                                          aws_secret_access_key=secret, region_name="us-east-1")


def round_of(endpoint, key, secret, bucket, size, concurrency, objects, tag):
    """(PUT objects/s, GET objects/s) of `objects` objects of `size` bytes by `concurrency` threads."""
    body = os.urandom(size)
    share = max(1, objects // concurrency)
    clients = [client(endpoint, key, secret) for _ in range(concurrency)]

    def put(index):
        s3 = clients[index]
        for number in range(share):
            s3.put_object(Bucket=bucket, Key=f"small/{tag}-{index}-{number}.bin", Body=body)

    def get(index):
        s3 = clients[index]
        for number in range(share):
            got = s3.get_object(Bucket=bucket, Key=f"small/{tag}-{index}-{number}.bin")["Body"].read()
            if got != body:
                sys.exit(f"{endpoint} answered {len(got)} wrong bytes for small/{tag}-{index}-{number}.bin")

    rates = []
    for work in (put, get):
        began = time.perf_counter()
        with concurrent.futures.ThreadPoolExecutor(concurrency) as pool:
            list(pool.map(work, range(concurrency)))
        rates.append(concurrency * share / (time.perf_counter() - began))
    return rates


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--binary", default=os.path.join(bench.REPO, ".build/release/mockcdn"))
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--objects", type=int, default=500, help="objects a round at each size and concurrency")
    args = parser.parse_args()
    cpus = bench.cpus()
    server = bench.MockCDN(args.binary, "--fixtures", "none")
    moto_port = bench.free_port()
    moto = subprocess.Popen(bench.pinned(0, ["moto_server", "-p", str(moto_port)]), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    if cpus >= 2:  # after the servers started on CPU 0: the client keeps to the other
        os.sched_setaffinity(0, {1})
    targets = {"MockCDN": (server.base, "demo-key", "demo-secret-for-local-testing-only", "demo"),
               "moto_server": (f"http://127.0.0.1:{moto_port}", "test", "test", "bench")}
    rows = []
    try:
        if not bench.wait_200(moto_port, "/moto-api/"):
            sys.exit("moto_server did not start")
        client(*targets["moto_server"][:3]).create_bucket(Bucket="bench")
        for name, (endpoint, key, secret, bucket) in targets.items():  # each answers right before any timing
            round_of(endpoint, key, secret, bucket, 1000, 1, 1, "check")
        for size, label in ((1000, "1 KB"), (100_000, "100 KB")):
            for concurrency in (1, 25):
                samples = {name: ([], []) for name in targets}
                for number in range(args.runs):
                    for name, (endpoint, key, secret, bucket) in targets.items():
                        put, get = round_of(endpoint, key, secret, bucket, size, concurrency, args.objects,
                                            f"{label[:-3]}-{concurrency}-{number}")
                        samples[name][0].append(put)
                        samples[name][1].append(get)
                for operation, column in (("PUT", 0), ("GET", 1)):
                    ours, theirs = samples["MockCDN"][column], samples["moto_server"][column]
                    ratios = [mine / reference for mine, reference in zip(ours, theirs)]
                    rows.append(f"| {operation} {label} | {concurrency} | {bench.Measure(ours)} | "
                                f"{bench.Measure(theirs)} | {bench.Measure(ratios).ratio()} |")
                    print(rows[-1], file=sys.stderr, flush=True)
    finally:
        server.stop()
        moto.terminate()
        moto.wait(timeout=20)
    print(f"Machine: {cpus} CPUs; servers on CPU 0, boto3 on CPU 1. {args.runs} rounds of {args.objects} "
          f"objects for each size and concurrency, MockCDN and moto_server alternating; objects/s, medians "
          f"(min-max).\n")
    print("| operation | concurrency | MockCDN objects/s | moto_server objects/s | ratio |")
    print("|---|---|---|---|---|")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
