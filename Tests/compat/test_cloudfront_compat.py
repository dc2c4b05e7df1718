"""Compatibility suite: URLs signed by real AWS tooling (botocore's CloudFrontSigner and
`aws cloudfront sign`) against a running MockCDN.

Run from the repository root: ``python3 -m pytest -q Tests/compat``.
The server binary comes from ``$MOCKCDN_BINARY`` (default ``<repo>/.build/debug/mockcdn``).
"""

from __future__ import annotations

import base64
import datetime
import hashlib
import hmac
import json
import os
import re
import shutil
import signal
import struct
import subprocess
import time
import urllib.error
import urllib.request
import uuid
import xml.etree.ElementTree as ET
import zlib
from pathlib import Path

import pytest
from botocore.signers import CloudFrontSigner
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding

REPO = Path(__file__).resolve().parents[2]
BINARY = Path(os.environ.get("MOCKCDN_BINARY", REPO / ".build" / "debug" / "mockcdn"))
PRIVATE_KEY = REPO / "Fixtures" / "keys" / "demo-K2JCJMDEHXQW5F.private.pem"
KEY_PAIR_ID = "K2JCJMDEHXQW5F"
API_KEY = "demo-key"
API_SECRET = "demo-secret-for-local-testing-only"

FILE_BYTES = b"MockCDN CloudFront compat \x00\x01\x02\xff payload\n"


# --------------------------------------------------------------------------- helpers


def _b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def _jwt(user_id: str = "alice") -> str:
    header = _b64url(json.dumps({"alg": "HS256", "typ": "JWT"}, separators=(",", ":")).encode())
    payload = _b64url(json.dumps({"user_id": user_id}, separators=(",", ":")).encode())
    signing_input = f"{header}.{payload}".encode("ascii")
    signature = _b64url(hmac.new(API_SECRET.encode(), signing_input, hashlib.sha256).digest())
    return f"{header}.{payload}.{signature}"


