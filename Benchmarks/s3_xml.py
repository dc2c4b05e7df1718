#!/usr/bin/env python3
"""`make bench SECTIONS=s3-xml`: the cost of S3's XML request bodies, next to moto_server (the S3 reference of
the other sections) in the same rounds, and, with `--before BINARY`, an earlier MockCDN build.

- DeleteObjects of 1,000 existing keys (each round puts them first, untimed).
- CompleteMultipartUpload naming 10,000 parts. S3 requires every part but the last to be at least 5 MiB, so a
  completion that joined 10,000 parts would move 50 GB; the parts here are 1 byte each, and what is timed is
  the whole refusal: the ~600 KB document read, every part looked up by number and ETag, the order checked,
  then 400 `EntityTooSmall` for part 1. The upload stays open (a refused completion changes nothing), so each
  round sends the same document. moto_server parses the whole document too but stops at part 2.
- Two 8 MiB DeleteObjects bodies sent at once, the documented limit: one refused (`<Object><Key>k</Key>
  </Object>` repeated, 290,000 keys: `MalformedXML`) and one answered (1,000 keys of 1,024 `&`s, each written
  `&amp;`, padded with whitespace to 8 MiB: 200 with 1,000 deleted), while another process asks
  `GET /_mockcdn/health` every 5 ms; its latency then is set next to its latency idle. moto_server answers the
  second body in the same rounds.

Every request is signed with botocore's `S3SigV4Auth` (and carries its `Content-MD5`) before its timer starts;
each answer is checked (status, code, count deleted) before its time counts, and a reference that answers
wrong stops the run. Times are from the request's first byte sent to the answer's last read, on a kept-alive
connection. Servers run on CPU 0, the client on CPU 1.
"""
import argparse
import base64
import concurrent.futures
import hashlib
import http.client
import multiprocessing
import os
import statistics
import subprocess
import sys
import time
import urllib.parse
import xml.etree.ElementTree as ET

import boto3
from botocore.auth import S3SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.config import Config
from botocore.credentials import Credentials

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402

S3 = "http://s3.amazonaws.com/doc/2006-03-01/"
EIGHT_MIB = 8 << 20


class Target:
    """A server with an S3 API: its endpoint, keys and bucket, and one kept-alive connection."""

    def __init__(self, name, endpoint, key, secret, bucket, timeout):
        self.name, self.endpoint, self.bucket, self.timeout = name, endpoint, bucket, timeout
        self.credentials = Credentials(key, secret)
        self.client = boto3.client("s3", endpoint_url=endpoint, aws_access_key_id=key, aws_secret_access_key=secret,
                                   region_name="us-east-1",
                                   config=Config(s3={"addressing_style": "path"}, max_pool_connections=32))
        self.connection = None
        self.gave_up = False

    def signed(self, method, path, body):
        """The headers of a request signed now, with the body's Content-MD5."""
        url = self.endpoint + path
        headers = {"Content-Type": "application/xml",
                   "Content-MD5": base64.b64encode(hashlib.md5(body).digest()).decode()}
        raw = AWSRequest(method=method, url=url, data=body, headers=headers)
        S3SigV4Auth(self.credentials, "s3", "us-east-1").add_auth(raw)
        return dict(raw.headers.items())

    def send(self, method, path, body, connection=None):
        """(status, answer, seconds): the signature made first, untimed; (None, b"", inf) when no answer came
        within the timeout (an earlier build's scanner), after which the target is given up on."""
        if self.gave_up:
            return None, b"", float("inf")
        headers = self.signed(method, path, body)
        own = connection is None
        if own:
            connection = self.connection or self.connect()
        began = time.perf_counter()
        try:
            connection.request(method, path, body, headers)
            response = connection.getresponse()
            answer = response.read()
        except TimeoutError:
            self.gave_up = True
            return None, b"", float("inf")
        except (OSError, http.client.HTTPException):
            if own:
                self.connection = None
            raise
        return response.status, answer, time.perf_counter() - began

    def connect(self):
        parts = urllib.parse.urlsplit(self.endpoint)
        self.connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=self.timeout)
        return self.connection

    def put_many(self, keys):
        with concurrent.futures.ThreadPoolExecutor(16) as pool:
            list(pool.map(lambda key: self.client.put_object(Bucket=self.bucket, Key=key, Body=b"x"), keys))


