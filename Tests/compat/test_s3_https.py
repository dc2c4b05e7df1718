"""S3 over HTTPS (`--tls-certificate`), where botocore's defaults differ from plain HTTP: it leaves the payload
unsigned and sends `put_object` and `upload_fileobj` bodies aws-chunked with a CRC32 trailer
(`STREAMING-UNSIGNED-PAYLOAD-TRAILER`). Only the endpoint, the keys and the test CA are set.

Run from the repository root: ``python3 -m pytest -q Tests/compat/test_s3_https.py``.
"""

from __future__ import annotations

import io
import json
import ssl
import subprocess
import urllib.request
import uuid

import boto3
import pytest

from conftest import launch
from support import API_KEY, API_SECRET

pytestmark = pytest.mark.usefixtures("no_aws_configuration")


@pytest.fixture(scope="module")
def tls_server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tls")
    certificate, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=localhost",
                    "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost", "-keyout", str(key), "-out",
                    str(certificate)], check=True, capture_output=True, timeout=60)
    with launch("--tls-certificate", str(certificate), "--tls-key", str(key)) as server:
        yield server.url, str(certificate)


def client(tls_server):
    url, certificate = tls_server
    return boto3.session.Session().client("s3", endpoint_url=url, aws_access_key_id=API_KEY,
                                          aws_secret_access_key=API_SECRET, verify=certificate)


class OneWay(io.RawIOBase):
    """A stream that can only be read forward, as a pipe or a socket: boto3 cannot seek it to hash it."""

    def __init__(self, data: bytes):
        self.data, self.offset = data, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        piece = self.data[self.offset:self.offset + len(buffer)]
        buffer[:len(piece)] = piece
        self.offset += len(piece)
        return len(piece)


def test_the_ready_line_says_https(tls_server):
    assert tls_server[0].startswith("https://127.0.0.1:")


def test_put_object_over_https_is_aws_chunked_with_a_checksum_trailer(tls_server):
    s3, key = client(tls_server), f"tls/{uuid.uuid4()}.bin"
    sent = []
    s3.meta.events.register("before-send.s3.PutObject", lambda request, **_: sent.append(dict(request.headers)))
    data = bytes(range(256)) * 4096
    s3.put_object(Bucket="demo", Key=key, Body=data)
    headers = {name.lower(): value for name, value in sent[0].items()}
    assert headers["x-amz-content-sha256"] == b"STREAMING-UNSIGNED-PAYLOAD-TRAILER"
    assert headers["x-amz-trailer"] == b"x-amz-checksum-crc32"
    assert s3.get_object(Bucket="demo", Key=key)["Body"].read() == data
    context = ssl.create_default_context(cafile=tls_server[1])
    with urllib.request.urlopen(f"{tls_server[0]}/_mockcdn/requests", context=context, timeout=30) as answer:
        entries = json.loads(answer.read())["requests"]
    entry = [entry for entry in entries if entry["path"] == f"/demo/{key}"][0]
    assert (entry["method"], entry["status"], entry["credential"]) == ("PUT", 200, "s3-header-sigv4")


def test_upload_fileobj_of_a_one_way_stream(tls_server):
    s3, key = client(tls_server), f"tls/{uuid.uuid4()}.bin"
    data = b"stream " * 150_000  # 1 MiB: one PutObject below boto3's multipart threshold
    s3.upload_fileobj(io.BufferedReader(OneWay(data)), "demo", key)
    assert s3.get_object(Bucket="demo", Key=key)["Body"].read() == data