def _png(width: int = 8, height: int = 8) -> bytes:
    """A small valid RGB PNG built with the standard library."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    rows = b"".join(
        b"\x00" + b"".join(bytes((x * 30 % 256, y * 30 % 256, 128)) for x in range(width))
        for y in range(height)
    )
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


def _request(url: str, method: str = "GET", body: bytes | None = None, headers: dict | None = None):
    """Returns (status, body bytes, headers) without raising on HTTP errors."""
    req = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status, resp.read(), resp.headers
    except urllib.error.HTTPError as err:
        return err.code, err.read(), err.headers


def _json(url: str, method: str, payload: dict) -> dict:
    status, body, _ = _request(
        url, method, json.dumps(payload).encode(), {"Content-Type": "application/json"}
    )
    assert status == 200, f"{method} {url} -> {status}: {body[:300]!r}"
    return json.loads(body)


def _upload(base: str, kind: str, filename: str, content_type: str, data: bytes) -> str:
    """Uploads through the Stream-compatible endpoint and returns the signed URL MockCDN issued."""
    boundary = "compat" + uuid.uuid4().hex
    body = (
        f"--{boundary}\r\n"
        f'Content-Disposition: form-data; name="file"; filename="{filename}"\r\n'
        f"Content-Type: {content_type}\r\n\r\n"
    ).encode() + data + f"\r\n--{boundary}--\r\n".encode()
    status, resp, _ = _request(
        f"{base}/channels/messaging/general/{kind}?api_key={API_KEY}",
        "POST",
        body,
        {
            "Authorization": f"Bearer {_jwt()}",
            "stream-auth-type": "jwt",
            "Content-Type": f"multipart/form-data; boundary={boundary}",
        },
    )
    assert status == 201, f"upload {kind} -> {status}: {resp[:500]!r}"
    return json.loads(resp)["file"]


def _assert_denied(status: int, body: bytes, rule: str, url: str) -> None:
    assert status == 403, f"GET {url}\nexpected 403 ({rule}), got {status}: {body[:400]!r}"
    root = ET.fromstring(body)
    assert root.tag == "Error", body
    assert root.findtext("Code") == "AccessDenied", body
    message = root.findtext("Message") or ""
    assert rule.lower() in message.lower(), f"GET {url}\nexpected message naming {rule!r}, got {message!r}"


def _tamper_signature(url: str) -> str:
    """Changes one character in the middle of the Signature value (middle characters carry full
    6 bits, unlike the last ones before the `_` padding)."""
    match = re.search(r"([?&]Signature=)([^&]+)", url)
    assert match, url
    sig = match.group(2)
    i = len(sig) // 2
    replacement = "B" if sig[i] != "B" else "C"
    tampered = sig[:i] + replacement + sig[i + 1 :]
    return url[: match.start(2)] + tampered + url[match.end(2) :]


def _rsa_signer():
    key = serialization.load_pem_private_key(PRIVATE_KEY.read_bytes(), password=None)

    def sign(message: bytes) -> bytes:
        return key.sign(message, padding.PKCS1v15(), hashes.SHA1())

    return sign


# --------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def server():
    if not BINARY.exists():
        pytest.fail(f"MockCDN binary not found at {BINARY} (set MOCKCDN_BINARY)")
    proc = subprocess.Popen(
        [str(BINARY), "serve", "--port", "0", "--log-level", "warning"],
        stdout=subprocess.PIPE,
        stderr=None,
        text=True,
    )
    try:
        first = proc.stdout.readline()
        match = re.match(r"mockcdn ready on (http://127\.0\.0\.1:(\d+))", first)
        assert match, f"unexpected first line: {first!r} (exit code {proc.poll()})"
        proc.stdout.readline()  # demo app keys
        yield match.group(1)
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            code = proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            pytest.fail("mockcdn did not exit within 20 s of SIGTERM")
    assert code == 0, f"mockcdn exited with {code} after SIGTERM"


@pytest.fixture(scope="module")
def uploaded(server):
    """A file attachment and an image, uploaded once; returns their MockCDN-issued signed URLs."""
    file_url = _upload(server, "file", "compat.bin", "application/octet-stream", FILE_BYTES)
    image_bytes = _png()
    image_url = _upload(server, "image", "compat.png", "image/png", image_bytes)
    assert file_url.startswith(f"{server}/demo/attachments/"), file_url
    assert image_url.startswith(f"{server}/demo/images/"), image_url
    return {
        "file_signed": file_url,
        "file": file_url.split("?", 1)[0],
        "image_signed": image_url,
        "image": image_url.split("?", 1)[0],
        "image_bytes": image_bytes,
    }


@pytest.fixture(scope="module")
def signer():
    return CloudFrontSigner(KEY_PAIR_ID, _rsa_signer())


@pytest.fixture
def expiry(server):
    """An expiry one hour after the server clock (which starts at real time)."""
    status, body, _ = _request(f"{server}/_mockcdn/clock")
    assert status == 200, body
    now = int(json.loads(body)["now"])
    return datetime.datetime.fromtimestamp(now + 3600, tz=datetime.timezone.utc).replace(microsecond=0)


@pytest.fixture
def canned_url(uploaded, signer, expiry):
    return signer.generate_presigned_url(uploaded["file"], date_less_than=expiry)


@pytest.fixture
def custom_url(server, uploaded, signer, expiry):
    policy = signer.build_policy(f"{server}/demo/attachments/*", expiry)
    return signer.generate_presigned_url(uploaded["file"], policy=policy), policy


def _reset_clock(server: str) -> None:
    _json(f"{server}/_mockcdn/clock", "PUT", {"now": int(time.time())})


# --------------------------------------------------------------------------- cases


def test_1_canned_url_from_botocore_returns_uploaded_bytes(canned_url):
    status, body, _ = _request(canned_url)
    assert status == 200, f"GET {canned_url} -> {status}: {body[:300]!r}"
    assert body == FILE_BYTES


def test_2a_custom_policy_wildcard_covers_object(custom_url):
    url, _ = custom_url
    assert "Policy=" in url and "Expires=" not in url
    status, body, _ = _request(url)
    assert status == 200, f"GET {url} -> {status}: {body[:300]!r}"
    assert body == FILE_BYTES


def test_2b_custom_policy_on_uncovered_path_is_denied(uploaded, signer, custom_url):
    _, policy = custom_url
    # The image exists under /demo/images/, which the attachments wildcard does not cover.
    url = signer.generate_presigned_url(uploaded["image"], policy=policy)
    status, body, _ = _request(url)
    _assert_denied(status, body, "Resource is not covered by the policy", url)


@pytest.mark.parametrize("kind", ["canned", "custom"])
def test_3_tampered_signature_is_denied(kind, canned_url, custom_url):
    url = canned_url if kind == "canned" else custom_url[0]
    tampered = _tamper_signature(url)
    assert tampered != url
    status, body, _ = _request(tampered)
    _assert_denied(status, body, "Signature does not match", tampered)


@pytest.mark.parametrize("kind", ["canned", "custom"])
def test_4_expiry_follows_server_clock(kind, server, canned_url, custom_url, expiry):
    url = canned_url if kind == "canned" else custom_url[0]
    try:
        _json(f"{server}/_mockcdn/clock", "PUT", {"now": int(expiry.timestamp()) + 1})
        status, body, _ = _request(url)
        _assert_denied(status, body, "Request has expired", url)
    finally:
        _reset_clock(server)
    status, body, _ = _request(url)
    assert status == 200, f"after clock reset GET {url} -> {status}: {body[:300]!r}"
    assert body == FILE_BYTES


def test_5_aws_cli_cloudfront_sign(uploaded):
    aws = shutil.which("aws")
    if aws is None:
        pytest.fail("awscli is not installed (make test installs it with pip)")
    date_less_than = (datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(days=2)).date()
    env = dict(os.environ)
    # `aws cloudfront sign` signs locally, but the CLI still wants a region and credentials to exist.
    env.setdefault("AWS_DEFAULT_REGION", "us-east-1")
    env.setdefault("AWS_ACCESS_KEY_ID", "compat-dummy")
    env.setdefault("AWS_SECRET_ACCESS_KEY", "compat-dummy")
    result = subprocess.run(
        [
            aws, "cloudfront", "sign",
            "--url", uploaded["file"],
            "--key-pair-id", KEY_PAIR_ID,
            "--private-key", f"file://{PRIVATE_KEY}",
            "--date-less-than", date_less_than.isoformat(),
        ],
        env=env, capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0, result.stderr
    url = result.stdout.strip()
    assert url.startswith(uploaded["file"] + "?Expires="), url
    status, body, _ = _request(url)
    assert status == 200, f"GET {url} -> {status}: {body[:300]!r}"
    assert body == FILE_BYTES


@pytest.mark.parametrize("which", ["file_signed", "image_signed"])
def test_6_image_transform_params_on_issued_link(which, uploaded):
    url = uploaded[which] + "&w=100&h=*&resize=clip&ro=0"
    status, body, _ = _request(url)
    assert status == 200, f"GET {url} -> {status}: {body[:300]!r}"
    if which == "file_signed":
        assert body == FILE_BYTES
    else:
        assert body.startswith(b"\x89PNG\r\n\x1a\n"), body[:16]


@pytest.mark.parametrize("which", ["file", "image"])
def test_7_no_query_is_unauthorized(which, uploaded):
    url = uploaded[which]
    assert "?" not in url
    status, body, _ = _request(url)
    assert status == 401, f"GET {url} -> {status}: {body[:300]!r}"
