"""What the S3 API tests share: boto3 made with its defaults (only the endpoint and the demo app's keys), the
journal, and an S3 refusal as (status, code)."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import http.client
import json
import ssl
import threading
import time
import urllib.parse
import uuid
import zlib

import boto3
import pytest
from botocore.exceptions import ClientError

from support import API_KEY, API_SECRET, request


def s3(server: str, secret: str = API_SECRET, **options):
    """boto3 with its defaults: only the endpoint (an IP address, so path-style) and the keys."""
    return boto3.session.Session().client(
        "s3", endpoint_url=server, aws_access_key_id=API_KEY, aws_secret_access_key=secret, **options
    )


def journal(server: str) -> list[dict]:
    status, body, _ = request(f"{server}/_mockcdn/requests")
    assert status == 200, body
    return json.loads(body)["requests"]


def code_of(error: ClientError) -> tuple[int, str]:
    return error.response["ResponseMetadata"]["HTTPStatusCode"], error.response["Error"]["Code"]


def refused(call) -> tuple[int, str]:
    """The status and S3 code of a call that must fail."""
    with pytest.raises(ClientError) as refusal:
        call()
    return code_of(refusal.value)


def advance(server: str, seconds: int) -> None:
    """Moves MockCDN's clock on."""
    status, body, _ = request(f"{server}/_mockcdn/clock/advance", "POST", json.dumps({"seconds": seconds}).encode(),
                              {"Content-Type": "application/json"})
    assert status == 200, body


def reset(server: str) -> None:
    """Empties the store and sets the clock back."""
    status, body, _ = request(f"{server}/_mockcdn/reset", "POST", b"{}", {"Content-Type": "application/json"})
    assert status == 200, body


MiB = 1024 * 1024
# S3's smallest part but the last.
PART = 5 * MiB


def fresh_key(name: str = "file.bin") -> str:
    return f"multipart/{uuid.uuid4()}/{name}"


def md5(data: bytes) -> str:
    return hashlib.md5(data).hexdigest()


def multipart_etag(parts: list[bytes]) -> str:
    return '"%s-%d"' % (hashlib.md5(b"".join(hashlib.md5(part).digest() for part in parts)).hexdigest(), len(parts))


def exists(client, key: str) -> bool:
    try:
        client.head_object(Bucket="demo", Key=key)
        return True
    except ClientError as error:
        assert error.response["ResponseMetadata"]["HTTPStatusCode"] == 404, error.response
        return False


def part_numbers(client, key: str, upload: str) -> list[int]:
    return [part["PartNumber"] for part in client.list_parts(Bucket="demo", Key=key, UploadId=upload).get("Parts", [])]


def open_upload(client, key: str, parts: list[bytes], numbers: list[int] | None = None,
                bucket: str = "demo") -> tuple[str, list[dict]]:
    """A new upload of `key` in `bucket` with `parts` uploaded (as part 1, 2, ... or under `numbers`); its id and
    the parts as CompleteMultipartUpload names them."""
    upload = client.create_multipart_upload(Bucket=bucket, Key=key)["UploadId"]
    sent = []
    for number, data in zip(numbers or range(1, len(parts) + 1), parts):
        etag = client.upload_part(Bucket=bucket, Key=key, UploadId=upload, PartNumber=number, Body=data)["ETag"]
        sent.append({"PartNumber": number, "ETag": etag})
    return upload, sent


EMPTY_SHA256 = hashlib.sha256(b"").hexdigest()


def _hmac(key: bytes, text: str) -> bytes:
    return hmac.new(key, text.encode(), hashlib.sha256).digest()


