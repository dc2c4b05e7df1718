"""Answers given before the request body is read, on a kept-alive connection (EarlyAnswerMiddleware and
CloseAfterResponseHandler):
- `Expect: 100-continue` gets `100 Continue` when the route reads the body, after its checks, and never
  before a refusal;
- a refusal that leaves the body unread says `Connection: close` and the connection closes, so nothing the
  client sends next is read as that body; a refusal of a small body that is already on its way keeps the
  connection, and the next request on it is answered;
- botocore's PutObject (which sends `Expect: 100-continue`), refused, then a HeadObject on the same client:
  the second call is answered at once and journaled, not swallowed as the first one's body.

Run from the repository root: ``python3 -m pytest -q Tests/compat``.
"""

from __future__ import annotations

import json
import socket
import time
import urllib.parse

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError

from s3support import HeaderSigner
from support import API_SECRET, jwt, read_response, request

UPLOAD = "/channels/messaging/early/file?api_key=demo-key"
BOUNDARY = "early"
PART = (f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n'
        "Content-Type: text/plain\r\n\r\nhello\r\n" f"--{BOUNDARY}--\r\n").encode()


def connect(base: str) -> socket.socket:
    parsed = urllib.parse.urlparse(base)
    # 30 s: every answer here comes in milliseconds; a swallowed request is what the bound catches.
    return socket.create_connection((parsed.hostname, parsed.port), timeout=30)


def closed(connection: socket.socket) -> bool:
    """Whether the server closed the connection (EOF within the socket's timeout, with nothing more sent)."""
    return connection.recv(65536) == b""


def upload_head(token: str | None, length: int, expect: bool, content_type: str | None = None) -> bytes:
    lines = [f"POST {UPLOAD} HTTP/1.1", "Host: 127.0.0.1",
             f"Content-Type: {content_type or f'multipart/form-data; boundary={BOUNDARY}'}", f"Content-Length: {length}"]
    if token:
        lines.append(f"Authorization: {token}")
    if expect:
        lines.append("Expect: 100-continue")
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def presigned_put(base: str) -> str:
    fat = json.loads(request(base + "/_mockcdn/tokens", "POST", json.dumps({"kind": "fat", "user_id": "ana"}).encode(),
                             {"Content-Type": "application/json"})[1])["token"]
    status, answer, _ = request(base + "/v1/apps/demo/uploads", "POST", json.dumps(
        {"files": [{"name": "n.txt", "content_type": "text/plain", "size": 4096}]}).encode(),
        {"fat": fat, "Content-Type": "application/json"})
    assert status == 200, answer
    return json.loads(answer)["uploads"][0]["url"]


