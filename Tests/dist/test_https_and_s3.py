"""make dist-check: the shipped binary speaks HTTPS (`--tls-certificate`, `--tls-key`) and S3 in the clean root.

boto3 runs here, on the build machine's side, with its defaults (only the endpoint, the demo app's keys and,
over HTTPS, the throwaway certificate to trust); the server runs inside the clean root as the other dist tests
start it. Over plain HTTP botocore signs the payload and sends it whole; over HTTPS it leaves the payload
unsigned and sends an aws-chunked body with a CRC32 trailer (`STREAMING-UNSIGNED-PAYLOAD-TRAILER`).
"""

from __future__ import annotations

import base64
import hashlib
import http.client
import json
import os
import ssl
import struct
import subprocess
import urllib.request
import uuid
import zlib

import boto3
import pytest

from conftest import fetch

API_KEY = "demo-key"
API_SECRET = "demo-secret-for-local-testing-only"
#: 1 MiB: more than one aws-chunked chunk, below boto3's multipart threshold, so one PutObject.
DATA = bytes(range(256)) * 4096
#: DATA's CRC32 as botocore sends it, big-endian in base64.
CRC32 = base64.b64encode(struct.pack(">I", zlib.crc32(DATA))).decode()


@pytest.fixture(autouse=True)
def no_aws_configuration(monkeypatch):
    """boto3 with its defaults: no `AWS_*` variable and no config or credentials file of this machine's."""
    for name in list(os.environ):
        if name.startswith("AWS_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("AWS_CONFIG_FILE", "/dev/null")
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", "/dev/null")


@pytest.fixture(scope="module")
def tls(root, tmp_path_factory):
    """A throwaway self-signed certificate for 127.0.0.1, made with the host's openssl: the host's copy of
    the certificate (for the clients to trust) and the paths of both files inside the root (readable by
    nobody, the server's user)."""
    folder = tmp_path_factory.mktemp("tls")
    certificate, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=localhost",
                    "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost", "-keyout", str(key), "-out",
                    str(certificate)], check=True, capture_output=True, timeout=60)
    inside = f"/tmp/tls-{uuid.uuid4().hex}"
    return (str(certificate), root.put(f"{inside}/cert.pem", certificate.read_bytes()),
            root.put(f"{inside}/key.pem", key.read_bytes()))


@pytest.fixture(scope="module")
def https_base(root, tls):
    """The shipped binary serving HTTPS: `mockcdn serve --tls-certificate ... --tls-key ...`."""
    _, certificate, key = tls
    with root.serve("--tls-certificate", certificate, "--tls-key", key) as url:
        yield url


def s3_client(url: str, verify: str | None = None):
    return boto3.session.Session().client("s3", endpoint_url=url, aws_access_key_id=API_KEY,
                                          aws_secret_access_key=API_SECRET, verify=verify)


def put_and_get(s3) -> dict:
    """A PutObject then a GetObject of DATA with boto3's defaults; returns PutObject's request headers."""
    key = f"dist/{uuid.uuid4()}.bin"
    sent = []
    s3.meta.events.register("before-send.s3.PutObject", lambda request, **_: sent.append(dict(request.headers)))
    s3.put_object(Bucket="demo", Key=key, Body=DATA)
    answer = s3.get_object(Bucket="demo", Key=key)
    assert answer["ContentLength"] == len(DATA)
    assert answer["Body"].read() == DATA
    return {name.lower(): value.decode() if isinstance(value, bytes) else value for name, value in sent[0].items()}


def test_https_ready_line_and_answers(https_base, tls):
    assert https_base.startswith("https://127.0.0.1:"), https_base
    context = ssl.create_default_context(cafile=tls[0])
    with urllib.request.urlopen(https_base + "/_mockcdn/health", context=context, timeout=60) as answer:
        assert answer.status == 200 and json.loads(answer.read())["status"] == "ok"
    # Only TLS is spoken there: a plain HTTP request to the same port gets no HTTP answer.
    with pytest.raises((OSError, http.client.HTTPException)):
        fetch(https_base.replace("https://", "http://") + "/_mockcdn/health")


def test_boto3_put_and_get_object_over_http(base):
    assert base.startswith("http://")
    headers = put_and_get(s3_client(base))
    # Plain HTTP: the payload is signed (its SHA-256) and sent whole, its CRC32 in a header.
    assert headers["x-amz-content-sha256"] == hashlib.sha256(DATA).hexdigest(), headers
    assert headers["x-amz-checksum-crc32"] == CRC32, headers
    assert "x-amz-trailer" not in headers and "content-encoding" not in headers, headers


def test_boto3_put_and_get_object_over_https_aws_chunked_with_a_crc32_trailer(https_base, tls):
    headers = put_and_get(s3_client(https_base, verify=tls[0]))
    assert headers["x-amz-content-sha256"] == "STREAMING-UNSIGNED-PAYLOAD-TRAILER", headers
    assert headers["x-amz-trailer"] == "x-amz-checksum-crc32", headers
    assert "aws-chunked" in headers["content-encoding"], headers
    assert headers["x-amz-decoded-content-length"] == str(len(DATA)), headers