class HeaderSigner:
    """Requests signed with SigV4 in the `Authorization` header, made by hand for what no client sends as
    asked: a body that is not what S3 wants (but is what was signed), and aws-chunked bodies signed as AWS's
    "Signature Calculations ... Transferring Payload in Multiple Chunks" describes them, the way the AWS SDKs
    for Java and Go send them (no Python client signs chunks): a `STREAMING-*` payload hash, then each chunk
    signed in a chain from the header's signature, and the trailer after the last."""

    def __init__(self, secret: str = API_SECRET, access_key: str = API_KEY, region: str = "us-east-1",
                 at: int | None = None):
        """`at`: the Unix time to sign at (the server's clock, once a test moved it), else now."""
        self.secret, self.access_key, self.region, self.at = secret, access_key, region, at

    def sign(self, method: str, url: str, headers: dict, payload_hash: str) -> tuple[dict, bytes, str, str, str]:
        """`headers` with host, date, payload hash and `Authorization`; the signing key, scope, date and seed."""
        parts = urllib.parse.urlsplit(url)
        amz_date = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(self.at))
        day = amz_date[:8]
        scope = f"{day}/{self.region}/s3/aws4_request"
        key = _hmac(_hmac(_hmac(_hmac(("AWS4" + self.secret).encode(), day), self.region), "s3"), "aws4_request")
        headers = {name.lower(): value for name, value in headers.items()}
        headers.update({"host": parts.netloc, "x-amz-content-sha256": payload_hash, "x-amz-date": amz_date})
        names = sorted(headers)
        query = "&".join(sorted(f"{urllib.parse.quote(name, safe='-_.~')}={urllib.parse.quote(value, safe='-_.~')}"
                                for name, value in urllib.parse.parse_qsl(parts.query, keep_blank_values=True)))
        canonical = "\n".join([
            method, urllib.parse.quote(parts.path), query,
            "".join(f"{name}:{headers[name]}\n" for name in names), ";".join(names), payload_hash,
        ])
        to_sign = "\n".join(["AWS4-HMAC-SHA256", amz_date, scope, hashlib.sha256(canonical.encode()).hexdigest()])
        seed = hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()
        headers["authorization"] = (f"AWS4-HMAC-SHA256 Credential={self.access_key}/{scope}, "
                                    f"SignedHeaders={';'.join(names)}, Signature={seed}")
        return headers, key, scope, amz_date, seed

    def send(self, method: str, url: str, body: bytes, headers: dict | None = None) -> tuple[int, bytes, dict]:
        """`body` signed by its SHA-256, sent as it is."""
        signed = self.sign(method, url, headers or {}, hashlib.sha256(body).hexdigest())[0]
        return self._send(method, url, body, signed)

    def put(self, url: str, data: bytes, mode: str, chunk_size: int = 64 * 1024,
            trailer: tuple[str, str] | None = None, tamper=None) -> tuple[int, bytes, dict]:
        """PUTs `data` aws-chunked, in chunks of `chunk_size` under `mode` (`STREAMING-AWS4-HMAC-SHA256-PAYLOAD`,
        `...-PAYLOAD-TRAILER` or `STREAMING-UNSIGNED-PAYLOAD-TRAILER`), with `trailer` (name, value) when the mode
        has one. `tamper(body) -> body` changes the framed body after signing."""
        headers = {"content-encoding": "aws-chunked", "x-amz-decoded-content-length": str(len(data))}
        if trailer:
            headers["x-amz-trailer"] = trailer[0]
        headers, key, scope, amz_date, previous = self.sign("PUT", url, headers, mode)
        signed = not mode.startswith("STREAMING-UNSIGNED")
        body = b""
        pieces = [data[i:i + chunk_size] for i in range(0, len(data), chunk_size)] + [b""]
        for piece in pieces:
            if signed:
                text = "\n".join(["AWS4-HMAC-SHA256-PAYLOAD", amz_date, scope, previous, EMPTY_SHA256,
                                  hashlib.sha256(piece).hexdigest()])
                previous = hmac.new(key, text.encode(), hashlib.sha256).hexdigest()
                body += f"{len(piece):x};chunk-signature={previous}\r\n".encode()
            else:
                body += f"{len(piece):x}\r\n".encode()
            if piece:
                body += piece + b"\r\n"
        if trailer:
            line = f"{trailer[0]}:{trailer[1]}"
            body += line.encode() + b"\r\n"
            if signed:
                text = "\n".join(["AWS4-HMAC-SHA256-TRAILER", amz_date, scope, previous,
                                  hashlib.sha256((line + "\n").encode()).hexdigest()])
                body += b"x-amz-trailer-signature:" + hmac.new(key, text.encode(), hashlib.sha256).hexdigest().encode()
                body += b"\r\n"
        body += b"\r\n"
        if tamper:
            body = tamper(body)
        return self._send("PUT", url, body, headers)

    @staticmethod
    def send_as_is(method: str, url: str, body: bytes, headers: dict | None = None) -> tuple[int, bytes, dict]:
        """`body` sent with no header but `headers` (no Content-Type, which SigV2 signs): a presigned URL used
        as a browser or curl uses it."""
        return HeaderSigner._send(method, url, body, headers or {})

    @staticmethod
    def _send(method: str, url: str, body: bytes, headers: dict) -> tuple[int, bytes, dict]:
        parts = urllib.parse.urlsplit(url)
        headers = {name: value for name, value in headers.items() if name != "host"}
        connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
        connection.request(method, parts.path + ("?" + parts.query if parts.query else ""), body=body,
                           headers=headers)
        response = connection.getresponse()
        answer = response.read(), dict(response.headers)
        connection.close()
        return response.status, answer[0], answer[1]