def code(answer):
    try:
        return ET.fromstring(answer).findtext("Code")
    except ET.ParseError:
        return None


def deleted(answer):
    return len(ET.fromstring(answer).findall(f"{{{S3}}}Deleted"))


def delete_document(keys, pad_to=None):
    body = "".join(f"<Object><Key>{key}</Key></Object>" for key in keys)
    document = f'<Delete xmlns="{S3}">{body}</Delete>'.encode()
    if pad_to:
        document = document.replace(b"</Delete>", b" " * (pad_to - len(document)) + b"</Delete>")
    return document


def thousand_deletes(targets, rounds):
    """DeleteObjects of 1,000 existing keys: seconds per target, each answer checked."""
    samples = {target.name: [] for target in targets}
    for number in range(rounds + 1):  # round 0 checks every target's answer and state, untimed
        for target in targets:
            keys = [f"bench-xml/delete-{number}/{index:04d}.bin" for index in range(1000)]
            target.put_many(keys)
            status, answer, seconds = target.send("POST", f"/{target.bucket}?delete=", delete_document(keys))
            if status is None:
                samples[target.name] += [seconds] * (number > 0)
                continue
            if status != 200 or deleted(answer) != 1000:
                sys.exit(f"{target.name}: DeleteObjects of 1,000 keys answered {status} {answer[:300]!r}")
            if number == 0:
                left = target.client.list_objects_v2(Bucket=target.bucket, Prefix="bench-xml/delete-0/")
                if left.get("KeyCount", 0) != 0:
                    sys.exit(f"{target.name}: {left['KeyCount']} objects left after DeleteObjects")
            else:
                samples[target.name].append(seconds)
    return samples


def ten_thousand_parts(targets, rounds):
    """CompleteMultipartUpload naming 10,000 parts of 1 byte: seconds per target to its EntityTooSmall."""
    documents = {}
    for target in targets:
        key = "bench-xml/parts.bin"
        upload = target.client.create_multipart_upload(Bucket=target.bucket, Key=key)["UploadId"]

        def part(number):
            answer = target.client.upload_part(Bucket=target.bucket, Key=key, UploadId=upload, PartNumber=number,
                                               Body=b"p")
            # boto3 asks for a CRC32 of each part by default, and an upload made with a checksum is completed
            # with each part's, as S3 requires.
            crc = answer.get("ChecksumCRC32")
            return answer["ETag"], crc

        with concurrent.futures.ThreadPoolExecutor(16) as pool:
            answers = list(pool.map(part, range(1, 10_001)))
        body = "".join(f"<Part><ETag>{etag}</ETag>" + (f"<ChecksumCRC32>{crc}</ChecksumCRC32>" if crc else "")
                       + f"<PartNumber>{number}</PartNumber></Part>"
                       for number, (etag, crc) in enumerate(answers, 1))
        path = f"/{target.bucket}/{key}?uploadId={urllib.parse.quote(upload, safe='')}"
        documents[target.name] = (path, f'<CompleteMultipartUpload xmlns="{S3}">{body}</CompleteMultipartUpload>'
                                  .encode())
    samples = {target.name: [] for target in targets}
    # A fresh connection each: putting 10,000 parts takes longer than MockCDN's idle timeout, which has closed
    # the one kept from before.
    for target in targets:
        target.connect()
    for number in range(rounds + 1):
        for target in targets:
            path, document = documents[target.name]
            try:
                status, answer, seconds = target.send("POST", path, document)
            except (BrokenPipeError, ConnectionResetError) as error:
                sys.exit(f"{target.name}: the connection closed while the 10,000-part completion was sent ({error})")
            if status is not None and (status, code(answer)) != (400, "EntityTooSmall"):
                sys.exit(f"{target.name}: the 10,000-part completion answered {status} {answer[:300]!r}")
            if number:
                samples[target.name].append(seconds)
    return samples, len(next(iter(documents.values()))[1])


