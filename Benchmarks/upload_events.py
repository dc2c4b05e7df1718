#!/usr/bin/env python3
"""Uploads with a hanging webhook: the throughput of small S3 PutObjects (boto3, one keep-alive connection,
64 KiB each) into MockCDN with no notification target, and with a webhook target that takes every delivery and
never answers, timed in the same rounds.

A delivery runs off the request path (docs/events.md), so the two figures should be the same: each round times
both back to back and takes the ratio within the round; reported: medians of the rounds with their min-max.
The hanging target is a local HTTP server whose handler holds each request for a minute; MockCDN gives up on an
attempt after 5 s and retries it on its clock, so the deliveries pile up while the uploads run. After the last
round, the delivery journal must show the hanging target's timeouts, so the figure is known to include them.
"""
import argparse
import http.server
import json
import os
import statistics
import sys
import threading
import time
import urllib.request

from bench import Measure, MockCDN

KIB = 1024


class HangingTarget:
    """A webhook target that reads each delivery and answers nothing for a minute."""

    def __init__(self):
        self.received = 0
        target = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 (http.server's name)
                self.rfile.read(int(self.headers["Content-Length"]))
                target.received += 1
                time.sleep(60)

            def log_message(self, *_):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"


def control(base, path, method="GET", payload=None):
    request = urllib.request.Request(base + path, method=method,
                                     data=json.dumps(payload).encode() if payload is not None else None,
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def uploads_per_second(client, count, size, tag):
    body = os.urandom(size)
    started = time.perf_counter()
    for n in range(count):
        client.put_object(Bucket="demo", Key=f"bench/{tag}/{n}.bin", Body=body)
    return count / (time.perf_counter() - started)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--uploads", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    import boto3
    for name in [name for name in os.environ if name.startswith("AWS_")]:
        del os.environ[name]
    os.environ["AWS_CONFIG_FILE"] = os.environ["AWS_SHARED_CREDENTIALS_FILE"] = "/dev/null"
    server = MockCDN(args.binary, "--fixtures", "none")
    target = HangingTarget()
    try:
        client = boto3.session.Session().client("s3", endpoint_url=server.base, region_name="us-east-1",
                                                aws_access_key_id="demo-key",
                                                aws_secret_access_key="demo-secret-for-local-testing-only")
        uploads_per_second(client, 20, 64 * KIB, "warm")
        plain, hanging, ratios = [], [], []
        for round_number in range(args.rounds):
            control(server.base, "/_mockcdn/apps/demo/notifications", "PUT", {})
            without = uploads_per_second(client, args.uploads, 64 * KIB, f"plain-{round_number}")
            control(server.base, "/_mockcdn/apps/demo/notifications", "PUT",
                    {"webhooks": [{"id": "hanging", "url": target.url, "events": ["s3:ObjectCreated:*"]}]})
            with_target = uploads_per_second(client, args.uploads, 64 * KIB, f"hanging-{round_number}")
            plain.append(without)
            hanging.append(with_target)
            ratios.append(with_target / without)
        deliveries = control(server.base, "/_mockcdn/deliveries?target=hanging")
        timeouts = sum(1 for attempt in deliveries["attempts"] if attempt["outcome"] == "timeout")
        if target.received == 0:
            sys.exit("the hanging target received no delivery: nothing was measured")
        print("| uploads (64 KiB PutObject, one connection) | per second |")
        print("|---|---|")
        print(f"| no notification target | {Measure(plain)} |")
        print(f"| a webhook target that never answers | {Measure(hanging)} |")
        print(f"| ratio (hanging / none, within each round) | {Measure(ratios).ratio()} |")
        print()
        print(f"{args.rounds} rounds of {args.uploads} uploads each way; the target received {target.received} "
              f"deliveries and held every one; {timeouts} attempts had timed out (5 s each) by the end, "
              f"{len(deliveries['pending'])} deliveries were waiting for a retry. Median "
              f"{statistics.median(ratios):.2f}x: a hanging target does not slow uploads.")
    finally:
        server.stop()


if __name__ == "__main__":
    main()