def crc32(data: bytes) -> str:
    """S3's `x-amz-checksum-crc32` of `data`: base64 of the big-endian CRC."""
    return base64.b64encode(zlib.crc32(data).to_bytes(4, "big")).decode()


def fat(server: str) -> str:
    """A File Access Token of the demo app, minted by the control route."""
    status, body, _ = request(f"{server}/_mockcdn/tokens", "POST",
                              json.dumps({"kind": "fat", "user_id": "alice"}).encode(),
                              {"Content-Type": "application/json"})
    assert status == 200, body
    return json.loads(body)["token"]


class TamperingProxy:
    """A TCP relay in front of a server that changes what a client sends: one byte of each piece it relays that
    holds `MARKER`, so a test body of `Z`s (which no request head, chunk header or signature holds) arrives
    changed after the client signed and checksummed it, and arrives changed again when the client retries.
    With `certificate` and `key` it ends TLS, as a client that sends aws-chunked bodies only over HTTPS needs,
    and relays plain HTTP. Runs its own event loop in a thread; use it in a `with`."""

    MARKER, CHANGED = b"ZZZZZZZZ", b"ZZZZYZZZ"

    def __init__(self, upstream: str, certificate: str | None = None, key: str | None = None):
        parts = urllib.parse.urlsplit(upstream)
        self.upstream = parts.hostname, parts.port
        self.tls = None
        if certificate:
            self.tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
            self.tls.load_cert_chain(certificate, key)
        self.scheme, self.port, self.changed = "https" if certificate else "http", 0, 0
        self._ready = threading.Event()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_until_complete, args=(self._serve(),), daemon=True)

    @property
    def url(self) -> str:
        return f"{self.scheme}://127.0.0.1:{self.port}"

    def __enter__(self) -> "TamperingProxy":
        self._thread.start()
        assert self._ready.wait(30), "the proxy did not start listening"
        return self

    def __exit__(self, *_) -> None:
        self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(30)
        self._loop.close()

    async def _serve(self) -> None:
        self._stop = asyncio.Event()
        listener = await asyncio.start_server(self._relay, "127.0.0.1", 0, ssl=self.tls)
        self.port = listener.sockets[0].getsockname()[1]
        self._ready.set()
        async with listener:
            await self._stop.wait()
        relays = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
        for task in relays:
            task.cancel()
        await asyncio.gather(*relays, return_exceptions=True)

    async def _relay(self, client_reader, client_writer) -> None:
        try:
            server_reader, server_writer = await asyncio.open_connection(*self.upstream)
            await asyncio.gather(self._pipe(client_reader, server_writer, tamper=True),
                                 self._pipe(server_reader, client_writer, tamper=False), return_exceptions=True)
        except asyncio.CancelledError:
            client_writer.close()  # the proxy stops

    async def _pipe(self, reader, writer, tamper: bool) -> None:
        try:
            while data := await reader.read(65536):
                if tamper and self.MARKER in data:
                    data = data.replace(self.MARKER, self.CHANGED, 1)
                    self.changed += 1
                writer.write(data)
                await writer.drain()
        finally:
            writer.close()
