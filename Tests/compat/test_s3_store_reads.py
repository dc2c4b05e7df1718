"""The S3 store's reads at the store's pace: while an object's record (its metadata) is fresh, a read is one
request to the bucket (the blob's GET), counted by a proxy between MockCDN and moto_server; and on a shared
bucket, bytes are never stale (the other instance's overwrite or delete is seen by the next read), while
answers made from the record alone (HEAD, 304) are stale for at most `--s3-metadata-ttl-ms` on the
instance's clock, which the tests move instead of waiting."""

from __future__ import annotations

import http.client
import json
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import boto3
from botocore.config import Config

from conftest import launch
from support import API_KEY, API_SECRET, request
from test_scale_out import bucket, moto, s3_env  # noqa: F401 (moto is a fixture)

# A minute of trust: each test's reads take well under a second, >= 10x inside it; the clock is moved past it.
TRUST = ("--s3-metadata-ttl-ms", "60000")


class CountingProxy:
    """Forwards each request to moto_server and keeps its `METHOD PATH`, so a test counts what MockCDN asked
    of its store."""

    def __init__(self, target: str):
        self.seen: list[str] = []
        self.lock = threading.Lock()
        upstream = urllib.parse.urlsplit(target)
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def forward(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else None
                with proxy.lock:
                    proxy.seen.append(f"{self.command} {self.path.split('?')[0]}")
                connection = http.client.HTTPConnection(upstream.hostname, upstream.port, timeout=60)
                try:
                    connection.request(self.command, self.path, body, dict(self.headers.items()))
                    answer = connection.getresponse()
                    payload = answer.read()
                finally:
                    connection.close()
                self.send_response_only(answer.status, answer.reason)
                for name, value in answer.getheaders():
                    if name.lower() not in ("transfer-encoding", "content-length", "connection"):
                        self.send_header(name, value)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(payload)

            do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = forward

            def log_message(self, *_):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def taken(self) -> list[str]:
        """The requests seen since the last call."""
        with self.lock:
            seen, self.seen = self.seen, []
        return seen

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def s3_api(server: str):
    """boto3 on MockCDN's S3 API (the demo app as a bucket), presigning for a day."""
    return boto3.client("s3", endpoint_url=server, aws_access_key_id=API_KEY, aws_secret_access_key=API_SECRET,
                        region_name="us-east-1", config=Config(signature_version="s3v4",
                                                               s3={"addressing_style": "path"}))


def link(server: str, key: str, operation: str = "get_object") -> str:
    return s3_api(server).generate_presigned_url(operation, Params={"Bucket": "demo", "Key": key}, ExpiresIn=86400)


def advance(server: str, seconds: float):
    status, body, _ = request(f"{server}/_mockcdn/clock/advance", "POST", json.dumps({"seconds": seconds}).encode(),
                              {"Content-Type": "application/json"})
    assert status == 200, body


def test_s3_store_read_is_one_store_request_while_its_metadata_is_fresh(moto):
    name = bucket(moto)
    proxy = CountingProxy(moto.url)
    try:
        env = {**s3_env(moto), "AWS_ENDPOINT_URL_S3": proxy.url}
        with launch("--store", f"s3://{name}/reads", "--fixtures", "none", *TRUST, env=env) as server:
            data = bytes(range(256)) * 256
            s3_api(server.url).put_object(Bucket="demo", Key="reads/one.bin", Body=data)
            url = link(server.url, "reads/one.bin")
            proxy.taken()
            # The write left its record fresh: each read is the blob's GET alone, whole or a range.
            status, body, headers = request(url)
            assert status == 200 and body == data
            status, body, _ = request(url, headers={"Range": "bytes=100-199"})
            assert status == 206 and body == data[100:200]
            blob = proxy.taken()
            assert len(blob) == 2 and blob[0] == blob[1] and blob[0].startswith("GET ") and "/blobs/" in blob[0], blob
            # A HEAD and a 304 are answered from the record, asking the bucket nothing.
            assert request(link(server.url, "reads/one.bin", "head_object"), "HEAD")[0] == 200
            assert request(url, headers={"If-None-Match": headers["ETag"]})[0] == 304
            assert proxy.taken() == []
            # Past the bound, on the server's clock: the record is read once more, then trusted again.
            advance(server.url, 61)
            assert request(url)[1] == data
            again = proxy.taken()
            assert len(again) == 2 and "/meta/" in again[0] and again[1] == blob[0], again
            assert request(url)[1] == data
            assert proxy.taken() == [blob[0]]
    finally:
        proxy.close()


def test_shared_bucket_bytes_are_never_stale_and_metadata_is_stale_within_the_bound(moto):
    name = bucket(moto)
    flags = ("--store", f"s3://{name}/team", "--fixtures", "none", *TRUST)
    with launch(*flags, env=s3_env(moto)) as a, launch(*flags, env=s3_env(moto)) as b:
        on_a, on_b = s3_api(a.url), s3_api(b.url)
        first, second = b"first version " * 100, b"the second, longer version " * 100
        on_a.put_object(Bucket="demo", Key="shared/doc.bin", Body=first)
        read = link(a.url, "shared/doc.bin")
        status, body, headers = request(read)
        assert status == 200 and body == first

        # B replaces it: A's next read serves the new bytes and headers (the old blob is gone, so A reads the
        # record again), never the old ones.
        replaced = on_b.put_object(Bucket="demo", Key="shared/doc.bin", Body=second)["ETag"]
        status, body, headers = request(read)
        assert status == 200 and body == second and headers["ETag"] == replaced
        assert headers["Content-Length"] == str(len(second))

        # B deletes it: A's GET is a 404 at once, its fresh record notwithstanding.
        on_b.delete_object(Bucket="demo", Key="shared/doc.bin")
        status, body, _ = request(read)
        assert status == 404 and b"<Code>NoSuchKey</Code>" in body

        # A HEAD is answered from the record: after B's delete, A may still say 200, for at most the bound of
        # A's clock; past it, 404.
        on_a.put_object(Bucket="demo", Key="shared/head.bin", Body=first)
        head = link(a.url, "shared/head.bin", "head_object")
        assert request(head, "HEAD")[0] == 200
        on_b.delete_object(Bucket="demo", Key="shared/head.bin")
        assert request(head, "HEAD")[0] == 200  # stale, within the documented bound
        advance(a.url, 61)
        assert request(head, "HEAD")[0] == 404
