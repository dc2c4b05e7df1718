#!/usr/bin/env python3
"""Uploads with a hanging webhook: the throughput of small S3 PutObjects (boto3, one keep-alive connection,
64 KiB each) into MockCDN with no notification target, with a webhook target that answers 200 at once, and
with one that takes every delivery and never answers, timed in the same rounds.

A delivery runs off the request path (docs/events.md), so a hanging target should cost the uploads no more than
an answering one: the ratio hanging / answering is the claim, and hanging / none what having a target at all
costs (each upload's record, signature and queued delivery). Each round times the three back to back and takes
the ratios within the round; reported: medians of the rounds with their min-max. The hanging target is a local
HTTP server whose handler holds each request for a minute; MockCDN gives up on an attempt after 5 s and retries
it on its clock, so the deliveries pile up while the uploads run. The run fails unless the delivery journal
shows the hanging target's timeouts (waited for up to 30 s after the last round), so the figure is known to
include attempts that hung for their whole time limit.
"""
import argparse
import http.server
import json
import os
import sys
import threading
import time
import urllib.request

from bench import Measure, MockCDN

KIB = 1024


class Target:
    """A webhook target that reads each delivery and answers 200 at once, or (`hang`) nothing for a minute."""

    def __init__(self, hang: bool):
        self.received = 0
        target = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 (http.server's name)
                self.rfile.read(int(self.headers["Content-Length"]))
                target.received += 1
                if hang:
                    time.sleep(60)
                    return
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

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
    parser.add_argument("--uploads", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    import boto3
    for name in [name for name in os.environ if name.startswith("AWS_")]:
        del os.environ[name]
    os.environ["AWS_CONFIG_FILE"] = os.environ["AWS_SHARED_CREDENTIALS_FILE"] = "/dev/null"
    server = MockCDN(args.binary, "--fixtures", "none")
    answering, hanging = Target(hang=False), Target(hang=True)
    try:
        client = boto3.session.Session().client("s3", endpoint_url=server.base, region_name="us-east-1",
                                                aws_access_key_id="demo-key",
                                                aws_secret_access_key="demo-secret-for-local-testing-only")
        uploads_per_second(client, 20, 64 * KIB, "warm")

        def timed(target, tag):
            hooks = [{"id": tag, "url": target.url, "events": ["s3:ObjectCreated:*"]}] if target else []
            control(server.base, "/_mockcdn/apps/demo/notifications", "PUT", {"webhooks": hooks})
            return uploads_per_second(client, args.uploads, 64 * KIB, f"{tag}-{round_number}")

        none, answered, held, against_answering, against_none = [], [], [], [], []
        for round_number in range(args.rounds):
            none.append(timed(None, "none"))
            answered.append(timed(answering, "answering"))
            held.append(timed(hanging, "hanging"))
            against_answering.append(held[-1] / answered[-1])
            against_none.append(held[-1] / none[-1])
        # The last round's hanging attempts time out 5 s after they started; the journal keeps the last 1,000
        # attempts, so the answering target's may have pushed earlier rounds' out. Wait up to 30 s for them.
        for _ in range(60):
            deliveries = control(server.base, "/_mockcdn/deliveries?target=hanging")
            timeouts = sum(1 for attempt in deliveries["attempts"] if attempt["outcome"] == "timeout")
            if timeouts:
                break
            time.sleep(0.5)
        if hanging.received == 0 or answering.received == 0:
            sys.exit("a target received no delivery: nothing was measured")
        if timeouts == 0:
            sys.exit("no attempt to the hanging target timed out during the run: run more --uploads")
        print("| uploads (64 KiB PutObject, one connection) | per second |")
        print("|---|---|")
        print(f"| no notification target | {Measure(none)} |")
        print(f"| a webhook target that answers 200 at once | {Measure(answered)} |")
        print(f"| a webhook target that never answers | {Measure(held)} |")
        print(f"| ratio hanging / answering (within each round) | {Measure(against_answering).ratio()} |")
        print(f"| ratio hanging / no target (within each round) | {Measure(against_none).ratio()} |")
        print()
        print(f"{args.rounds} rounds of {args.uploads} uploads each way; the answering target received "
              f"{answering.received} deliveries, the hanging one {hanging.received} and held every one; "
              f"{timeouts} attempts to it had timed out (5 s each) by the end, {len(deliveries['pending'])} "
              f"deliveries were waiting for a retry.")
    finally:
        server.stop()


if __name__ == "__main__":
    main()
