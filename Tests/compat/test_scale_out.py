"""Several MockCDN processes on one S3-compatible bucket (moto_server, a real S3 endpoint from PyPI): what one
instance stores, another serves, lists and deletes; a stopped endpoint is a 503 in each route's envelope and a
degraded health, never a crash."""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import threading
import time
import uuid

import boto3
import pytest

from conftest import launch
from support import eventually, jwt, png, request, upload


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Moto:
    """moto_server on a free loopback port; `stop` kills it (a store outage)."""

    def __init__(self):
        if not shutil.which("moto_server"):
            pytest.fail("moto_server is not installed (make test installs moto[server] into .venv)")
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process = subprocess.Popen(["moto_server", "-H", "127.0.0.1", "-p", str(self.port)],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        # Refused until it listens. 60 s: it takes a second or two, longer on a loaded machine.
        eventually(lambda: request(self.url + "/moto-api/")[0] == 200, timeout=60, ignoring=(OSError,),
                   message=lambda: f"moto_server did not start (exit code {self.process.poll()})")

    def s3(self):
        return boto3.client("s3", endpoint_url=self.url, aws_access_key_id="testing",
                            aws_secret_access_key="testing", region_name="us-east-1")

    def stop(self):
        self.process.kill()
        self.process.wait(timeout=20)


@pytest.fixture
def moto():
    server = Moto()
    yield server
    if server.process.poll() is None:
        server.stop()


def s3_env(moto: Moto) -> dict:
    return {"AWS_ENDPOINT_URL_S3": moto.url, "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
            "AWS_REGION": "us-east-1"}


def bucket(moto: Moto) -> str:
    name = "team-" + uuid.uuid4().hex[:12]
    moto.s3().create_bucket(Bucket=name)
    return name


def health(base: str) -> dict:
    status, body, _ = request(base + "/_mockcdn/health")
    assert status == 200
    return json.loads(body)


SERVER_TOKEN = {"Authorization": jwt({"server": True}), "stream-auth-type": "jwt"}


def test_two_instances_share_objects_listings_and_deletes(moto):
    name = bucket(moto)
    # Behind one load balancer, as a team would run them: the same public URL, so links made by either verify
    # on both.
    flags = ("--store", f"s3://{name}/dev", "--public-url", "http://media.team.test")
    with launch(*flags, env=s3_env(moto)) as a, launch(*flags, env=s3_env(moto)) as b:
        ha, hb = health(a.url), health(b.url)
        assert ha["store"] == hb["store"] == "s3" and ha["status"] == hb["status"] == "ok"
        assert ha["instance"] != hb["instance"]

        data = png(12, 9)
        link = upload(a.url, "image", "shared.png", "image/png", data, channel="scale")
        assert link.startswith("http://media.team.test/demo/images/")
        # Made by A, read on B (and on A).
        for server in (b, a):
            status, body, _ = request(link.replace("http://media.team.test", server.url))
            assert status == 200 and body == data

        # Clocks are per instance: 15 days on at B, A's 14-day link has expired there (not at A), and B's
        # listing holds A's upload with a link B signed at its own now, which B serves.
        status, _, _ = request(f"{b.url}/_mockcdn/clock/advance", "POST", json.dumps({"seconds": 15 * 86400}).encode(),
                               {"Content-Type": "application/json"})
        assert status == 200
        assert request(link.replace("http://media.team.test", b.url))[0] == 403
        assert request(link.replace("http://media.team.test", a.url))[0] == 200
        status, body, _ = request(f"{b.url}/channels/messaging/scale/uploads?api_key=demo-key", headers=SERVER_TOKEN)
        assert status == 200, body
        files = [item["file"] for item in json.loads(body)["uploads"]]
        assert len(files) == 1 and files[0].split("?")[0] == link.split("?")[0] and files[0] != link
        status, body, _ = request(files[0].replace("http://media.team.test", b.url))
        assert status == 200 and body == data

        # The bytes and the record live in the bucket under the prefix.
        keys = [item["Key"] for item in moto.s3().list_objects_v2(Bucket=name, Prefix="dev/")["Contents"]]
        assert any(key.startswith("dev/meta/demo/images/") for key in keys)
        assert any(key.startswith("dev/blobs/demo/images/") for key in keys)

        # Members added through A are members on B: carol's listing on B is refused, then allowed.
        carol = {"Authorization": jwt({"user_id": "carol"}), "stream-auth-type": "jwt"}
        listing = f"{b.url}/channels/messaging/scale/uploads?api_key=demo-key"
        assert request(listing, headers=carol)[0] == 403
        status, body, _ = request(f"{a.url}/channels/messaging/scale/members?api_key=demo-key", "POST",
                                  json.dumps({"user_ids": ["carol"]}).encode(),
                                  {**SERVER_TOKEN, "Content-Type": "application/json"})
        assert status == 201, body
        assert request(listing, headers=carol)[0] == 200

        # Upload settings changed through A are enforced by B, and B reports them.
        status, body, _ = request(f"{a.url}/app?api_key=demo-key", "PATCH",
                                  json.dumps({"file_upload_config": {"blocked_file_extensions": ["txt"]}}).encode(),
                                  {**SERVER_TOKEN, "Content-Type": "application/json"})
        assert status == 201, body
        status, body, _ = request(f"{b.url}/app?api_key=demo-key", headers=SERVER_TOKEN)
        assert json.loads(body)["app"]["file_upload_config"]["blocked_file_extensions"] == ["txt"]
        boundary = "x" + uuid.uuid4().hex
        status, body, _ = request(
            f"{b.url}/channels/messaging/scale/file?api_key=demo-key", "POST",
            (f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="notes.txt"\r\n'
             f"Content-Type: text/plain\r\n\r\nhello\r\n--{boundary}--\r\n").encode(),
            {"Authorization": jwt(), "stream-auth-type": "jwt",
             "Content-Type": f"multipart/form-data; boundary={boundary}"})
        assert status == 400 and json.loads(body)["code"] == 4, body

        # Deleted through B: A answers 404 in its S3 envelope.
        status, body, _ = request(f"{b.url}/channels/messaging/scale/image?api_key=demo-key&url={link}", "DELETE",
                                  headers=SERVER_TOKEN)
        assert status == 200, body
        status, body, _ = request(link.replace("http://media.team.test", a.url))
        assert status == 404 and b"<Code>NoSuchKey</Code>" in body


def metric(base: str, name: str) -> float:
    status, body, _ = request(base + "/metrics")
    assert status == 200
    return float(next(line.split()[1] for line in body.decode().splitlines() if line.startswith(name + " ")))


def test_with_s3_variants_a_render_on_one_instance_serves_the_other(moto):
    name = bucket(moto)
    flags = ("--store", f"s3://{name}/dev", "--public-url", "http://media.team.test", "--s3-variants", "true")
    with launch(*flags, env=s3_env(moto)) as a, launch(*flags, env=s3_env(moto)) as b:
        link = upload(a.url, "image", "wide.png", "image/png", png(64, 48), channel="variants")
        resized = link + "&w=16&h=12"
        status, small, _ = request(resized.replace("http://media.team.test", a.url))
        assert status == 200 and small[:4] == b"\x89PNG"
        keys = [item["Key"] for item in moto.s3().list_objects_v2(Bucket=name, Prefix="dev/variants/")["Contents"]]
        assert len(keys) == 1

        # The render is in the bucket by the time A answers (the save is awaited), so no wait is needed.
        # B finds A's render in the bucket: the same bytes, a hit and no render of its own.
        status, again, _ = request(resized.replace("http://media.team.test", b.url))
        assert status == 200 and again == small
        assert metric(b.url, "mockcdn_variant_cache_hits_total") == 1
        assert metric(b.url, "mockcdn_variant_cache_misses_total") == 0

        # Deleted through B: its variants leave the bucket too, in the background after the answer.
        status, body, _ = request(f"{b.url}/channels/messaging/variants/image?api_key=demo-key&url={link}", "DELETE",
                                  headers=SERVER_TOKEN)
        assert status == 200, body
        eventually(lambda: not moto.s3().list_objects_v2(Bucket=name, Prefix="dev/variants/").get("Contents"),
                   message="the variants stayed in the bucket")

    # Without the setting, nothing goes to variants/ (with it, the render would be there by the answer).
    with launch("--store", f"s3://{name}/plain", env=s3_env(moto)) as c:
        link = upload(c.url, "image", "wide.png", "image/png", png(64, 48), channel="variants")
        assert request(link + "&w=16&h=12")[0] == 200
        assert not moto.s3().list_objects_v2(Bucket=name, Prefix="plain/variants/").get("Contents")


def test_a_stopped_endpoint_is_503_in_each_envelope_and_degraded_health(moto):
    name = bucket(moto)
    with launch("--store", f"s3://{name}", env=s3_env(moto)) as server:
        link = upload(server.url, "image", "before.png", "image/png", png(), channel="outage")
        assert request(link)[0] == 200
        moto.stop()
        # Each answer takes about 6 s (the store client's connection attempts), and its store requests are bounded
        # by the store's 10 s limit: the client waits 120 s, and both must come within 120 s, >= 10x that.
        began = time.monotonic()
        status, body, _ = request(link, timeout=120)
        assert status == 503 and b"<Code>ServiceUnavailable</Code>" in body, body
        boundary = "x" + uuid.uuid4().hex
        status, body, _ = request(
            f"{server.url}/channels/messaging/outage/image?api_key=demo-key", "POST",
            (f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n'
             f"Content-Type: image/png\r\n\r\n").encode() + png() + f"\r\n--{boundary}--\r\n".encode(),
            {"Authorization": jwt(), "stream-auth-type": "jwt",
             "Content-Type": f"multipart/form-data; boundary={boundary}"}, timeout=120)
        assert status == 503 and json.loads(body)["StatusCode"] == 503, body
        assert time.monotonic() - began < 120, "the outage hung the answers"
        state = health(server.url)
        assert state["status"] == "degraded" and state["store"] == "s3" and "reason" in state


def open_upload(port: int, channel: str, size: int) -> tuple[socket.socket, bytes]:
    """Starts a multipart/form-data upload of a `size`-byte file on a raw connection and sends its head; the
    caller sends the `size` bytes, then the returned tail."""
    boundary = "k" + uuid.uuid4().hex
    head = (f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\n'
            f"Content-Type: application/octet-stream\r\n\r\n").encode()
    tail = f"\r\n--{boundary}--\r\n".encode()
    connection = socket.create_connection(("127.0.0.1", port))
    connection.sendall(
        (f"POST /channels/messaging/{channel}/file?api_key=demo-key HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
         f"Authorization: {jwt()}\r\nstream-auth-type: jwt\r\n"
         f"Content-Type: multipart/form-data; boundary={boundary}\r\n"
         f"Content-Length: {len(head) + size + len(tail)}\r\n\r\n").encode() + head)
    return connection, tail


def test_an_endpoint_gone_mid_upload_is_503_and_leaves_nothing_once_back(moto):
    import http.client
    import os

    name = bucket(moto)
    s3 = moto.s3()
    proxy = Proxy(moto.port)
    env = {**s3_env(moto), "AWS_ENDPOINT_URL_S3": f"http://127.0.0.1:{proxy.port}"}
    try:
        with launch("--store", f"s3://{name}", "--fixtures", "none", env=env) as server:
            before = upload(server.url, "image", "before.png", "image/png", png(), channel="gone")
            stored = sorted(item["Key"] for item in s3.list_objects_v2(Bucket=name)["Contents"])
            # 9 MiB: the first 8-MiB part goes up while the body streams in; the endpoint goes away once S3
            # holds it, and the last bytes then need a second part that cannot be sent.
            body = os.urandom(9 * 1024 * 1024)
            connection, tail = open_upload(int(server.url.rsplit(":", 1)[1]), "gone", len(body))
            connection.sendall(body[:-16])

            def first_part() -> bool:
                uploads = s3.list_multipart_uploads(Bucket=name).get("Uploads", [])
                return bool(uploads and s3.list_parts(Bucket=name, Key=uploads[0]["Key"],
                                                      UploadId=uploads[0]["UploadId"]).get("Parts"))

            eventually(first_part, timeout=60, message="the first part never reached S3")
            proxy.stop()
            connection.sendall(body[-16:] + tail)
            answer = http.client.HTTPResponse(connection)
            answer.begin()
            payload = answer.read()
            connection.close()
            assert answer.status == 503 and json.loads(payload)["StatusCode"] == 503, payload

            # While it is gone, reads answer 503 in the S3 envelope and health says degraded. The read takes about
            # 6 s (the store client's connection attempts): the client waits 120 s, >= 10x that.
            status, payload, _ = request(before, timeout=120)
            assert status == 503 and b"<Code>ServiceUnavailable</Code>" in payload, payload
            assert health(server.url)["status"] == "degraded"

            # Back: the open upload is aborted by the retries, and nothing of it is in the bucket or listed. The
            # retries come 1, 3, 7, 15, 31 and 63 s after the failed put; the next after the endpoint is back
            # is a few seconds away, and 90 s covers the whole schedule up to 63 s.
            proxy.start()
            eventually(lambda: not s3.list_multipart_uploads(Bucket=name).get("Uploads"), timeout=90, interval=0.5,
                       message="the multipart upload stayed open")
            assert sorted(item["Key"] for item in s3.list_objects_v2(Bucket=name)["Contents"]) == stored
            assert health(server.url)["status"] == "ok"
            status, payload, _ = request(f"{server.url}/channels/messaging/gone/uploads?api_key=demo-key",
                                         headers=SERVER_TOKEN)
            assert status == 200 and [item["name"] for item in json.loads(payload)["uploads"]] == ["before.png"]
            assert request(before)[0] == 200
    finally:
        proxy.stop()


def test_a_missing_bucket_stops_the_start_with_the_reason(moto):
    process = subprocess.run(
        [str(__import__("support").BINARY), "serve", "--port", "0", "--store", "s3://no-such-bucket-here"],
        env={**__import__("os").environ, **s3_env(moto)}, capture_output=True, text=True, timeout=60)
    assert process.returncode != 0
    assert "NoSuchBucket" in process.stderr and "no-such-bucket-here" in process.stderr


class Proxy:
    """A TCP proxy in front of moto on a port of its own. It can hold each answer from S3 for `delay` seconds
    (a slow store: the one deliberate real-time wait here, see its test), and `stop` closes its port and cuts
    every connection (the endpoint gone) until `start`."""

    def __init__(self, upstream_port: int, delay: float = 0):
        self.delay = delay
        self.upstream_port = upstream_port
        self.port = free_port()
        self.connections: list[socket.socket] = []
        self.start()

    def start(self):
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", self.port))
        self.listener.listen(64)
        threading.Thread(target=self.accept, args=(self.listener,), daemon=True).start()

    def accept(self, listener):
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", self.upstream_port))
            self.connections += [client, upstream]
            threading.Thread(target=self.pipe, args=(client, upstream, 0), daemon=True).start()
            threading.Thread(target=self.pipe, args=(upstream, client, self.delay), daemon=True).start()

    @staticmethod
    def pipe(source, target, delay):
        try:
            while chunk := source.recv(65536):
                if delay:
                    # The slow store itself, not a margin: its test keeps >= 10x either side of the 10 s limit.
                    time.sleep(delay)
                target.sendall(chunk)
        except OSError:
            pass
        finally:
            for end in (source, target):
                try:
                    end.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def stop(self):
        self.listener.close()
        for connection in self.connections:
            try:
                connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        self.connections = []


def test_a_slow_store_answers_within_the_time_limit(moto):
    name = bucket(moto)
    shared = ("--store", f"s3://{name}", "--public-url", "http://media.team.test")
    with launch(*shared, env=s3_env(moto)) as fast:
        link = upload(fast.url, "image", "slow.png", "image/png", png(), channel="slow")
    # The store's limit is 10 s per request, retries included. A little slow (0.3 s per answer, >= 10x under the
    # limit): still served. Very slow (120 s per answer, 12x past it): 503, and the answer came from the limit,
    # not from the store (which had not answered yet), after the whole 10 s (one-sided: the limit cannot fire
    # early) and well before the store's answer (the client waits 150 s: >= 10x the limit).
    for delay, expected in ((0.3, 200), (120, 503)):
        proxy = Proxy(moto.port, delay)
        env = {**s3_env(moto), "AWS_ENDPOINT_URL_S3": f"http://127.0.0.1:{proxy.port}"}
        try:
            with launch(*shared, "--fixtures", "none", env=env) as server:
                began = time.monotonic()
                status, body, _ = request(link.replace("http://media.team.test", server.url), timeout=150)
                took = time.monotonic() - began
                assert status == expected, body
                if expected == 503:
                    assert b"<Code>ServiceUnavailable</Code>" in body and 9.5 < took < delay, took
        finally:
            proxy.stop()


def test_sigkill_mid_upload_leaves_nothing_visible_and_reset_aborts_the_open_upload(moto):
    import os
    import re
    import signal

    from support import BINARY

    name = bucket(moto)
    s3 = moto.s3()
    process = subprocess.Popen([str(BINARY), "serve", "--port", "0", "--fixtures", "none", "--store", f"s3://{name}"],
                               stdout=subprocess.PIPE, text=True, env={**os.environ, **s3_env(moto)})
    try:
        port = int(re.search(r"ready on http://[^:]+:(\d+)", process.stdout.readline()).group(1))
        connection, _ = open_upload(port, "kill", 24 * 1024 * 1024)
        chunk = os.urandom(1024 * 1024)
        for _ in range(18):  # past two 8-MiB parts
            connection.sendall(chunk)
        eventually(lambda: s3.list_multipart_uploads(Bucket=name).get("Uploads"),
                   message="no multipart upload was started")
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=20)
        connection.close()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()

    # Killed mid-upload: no record, so nothing is visible to any instance; the parts sit in an open upload.
    keys = [item["Key"] for item in s3.list_objects_v2(Bucket=name).get("Contents", [])]
    assert not any(key.startswith("meta/") for key in keys), keys
    with launch("--store", f"s3://{name}", "--fixtures", "none", env=s3_env(moto)) as other:
        status, body, _ = request(f"{other.url}/channels/messaging/kill/uploads?api_key=demo-key",
                                  headers=SERVER_TOKEN)
        assert status == 200 and json.loads(body)["uploads"] == []
        # A reset (or a bucket lifecycle rule) aborts what the killed process left open.
        status, _, _ = request(f"{other.url}/_mockcdn/reset", "POST", b"{}", {"Content-Type": "application/json"})
        assert status == 200
    assert not s3.list_multipart_uploads(Bucket=name).get("Uploads")
    assert not s3.list_objects_v2(Bucket=name).get("Contents")