def s3_head(base: str, method: str, target: str, length: int, secret: str = API_SECRET) -> bytes:
    """A header-signed S3 request head (an unsigned payload) announcing `length` bytes, with
    `Expect: 100-continue`, as botocore sends a PutObject."""
    headers = HeaderSigner(secret=secret).sign(method, base + target, {"content-length": str(length),
                                                                       "expect": "100-continue"},
                                               "UNSIGNED-PAYLOAD")[0]
    lines = [f"{method} {target} HTTP/1.1"] + [f"{name}: {value}" for name, value in headers.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def early_refusals(base: str) -> dict[str, tuple[bytes, int]]:
    """Each kind of refusal given before the body is read: the request head (announcing a body it does not
    send) and the status."""
    url = urllib.parse.urlsplit(presigned_put(base))
    tampered = url.query.replace("X-Amz-Signature=", "X-Amz-Signature=0")
    put = (f"PUT {url.path}?{tampered} HTTP/1.1\r\nHost: {url.netloc}\r\nContent-Type: text/plain\r\n"
           "Content-Length: 4096\r\nExpect: 100-continue\r\n\r\n").encode()
    return {
        "400 S3 EntityTooLarge by Content-Length": (s3_head(base, "PUT", "/demo/early/huge.bin", 200 * 1024 * 1024),
                                                    400),
        "403 S3 PutObject with the wrong secret": (s3_head(base, "PUT", "/demo/early/a.bin", 4096, "wrong"), 403),
        "404 S3 UploadPart of no upload": (s3_head(base, "PUT", "/demo/early/a.bin?partNumber=1&uploadId=none", 4096),
                                           404),
        "405 S3 PATCH": (s3_head(base, "PATCH", "/demo/early/a.bin", 4096), 405),
        "401 no credential": (upload_head(None, 2_000_000, expect=True), 401),
        "413 by Content-Length": (upload_head(jwt(), 200 * 1024 * 1024, expect=True), 413),
        "403 a tampered presigned PUT": (put, 403),
        "400 not multipart": (upload_head(jwt(), 4096, expect=True, content_type="text/plain"), 400),
        "401 a large body without Expect": (upload_head(None, 10_000_000, expect=False), 401),
    }


def test_every_early_refusal_closes_the_connection_without_100_continue(server):
    for kind, (head, status) in early_refusals(server).items():
        with connect(server) as connection:
            connection.sendall(head)
            answer = read_response(connection)
            assert answer[0] == status, (kind, answer)
            assert answer[1].get("connection") == "close", (kind, answer[1])
            assert closed(connection), f"{kind}: the connection stayed open, waiting for a body nobody sends"


def test_an_accepted_upload_gets_100_continue_then_keeps_the_connection(server):
    with connect(server) as connection:
        connection.sendall(upload_head(jwt(), len(PART), expect=True))
        status, _, _ = read_response(connection)
        assert status == 100, "no 100 Continue before the body"
        connection.sendall(PART)
        status, headers, body = read_response(connection)
        assert status == 201 and "connection" not in headers, (status, headers, body)
        connection.sendall(b"GET /_mockcdn/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        assert read_response(connection)[0] == 200


def test_a_small_refused_body_is_drained_and_the_connection_reused(server):
    with connect(server) as connection:
        connection.sendall(upload_head(None, len(PART), expect=False) + PART)
        status, headers, _ = read_response(connection)
        assert status == 401 and "connection" not in headers, headers
        connection.sendall(b"GET /_mockcdn/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        assert read_response(connection)[0] == 200, "the next request on the connection was not answered"


def test_botocore_put_object_refused_then_head_object_on_the_same_client(server):
    """botocore's defaults: PutObject sends `Expect: 100-continue`. One over the app's 100 MiB limit is refused
    by its Content-Length, before its body; the HeadObject that follows on the same client and connection pool
    must be answered at once and journaled. A swallowed HeadObject waited 5 to 35 s."""
    client = boto3.session.Session().client(
        "s3", endpoint_url=server, region_name="us-east-1", aws_access_key_id="demo-key",
        aws_secret_access_key="demo-secret-for-local-testing-only",
        config=Config(retries={"max_attempts": 1}, s3={"addressing_style": "path"}),
    )
    with pytest.raises(ClientError) as refused:
        client.put_object(Bucket="demo", Key="early/big.bin", Body=b"x" * (100 * 1024 * 1024 + 1))
    assert refused.value.response["Error"]["Code"] == "EntityTooLarge"
    started = time.monotonic()
    with pytest.raises(ClientError) as missing:
        client.head_object(Bucket="demo", Key="early/big.bin")
    assert missing.value.response["ResponseMetadata"]["HTTPStatusCode"] == 404
    took = time.monotonic() - started
    journal = json.loads(request(server + "/_mockcdn/requests?path=/demo/early/big.bin")[1])["requests"]
    assert [entry["method"] for entry in journal] == ["PUT", "HEAD"], journal
    # The failure took 5 s or more. The answer takes a few ms, and under 100 ms on a loaded machine: the
    # issue's bound of 1 s is over 10x that.
    assert took < 1, f"HeadObject took {took:.1f} s"