def poll_health(port, stop, results):
    """GET /_mockcdn/health every 5 ms on one connection until `stop`; each latency in ms into `results` (an
    answer other than 200, or none within 60 s, counts as infinite)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    latencies = []
    while not stop.is_set():
        began = time.perf_counter()
        try:
            connection.request("GET", "/_mockcdn/health")
            response = connection.getresponse()
            response.read()
            ok = response.status == 200
        except (OSError, http.client.HTTPException):
            connection.close()
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            ok = False
        latencies.append((time.perf_counter() - began) * 1000 if ok else float("inf"))
        time.sleep(0.005)
    results.put(latencies)


def health_while(port, work):
    """(what `work()` returns, health latencies in ms meanwhile)."""
    stop, results = multiprocessing.Event(), multiprocessing.Queue()
    poller = multiprocessing.Process(target=poll_health, args=(port, stop, results))
    poller.start()
    time.sleep(0.2)  # a few answers before the work starts
    try:
        outcome = work()
    finally:
        stop.set()
    latencies = results.get(timeout=120)
    poller.join(timeout=30)
    return outcome, latencies


def eight_mib_bodies():
    unit = b"<Object><Key>k</Key></Object>"
    refused = b'<Delete xmlns="' + S3.encode() + b'">' + unit * ((EIGHT_MIB - 100) // len(unit)) + b"</Delete>"
    # Each key 1,024 bytes once read (S3's longest): 19 bytes of name, then 1,005 `&`s written `&amp;`.
    keys = [f"bench-xml/big/{index:04d}-" + "&amp;" * 1005 for index in range(1000)]
    answered = delete_document(keys, pad_to=EIGHT_MIB - 16)
    return refused, answered


def eight_mib(target, port, bodies, rounds):
    """Both 8 MiB bodies at once, `rounds` times: (refused seconds, answered seconds, health latencies)."""
    refused_body, answered_body = bodies
    refused_seconds, answered_seconds, latencies = [], [], []
    parts = urllib.parse.urlsplit(target.endpoint)

    def one(body, expected):
        connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=target.timeout)
        try:
            status, answer, seconds = target.send("POST", f"/{target.bucket}?delete=", body, connection)
        finally:
            connection.close()
        if status is None:
            return seconds
        outcome = (status, code(answer)) if status != 200 else (status, deleted(answer))
        if outcome != expected:
            sys.exit(f"{target.name}: an 8 MiB DeleteObjects answered {outcome}, not {expected}")
        return seconds

    for _ in range(rounds):
        def both():
            with concurrent.futures.ThreadPoolExecutor(2) as pool:
                refused = pool.submit(one, refused_body, (400, "MalformedXML"))
                answered = pool.submit(one, answered_body, (200, 1000))
                return refused.result(), answered.result()

        (refused, answered), during = health_while(port, both)
        refused_seconds.append(refused)
        answered_seconds.append(answered)
        latencies += during
    return refused_seconds, answered_seconds, latencies


def hostile_bodies():
    """(name, 8 MiB DeleteObjects body, the answer expected): documents whose cost grew faster than their size
    in a reader, each made as large as the route takes."""
    head, tail = f'<Delete xmlns="{S3}">'.encode(), b"</Delete>"
    room = EIGHT_MIB - 64 - len(head) - len(tail)
    key = b"<Object><Key>bench-xml/hostile</Key></Object>"
    attributes = b"".join(b' a%d="1"' % number for number in range(room // 9))[:room]
    attributes = attributes[:attributes.rindex(b" ")]
    return [
        ("a comment of 8 MiB, then one key", head + b"<!--" + b"c" * room + b"-->" + key + tail, 200),
        ("a CDATA key of 8 MiB", head + b"<Object><Key><![CDATA[" + b"k" * room + b"]]></Key></Object>" + tail, 200),
        ("a key of 1.6 million `&amp;`s", head + b"<Object><Key>" + b"&amp;" * (room // 5) + b"</Key></Object>" + tail,
         200),
        ("an attribute value of 8 MiB full of `>`", head[:-1] + b' a="' + b">" * room + b'">' + key + tail,
         "MalformedXML"),
        ("one start tag of 8 MiB of attributes", head[:-1] + attributes + b">" + key + tail, "MalformedXML"),
        ("10,000-deep nesting, padded", head + b"<x>" * 10_000 + b"</x>" * 10_000 + key + b" " * (room - 70_000)
         + tail, "MalformedXML"),
    ]


def hostile(target, bodies):
    """Each body alone, once: (name, seconds or inf, what it answered)."""
    rows = []
    for name, body, expected in bodies:
        status, answer, seconds = target.send("POST", f"/{target.bucket}?delete=", body)
        outcome = None if status is None else (status if status == 200 else code(answer))
        if status is not None and outcome != expected:
            sys.exit(f"{target.name}: {name} answered {status} {answer[:300]!r}, not {expected}")
        rows.append((name, seconds, outcome))
    return rows


def ms(samples):
    """Median (min-max) in ms; a request that did not answer within its timeout counts as infinite."""
    if float("inf") in samples:
        finite = [sample for sample in samples if sample != float("inf")]
        return f"{len(samples) - len(finite)} of {len(samples)} unanswered within the timeout"
    return f"{statistics.median(samples) * 1000:,.1f} ({min(samples) * 1000:,.1f}-{max(samples) * 1000:,.1f})"


def verdict(samples, bound):
    return "met" if all(sample < bound for sample in samples) else "MISSED"


def ratio(mine, reference):
    if float("inf") in mine or float("inf") in reference:
        return "-"
    ratios = [ours / theirs for ours, theirs in zip(mine, reference)]
    return f"{statistics.median(ratios):.2f}x ({min(ratios):.2f}-{max(ratios):.2f})"


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--binary", default=os.path.join(bench.REPO, ".build/release/mockcdn"))
    parser.add_argument("--before", help="an earlier mockcdn build, timed in the same rounds")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--big-rounds", type=int, default=3, help="rounds of the two 8 MiB bodies")
    parser.add_argument("--timeout", type=float, default=60, help="seconds an earlier build may take to answer")
    args = parser.parse_args()
    cpus = bench.cpus()
    servers = {"MockCDN": bench.MockCDN(args.binary, "--fixtures", "none")}
    if args.before:
        servers["before"] = bench.MockCDN(args.before, "--fixtures", "none")
    moto_port = bench.free_port()
    moto = subprocess.Popen(bench.pinned(0, ["moto_server", "-p", str(moto_port)]), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    if cpus >= 2:  # after the servers started on CPU 0: the client keeps to the other
        os.sched_setaffinity(0, {1})
    try:
        if not bench.wait_200(moto_port, "/moto-api/"):
            sys.exit("moto_server did not start")
        keys = ("demo-key", "demo-secret-for-local-testing-only", "demo")
        targets = [Target(name, server.base, *keys, timeout=args.timeout if name == "before" else 60)
                   for name, server in servers.items()]
        reference = Target("moto_server", f"http://127.0.0.1:{moto_port}", "test", "test", "bench", 120)
        reference.client.create_bucket(Bucket="bench")
        everyone = targets + [reference]
        names = [target.name for target in everyone]

        deletes = thousand_deletes(everyone, args.rounds)
        parts, completion_bytes = ten_thousand_parts(everyone, args.rounds)
        bodies = eight_mib_bodies()
        shapes = hostile_bodies()
        big, idle, hostiles = {}, {}, {}
        # MockCDN first: an earlier build that gave up on a body may still be reading it afterwards.
        for target in targets:
            _, idle[target.name] = health_while(servers[target.name].port, lambda: time.sleep(1))
            big[target.name] = eight_mib(target, servers[target.name].port, bodies, args.big_rounds)
            hostiles[target.name] = hostile(target, shapes)
        moto_big = []
        for _ in range(args.big_rounds):
            status, answer, seconds = reference.send("POST", "/bench?delete=", bodies[1])
            if (status, deleted(answer) if status == 200 else code(answer)) != (200, 1000):
                sys.exit(f"moto_server: the 8 MiB DeleteObjects answered {status} {answer[:300]!r}")
            moto_big.append(seconds)
    finally:
        for server in servers.values():
            server.process.terminate()
            try:
                server.process.wait(timeout=20)
            except subprocess.TimeoutExpired:  # the scanner of earlier builds could ignore SIGTERM
                server.process.kill()
                server.process.wait()
        moto.terminate()
        moto.wait(timeout=20)

    print(f"Machine: {cpus} CPUs; servers on CPU 0, the client on CPU 1. {args.rounds} timed rounds after an "
          f"untimed one that checks every answer; {args.big_rounds} rounds of the two 8 MiB bodies. "
          "Milliseconds, median (min-max); ratios are MockCDN / moto_server within each round.\n")
    print("| request | " + " | ".join(f"{name} ms" for name in names) + " | / moto_server | target |")
    print("|---|" + "---|" * (len(names) + 2))
    print("| DeleteObjects, 1,000 keys | " + " | ".join(ms(deletes[name]) for name in names)
          + f" | {ratio(deletes['MockCDN'], deletes['moto_server'])} | < 50 ms: "
          + f"{verdict(deletes['MockCDN'], 0.05)} |")
    print(f"| CompleteMultipartUpload, 10,000 parts ({completion_bytes / 1024:,.0f} KiB) to EntityTooSmall | "
          + " | ".join(ms(parts[name]) for name in names)
          + f" | {ratio(parts['MockCDN'], parts['moto_server'])} | < 50 ms: {verdict(parts['MockCDN'], 0.05)} |")
    refused = {name: big[name][0] for name in big}
    answered = {name: big[name][1] for name in big}
    print("| DeleteObjects, 8 MiB refused (MalformedXML), with the answered one at once | "
          + " | ".join(ms(refused[name]) if name in refused else "-" for name in names)
          + f" | - | < 1 s: {verdict(refused['MockCDN'], 1.0)} |")
    print("| DeleteObjects, 8 MiB answered (1,000 keys deleted), with the refused one at once | "
          + " | ".join(ms(answered[name]) if name in answered else ms(moto_big) for name in names)
          + f" | {ratio(answered['MockCDN'], moto_big)} | < 1 s: {verdict(answered['MockCDN'], 1.0)} |")
    print()
    print("| `GET /_mockcdn/health` | " + " | ".join(names[:-1]) + " | target |")
    print("|---|" + "---|" * len(names))
    for label, samples in (("idle, 1 s: median (max)", idle),
                           ("during the 8 MiB bodies: median (max)", {name: big[name][2] for name in big})):
        cells = [f"{statistics.median(samples[name]):.1f} ms ({max(samples[name]):.1f})" for name in names[:-1]]
        target = f"< 50 ms: {verdict([max(big['MockCDN'][2]) / 1000], 0.05)}" if "during" in label else ""
        print(f"| {label} | " + " | ".join(cells) + f" | {target} |")
    print()
    print("Hostile 8 MiB DeleteObjects bodies, each alone, once (the answer: 200, or the error's code):\n")
    print("| body | " + " | ".join(f"{name} ms (answer)" for name in names[:-1]) + " | target |")
    print("|---|" + "---|" * len(names))
    for index, (name, _, _) in enumerate(shapes):
        cells = []
        for target in names[:-1]:
            _, seconds, outcome = hostiles[target][index]
            cells.append(f"{ms([seconds])} ({outcome})" if outcome is not None else ms([seconds]))
        mine = hostiles["MockCDN"][index][1]
        print(f"| {name} | " + " | ".join(cells) + f" | < 1 s: {verdict([mine], 1.0)} |")


if __name__ == "__main__":
    main()
